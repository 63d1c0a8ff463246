package azure_test

import (
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"github.com/hcplink/hcplink/internal/cloudsim/azure"
)

// TestLinkedAuthorizationOfEndpoints: creating a private endpoint needs
// subnets/join/action on its subnet; an automatic connection outside the
// service's auto-approval needs the right to approve it on the service (in
// the provider's subscription); a manual one needs nothing there.
func TestLinkedAuthorizationOfEndpoints(t *testing.T) {
	x := newPrivateLinkFixture(t)
	p, c := x.provider, x.customer
	pp, err := p.pls.BeginCreateOrUpdate(p.ctx, "rg", "pls-c1", x.plsBody(x.natSubnetID, []string{c.sub}, nil), nil)
	pls := finish(p, pp, err).PrivateLinkService

	f := x.f
	customerRG := "/subscriptions/" + c.sub + "/resourceGroups/rg"
	roleIn := func(guid string) string {
		return "/subscriptions/" + c.sub + "/providers/Microsoft.Authorization/roleDefinitions/" + guid
	}
	defs, err := armauthorization.NewRoleDefinitionsClient(f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	endpointsOnly := azure.NewGUID()
	if _, err := defs.CreateOrUpdate(c.ctx, "/subscriptions/"+c.sub, endpointsOnly, armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName: to.Ptr("Endpoints only"), RoleType: to.Ptr("CustomRole"),
		Permissions:      []*armauthorization.Permission{{Actions: to.SliceOfPtrs("Microsoft.Network/privateEndpoints/*", "Microsoft.Network/virtualNetworks/read")}},
		AssignableScopes: to.SliceOfPtrs("/subscriptions/" + c.sub),
	}}, nil); err != nil {
		t.Fatalf("creating the custom role: %v", err)
	}
	assignments, err := armauthorization.NewRoleAssignmentsClient(c.sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	grant := func(role, principal string) {
		t.Helper()
		if _, err := assignments.Create(c.ctx, customerRG, azure.NewGUID(), armauthorization.RoleAssignmentCreateParameters{
			Properties: &armauthorization.RoleAssignmentProperties{RoleDefinitionID: to.Ptr(roleIn(role)), PrincipalID: to.Ptr(principal)},
		}, nil); err != nil {
			t.Fatalf("assigning %s: %v", role, err)
		}
	}
	sp := f.AzureServicePrincipal(t, "control-plane-operator")
	grant(endpointsOnly, sp.ObjectID)
	cpo := &netEnv{t: t, ctx: c.ctx, clock: c.clock, sub: c.sub}
	factory, err := armnetwork.NewClientFactory(c.sub, f.AzureCredential(t, sp), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	cpo.pes, cpo.nics = factory.NewPrivateEndpointsClient(), factory.NewInterfacesClient()

	_, err = cpo.endpoint("pe", x.customerSubnetID, *pls.Properties.Alias, true)
	if armCode(err) != "LinkedAuthorizationFailed" || !strings.Contains(err.Error(), "'Microsoft.Network/virtualNetworks/subnets/join/action' on the linked scope(s) '"+x.customerSubnetID+"'") {
		t.Fatalf("an endpoint without subnets/join/action: %v, want LinkedAuthorizationFailed on the subnet", err)
	}

	grant(azure.RoleNetworkContributor, sp.ObjectID)
	_, err = cpo.endpoint("pe-auto", x.customerSubnetID, *pls.ID, false)
	if armCode(err) != "LinkedAuthorizationFailed" || !strings.Contains(err.Error(), "privateEndpointConnectionsApproval/action") {
		t.Errorf("an automatic connection without the right to approve it: %v, want LinkedAuthorizationFailed", err)
	}
	ep, err := cpo.endpoint("pe", x.customerSubnetID, *pls.Properties.Alias, true)
	if pe := finish(cpo, ep, err).PrivateEndpoint; connectionStatus(pe) != "Pending" {
		t.Errorf("a manual connection outside auto-approval = %s, want Pending", connectionStatus(pe))
	}
}
