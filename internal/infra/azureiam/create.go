package azureiam

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"

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
	identity, err := ensureIdentity(ctx, c, log, o)
	if err != nil {
		return nil, err
	}
	p := identity.Properties
	out := &Output{InfraID: o.InfraID, TenantID: deref(p.TenantID), ClientID: deref(p.ClientID), PrincipalID: deref(p.PrincipalID),
		IdentityID: deref(identity.ID), Issuer: o.IssuerURL, Subject: Subject(o.Namespace, o.Name)}
	if out.FederatedCredentialID, err = ensureFederatedCredential(ctx, c, log, o, out.Subject); err != nil {
		return nil, err
	}
	if out.RoleDefinitionID, err = ensureRole(ctx, c, log, o); err != nil {
		return nil, err
	}
	for _, scope := range o.scopes() {
		id, err := ensureAssignment(ctx, c, log, o.SubscriptionID, scope, out.RoleDefinitionID, out.PrincipalID)
		if err != nil {
			return nil, err
		}
		out.RoleAssignmentIDs = append(out.RoleAssignmentIDs, id)
	}
	return out, nil
}

func ensureIdentity(ctx context.Context, c Clients, log io.Writer, o Options) (*armmsi.Identity, error) {
	client, err := armmsi.NewUserAssignedIdentitiesClient(o.SubscriptionID, c.Credential, c.Options)
	if err != nil {
		return nil, err
	}
	name := identityName(o.InfraID)
	tags := map[string]*string{TagCreatedBy: to.Ptr(TagCreatedByValue), TagInfraID: to.Ptr(o.InfraID), TagComponent: to.Ptr(string(azurecloud.ControlPlaneOperator))}
	for k, v := range o.Tags {
		tags[k] = to.Ptr(v)
	}
	got, err := client.Get(ctx, o.ResourceGroup, name, nil)
	switch {
	case err == nil && !ownedBy(got.Tags, o.InfraID):
		return nil, fmt.Errorf("managed identity %s in %s exists and was not made by hcplink for infra ID %s (tags %s=%s, %s=<infra ID>): refusing to adopt it; choose another infra ID or delete it",
			name, o.ResourceGroup, o.InfraID, TagCreatedBy, TagCreatedByValue, TagInfraID)
	case err == nil && maps.EqualFunc(got.Tags, tags, func(a, b *string) bool { return deref(a) == deref(b) }):
		logf(log, "managed identity %s: exists", name)
		return &got.Identity, nil
	case err != nil && !gone(err):
		return nil, azurecloud.Wrap("reading the managed identity", err)
	}
	out, err := client.CreateOrUpdate(ctx, o.ResourceGroup, name, armmsi.Identity{Location: to.Ptr(o.Location), Tags: tags}, nil)
	if err != nil {
		return nil, azurecloud.Wrap("creating the managed identity", err)
	}
	logf(log, "managed identity %s: created (client ID %s)", name, deref(out.Properties.ClientID))
	return &out.Identity, nil
}

func ensureFederatedCredential(ctx context.Context, c Clients, log io.Writer, o Options, subject string) (string, error) {
	client, err := armmsi.NewFederatedIdentityCredentialsClient(o.SubscriptionID, c.Credential, c.Options)
	if err != nil {
		return "", err
	}
	identity := identityName(o.InfraID)
	got, err := client.Get(ctx, o.ResourceGroup, identity, federatedCredentialName, nil)
	if err == nil && got.Properties != nil && deref(got.Properties.Issuer) == o.IssuerURL && deref(got.Properties.Subject) == subject &&
		audiencesAre(got.Properties.Audiences, tokenAudience) {
		logf(log, "federated credential %s of %s: exists", federatedCredentialName, identity)
		return deref(got.ID), nil
	}
	if err != nil && !gone(err) {
		return "", azurecloud.Wrap("reading the federated credential", err)
	}
	out, err := client.CreateOrUpdate(ctx, o.ResourceGroup, identity, federatedCredentialName, armmsi.FederatedIdentityCredential{
		Properties: &armmsi.FederatedIdentityCredentialProperties{Issuer: to.Ptr(o.IssuerURL), Subject: to.Ptr(subject), Audiences: to.SliceOfPtrs(tokenAudience)},
	}, nil)
	if err != nil {
		return "", azurecloud.Wrap("creating the federated credential", err)
	}
	logf(log, "federated credential %s of %s: trusts %s at %s", federatedCredentialName, identity, subject, o.IssuerURL)
	return deref(out.ID), nil
}

func audiencesAre(got []*string, want string) bool { return len(got) == 1 && deref(got[0]) == want }

// ensureRole makes the cluster's custom role, assignable at exactly its
// scopes, and rewrites it when its actions or scopes differ.
func ensureRole(ctx context.Context, c Clients, log io.Writer, o Options) (string, error) {
	client, err := armauthorization.NewRoleDefinitionsClient(c.Credential, c.Options)
	if err != nil {
		return "", err
	}
	scopes := o.scopes()
	role := azurecloud.CustomRole(azurecloud.ControlPlaneOperator, scopes...)
	name := roleName(o.InfraID)
	guid := stableGUID("role", o.SubscriptionID, o.InfraID)
	got, err := client.Get(ctx, scopes[0], guid, nil)
	switch {
	case err == nil && got.Properties != nil && deref(got.Properties.RoleName) != name:
		return "", fmt.Errorf("role definition %s exists as %q, not hcplink's %q: refusing to change it", guid, deref(got.Properties.RoleName), name)
	case err == nil && sameRole(got.RoleDefinition, role):
		logf(log, "custom role %q: exists", name)
		return deref(got.ID), nil
	case err != nil && !gone(err):
		return "", azurecloud.Wrap("reading the custom role", err)
	}
	out, err := client.CreateOrUpdate(ctx, scopes[0], guid, armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName: to.Ptr(name), RoleType: to.Ptr("CustomRole"), Description: to.Ptr(role.Description),
		Permissions:      []*armauthorization.Permission{{Actions: to.SliceOfPtrs(role.Actions...), NotActions: []*string{}}},
		AssignableScopes: to.SliceOfPtrs(role.AssignableScopes...),
	}}, nil)
	if err != nil {
		return "", azurecloud.Wrap("creating the custom role", err)
	}
	logf(log, "custom role %q: %d actions, assignable at %s", name, len(role.Actions), strings.Join(scopes, ", "))
	return deref(out.ID), nil
}

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
