package gcpiam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	crm "google.golang.org/api/cloudresourcemanager/v1"
	iam "google.golang.org/api/iam/v1"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// Create makes, or finds and completes, a cluster's control-plane operator
// identity: the pool and its provider trusting the management cluster's
// issuer, the control-plane operator's custom role in the cluster's
// project (and the network's), the service account cpo-<infraID> bound to
// it there, and the one subject allowed to act as it. One line per
// resource goes to log; running it again changes nothing.
func Create(ctx context.Context, c Clients, log io.Writer, o Options) (*Output, error) {
	o = o.withDefaults()
	if err := o.validate(true); err != nil {
		return nil, err
	}
	// The account first: one of its name that is not hcplink's stops
	// everything before anything is made.
	owned := func(d string) bool { return ownsCPO(d, o.InfraID) }
	sa, err := ensureAccount(ctx, c, log, o.ProjectID, ServiceAccountID(o.InfraID), "hcplink control-plane operator "+o.InfraID, cpoDescription(o), owned)
	if err != nil {
		return nil, err
	}
	provider, err := trust(ctx, c, log, o)
	if err != nil {
		return nil, err
	}
	out := &Output{InfraID: o.InfraID, Project: o.ProjectID, ServiceAccount: sa.Email, PoolProvider: provider, Issuer: o.IssuerURL,
		Subject: Subject(o.Namespace, o.Name)}
	for _, project := range o.projects() {
		role, err := ensureRole(ctx, c, log, project, gcpcloud.ControlPlaneOperator)
		if err != nil {
			return nil, err
		}
		if err := setProjectBinding(ctx, c, log, project, binding{role, "serviceAccount:" + sa.Email}, true); err != nil {
			return nil, err
		}
		out.Role, out.BoundProjects = role, append(out.BoundProjects, project)
	}
	member := "principal://iam.googleapis.com/" + strings.TrimSuffix(provider, "/providers/"+o.Provider) + "/subject/" + out.Subject
	if err := setAccountBinding(ctx, c, log, sa.Email, binding{gcpcloud.SignInRole, member}, true); err != nil {
		return nil, err
	}
	return out, nil
}

// Trust makes, or finds, the pool of o.ProjectID and its provider trusting
// o.IssuerURL — what Create makes with a project's first cluster — and
// returns the provider's name. devenv calls it at start, so that its
// clusters do not wait on the pool's operations.
func Trust(ctx context.Context, c Clients, log io.Writer, o Options) (string, error) {
	o = o.withDefaults()
	switch {
	case !projectPattern.MatchString(o.ProjectID):
		return "", fmt.Errorf("--project-id must be a project ID")
	case !poolPattern.MatchString(o.Pool) || !poolPattern.MatchString(o.Provider):
		return "", fmt.Errorf("--pool and --pool-provider must be 4 to 32 lower-case letters, digits or hyphens")
	}
	if err := checkIssuer(o.IssuerURL); err != nil {
		return "", err
	}
	return trust(ctx, c, log, o)
}

func trust(ctx context.Context, c Clients, log io.Writer, o Options) (string, error) {
	number, err := projectNumber(ctx, c, o.ProjectID)
	if err != nil {
		return "", err
	}
	pool := "projects/" + number + "/locations/global/workloadIdentityPools/" + o.Pool
	if err := ensurePool(ctx, c, log, number, o.Pool); err != nil {
		return "", err
	}
	return ensureProvider(ctx, c, log, pool, o.Provider, o.IssuerURL)
}

// projects are where the control-plane operator's role is granted.
func (o Options) projects() []string {
	if o.NetworkProjectID != "" {
		return []string{o.ProjectID, o.NetworkProjectID}
	}
	return []string{o.ProjectID}
}

