package gcpiam

import (
	"context"
	"io"
	"net/http"
	"slices"

	crm "google.golang.org/api/cloudresourcemanager/v1"
	iam "google.golang.org/api/iam/v1"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// Policies are changed read-modify-write with their etag; a set refused
// because another writer came between (409 ABORTED) starts again, as IAM
// asks (https://cloud.google.com/iam/docs/policies#etag), a few times.
const policyAttempts = 5

// binding is one member in one role's unconditional binding.
type binding struct{ role, member string }

// withMember returns bindings with b's member added (add) or removed, and
// whether that changed anything; a binding left with no member is dropped.
// Conditional bindings are never touched.
func withMember[B any](bindings []B, get func(B) (string, []string, bool), set func(role string, members []string) B, b binding, add bool) ([]B, bool) {
	for i, x := range bindings {
		role, members, conditional := get(x)
		if role != b.role || conditional {
			continue
		}
		has := slices.Contains(members, b.member)
		switch {
		case add && has, !add && !has:
			return bindings, false
		case add:
			bindings[i] = set(role, append(members, b.member))
		default:
			rest := slices.DeleteFunc(slices.Clone(members), func(m string) bool { return m == b.member })
			if len(rest) == 0 {
				return slices.Delete(bindings, i, i+1), true
			}
			bindings[i] = set(role, rest)
		}
		return bindings, true
	}
	if !add {
		return bindings, false
	}
	return append(bindings, set(b.role, []string{b.member})), true
}

func projectBindingParts(b *crm.Binding) (string, []string, bool) {
	return b.Role, b.Members, b.Condition != nil
}
func newProjectBinding(role string, members []string) *crm.Binding {
	return &crm.Binding{Role: role, Members: members}
}
func accountBindingParts(b *iam.Binding) (string, []string, bool) {
	return b.Role, b.Members, b.Condition != nil
}
func newAccountBinding(role string, members []string) *iam.Binding {
	return &iam.Binding{Role: role, Members: members}
}

// setProjectBinding adds (or removes) b in project's IAM policy.
func setProjectBinding(ctx context.Context, c Clients, log io.Writer, project string, b binding, add bool) error {
	var err error
	for range policyAttempts {
		var policy *crm.Policy
		policy, err = c.ResourceManager.Projects.GetIamPolicy(project, &crm.GetIamPolicyRequest{}).Context(ctx).Do()
		if err != nil {
			return gcpcloud.Wrap("reading project "+project+"'s IAM policy", err)
		}
		var changed bool
		policy.Bindings, changed = withMember(policy.Bindings, projectBindingParts, newProjectBinding, b, add)
		if !changed {
			logf(log, "binding of %s to %s in project %s: %s", b.member, b.role, project, map[bool]string{true: "exists", false: "absent"}[add])
			return nil
		}
		_, err = c.ResourceManager.Projects.SetIamPolicy(project, &crm.SetIamPolicyRequest{Policy: policy}).Context(ctx).Do()
		if err == nil {
			logf(log, "binding of %s to %s in project %s: %s", b.member, b.role, project, map[bool]string{true: "added", false: "removed"}[add])
			return nil
		}
		if !concurrentChange(err) {
			break
		}
	}
	return gcpcloud.Wrap("writing project "+project+"'s IAM policy", err)
}

// setAccountBinding adds (or removes) b in a service account's own policy.
func setAccountBinding(ctx context.Context, c Clients, log io.Writer, account string, b binding, add bool) error {
	resource := "projects/-/serviceAccounts/" + account
	var err error
	for range policyAttempts {
		var policy *iam.Policy
		policy, err = c.IAM.Projects.ServiceAccounts.GetIamPolicy(resource).Context(ctx).Do()
		if err != nil {
			return gcpcloud.Wrap("reading "+account+"'s IAM policy", err)
		}
		var changed bool
		policy.Bindings, changed = withMember(policy.Bindings, accountBindingParts, newAccountBinding, b, add)
		if !changed {
			logf(log, "%s may act as %s (%s): %s", b.member, account, b.role, map[bool]string{true: "exists", false: "absent"}[add])
			return nil
		}
		_, err = c.IAM.Projects.ServiceAccounts.SetIamPolicy(resource, &iam.SetIamPolicyRequest{Policy: policy}).Context(ctx).Do()
		if err == nil {
			logf(log, "%s may act as %s (%s): %s", b.member, account, b.role, map[bool]string{true: "added", false: "removed"}[add])
			return nil
		}
		if !concurrentChange(err) {
			break
		}
	}
	return gcpcloud.Wrap("writing "+account+"'s IAM policy", err)
}

// concurrentChange tells a set refused for a stale etag (409 ABORTED).
func concurrentChange(err error) bool {
	ge, ok := gcpcloud.APIError(err)
	return ok && ge.Code == http.StatusConflict
}
