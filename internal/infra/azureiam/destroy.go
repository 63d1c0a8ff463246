package azureiam

import (
	"context"
	"io"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// Destroy deletes what Create made for the infra ID: the role's
// assignments, the role, and the identity with its federated credential.
// Only what is provably ours goes: the role by its derived ID and hcplink's
// name for it, the identity by its tags; anything else is left and said.
func Destroy(ctx context.Context, c Clients, log io.Writer, o Options) error {
	if err := o.validate(false); err != nil {
		return err
	}
	defs, err := armauthorization.NewRoleDefinitionsClient(c.Credential, c.Options)
	if err != nil {
		return err
	}
	scopes := o.scopes()
	guid := stableGUID("role", o.SubscriptionID, o.InfraID)
	role, err := defs.Get(ctx, scopes[0], guid, nil)
	switch {
	case gone(err):
		logf(log, "custom role %q: already gone", roleName(o.InfraID))
	case err != nil:
		return azurecloud.Wrap("reading the custom role", err)
	case deref(role.Properties.RoleName) != roleName(o.InfraID):
		logf(log, "role definition %s is %q, not hcplink's: left alone", guid, deref(role.Properties.RoleName))
	default:
		// Its assignments first: Azure refuses to delete an assigned role.
		for _, scope := range append(scopes, deref(role.Properties.AssignableScopes[0])) {
			if err := deleteAssignments(ctx, c, log, o.SubscriptionID, scope, deref(role.ID)); err != nil {
				return err
			}
		}
		if _, err := defs.Delete(ctx, scopes[0], guid, nil); err != nil && !gone(err) {
			return azurecloud.Wrap("deleting the custom role", err)
		}
		logf(log, "custom role %q: deleted", roleName(o.InfraID))
	}
	return deleteIdentity(ctx, c, log, o)
}

// deleteAssignments deletes the assignments of roleID made at exactly
// scope (the role is the cluster's own, so every assignment of it is).
func deleteAssignments(ctx context.Context, c Clients, log io.Writer, subscriptionID, scope, roleID string) error {
	client, err := armauthorization.NewRoleAssignmentsClient(subscriptionID, c.Credential, c.Options)
	if err != nil {
		return err
	}
	pager := client.NewListForScopePager(scope, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if gone(err) {
			return nil // the resource group is gone, and its assignments with it
		}
		if err != nil {
			return azurecloud.Wrap("listing role assignments", err)
		}
		for _, a := range page.Value {
			p := a.Properties
			if p == nil || !strings.EqualFold(deref(p.RoleDefinitionID), roleID) || !strings.EqualFold(deref(p.Scope), scope) {
				continue
			}
			if _, err := client.Delete(ctx, scope, deref(a.Name), nil); err != nil && !gone(err) {
				return azurecloud.Wrap("deleting a role assignment", err)
			}
			logf(log, "role assignment at %s: deleted", scope)
		}
	}
	return nil
}

func deleteIdentity(ctx context.Context, c Clients, log io.Writer, o Options) error {
	client, err := armmsi.NewUserAssignedIdentitiesClient(o.SubscriptionID, c.Credential, c.Options)
	if err != nil {
		return err
	}
	name := identityName(o.InfraID)
	got, err := client.Get(ctx, o.ResourceGroup, name, nil)
	switch {
	case gone(err):
		logf(log, "managed identity %s: already gone", name)
		return nil
	case err != nil:
		return azurecloud.Wrap("reading the managed identity", err)
	case !ownedBy(got.Tags, o.InfraID):
		logf(log, "managed identity %s: not made by hcplink for %s, left alone", name, o.InfraID)
		return nil
	}
	// Its federated credentials go with it.
	if _, err := client.Delete(ctx, o.ResourceGroup, name, nil); err != nil && !gone(err) {
		return azurecloud.Wrap("deleting the managed identity", err)
	}
	logf(log, "managed identity %s: deleted", name)
	return nil
}
