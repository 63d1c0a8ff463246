package azureiam

import (
	"context"
	"fmt"
	"io"
	"maps"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// identitySpec is one component's identity as create and destroy make and
// find it: the managed identity, the one subject it trusts, and its role
// at exactly its scopes. The control-plane operator's (one per cluster)
// and the management operator's (one per management cluster) differ only
// in these fields.
type identitySpec struct {
	component                            azurecloud.Component
	subscriptionID, resourceGroup, name  string
	location                             string
	tags                                 map[string]*string
	owned                                func(tags map[string]*string) bool
	notOurs, remedy                      string // whose the identity would be, and what to do when it is not ours
	issuer, subject, federatedCredential string
	roleName, roleGUID                   string
	scopes                               []string
}

// made is what ensure found or made.
type made struct {
	identity                      armmsi.Identity
	federatedCredentialID, roleID string
	roleAssignmentIDs             []string
}

// ensure makes, or finds and completes, the identity, its federated
// credential, its role and the role's assignments at its scopes.
func (s identitySpec) ensure(ctx context.Context, c Clients, log io.Writer) (*made, error) {
	identity, err := s.ensureIdentity(ctx, c, log)
	if err != nil {
		return nil, err
	}
	m := &made{identity: *identity}
	if m.federatedCredentialID, err = s.ensureFederatedCredential(ctx, c, log); err != nil {
		return nil, err
	}
	if m.roleID, err = s.ensureRole(ctx, c, log); err != nil {
		return nil, err
	}
	for _, scope := range s.scopes {
		id, err := ensureAssignment(ctx, c, log, s.subscriptionID, scope, m.roleID, deref(identity.Properties.PrincipalID))
		if err != nil {
			return nil, err
		}
		m.roleAssignmentIDs = append(m.roleAssignmentIDs, id)
	}
	return m, nil
}

func (s identitySpec) ensureIdentity(ctx context.Context, c Clients, log io.Writer) (*armmsi.Identity, error) {
	client, err := armmsi.NewUserAssignedIdentitiesClient(s.subscriptionID, c.Credential, c.Options)
	if err != nil {
		return nil, err
	}
	got, err := client.Get(ctx, s.resourceGroup, s.name, nil)
	switch {
	case err == nil && !s.owned(got.Tags):
		return nil, fmt.Errorf("managed identity %s in %s exists and was not made by hcplink for %s: refusing to adopt it; %s",
			s.name, s.resourceGroup, s.notOurs, s.remedy)
	case err == nil && maps.EqualFunc(got.Tags, s.tags, func(a, b *string) bool { return deref(a) == deref(b) }):
		logf(log, "managed identity %s: exists", s.name)
		return &got.Identity, nil
	case err != nil && !gone(err):
		return nil, azurecloud.Wrap("reading the managed identity", err)
	}
	out, err := client.CreateOrUpdate(ctx, s.resourceGroup, s.name, armmsi.Identity{Location: to.Ptr(s.location), Tags: s.tags}, nil)
	if err != nil {
		return nil, azurecloud.Wrap("creating the managed identity", err)
	}
	logf(log, "managed identity %s: created (client ID %s)", s.name, deref(out.Properties.ClientID))
	return &out.Identity, nil
}

func (s identitySpec) ensureFederatedCredential(ctx context.Context, c Clients, log io.Writer) (string, error) {
	client, err := armmsi.NewFederatedIdentityCredentialsClient(s.subscriptionID, c.Credential, c.Options)
	if err != nil {
		return "", err
	}
	got, err := client.Get(ctx, s.resourceGroup, s.name, s.federatedCredential, nil)
	if err == nil && got.Properties != nil && deref(got.Properties.Issuer) == s.issuer && deref(got.Properties.Subject) == s.subject &&
		audiencesAre(got.Properties.Audiences, tokenAudience) {
		logf(log, "federated credential %s of %s: exists", s.federatedCredential, s.name)
		return deref(got.ID), nil
	}
	if err != nil && !gone(err) {
		return "", azurecloud.Wrap("reading the federated credential", err)
	}
	out, err := client.CreateOrUpdate(ctx, s.resourceGroup, s.name, s.federatedCredential, armmsi.FederatedIdentityCredential{
		Properties: &armmsi.FederatedIdentityCredentialProperties{Issuer: to.Ptr(s.issuer), Subject: to.Ptr(s.subject), Audiences: to.SliceOfPtrs(tokenAudience)},
	}, nil)
	if err != nil {
		return "", azurecloud.Wrap("creating the federated credential", err)
	}
	logf(log, "federated credential %s of %s: trusts %s at %s", s.federatedCredential, s.name, s.subject, s.issuer)
	return deref(out.ID), nil
}

// ensureRole makes the component's custom role, assignable at exactly the
// scopes, and rewrites it when its actions or scopes differ.
func (s identitySpec) ensureRole(ctx context.Context, c Clients, log io.Writer) (string, error) {
	client, err := armauthorization.NewRoleDefinitionsClient(c.Credential, c.Options)
	if err != nil {
		return "", err
	}
	role := azurecloud.CustomRole(s.component, s.scopes...)
	got, err := client.Get(ctx, s.scopes[0], s.roleGUID, nil)
	switch {
	case err == nil && got.Properties != nil && deref(got.Properties.RoleName) != s.roleName:
		return "", fmt.Errorf("role definition %s exists as %q, not hcplink's %q: refusing to change it", s.roleGUID, deref(got.Properties.RoleName), s.roleName)
	case err == nil && sameRole(got.RoleDefinition, role):
		logf(log, "custom role %q: exists", s.roleName)
		return deref(got.ID), nil
	case err != nil && !gone(err):
		return "", azurecloud.Wrap("reading the custom role", err)
	}
	out, err := client.CreateOrUpdate(ctx, s.scopes[0], s.roleGUID, armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName: to.Ptr(s.roleName), RoleType: to.Ptr("CustomRole"), Description: to.Ptr(role.Description),
		Permissions:      []*armauthorization.Permission{{Actions: to.SliceOfPtrs(role.Actions...), NotActions: []*string{}}},
		AssignableScopes: to.SliceOfPtrs(role.AssignableScopes...),
	}}, nil)
	if err != nil {
		return "", azurecloud.Wrap("creating the custom role", err)
	}
	logf(log, "custom role %q: %d actions, assignable at %s", s.roleName, len(role.Actions), strings.Join(s.scopes, ", "))
	return deref(out.ID), nil
}

