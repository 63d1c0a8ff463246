package soak

import (
	"context"
	"fmt"
	"math/rand"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"google.golang.org/api/cloudresourcemanager/v1"
	"google.golang.org/api/option"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

// revoker takes one cluster's cloud credentials away once during the faulty
// period — its control-plane operator's AWS role loses its policies, or its
// Azure identity loses its role assignments, as a customer's admin might do
// by mistake — and gives them back after a while, through the cloud's own
// IAM API. The windows are kept: a permission-denied condition outside them
// is a condition that was not true at the time.
type revoker struct {
	env      *devenv.Env
	p        platform
	rng      *rand.Rand
	clusters []*cluster

	// retryEvery spaces attempts to revoke that changed nothing (restoreRetry when zero).
	retryEvery time.Duration

	mu      sync.Mutex
	windows map[string][]window // cluster namespace → when its credentials were revoked
	done    int
}

// window is a span of time in which a cluster's credentials were revoked.
type window struct{ from, to time.Time }

// run revokes once, at a random time in the faulty period's first half,
// for a quarter of it (at most revokeFor), and restores before it ends.
func (r *revoker) run(ctx context.Context, start, until time.Time, log *lockedWriter) {
	span := until.Sub(start)
	if span < 20*time.Second || len(r.clusters) == 0 {
		return
	}
	at := start.Add(time.Duration(r.rng.Int63n(int64(span / 2))))
	hold := min(revokeFor, span/4)
	c := r.clusters[r.rng.Intn(len(r.clusters))]
	select {
	case <-ctx.Done():
		return
	case <-time.After(time.Until(at)):
	}
	restore, from := r.revokeOnce(ctx, c, until.Add(-hold), log)
	if restore == nil {
		return
	}
	log.printf("revoked %s's cloud credentials for %v", c.name, hold)
	select {
	case <-ctx.Done():
	case <-time.After(hold):
	}
	// The soak's own calls meet the faults and the cloud's throttling too
	// (ARM's write bucket of the subscription's owner, whom every drift
	// spends): restoring is retried until it is done, or the soak could
	// leave a cluster without credentials for ever.
	deadline := time.Now().Add(restoreWithin)
	for {
		err := restore(context.WithoutCancel(ctx))
		if err == nil {
			log.printf("restored %s's cloud credentials", c.name)
			break
		}
		if time.Now().After(deadline) {
			log.printf("restoring %s's credentials: gave up after %v: %v", c.name, restoreWithin, err)
			break
		}
		log.printf("restoring %s's credentials, again in %v: %v", c.name, restoreRetry, err)
		time.Sleep(restoreRetry)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.windows == nil {
		r.windows = map[string][]window{}
	}
	r.windows[c.namespace] = append(r.windows[c.namespace], window{from: from, to: time.Now()})
	r.done++
}

// revokeOnce revokes c's credentials and returns how to restore them and
// when the revocation began. The soak's own IAM calls meet the faults and
// the cloud's throttling too (ARM's read bucket of the subscription's
// owner, whom every drift spends), so an attempt that changed nothing is
// tried again every retryEvery until latest; a nil restore means none
// took.
func (r *revoker) revokeOnce(ctx context.Context, c *cluster, latest time.Time, log *lockedWriter) (func(context.Context) error, time.Time) {
	every := r.retryEvery
	if every <= 0 {
		every = restoreRetry
	}
	for {
		from := time.Now()
		restore, err := r.p.revoke(ctx, r.env, c)
		if err == nil || restore != nil {
			if err != nil {
				log.printf("revoking %s's credentials (in part): %v", c.name, err)
			}
			return restore, from
		}
		if time.Now().Add(every).After(latest) {
			log.printf("revoking %s's credentials: gave up: %v", c.name, err)
			return nil, from
		}
		log.printf("revoking %s's credentials, again in %v: %v", c.name, every, err)
		if !sim.SleepContext(ctx, every) {
			return nil, from
		}
	}
}

// revokeFor is the longest a cluster's credentials stay revoked.
const revokeFor = 90 * time.Second

// restoreWithin bounds the retries of a restore; restoreRetry spaces them.
const (
	restoreWithin = 5 * time.Minute
	restoreRetry  = 5 * time.Second
)

// revokeAWSRole removes every policy of the cluster's control-plane
// operator role, as the customer; restore puts them back.
func revokeAWSRole(ctx context.Context, c *cluster) (func(context.Context) error, error) {
	client := iam.NewFromConfig(c.customerAWS)
	role := aws.String(c.role[strings.LastIndex(c.role, "/")+1:])
	inline := map[string]string{}
	names, err := client.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: role})
	if err != nil {
		return nil, err
	}
	for _, n := range names.PolicyNames {
		got, err := client.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: role, PolicyName: aws.String(n)})
		if err != nil {
			return nil, err
		}
		doc := aws.ToString(got.PolicyDocument)
		if d, err := url.QueryUnescape(doc); err == nil {
			doc = d // IAM answers the document URL-encoded
		}
		inline[n] = doc
	}
	attached, err := client.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: role})
	if err != nil {
		return nil, err
	}
	restore := func(ctx context.Context) error {
		for n, doc := range inline {
			if _, err := client.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: role, PolicyName: aws.String(n), PolicyDocument: aws.String(doc)}); err != nil {
				return err
			}
		}
		for _, p := range attached.AttachedPolicies {
			if _, err := client.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: role, PolicyArn: p.PolicyArn}); err != nil {
				return err
			}
		}
		return nil
	}
	for n := range inline {
		if _, err := client.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: role, PolicyName: aws.String(n)}); err != nil {
			return restore, err
		}
	}
	for _, p := range attached.AttachedPolicies {
		if _, err := client.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: role, PolicyArn: p.PolicyArn}); err != nil {
			return restore, err
		}
	}
	return restore, nil
}

