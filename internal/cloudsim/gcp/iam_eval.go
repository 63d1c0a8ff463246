package gcp

import (
	"slices"
	"strings"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// IAM is evaluated on every call: the caller's principal must be a member
// of a binding, in the policy of the resource's project (or, for a service
// account, the account's own policy), whose role includes the permission and
// whose condition holds for the resource. Every decision is recorded per
// principal, so a test can compare what a component called with what it was
// granted.

// Decision counts how often one principal was allowed or denied one permission.
type Decision = sim.Evaluation

// Evaluations returns every permission evaluated for principal (an IAM
// member: "serviceAccount:x@p.iam.gserviceaccount.com", "principal://...")
// and what was decided.
func (c *Cloud) Evaluations(principal string) map[string]Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.evaluations.Of(principal)
}

// AllEvaluations returns every principal's evaluations.
func (c *Cloud) AllEvaluations() map[string]map[string]Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]map[string]Decision{}
	for principal := range c.st.evaluations {
		out[principal] = c.st.evaluations.Of(principal)
	}
	return out
}

// require checks one permission on one resource ("projects/p/regions/r/...",
// "projects/-/serviceAccounts/email") and records the decision.
func (x *call) require(permission, resource string) *Error {
	allowed := x.c.allowed(x.principal, permission, resource)
	x.c.st.evaluations.Record(x.principal, permission, allowed)
	if allowed {
		return nil
	}
	if strings.Contains(resource, "/serviceAccounts/") {
		return errServiceAccountDenied(permission)
	}
	return errPermission(permission, resource)
}

func (c *Cloud) allowed(principal, permission, resource string) bool {
	var policies []Policy
	if _, email, ok := strings.Cut(resource, "/serviceAccounts/"); ok {
		sa := c.st.serviceAccounts[email]
		if sa == nil {
			return false
		}
		policies = append(policies, sa.Policy)
		resource = "projects/" + sa.ProjectID + "/serviceAccounts/" + email
	}
	if p := c.project(projectOf(resource)); p != nil {
		policies = append(policies, p.Policy)
	}
	for _, policy := range policies {
		for _, b := range policy.Bindings {
			if !slices.ContainsFunc(b.Members, func(m string) bool { return memberMatches(m, principal) }) {
				continue
			}
			if b.Condition != nil && !b.Condition.holds(resource) {
				continue
			}
			if slices.Contains(c.rolePermissions(b.Role), permission) {
				return true
			}
		}
	}
	return false
}

// memberMatches tells whether an IAM member names the principal: the same
// member, a principalSet of the principal's pool
// (principalSet://iam.googleapis.com/projects/N/locations/global/workloadIdentityPools/P/*),
// or allAuthenticatedUsers.
func memberMatches(member, principal string) bool {
	if member == principal || member == "allAuthenticatedUsers" {
		return true
	}
	pool, ok := strings.CutSuffix(member, "/*")
	if !ok || !strings.HasPrefix(pool, "principalSet://") {
		return false
	}
	return strings.HasPrefix(principal, "principal://"+strings.TrimPrefix(pool, "principalSet://")+"/subject/")
}
