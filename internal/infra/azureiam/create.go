package azureiam

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// Create makes, or finds and completes, the control-plane operator's
// identity, federated credential, custom role and role assignments,
// writing one line per resource to log. Running it again changes nothing.
// An identity of the same name that hcplink did not make for this infra
// ID is refused, never adopted.
func Create(ctx context.Context, c Clients, log io.Writer, o Options) (*Output, error) {
	if err := o.validate(true); err != nil {
		return nil, err
	}
	m, err := o.spec().ensure(ctx, c, log)
	if err != nil {
		return nil, err
	}
	p := m.identity.Properties
	return &Output{InfraID: o.InfraID, TenantID: deref(p.TenantID), ClientID: deref(p.ClientID), PrincipalID: deref(p.PrincipalID),
		IdentityID: deref(m.identity.ID), FederatedCredentialID: m.federatedCredentialID, Issuer: o.IssuerURL, Subject: Subject(o.Namespace, o.Name),
		RoleDefinitionID: m.roleID, RoleAssignmentIDs: m.roleAssignmentIDs}, nil
}

// spec is the control-plane operator's identity for the cluster.
func (o Options) spec() identitySpec {
	tags := map[string]*string{TagCreatedBy: to.Ptr(TagCreatedByValue), TagInfraID: to.Ptr(o.InfraID), TagComponent: to.Ptr(string(azurecloud.ControlPlaneOperator))}
	for k, v := range o.Tags {
		tags[k] = to.Ptr(v)
	}
	return identitySpec{
		component: azurecloud.ControlPlaneOperator, subscriptionID: o.SubscriptionID, resourceGroup: o.ResourceGroup,
		name: identityName(o.InfraID), location: o.Location, tags: tags,
		owned:   func(tags map[string]*string) bool { return ownedBy(tags, o.InfraID) },
		notOurs: fmt.Sprintf("infra ID %s (tags %s=%s, %s=<infra ID>)", o.InfraID, TagCreatedBy, TagCreatedByValue, TagInfraID),
		remedy:  "choose another infra ID or delete it",
		issuer:  o.IssuerURL, subject: Subject(o.Namespace, o.Name), federatedCredential: federatedCredentialName,
		roleName: roleName(o.InfraID), roleGUID: stableGUID("role", o.SubscriptionID, o.InfraID), scopes: o.scopes(),
	}
}

func audiencesAre(got []*string, want string) bool { return len(got) == 1 && deref(got[0]) == want }

// sameRole reports whether an existing definition grants exactly the
// role's actions at exactly its scopes.
func sameRole(got armauthorization.RoleDefinition, want azurecloud.RoleDefinition) bool {
	p := got.Properties
	if p == nil || len(p.Permissions) != 1 {
		return false
	}
	strs := func(ps []*string) []string {
		out := make([]string, 0, len(ps))
		for _, s := range ps {
			out = append(out, strings.ToLower(deref(s)))
		}
		slices.Sort(out)
		return out
	}
	lower := func(ss []string) []string {
		out := make([]string, 0, len(ss))
		for _, s := range ss {
			out = append(out, strings.ToLower(s))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(strs(p.Permissions[0].Actions), lower(want.Actions)) && len(p.Permissions[0].NotActions) == 0 &&
		slices.Equal(strs(p.AssignableScopes), lower(want.AssignableScopes))
}

// ensureAssignment assigns the role to the principal at scope, under a
// name derived from all three.
func ensureAssignment(ctx context.Context, c Clients, log io.Writer, subscriptionID, scope, roleID, principalID string) (string, error) {
	client, err := armauthorization.NewRoleAssignmentsClient(subscriptionID, c.Credential, c.Options)
	if err != nil {
		return "", err
	}
	name := stableGUID("assignment", scope, roleID, principalID)
	if got, err := client.Get(ctx, scope, name, nil); err == nil {
		logf(log, "role assignment at %s: exists", scope)
		return deref(got.ID), nil
	} else if !gone(err) {
		return "", azurecloud.Wrap("reading the role assignment", err)
	}
	out, err := client.Create(ctx, scope, name, armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
		PrincipalID: to.Ptr(principalID), RoleDefinitionID: to.Ptr(roleID), PrincipalType: to.Ptr(armauthorization.PrincipalTypeServicePrincipal),
	}}, nil)
	if err != nil {
		return "", azurecloud.Wrap("assigning the custom role", err)
	}
	logf(log, "role assignment at %s: created", scope)
	return deref(out.ID), nil
}
