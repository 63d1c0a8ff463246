package e2eazure

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// The operators' identities hold exactly their custom roles, at resource
// groups only: at the management cluster's resource group one assignment,
// of the management operator's role (create iam azure --operator's); at
// the guest resource group only assignments of the control-plane
// operator's role (one per prepared cluster, this test's own included);
// at the management subscription neither. Each role grants exactly the
// actions of permissions.go's table. The one other role allowed anywhere
// is diagnose's read-only one.
func TestIdentitiesHoldExactlyTheirCustomRoles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if _, err := env.PrepareAzureCluster(ctx, "identity", "identity", "identity-"+e2eutil.RandomSuffix(5)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		scope     string
		component azurecloud.Component // "": no operator's role belongs here
	}{
		{"/subscriptions/" + env.AzureManagement.SubscriptionID, ""},
		{"/subscriptions/" + env.AzureManagement.SubscriptionID + "/resourceGroups/" + env.AzureManagement.ResourceGroup, azurecloud.ManagementOperator},
		{"/subscriptions/" + env.AzureGuest.SubscriptionID + "/resourceGroups/" + env.AzureGuest.ResourceGroup, azurecloud.ControlPlaneOperator},
	} {
		roles, err := rolesAssignedAt(ctx, tc.scope)
		if err != nil {
			t.Fatal(err)
		}
		operators := 0
		for _, actions := range roles {
			// TestDiagnose assigns diagnose's read-only role at the
			// management subscription and the guest resource group.
			if slices.Equal(actions, azurecloud.Actions(azurecloud.Diagnose)) {
				continue
			}
			operators++
			if tc.component == "" {
				t.Errorf("a role granting %v is assigned at %s: the operators' roles belong at resource groups only", actions, tc.scope)
			} else if want := azurecloud.Actions(tc.component); !slices.Equal(actions, want) {
				t.Errorf("a role assigned at %s grants %v, want exactly the %s's %v", tc.scope, actions, tc.component, want)
			}
		}
		if tc.component != "" && operators == 0 {
			t.Errorf("no role of the %s is assigned at %s", tc.component, tc.scope)
		}
	}
}

// rolesAssignedAt lists, for each assignment made at exactly scope (not
// inherited from above), the actions its role grants, sorted.
func rolesAssignedAt(ctx context.Context, scope string) ([][]string, error) {
	assignments, err := armauthorization.NewRoleAssignmentsClient(env.AzureManagement.SubscriptionID, env.AzureAdmin, env.AzureClientOptions)
	if err != nil {
		return nil, err
	}
	defs, err := armauthorization.NewRoleDefinitionsClient(env.AzureAdmin, env.AzureClientOptions)
	if err != nil {
		return nil, err
	}
	var out [][]string
	pager := assignments.NewListForScopePager(scope, &armauthorization.RoleAssignmentsClientListForScopeOptions{Filter: to.Ptr("atScope()")})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, a := range page.Value {
			if !strings.EqualFold(deref(a.Properties.Scope), scope) {
				continue
			}
			def, err := defs.GetByID(ctx, deref(a.Properties.RoleDefinitionID), nil)
			if err != nil {
				return nil, fmt.Errorf("reading role %s: %w", deref(a.Properties.RoleDefinitionID), err)
			}
			var actions []string
			for _, p := range def.Properties.Permissions {
				actions = append(actions, derefAll(p.Actions)...)
			}
			slices.Sort(actions)
			out = append(out, actions)
		}
	}
	return out, nil
}
