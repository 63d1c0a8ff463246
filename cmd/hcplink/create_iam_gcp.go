package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	iam "google.golang.org/api/iam/v1"

	"github.com/hcplink/hcplink/internal/infra/gcpiam"
	"github.com/hcplink/hcplink/internal/install"
)

// envAccessToken, when set, signs the calls with that access token (as
// gcloud auth print-access-token gives) instead of the Application Default
// Credentials; Terraform's Google provider reads the same variable.
const envAccessToken = "GOOGLE_OAUTH_ACCESS_TOKEN"

// gcpIAMFlags are the flags create and destroy iam gcp share: a cluster's
// control-plane operator identity, or with --operator the management
// operator's.
type gcpIAMFlags struct {
	opts     gcpiam.Options
	operator bool
	op       gcpiam.OperatorOptions
}

func (f *gcpIAMFlags) bind(cmd *cobra.Command, create bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.opts.InfraID, "infra-id", "", "the cluster's infra ID: names the service account cpo-<infra-id>")
	fl.StringVar(&f.opts.ProjectID, "project-id", "", "the cluster's project (spec.platform.gcp.project); with --operator the management project")
	fl.StringVar(&f.opts.NetworkProjectID, "network-project-id", "", "the project of the cluster's VPC network, when it is another (Shared VPC): the role is granted there too")
	fl.StringVar(&f.opts.Pool, "pool", gcpiam.DefaultPool, "the workload identity pool in the cluster's project, shared by hcplink's clusters there")
	fl.StringVar(&f.opts.Provider, "pool-provider", "", "the pool provider's ID for this management cluster (default: mc- and a hash of --oidc-issuer-url)")
	fl.StringVar(&f.opts.IssuerURL, "oidc-issuer-url", "", "the management cluster's service-account issuer (https://...), which the pool provider trusts")
	fl.BoolVar(&f.operator, "operator", false, "the management operator's own service account, in the management project, instead of a cluster's")
	fl.StringVar(&f.op.AccountID, "operator-account", gcpiam.DefaultOperatorAccount, "with --operator: the service account's ID")
	cmd.MarkFlagsMutuallyExclusive("operator", "infra-id")
	cmd.MarkFlagsMutuallyExclusive("operator", "network-project-id")
	if !create {
		return
	}
	fl.StringVar(&f.opts.Namespace, "namespace", "clusters", "the HostedCluster's namespace (its control-plane operator alone may act as the account); with --operator install's namespace (default "+install.DefaultNamespace+")")
	fl.StringVar(&f.opts.Name, "name", "", "the HostedCluster's name")
	fl.StringVar(&f.op.KeyFile, "key-file", "", "with --operator: write a key of the account to this file (0600), for install's --gcp-creds; kept if it holds a live key")
	fl.BoolVar(&f.op.WorkloadIdentity, "workload-identity", false, "with --operator: let install's ServiceAccount act as the account through GKE's workload identity, for install's --gcp-workload-identity-service-account")
	cmd.MarkFlagsMutuallyExclusive("operator", "name")
	cmd.MarkFlagsMutuallyExclusive("key-file", "workload-identity")
}

// operatorOptions are the flags' options for --operator.
func (f *gcpIAMFlags) operatorOptions(cmd *cobra.Command) gcpiam.OperatorOptions {
	o := f.op
	o.ProjectID, o.Namespace = f.opts.ProjectID, f.opts.Namespace
	if fl := cmd.Flags().Lookup("namespace"); fl == nil || !fl.Changed {
		o.Namespace = install.DefaultNamespace
	}
	return o
}

// refuseFlagsOfTheOtherKind refuses flags that would be ignored.
func (f *gcpIAMFlags) refuseFlagsOfTheOtherKind(cmd *cobra.Command) error {
	operatorOnly := []string{"operator-account", "key-file", "workload-identity"}
	clusterOnly := []string{"pool", "pool-provider", "oidc-issuer-url"}
	names, need := operatorOnly, "add --operator"
	if f.operator {
		names, need = clusterOnly, "they are for a cluster's identity, not --operator"
	}
	for _, name := range names {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("--%s: %s", name, need)
		}
	}
	return nil
}

// gcpIAMClients signs in with GOOGLE_OAUTH_ACCESS_TOKEN or else the
// Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's
// application-default login, or the metadata server), against Google or
// the endpoints HCPLINK_GCP_IAM_ENDPOINT and
// HCPLINK_GCP_RESOURCE_MANAGER_ENDPOINT name.
func gcpIAMClients(cmd *cobra.Command) (gcpiam.Clients, error) {
	var tokens oauth2.TokenSource
	if token := os.Getenv(envAccessToken); token != "" {
		tokens = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token, TokenType: "Bearer"})
	} else {
		creds, err := google.FindDefaultCredentials(cmd.Context(), iam.CloudPlatformScope)
		if err != nil {
			return gcpiam.Clients{}, fmt.Errorf("signing in to Google Cloud (set GOOGLE_APPLICATION_CREDENTIALS, run gcloud auth application-default login, or set %s): %w", envAccessToken, err)
		}
		tokens = creds.TokenSource
	}
	return gcpiam.NewClients(cmd.Context(), tokens, os.Getenv(gcpiam.EnvIAMEndpoint), os.Getenv(gcpiam.EnvResourceManagerEndpoint))
}