// Destroy deletes what Create made for the infra ID: the service account's
// project bindings, then the account (its own policy goes with it). When
// it was the project's last hcplink control-plane operator, the shared
// role, provider and pool go too, each only if hcplink made it. Anything
// hcplink did not make is left, and said.
func Destroy(ctx context.Context, c Clients, log io.Writer, o Options) error {
	o = o.withDefaults()
	if err := o.validate(false); err != nil {
		return err
	}
	sa, err := ownedAccount(ctx, c, log, o.ProjectID, ServiceAccountID(o.InfraID), func(d string) bool { return ownsCPO(d, o.InfraID) })
	if err != nil {
		return err
	}
	if sa != nil {
		for _, project := range o.projects() {
			role := "projects/" + project + "/roles/" + gcpcloud.RoleID(gcpcloud.ControlPlaneOperator)
			if err := setProjectBinding(ctx, c, log, project, binding{role, "serviceAccount:" + sa.Email}, false); err != nil {
				return err
			}
		}
		if err := deleteAccount(ctx, c, log, sa); err != nil {
			return err
		}
	}
	// Also when the account was already gone: a destroy stopped after
	// deleting it finishes here when run again.
	return deleteSharedWhenUnused(ctx, c, log, o)
}

// deleteSharedWhenUnused deletes the shared role, provider and pool once
// no hcplink control-plane operator account is left in the project.
func deleteSharedWhenUnused(ctx context.Context, c Clients, log io.Writer, o Options) error {
	user, err := controlPlaneAccount(ctx, c, o.ProjectID)
	if err != nil {
		return err
	}
	if user != "" {
		logf(log, "the pool, provider and role stay: %s still uses them", user)
		return nil
	}
	for _, project := range o.projects() {
		if err := deleteRoleWhenUnbound(ctx, c, log, project); err != nil {
			return err
		}
	}
	if o.Provider == "" {
		logf(log, "without --oidc-issuer-url or --pool-provider the pool provider is left")
		return nil
	}
	number, err := projectNumber(ctx, c, o.ProjectID)
	if err != nil {
		return err
	}
	return deleteProviderAndPool(ctx, c, log, "projects/"+number+"/locations/global/workloadIdentityPools/"+o.Pool, o.Provider)
}

// controlPlaneAccount is the email of a control-plane operator account
// hcplink made in project, "" when none is left. It reads every page: IAM
// lists 20 accounts a page unless asked for more
// (https://cloud.google.com/iam/docs/reference/rest/v1/projects.serviceAccounts/list),
// and an account missed on a later page would have its pool deleted under
// it.
func controlPlaneAccount(ctx context.Context, c Clients, project string) (string, error) {
	var found string
	err := c.IAM.Projects.ServiceAccounts.List("projects/"+project).Context(ctx).Pages(ctx, func(page *iam.ListServiceAccountsResponse) error {
		for _, sa := range page.Accounts {
			if strings.HasPrefix(sa.Description, madeBy+": control-plane operator of ") {
				found = sa.Email
				return errFound
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return "", gcpcloud.Wrap("listing project "+project+"'s service accounts", err)
	}
	return found, nil
}

// errFound stops a listing once what it looks for is found.
var errFound = errors.New("found")

// projectNumber is the project's number, which pools are named by.
func projectNumber(ctx context.Context, c Clients, project string) (string, error) {
	p, err := c.ResourceManager.Projects.Get(project).Context(ctx).Do()
	if err != nil {
		return "", gcpcloud.Wrap("reading project "+project, err)
	}
	if p.ProjectNumber == 0 {
		return "", fmt.Errorf("project %s has no number", project)
	}
	return fmt.Sprint(p.ProjectNumber), nil
}

// deleteRoleWhenUnbound deletes the control-plane operator's role in
// project unless the project's policy still grants it to someone: a Shared
// VPC host project's role serves the clusters of every service project.
func deleteRoleWhenUnbound(ctx context.Context, c Clients, log io.Writer, project string) error {
	role := "projects/" + project + "/roles/" + gcpcloud.RoleID(gcpcloud.ControlPlaneOperator)
	policy, err := c.ResourceManager.Projects.GetIamPolicy(project, &crm.GetIamPolicyRequest{}).Context(ctx).Do()
	if err != nil {
		return gcpcloud.Wrap("reading project "+project+"'s IAM policy", err)
	}
	for _, b := range policy.Bindings {
		if b.Role != role {
			continue
		}
		for _, m := range b.Members {
			if !strings.HasPrefix(m, "deleted:") {
				logf(log, "custom role %s stays: %s still holds it", role, m)
				return nil
			}
		}
	}
	return deleteRole(ctx, c, log, project, gcpcloud.ControlPlaneOperator)
}