// destroy deletes what ensure made: the role's assignments wherever the
// role is assignable, the role, and the identity with its federated
// credential. Only what is provably ours goes: the role by its derived ID
// and hcplink's name for it, the identity by its tags; anything else is
// left and said.
func (s identitySpec) destroy(ctx context.Context, c Clients, log io.Writer) error {
	defs, err := armauthorization.NewRoleDefinitionsClient(c.Credential, c.Options)
	if err != nil {
		return err
	}
	role, err := defs.Get(ctx, s.scopes[0], s.roleGUID, nil)
	switch {
	case gone(err):
		logf(log, "custom role %q: already gone", s.roleName)
	case err != nil:
		return azurecloud.Wrap("reading the custom role", err)
	case deref(role.Properties.RoleName) != s.roleName:
		logf(log, "role definition %s is %q, not hcplink's: left alone", s.roleGUID, deref(role.Properties.RoleName))
	default:
		// Its assignments first: Azure refuses to delete an assigned role.
		// The role is assignable only where it was assigned, so its
		// assignable scopes find every assignment, even at a scope this
		// run was not told about.
		scopes := s.scopes
		for _, sc := range role.Properties.AssignableScopes {
			if !containsFold(scopes, deref(sc)) {
				scopes = append(scopes, deref(sc))
			}
		}
		for _, scope := range scopes {
			if err := deleteAssignments(ctx, c, log, s.subscriptionID, scope, deref(role.ID)); err != nil {
				return err
			}
		}
		if _, err := defs.Delete(ctx, s.scopes[0], s.roleGUID, nil); err != nil && !gone(err) {
			return azurecloud.Wrap("deleting the custom role", err)
		}
		logf(log, "custom role %q: deleted", s.roleName)
	}
	return s.deleteIdentity(ctx, c, log)
}

func (s identitySpec) deleteIdentity(ctx context.Context, c Clients, log io.Writer) error {
	client, err := armmsi.NewUserAssignedIdentitiesClient(s.subscriptionID, c.Credential, c.Options)
	if err != nil {
		return err
	}
	got, err := client.Get(ctx, s.resourceGroup, s.name, nil)
	switch {
	case gone(err):
		logf(log, "managed identity %s: already gone", s.name)
		return nil
	case err != nil:
		return azurecloud.Wrap("reading the managed identity", err)
	case !s.owned(got.Tags):
		logf(log, "managed identity %s: not made by hcplink for %s, left alone", s.name, s.notOurs)
		return nil
	}
	// Its federated credentials go with it.
	if _, err := client.Delete(ctx, s.resourceGroup, s.name, nil); err != nil && !gone(err) {
		return azurecloud.Wrap("deleting the managed identity", err)
	}
	logf(log, "managed identity %s: deleted", s.name)
	return nil
}

func containsFold(list []string, s string) bool {
	for _, l := range list {
		if strings.EqualFold(l, s) {
			return true
		}
	}
	return false
}
