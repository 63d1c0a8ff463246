package gcpiam

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	iam "google.golang.org/api/iam/v1"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// OperatorOptions say which management project the management operator's
// identity is for, and how the operator signs in as it: a key written to
// KeyFile, or GKE's workload identity for install's ServiceAccount.
type OperatorOptions struct {
	// ProjectID is the management project (install's --gcp-project).
	ProjectID string
	// AccountID names the service account (DefaultOperatorAccount when empty).
	AccountID string
	// KeyFile, when set, is where a key of the account is written (0600),
	// for install's --gcp-creds; an existing file holding a live key of the
	// account is kept.
	KeyFile string
	// WorkloadIdentity lets install's ServiceAccount (Namespace/hcplink-operator)
	// act as the account through GKE's workload identity pool
	// (<project>.svc.id.goog), for install's
	// --gcp-workload-identity-service-account.
	WorkloadIdentity bool
	// Namespace is where install runs the operator (install's --namespace);
	// needed with WorkloadIdentity.
	Namespace string
}

// OperatorOutput is what install needs and what was made.
type OperatorOutput struct {
	Project        string `json:"project"`
	ServiceAccount string `json:"serviceAccount"`
	Role           string `json:"role"`
	KeyFile        string `json:"keyFile,omitempty"`
	// Member is the Kubernetes ServiceAccount allowed to act as the
	// account, with WorkloadIdentity.
	Member string `json:"member,omitempty"`
	// InstallFlags are hcplink install's flags that run the operator as
	// this account (add --gcp-region and --gcp-network).
	InstallFlags []string `json:"installFlags"`
}

func (o OperatorOptions) withDefaults() OperatorOptions {
	if o.AccountID == "" {
		o.AccountID = DefaultOperatorAccount
	}
	return o
}

func (o OperatorOptions) validate(create bool) error {
	switch {
	case !projectPattern.MatchString(o.ProjectID):
		return fmt.Errorf("--project-id must be the management project's ID")
	case len(o.AccountID) < 6 || len(o.AccountID) > 30 || !projectPattern.MatchString(o.AccountID):
		return fmt.Errorf("--operator-account must be 6 to 30 lower-case letters, digits or hyphens, starting with a letter")
	case create && o.WorkloadIdentity && o.Namespace == "":
		return fmt.Errorf("--namespace is required with --workload-identity: install's namespace, whose hcplink-operator ServiceAccount acts as the account")
	case create && (o.KeyFile == "") == !o.WorkloadIdentity:
		return fmt.Errorf("say how the operator signs in: exactly one of --key-file (a key for install's --gcp-creds) or --workload-identity (GKE's, for install's --gcp-workload-identity-service-account)")
	}
	return nil
}

// operatorDescription marks the management operator's account.
const operatorDescription = madeBy + ": the management operator"

func ownsOperator(d string) bool { return d == operatorDescription }

// gkeMember is install's ServiceAccount as GKE's workload identity names it.
func (o OperatorOptions) gkeMember() string {
	return "serviceAccount:" + o.ProjectID + ".svc.id.goog[" + o.Namespace + "/" + operatorServiceAccount + "]"
}

