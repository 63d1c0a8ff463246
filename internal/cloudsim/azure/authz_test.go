package azure_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

func rgScope(rg string) string { return "/subscriptions/" + sub + "/resourceGroups/" + rg }

func roleID(guid string) string {
	return "/subscriptions/" + sub + "/providers/Microsoft.Authorization/roleDefinitions/" + guid
}

// assign creates a role assignment through armauthorization, as an operator's
// installer would.
func assign(t *testing.T, client *armauthorization.RoleAssignmentsClient, scope, role, principal string) string {
	t.Helper()
	name := azure.NewGUID()
	_, err := client.Create(context.Background(), scope, name, armauthorization.RoleAssignmentCreateParameters{
		Properties: &armauthorization.RoleAssignmentProperties{RoleDefinitionID: to.Ptr(roleID(role)), PrincipalID: to.Ptr(principal)},
	}, nil)
	if err != nil {
		t.Fatalf("assigning %s at %s: %v", role, scope, err)
	}
	return name
}

func responseError(err error) *azcore.ResponseError {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re
	}
	return nil
}

func TestRoleAssignmentsAuthorizeByActionAndScope(t *testing.T) {
	f, _, groups := start(t)
	ctx := context.Background()
	createGroup(t, groups, "rg-a")
	createGroup(t, groups, "rg-b")
	admin, err := armauthorization.NewRoleAssignmentsClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	sp := f.AzureServicePrincipal(t, "netops")
	cred := f.AzureCredential(t, sp)
	spGroups, _ := armresources.NewResourceGroupsClient(sub, cred, f.AzureClientOptions())
	spGeneric, _ := armresources.NewClient(sub, cred, f.AzureClientOptions())

	_, err = spGroups.Get(ctx, "rg-a", nil)
	re := responseError(err)
	wantMsg := "The client '" + sp.ObjectID + "' with object id '" + sp.ObjectID + "' does not have authorization to perform action 'Microsoft.Resources/subscriptions/resourceGroups/read' over scope '" + rgScope("rg-a") + "' or the scope is invalid."
	if re == nil || re.StatusCode != 403 || re.ErrorCode != "AuthorizationFailed" || !strings.Contains(err.Error(), wantMsg) {
		t.Fatalf("read without a role: %v\nwant 403 AuthorizationFailed with %q", err, wantMsg)
	}

	readerAssignment := assign(t, admin, rgScope("rg-a"), azure.RoleReader, sp.ObjectID)
	if _, err := spGroups.Get(ctx, "rg-a", nil); err != nil {
		t.Fatalf("Reader on rg-a cannot read it: %v", err)
	}
	if _, err := spGroups.Get(ctx, "rg-b", nil); armCode(err) != "AuthorizationFailed" {
		t.Fatalf("Reader on rg-a reading rg-b: %v, want AuthorizationFailed", err)
	}
	widget := armresources.GenericResource{Location: to.Ptr("eastus"), Properties: map[string]any{"size": 1}}
	if _, err := spGeneric.BeginCreateOrUpdateByID(ctx, widgetID("rg-a", "w"), widgetVersion, widget, nil); armCode(err) != "AuthorizationFailed" {
		t.Fatalf("Reader writing: %v, want AuthorizationFailed", err)
	}
	if _, err := admin.Create(ctx, rgScope("rg-a"), azure.NewGUID(), armauthorization.RoleAssignmentCreateParameters{
		Properties: &armauthorization.RoleAssignmentProperties{RoleDefinitionID: to.Ptr(roleID(azure.RoleReader)), PrincipalID: to.Ptr(sp.ObjectID)},
	}, nil); armCode(err) != "RoleAssignmentExists" {
		t.Fatalf("duplicate assignment: %v, want RoleAssignmentExists", err)
	}
	if _, err := admin.Create(ctx, rgScope("rg-a"), azure.NewGUID(), armauthorization.RoleAssignmentCreateParameters{
		Properties: &armauthorization.RoleAssignmentProperties{RoleDefinitionID: to.Ptr(roleID(azure.RoleReader)), PrincipalID: to.Ptr(azure.NewGUID())},
	}, nil); armCode(err) != "PrincipalNotFound" {
		t.Fatalf("assignment to nobody: %v, want PrincipalNotFound", err)
	}

	// The SDK puts $filter in the query unencoded; a space would make the
	// request line malformed, so callers escape it, as against Azure.
	pager := admin.NewListForScopePager(rgScope("rg-a"), &armauthorization.RoleAssignmentsClientListForScopeOptions{Filter: to.Ptr(url.PathEscape("principalId eq '" + sp.ObjectID + "'"))})
	page, err := pager.NextPage(ctx)
	if err != nil || len(page.Value) != 1 || *page.Value[0].Properties.Scope != rgScope("rg-a") {
		t.Fatalf("listing the principal's assignments at rg-a: %v, %+v", err, page.Value)
	}
	if _, err := admin.Delete(ctx, rgScope("rg-a"), readerAssignment, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := spGroups.Get(ctx, "rg-a", nil); armCode(err) != "AuthorizationFailed" {
		t.Fatalf("read after the assignment was deleted: %v, want AuthorizationFailed", err)
	}
}

func TestCustomRoleNotActionsAndLinkedAuthorization(t *testing.T) {
	f, _, groups := start(t)
	ctx := context.Background()
	createGroup(t, groups, "rg-a")
	createGroup(t, groups, "rg-b")
	adminGeneric, _ := armresources.NewClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	widget := armresources.GenericResource{Location: to.Ptr("eastus"), Properties: map[string]any{"size": 1}}
	if _, err := adminGeneric.BeginCreateOrUpdateByID(ctx, widgetID("rg-b", "other"), widgetVersion, widget, nil); err != nil {
		t.Fatal(err)
	}

	defs, _ := armauthorization.NewRoleDefinitionsClient(f.AzureAdminCredential(t), f.AzureClientOptions())
	customID := azure.NewGUID()
	_, err := defs.CreateOrUpdate(ctx, "/subscriptions/"+sub, customID, armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName: to.Ptr("Widget Maker"), RoleType: to.Ptr("CustomRole"),
		Permissions: []*armauthorization.Permission{{
			Actions:    []*string{to.Ptr("Microsoft.CloudsimTest/widgets/*"), to.Ptr("Microsoft.Resources/subscriptions/resourceGroups/read")},
			NotActions: []*string{to.Ptr("Microsoft.CloudsimTest/widgets/delete")},
		}},
		AssignableScopes: []*string{to.Ptr("/subscriptions/" + sub)},
	}}, nil)
	if err != nil {
		t.Fatalf("creating a custom role: %v", err)
	}
	sp := f.AzureServicePrincipal(t, "maker")
	admin, _ := armauthorization.NewRoleAssignmentsClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	assign(t, admin, rgScope("rg-a"), customID, sp.ObjectID)
	generic, _ := armresources.NewClient(sub, f.AzureCredential(t, sp), f.AzureClientOptions())

	if _, err := generic.BeginCreateOrUpdateByID(ctx, widgetID("rg-a", "w"), widgetVersion, widget, nil); err != nil {
		t.Fatalf("custom role allows widgets/*, but: %v", err)
	}
	if _, err := generic.BeginDeleteByID(ctx, widgetID("rg-a", "w"), widgetVersion, nil); armCode(err) != "AuthorizationFailed" {
		t.Fatalf("delete excluded by notActions: %v, want AuthorizationFailed", err)
	}
	linked := widget
	linked.Properties = map[string]any{"size": 1, "linkedTo": widgetID("rg-b", "other")}
	_, err = generic.BeginCreateOrUpdateByID(ctx, widgetID("rg-a", "w2"), widgetVersion, linked, nil)
	wantMsg := "does not have permission to perform action(s) 'Microsoft.CloudsimTest/widgets/join/action' on the linked scope(s) '" + widgetID("rg-b", "other") + "'"
	if armCode(err) != "LinkedAuthorizationFailed" || !strings.Contains(err.Error(), wantMsg) {
		t.Fatalf("linking a widget outside the role's scope: %v\nwant LinkedAuthorizationFailed with %q", err, wantMsg)
	}
}