func newCreateIAMGCPCommand() *cobra.Command {
	var f gcpIAMFlags
	var output *outputFlags
	cmd := &cobra.Command{
		Use:   "gcp",
		Short: "Create the Google service account a private GCP cluster's control-plane operator signs in as, or the management operator's",
		Long: `Creates, signed in with GOOGLE_OAUTH_ACCESS_TOKEN or the Application Default Credentials
(HCPLINK_GCP_IAM_ENDPOINT and HCPLINK_GCP_RESOURCE_MANAGER_ENDPOINT for another endpoint), in the
cluster's project: the workload identity pool --pool (default hcplink, shared by hcplink's
clusters in the project) and its OIDC provider trusting the management cluster's issuer (one per
management cluster); the custom role hcplinkControlPlaneOperator of exactly the control-plane
operator's permissions (hcplink permissions gcp control-plane-operator), in the cluster's project
and --network-project-id's; the service account cpo-<infra-id> bound to that role there; and
roles/iam.workloadIdentityUser on the account for exactly
system:serviceaccount:<namespace>-<name>:control-plane-operator through the provider. The
output's poolProvider and serviceAccount go into the HostedCluster
(spec.platform.gcp.workloadIdentity.poolProvider and serviceAccountsEmails.controlPlaneOperator).
What hcplink makes says "Made by hcplink" in its description; an account or role of the same ID
that does not is refused, never adopted. Re-running is safe: it finds what exists and changes
nothing.

--operator instead creates the management operator's service account (--operator-account,
default hcplink-operator) in the management project (--project-id), the custom role
hcplinkManagementOperator of exactly the management operator's permissions bound to it there,
and its sign-in: --key-file writes a key for install's --gcp-creds, or --workload-identity lets
install's ServiceAccount (<namespace>/hcplink-operator) act as it through GKE's workload identity.
Its output's installFlags are install's flags for this account; a line on stderr prints the
install command.

Whoever runs it needs, on each project: roles/iam.roleAdmin, roles/iam.serviceAccountAdmin,
roles/iam.serviceAccountKeyAdmin (for --key-file), roles/iam.workloadIdentityPoolAdmin and
roles/resourcemanager.projectIamAdmin.`,
		Example: `  hcplink create iam gcp --infra-id demo-x1 --namespace clusters --name demo \
    --project-id customer-project --oidc-issuer-url https://oidc.mgmt.example.com --output-file iam.json

  # The management operator's service account, with a key for install:
  hcplink create iam gcp --operator --project-id hcp-management --key-file operator-key.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.refuseFlagsOfTheOtherKind(cmd); err != nil {
				return err
			}
			clients, err := gcpIAMClients(cmd)
			if err != nil {
				return err
			}
			if f.operator {
				out, err := gcpiam.CreateOperator(cmd.Context(), clients, cmd.ErrOrStderr(), f.operatorOptions(cmd))
				if err != nil {
					return rerunIsSafe(err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "install the operator as this account: hcplink install --image <image> %s --gcp-region <region> --gcp-network <network>\n",
					strings.Join(out.InstallFlags, " "))
				return output.writeResult(cmd, out)
			}
			out, err := gcpiam.Create(cmd.Context(), clients, cmd.ErrOrStderr(), f.opts)
			if err != nil {
				return rerunIsSafe(err)
			}
			return output.writeResult(cmd, out)
		},
	}
	f.bind(cmd, true)
	output = bindOutput(cmd, formatJSON, formatYAML, formatText)
	return cmd
}

func newDestroyIAMGCPCommand() *cobra.Command {
	var f gcpIAMFlags
	cmd := &cobra.Command{
		Use:   "gcp",
		Short: "Delete a cluster's control-plane operator service account and its bindings, or the management operator's",
		Long: `Deletes what create iam gcp made: the account's bindings in the cluster's project (and
--network-project-id's), then the account. When it was the project's last hcplink control-plane
operator, the shared custom role, the pool provider (named by --pool-provider or derived from
--oidc-issuer-url) and the pool go too. With --operator: the management operator's binding,
account (its keys with it) and custom role. Only what says "Made by hcplink" is deleted; anything
else is left and said on stderr. A deleted role, pool or provider keeps its ID for a while, as
Google does; create undeletes it.`,
		Example: `  hcplink destroy iam gcp --infra-id demo-x1 --project-id customer-project --oidc-issuer-url https://oidc.mgmt.example.com
  hcplink destroy iam gcp --operator --project-id hcp-management`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.refuseFlagsOfTheOtherKind(cmd); err != nil {
				return err
			}
			clients, err := gcpIAMClients(cmd)
			if err != nil {
				return err
			}
			if f.operator {
				return gcpiam.DestroyOperator(cmd.Context(), clients, cmd.ErrOrStderr(), f.operatorOptions(cmd))
			}
			return gcpiam.Destroy(cmd.Context(), clients, cmd.ErrOrStderr(), f.opts)
		},
	}
	f.bind(cmd, false)
	return cmd
}