// CreateOperator makes, or finds and completes, the management operator's
// service account, its custom role (exactly the management operator's
// permissions) bound in the management project, and its sign-in.
func CreateOperator(ctx context.Context, c Clients, log io.Writer, o OperatorOptions) (*OperatorOutput, error) {
	o = o.withDefaults()
	if err := o.validate(true); err != nil {
		return nil, err
	}
	sa, err := ensureAccount(ctx, c, log, o.ProjectID, o.AccountID, "hcplink management operator", operatorDescription, ownsOperator)
	if err != nil {
		return nil, err
	}
	role, err := ensureRole(ctx, c, log, o.ProjectID, gcpcloud.ManagementOperator)
	if err != nil {
		return nil, err
	}
	if err := setProjectBinding(ctx, c, log, o.ProjectID, binding{role, "serviceAccount:" + sa.Email}, true); err != nil {
		return nil, err
	}
	out := &OperatorOutput{Project: o.ProjectID, ServiceAccount: sa.Email, Role: role,
		InstallFlags: []string{"--private-platform", "GCP", "--gcp-project", o.ProjectID}}
	if o.WorkloadIdentity {
		out.Member = o.gkeMember()
		if err := setAccountBinding(ctx, c, log, sa.Email, binding{gcpcloud.SignInRole, out.Member}, true); err != nil {
			return nil, err
		}
		out.InstallFlags = append(out.InstallFlags, "--namespace", o.Namespace, "--gcp-workload-identity-service-account", sa.Email)
		return out, nil
	}
	if err := ensureKey(ctx, c, log, sa, o.KeyFile); err != nil {
		return nil, err
	}
	out.KeyFile = o.KeyFile
	out.InstallFlags = append(out.InstallFlags, "--gcp-creds", o.KeyFile)
	return out, nil
}

// ensureKey keeps a key file that holds a live key of the account, and
// otherwise makes a key and writes its file.
func ensureKey(ctx context.Context, c Clients, log io.Writer, sa *iam.ServiceAccount, path string) error {
	resource := "projects/" + sa.ProjectId + "/serviceAccounts/" + sa.Email
	if b, err := os.ReadFile(path); err == nil {
		var file struct {
			Email string `json:"client_email"`
			KeyID string `json:"private_key_id"`
		}
		if json.Unmarshal(b, &file) == nil && file.Email == sa.Email {
			keys, err := c.IAM.Projects.ServiceAccounts.Keys.List(resource).Context(ctx).Do()
			if err != nil {
				return gcpcloud.Wrap("listing "+sa.Email+"'s keys", err)
			}
			if slices.ContainsFunc(keys.Keys, func(k *iam.ServiceAccountKey) bool { return k.Name == resource+"/keys/"+file.KeyID }) {
				logf(log, "key of %s in %s: exists", sa.Email, path)
				return nil
			}
		}
		return fmt.Errorf("%s exists and holds no live key of %s: move it away, and run again to write a new key", path, sa.Email)
	}
	key, err := c.IAM.Projects.ServiceAccounts.Keys.Create(resource, &iam.CreateServiceAccountKeyRequest{
		PrivateKeyType: "TYPE_GOOGLE_CREDENTIALS_FILE"}).Context(ctx).Do()
	if err != nil {
		return gcpcloud.Wrap("creating a key of "+sa.Email, err)
	}
	file, err := base64.StdEncoding.DecodeString(key.PrivateKeyData)
	if err != nil {
		return fmt.Errorf("reading the key IAM answered: %w", err)
	}
	if err := os.WriteFile(path, file, 0o600); err != nil {
		return fmt.Errorf("writing the key file: %w", err)
	}
	logf(log, "key of %s: created, written to %s", sa.Email, path)
	return nil
}

// DestroyOperator deletes what CreateOperator made: the project binding,
// the service account (its keys and policy with it) and the custom role,
// each only when hcplink made it. A key file on disk is left.
func DestroyOperator(ctx context.Context, c Clients, log io.Writer, o OperatorOptions) error {
	o = o.withDefaults()
	if err := o.validate(false); err != nil {
		return err
	}
	sa, err := ownedAccount(ctx, c, log, o.ProjectID, o.AccountID, ownsOperator)
	if err != nil {
		return err
	}
	if sa != nil {
		role := "projects/" + o.ProjectID + "/roles/" + gcpcloud.RoleID(gcpcloud.ManagementOperator)
		if err := setProjectBinding(ctx, c, log, o.ProjectID, binding{role, "serviceAccount:" + sa.Email}, false); err != nil {
			return err
		}
		if err := deleteAccount(ctx, c, log, sa); err != nil {
			return err
		}
	}
	return deleteRole(ctx, c, log, o.ProjectID, gcpcloud.ManagementOperator)
}
