package azureprivatelink

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
)

// The controller's whole life — create with a NAT subnet, follow a new
// subscription, reject a foreign connection, delete — works for an
// identity holding only the permissions table's custom role for the
// management operator: the table is enough.
func TestTheManagementCustomRoleIsEnough(t *testing.T) {
	w := newWorld(t)
	scope := "/subscriptions/" + mgmtSub
	role := azurecloud.CustomRole(azurecloud.ManagementOperator, scope)
	actions := make([]*string, 0, len(role.Actions))
	for _, a := range role.Actions {
		actions = append(actions, to.Ptr(a))
	}
	defs, err := armauthorization.NewRoleDefinitionsClient(w.f.AzureAdminCredential(t), w.f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := defs.CreateOrUpdate(w.ctx, scope, azure.NewGUID(), armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName: to.Ptr(role.Name), RoleType: to.Ptr("CustomRole"),
		Permissions:      []*armauthorization.Permission{{Actions: actions}},
		AssignableScopes: []*string{to.Ptr(scope)},
	}}, nil); err != nil {
		t.Fatalf("creating the custom role: %v", err)
	}
	sp := w.f.AzureServicePrincipalWithRole(t, "hcplink-operator", role.Name, scope)
	r := w.reconciler(w.f.AzureCredential(t, sp))

	c := w.cluster()
	w.settle(r, c.cr)
	setAdditional(t, c.hc, []string{foreignSub})
	w.settle(r, c.cr)
	get(t, c.cr)
	pe := w.foreignEndpoint(c.cr.Status.PrivateLinkServiceAlias)
	w.deleteAndSettle(r, c.cr)
	if status := endpointStatus(w.endpoint(pe)); status != "Rejected" && status != "Disconnected" {
		t.Errorf("the foreign endpoint shows %s after deletion", status)
	}
	if w.pls(azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)) != nil {
		t.Error("the service outlived the object")
	}
}
