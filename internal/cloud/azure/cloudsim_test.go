package azure_test

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	"github.com/hcplink/hcplink/internal/cloud"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// world is cloudsim's Azure on a manual clock: a management resource group
// in the provider subscription with a VNet and the router's internal load
// balancer, and a customer resource group in the customer subscription
// with a VNet and a subnet for endpoints. The admin builds it; the code
// under test runs with identities that hold only the custom roles of the
// permissions table (unless a test says otherwise).
type world struct {
	t     *testing.T
	ctx   context.Context
	f     *cloudsimtest.Fixture
	clock *sim.ManualClock

	mgmtVNetID, nodesSubnetID, frontendID string
	guestVNetID, guestSubnetID            string
}

const (
	mgmtRG    = "mgmt"
	guestRG   = "guest"
	location  = cloudsimtest.AzureLocation
	routerIP  = "10.0.0.50"
	clusterID = "demo-x7k2p"
	crName    = "private-router"
)

func newWorld(t *testing.T) *world {
	t.Helper()
	clock := sim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := cloudsimtest.StartAzure(t, cloudsim.Options{Clock: clock})
	w := &world{t: t, ctx: context.Background(), f: f, clock: clock}
	admin := f.AzureAdminCredential(t)

	mgmt := w.network(cloudsimtest.ProviderSubscription, admin)
	w.group(cloudsimtest.ProviderSubscription, mgmtRG)
	vnet := w.finishVNet(mgmt, mgmtRG, "mgmt-vnet", "10.0.0.0/16", "nodes", "10.0.0.0/24")
	w.mgmtVNetID, w.nodesSubnetID = *vnet.ID, *vnet.Properties.Subnets[0].ID
	// Other load balancers first, so that the router's is on a later page.
	w.f.Server.Azure.PageSize = 1
	w.internalLB(mgmt, "other-a", w.nodesSubnetID, "10.0.0.20")
	w.internalLB(mgmt, "other-b", w.nodesSubnetID, "10.0.0.21")
	lb := w.internalLB(mgmt, "router", w.nodesSubnetID, routerIP)
	w.frontendID = *lb.Properties.FrontendIPConfigurations[0].ID

	guest := w.network(cloudsimtest.CustomerSubscription, admin)
	w.group(cloudsimtest.CustomerSubscription, guestRG)
	gvnet := w.finishVNet(guest, guestRG, "guest-vnet", "192.168.0.0/16", "workers", "192.168.1.0/24")
	w.guestVNetID, w.guestSubnetID = *gvnet.ID, *gvnet.Properties.Subnets[0].ID
	return w
}

func (w *world) network(sub string, cred azcore.TokenCredential) *armnetwork.ClientFactory {
	w.t.Helper()
	f, err := armnetwork.NewClientFactory(sub, cred, w.f.AzureClientOptions())
	if err != nil {
		w.t.Fatal(err)
	}
	return f
}

func (w *world) group(sub, name string) {
	w.t.Helper()
	groups, err := armresources.NewResourceGroupsClient(sub, w.f.AzureAdminCredential(w.t), w.f.AzureClientOptions())
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := groups.CreateOrUpdate(w.ctx, name, armresources.ResourceGroup{Location: to.Ptr(location)}, nil); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) finishVNet(f *armnetwork.ClientFactory, rg, name, space, subnet, prefix string) armnetwork.VirtualNetwork {
	w.t.Helper()
	p, err := f.NewVirtualNetworksClient().BeginCreateOrUpdate(w.ctx, rg, name, armnetwork.VirtualNetwork{
		Location: to.Ptr(location),
		Properties: &armnetwork.VirtualNetworkPropertiesFormat{
			AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: to.SliceOfPtrs(space)},
			Subnets:      []*armnetwork.Subnet{{Name: to.Ptr(subnet), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr(prefix)}}},
		},
	}, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.clock.Advance(10 * time.Minute)
	r, err := p.PollUntilDone(w.ctx, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	return r.VirtualNetwork
}

func (w *world) internalLB(f *armnetwork.ClientFactory, name, subnetID, ip string) armnetwork.LoadBalancer {
	w.t.Helper()
	p, err := f.NewLoadBalancersClient().BeginCreateOrUpdate(w.ctx, mgmtRG, name, armnetwork.LoadBalancer{
		Location: to.Ptr(location),
		SKU:      &armnetwork.LoadBalancerSKU{Name: to.Ptr(armnetwork.LoadBalancerSKUNameStandard)},
		Properties: &armnetwork.LoadBalancerPropertiesFormat{FrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{
			Name: to.Ptr("fe"),
			Properties: &armnetwork.FrontendIPConfigurationPropertiesFormat{Subnet: &armnetwork.Subnet{ID: to.Ptr(subnetID)},
				PrivateIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodStatic), PrivateIPAddress: to.Ptr(ip)},
		}}},
	}, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.clock.Advance(10 * time.Minute)
	r, err := p.PollUntilDone(w.ctx, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	return r.LoadBalancer
}

// customRoleIdentity is a new service principal holding only the custom
// role made from the permissions table for component, at scope.
func (w *world) customRoleIdentity(component azurecloud.Component, sub, scope string) azcore.TokenCredential {
	w.t.Helper()
	defs, err := armauthorization.NewRoleDefinitionsClient(w.f.AzureAdminCredential(w.t), w.f.AzureClientOptions())
	if err != nil {
		w.t.Fatal(err)
	}
	role := azurecloud.CustomRole(component, scope)
	id := azure.NewGUID()
	if _, err := defs.CreateOrUpdate(w.ctx, scope, id, armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName: to.Ptr(role.Name + " " + sub), RoleType: to.Ptr("CustomRole"), Description: to.Ptr(role.Description),
		Permissions:      []*armauthorization.Permission{{Actions: to.SliceOfPtrs(role.Actions...)}},
		AssignableScopes: to.SliceOfPtrs(role.AssignableScopes...),
	}}, nil); err != nil {
		w.t.Fatalf("creating the custom role: %v", err)
	}
	sp := w.f.AzureServicePrincipal(w.t, string(component)+"-"+sub[:4])
	if _, err := w.f.Server.Azure.AssignRole(sp.ObjectID, id, scope); err != nil {
		w.t.Fatalf("assigning the custom role: %v", err)
	}
	return w.f.AzureCredential(w.t, sp)
}

func (w *world) providers(sub string, cred azcore.TokenCredential) *azurecloud.Providers {
	w.t.Helper()
	p, err := azurecloud.NewProviders(sub, cred, w.f.AzureClientOptions())
	if err != nil {
		w.t.Fatal(err)
	}
	return p
}

func rgScope(sub, rg string) string { return "/subscriptions/" + sub + "/resourceGroups/" + rg }

// settle drives a long-running operation the way a controller does: the
// first call must come back at once with a resume token (the operation is
// still running on cloudsim's clock, and no call waits for it); then, pass
// after pass, the clock moves and the call resumes from the token until it
// reports done.
func settle(t *testing.T, w *world, what string, pass func(token string) (string, error)) {
	t.Helper()
	token, err := pass("")
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if token == "" {
		t.Fatalf("%s finished in the first call; a long-running operation must return its resume token", what)
	}
	for i := 0; token != ""; i++ {
		if i == 10 {
			t.Fatalf("%s still running after %d passes", what, i)
		}
		w.clock.Advance(time.Minute)
		if token, err = pass(token); err != nil {
			t.Fatalf("%s, resumed: %v", what, err)
		}
	}
}

func classOf(err error) cloud.Class { return cloud.ClassOf(err) }
