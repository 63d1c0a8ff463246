package azureiam

import (
	"context"
	"io"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"

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
	return o.spec().destroy(ctx, c, log)
}

// deleteAssignments deletes the assignments of roleID made at exactly
// scope (the role is the identity's own, so every assignment of it is).
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