func TestBuiltInRolesAreListedWithTheirActions(t *testing.T) {
	f, _, _ := start(t)
	defs, _ := armauthorization.NewRoleDefinitionsClient(f.AzureAdminCredential(t), f.AzureClientOptions())
	for _, tc := range []struct{ name, id, action string }{
		{"Network Contributor", azure.RoleNetworkContributor, "Microsoft.Network/*"},
		{"Private DNS Zone Contributor", azure.RolePrivateDNSZoneContributor, "Microsoft.Network/privateDnsZones/*"},
	} {
		pager := defs.NewListPager("/subscriptions/"+sub, &armauthorization.RoleDefinitionsClientListOptions{Filter: to.Ptr("roleName eq '" + tc.name + "'")})
		page, err := pager.NextPage(context.Background())
		if err != nil || len(page.Value) != 1 {
			t.Fatalf("%s: %v, %d roles", tc.name, err, len(page.Value))
		}
		role := page.Value[0]
		if *role.Name != tc.id || *role.Properties.RoleType != "BuiltInRole" || !containsPtr(role.Properties.Permissions[0].Actions, tc.action) {
			t.Errorf("%s = %s %+v", tc.name, *role.Name, role.Properties.Permissions[0])
		}
	}
	got, err := defs.GetByID(context.Background(), "/providers/Microsoft.Authorization/roleDefinitions/"+azure.RoleReader, nil)
	if err != nil || *got.Properties.RoleName != "Reader" {
		t.Fatalf("GetByID Reader: %v", err)
	}
	_ = cloudsimtest.ProviderSubscription
}

func containsPtr(list []*string, s string) bool {
	for _, v := range list {
		if *v == s {
			return true
		}
	}
	return false
}