// revokeAzureAssignments deletes the role assignments of the cluster's
// control-plane operator identity at its resource group, as the
// subscription's owner; restore makes them again under the same names.
func revokeAzureAssignments(ctx context.Context, env *devenv.Env, c *cluster) (func(context.Context) error, error) {
	fx := c.azure
	client, err := armauthorization.NewRoleAssignmentsClient(fx.SubscriptionID, env.AzureAdmin, patientAzure(env.AzureClientOptions))
	if err != nil {
		return nil, err
	}
	scope := fmt.Sprintf("/subscriptions/%s/resourceGroups/%s", fx.SubscriptionID, fx.ResourceGroup)
	var held []*armauthorization.RoleAssignment
	pager := client.NewListForScopePager(scope, &armauthorization.RoleAssignmentsClientListForScopeOptions{Filter: to.Ptr("atScope()")})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, a := range page.Value {
			if a.Properties != nil && strings.EqualFold(aws.ToString(a.Properties.PrincipalID), fx.ControlPlaneOperatorPrincipalID) {
				held = append(held, a)
			}
		}
	}
	restore := func(ctx context.Context) error {
		for _, a := range held {
			_, err := client.Create(ctx, aws.ToString(a.Properties.Scope), aws.ToString(a.Name), armauthorization.RoleAssignmentCreateParameters{
				Properties: &armauthorization.RoleAssignmentProperties{PrincipalID: a.Properties.PrincipalID, RoleDefinitionID: a.Properties.RoleDefinitionID,
					PrincipalType: to.Ptr(armauthorization.PrincipalTypeServicePrincipal)}}, nil)
			if err != nil && azurecloud.ErrorCode(err) != "RoleAssignmentExists" { // made by an earlier try
				return err
			}
		}
		return nil
	}
	for _, a := range held {
		if _, err := client.DeleteByID(ctx, aws.ToString(a.ID), nil); err != nil {
			return restore, err
		}
	}
	if len(held) == 0 {
		return restore, fmt.Errorf("no role assignment of %s's identity at %s to revoke", c.name, scope)
	}
	return restore, nil
}

// revokeGCPBinding removes the cluster's control-plane operator service
// account from the customer project's IAM policy, as the project's owner
// would with `gcloud projects remove-iam-policy-binding`: it keeps its
// sign-in (it may still impersonate the account) but holds no permission
// in the project. restore adds it back to the roles it held. Both are a
// read-modify-write under the policy's etag, so a concurrent change of the
// policy is never lost (a conflict fails the call; the revoker retries).
func revokeGCPBinding(ctx context.Context, env *devenv.Env, c *cluster) (func(context.Context) error, error) {
	crm, err := cloudresourcemanager.NewService(ctx, option.WithEndpoint(env.GCPCloudResourceManagerEndpoint()), option.WithTokenSource(env.GCPAdminTokens()))
	if err != nil {
		return nil, err
	}
	project, member := c.gcp.Project, "serviceAccount:"+c.gcp.ControlPlaneOperatorServiceAccount
	change := func(ctx context.Context, edit func(*cloudresourcemanager.Policy) []string) ([]string, error) {
		policy, err := crm.Projects.GetIamPolicy(project, &cloudresourcemanager.GetIamPolicyRequest{}).Context(ctx).Do()
		if err != nil {
			return nil, err
		}
		roles := edit(policy)
		if _, err := crm.Projects.SetIamPolicy(project, &cloudresourcemanager.SetIamPolicyRequest{Policy: policy}).Context(ctx).Do(); err != nil {
			return nil, err
		}
		return roles, nil
	}
	held, err := change(ctx, func(p *cloudresourcemanager.Policy) []string {
		var roles []string
		for _, b := range p.Bindings {
			if i := slices.Index(b.Members, member); i >= 0 {
				b.Members = slices.Delete(b.Members, i, i+1)
				roles = append(roles, b.Role)
			}
		}
		return roles
	})
	if err != nil {
		return nil, err
	}
	restore := func(ctx context.Context) error {
		_, err := change(ctx, func(p *cloudresourcemanager.Policy) []string {
			for _, role := range held {
				i := slices.IndexFunc(p.Bindings, func(b *cloudresourcemanager.Binding) bool { return b.Role == role && b.Condition == nil })
				if i < 0 {
					p.Bindings = append(p.Bindings, &cloudresourcemanager.Binding{Role: role})
					i = len(p.Bindings) - 1
				}
				if !slices.Contains(p.Bindings[i].Members, member) {
					p.Bindings[i].Members = append(p.Bindings[i].Members, member)
				}
			}
			return nil
		})
		return err
	}
	if len(held) == 0 {
		return restore, fmt.Errorf("no role of %s in project %s to revoke", member, project)
	}
	return restore, nil
}
