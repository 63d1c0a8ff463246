package azure_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// netEnv is one subscription's armnetwork clients, logged in through
// azidentity at cloudsim's token endpoint, on a manual clock.
type netEnv struct {
	t       *testing.T
	ctx     context.Context
	clock   *sim.ManualClock
	sub     string
	groups  *armresources.ResourceGroupsClient
	vnets   *armnetwork.VirtualNetworksClient
	subnets *armnetwork.SubnetsClient
	lbs     *armnetwork.LoadBalancersClient
	pips    *armnetwork.PublicIPAddressesClient
	nics    *armnetwork.InterfacesClient
	pls     *armnetwork.PrivateLinkServicesClient
	pes     *armnetwork.PrivateEndpointsClient
}

const thirdSubscription = "33333333-3333-4333-8333-333333333333"

// startNetwork runs cloudsim on a manual clock with a third subscription
// (visible to no service) beside the provider's and the customer's.
func startNetwork(t *testing.T) (*cloudsimtest.Fixture, *sim.ManualClock) {
	t.Helper()
	clock := sim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := cloudsimtest.StartAzure(t, cloudsim.Options{Clock: clock})
	if err := f.Server.Azure.AddSubscription(azure.DefaultTenantID, thirdSubscription); err != nil {
		t.Fatal(err)
	}
	return f, clock
}

func newNetEnv(t *testing.T, f *cloudsimtest.Fixture, clock *sim.ManualClock, cred azcore.TokenCredential, sub string) *netEnv {
	t.Helper()
	opts := f.AzureClientOptions()
	e := &netEnv{t: t, ctx: context.Background(), clock: clock, sub: sub}
	var err error
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	e.groups, err = armresources.NewResourceGroupsClient(sub, cred, opts)
	must(err)
	factory, err := armnetwork.NewClientFactory(sub, cred, opts)
	must(err)
	e.vnets, e.subnets, e.lbs, e.pips = factory.NewVirtualNetworksClient(), factory.NewSubnetsClient(), factory.NewLoadBalancersClient(), factory.NewPublicIPAddressesClient()
	e.nics, e.pls, e.pes = factory.NewInterfacesClient(), factory.NewPrivateLinkServicesClient(), factory.NewPrivateEndpointsClient()
	if _, err := e.groups.CreateOrUpdate(e.ctx, "rg", armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil); err != nil {
		t.Fatal(err)
	}
	return e
}

// finish drives a poller the way a caller on Azure sees it: one poll shows
// the operation still running, the sim clock moves past every delay, and
// the poller completes.
func finish[T any](e *netEnv, p *runtime.Poller[T], err error) T {
	e.t.Helper()
	var zero T
	if err != nil {
		e.t.Fatalf("starting the operation: %v", err)
		return zero
	}
	if _, err := p.Poll(e.ctx); err != nil {
		e.t.Fatalf("first poll: %v", err)
	}
	if p.Done() {
		e.t.Fatal("the operation finished before the sim clock moved")
	}
	e.clock.Advance(10 * time.Minute)
	res, err := p.PollUntilDone(e.ctx, &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	if err != nil {
		e.t.Fatalf("polling to the end: %v", err)
	}
	return res
}

// refused asserts an SDK error with the ARM code want.
func refused(t *testing.T, what string, err error, want string) {
	t.Helper()
	if got := armCode(err); got != want {
		t.Errorf("%s: got %v, want %s", what, err, want)
	}
}

func (e *netEnv) vnet(name string, prefixes []string, subnets ...*armnetwork.Subnet) armnetwork.VirtualNetwork {
	e.t.Helper()
	p, err := e.vnets.BeginCreateOrUpdate(e.ctx, "rg", name, armnetwork.VirtualNetwork{
		Location: to.Ptr("eastus"), Tags: map[string]*string{"cluster": to.Ptr("c1")},
		Properties: &armnetwork.VirtualNetworkPropertiesFormat{
			AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: to.SliceOfPtrs(prefixes...)},
			Subnets:      subnets,
		},
	}, nil)
	return finish(e, p, err).VirtualNetwork
}

func subnetBody(name, prefix string, plsPolicies armnetwork.VirtualNetworkPrivateLinkServiceNetworkPolicies) *armnetwork.Subnet {
	s := &armnetwork.Subnet{Name: to.Ptr(name), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr(prefix)}}
	if plsPolicies != "" {
		s.Properties.PrivateLinkServiceNetworkPolicies = to.Ptr(plsPolicies)
	}
	return s
}

func (e *netEnv) subnet(vnet, name, prefix string, plsPolicies armnetwork.VirtualNetworkPrivateLinkServiceNetworkPolicies) armnetwork.Subnet {
	e.t.Helper()
	p, err := e.subnets.BeginCreateOrUpdate(e.ctx, "rg", vnet, name, *subnetBody(name, prefix, plsPolicies), nil)
	return finish(e, p, err).Subnet
}

func (e *netEnv) internalLB(name, subnetID string, staticIP string) armnetwork.LoadBalancer {
	e.t.Helper()
	p, err := e.beginInternalLB(name, subnetID, staticIP)
	return finish(e, p, err).LoadBalancer
}

func (e *netEnv) beginInternalLB(name, subnetID, staticIP string) (*runtime.Poller[armnetwork.LoadBalancersClientCreateOrUpdateResponse], error) {
	fe := &armnetwork.FrontendIPConfigurationPropertiesFormat{Subnet: &armnetwork.Subnet{ID: to.Ptr(subnetID)}}
	if staticIP != "" {
		fe.PrivateIPAllocationMethod, fe.PrivateIPAddress = to.Ptr(armnetwork.IPAllocationMethodStatic), to.Ptr(staticIP)
	}
	return e.lbs.BeginCreateOrUpdate(e.ctx, "rg", name, armnetwork.LoadBalancer{
		Location: to.Ptr("eastus"),
		SKU:      &armnetwork.LoadBalancerSKU{Name: to.Ptr(armnetwork.LoadBalancerSKUNameStandard)},
		Properties: &armnetwork.LoadBalancerPropertiesFormat{
			FrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{Name: to.Ptr("fe"), Properties: fe}},
			BackendAddressPools:      []*armnetwork.BackendAddressPool{{Name: to.Ptr("pool")}},
		},
	}, nil)
}

func TestVirtualNetworksAndSubnets(t *testing.T) {
	f, clock := startNetwork(t)
	e := newNetEnv(t, f, clock, f.AzureAdminCredential(t), cloudsimtest.ProviderSubscription)

	var raw *http.Response
	p, err := e.vnets.BeginCreateOrUpdate(runtime.WithCaptureResponse(e.ctx, &raw), "rg", "vnet", armnetwork.VirtualNetwork{
		Location: to.Ptr("eastus"),
		Properties: &armnetwork.VirtualNetworkPropertiesFormat{
			AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: to.SliceOfPtrs("10.0.0.0/16")},
			Subnets:      []*armnetwork.Subnet{subnetBody("a", "10.0.0.0/24", "")},
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if raw.StatusCode != http.StatusCreated || raw.Header.Get("Azure-AsyncOperation") == "" {
		t.Errorf("create answered %s, Azure-AsyncOperation %q", raw.Status, raw.Header.Get("Azure-AsyncOperation"))
	}
	mid, err := e.vnets.Get(e.ctx, "rg", "vnet", nil)
	if err != nil || *mid.Properties.ProvisioningState != armnetwork.ProvisioningStateUpdating {
		t.Errorf("during creation: %v, %v", mid.Properties.ProvisioningState, err)
	}
	vnet := finish(e, p, nil).VirtualNetwork
	if *vnet.Properties.ProvisioningState != armnetwork.ProvisioningStateSucceeded || len(vnet.Properties.Subnets) != 1 {
		t.Fatalf("created vnet = %+v", vnet.Properties)
	}
	a := vnet.Properties.Subnets[0]
	if *a.ID != *vnet.ID+"/subnets/a" || *a.Properties.PrivateEndpointNetworkPolicies != armnetwork.VirtualNetworkPrivateEndpointNetworkPoliciesDisabled ||
		*a.Properties.PrivateLinkServiceNetworkPolicies != armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesEnabled {
		t.Errorf("inline subnet = %s %+v", *a.ID, a.Properties)
	}

	_, err = e.subnets.BeginCreateOrUpdate(e.ctx, "rg", "vnet", "out", *subnetBody("out", "10.1.0.0/24", ""), nil)
	refused(t, "a subnet outside the address space", err, "NetcfgSubnetRangeOutsideVnet")
	_, err = e.subnets.BeginCreateOrUpdate(e.ctx, "rg", "vnet", "clash", *subnetBody("clash", "10.0.0.128/25", ""), nil)
	refused(t, "an overlapping subnet", err, "NetcfgSubnetRangesOverlap")
	_, err = e.subnets.BeginCreateOrUpdate(e.ctx, "rg", "vnet", "odd", *subnetBody("odd", "10.0.3.5/24", ""), nil)
	refused(t, "a prefix with host bits", err, "InvalidCIDRNotation")
	// One operation at a time on a VNet and its subnets, as NRP does.
	bp, err := e.subnets.BeginCreateOrUpdate(e.ctx, "rg", "vnet", "b", *subnetBody("b", "10.0.1.0/24", armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesDisabled), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.subnets.BeginCreateOrUpdate(e.ctx, "rg", "vnet", "c", *subnetBody("c", "10.0.2.0/24", ""), nil)
	refused(t, "a second subnet while the first is Updating", err, "AnotherOperationInProgress")
	finish(e, bp, nil)

	// Lists page with nextLink; the pager follows it.
	f.Server.Azure.PageSize = 1
	var names []string
	for pager := e.subnets.NewListPager("rg", "vnet", nil); pager.More(); {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page.Value {
			names = append(names, *s.Name)
		}
	}
	if len(names) != 2 || names[0] != "a" || names[1] != "b" {
		t.Errorf("listed subnets = %v", names)
	}
	f.Server.Azure.PageSize = azure.DefaultPageSize

	// A NIC in subnet a keeps it (and its VNet) from being deleted, directly
	// or by leaving it out of the VNet's subnets.
	subnetA := *vnet.ID + "/subnets/a"
	np, err := e.nics.BeginCreateOrUpdate(e.ctx, "rg", "nic", armnetwork.Interface{
		Location: to.Ptr("eastus"),
		Properties: &armnetwork.InterfacePropertiesFormat{IPConfigurations: []*armnetwork.InterfaceIPConfiguration{{
			Name: to.Ptr("ipc"), Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{Subnet: &armnetwork.Subnet{ID: to.Ptr(subnetA)}},
		}}},
	}, nil)
	nic := finish(e, np, err).Interface
	if ip := *nic.Properties.IPConfigurations[0].Properties.PrivateIPAddress; ip != "10.0.0.4" {
		t.Errorf("the NIC's dynamic address = %s, want the subnet's first free 10.0.0.4", ip)
	}
	_, err = e.subnets.BeginDelete(e.ctx, "rg", "vnet", "a", nil)
	refused(t, "deleting a subnet in use", err, "InUseSubnetCannotBeDeleted")
	_, err = e.vnets.BeginCreateOrUpdate(e.ctx, "rg", "vnet", armnetwork.VirtualNetwork{Location: to.Ptr("eastus"),
		Properties: &armnetwork.VirtualNetworkPropertiesFormat{AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: to.SliceOfPtrs("10.0.0.0/16")}}}, nil)
	refused(t, "a VNet update leaving out a subnet in use", err, "InUseSubnetCannotBeDeleted")
	_, err = e.vnets.BeginDelete(e.ctx, "rg", "vnet", nil)
	refused(t, "deleting a VNet with a subnet in use", err, "InUseSubnetCannotBeDeleted")
	got, err := e.subnets.Get(e.ctx, "rg", "vnet", "a", nil)
	if err != nil || len(got.Properties.IPConfigurations) != 1 || *got.Properties.IPConfigurations[0].ID != *nic.ID+"/ipConfigurations/ipc" {
		t.Errorf("subnet a's ipConfigurations = %v, %v", got.Properties.IPConfigurations, err)
	}

	dp, err := e.nics.BeginDelete(e.ctx, "rg", "nic", nil)
	finish(e, dp, err)
	sp, err := e.subnets.BeginDelete(e.ctx, "rg", "vnet", "a", nil)
	finish(e, sp, err)
	vp, err := e.vnets.BeginDelete(e.ctx, "rg", "vnet", nil)
	finish(e, vp, err)
	if _, err := e.vnets.Get(e.ctx, "rg", "vnet", nil); armCode(err) != "ResourceNotFound" {
		t.Errorf("the deleted VNet: %v", err)
	}
	f.Server.Azure.Inspect(func(s *azure.Store) {
		for _, r := range s.All() {
			if r.ID.Namespace == "Microsoft.Network" {
				t.Errorf("left behind: %s", r.ID)
			}
		}
	})
}

func TestLoadBalancerFrontends(t *testing.T) {
	f, clock := startNetwork(t)
	e := newNetEnv(t, f, clock, f.AzureAdminCredential(t), cloudsimtest.ProviderSubscription)
	vnet := e.vnet("vnet", []string{"10.0.0.0/16"}, subnetBody("lb", "10.0.1.0/24", ""))
	subnet := *vnet.Properties.Subnets[0].ID

	dyn := e.internalLB("dynamic", subnet, "")
	fe := dyn.Properties.FrontendIPConfigurations[0]
	if *fe.ID != *dyn.ID+"/frontendIPConfigurations/fe" || *fe.Properties.PrivateIPAddress != "10.0.1.4" ||
		*fe.Properties.PrivateIPAllocationMethod != armnetwork.IPAllocationMethodDynamic || *dyn.SKU.Name != armnetwork.LoadBalancerSKUNameStandard {
		t.Errorf("dynamic frontend = %s %+v, sku %v", *fe.ID, fe.Properties, dyn.SKU)
	}
	static := e.internalLB("static", subnet, "10.0.1.50")
	if ip := *static.Properties.FrontendIPConfigurations[0].Properties.PrivateIPAddress; ip != "10.0.1.50" {
		t.Errorf("static frontend = %s", ip)
	}
	_, err := e.beginInternalLB("taken", subnet, "10.0.1.50")
	refused(t, "a static address already allocated", err, "PrivateIPAddressIsAllocated")
	_, err = e.beginInternalLB("reserved", subnet, "10.0.1.1")
	refused(t, "a reserved address", err, "PrivateIPAddressInReservedRange")
	_, err = e.beginInternalLB("elsewhere", subnet, "10.0.2.9")
	refused(t, "an address outside the subnet", err, "PrivateIPAddressNotInSubnet")
	_, err = e.beginInternalLB("nosubnet", *vnet.ID+"/subnets/missing", "")
	refused(t, "a frontend in a subnet that does not exist", err, "InvalidResourceReference")
	// Re-putting a dynamic frontend keeps its address.
	again := e.internalLB("dynamic", subnet, "")
	if ip := *again.Properties.FrontendIPConfigurations[0].Properties.PrivateIPAddress; ip != "10.0.1.4" {
		t.Errorf("re-put dynamic frontend moved to %s", ip)
	}

	pp, err := e.pips.BeginCreateOrUpdate(e.ctx, "rg", "pip", armnetwork.PublicIPAddress{Location: to.Ptr("eastus"),
		SKU: &armnetwork.PublicIPAddressSKU{Name: to.Ptr(armnetwork.PublicIPAddressSKUNameStandard)}}, nil)
	pip := finish(e, pp, err).PublicIPAddress
	if pip.Properties.IPAddress == nil {
		t.Fatal("the public IP has no address")
	}
	lp, err := e.lbs.BeginCreateOrUpdate(e.ctx, "rg", "public", armnetwork.LoadBalancer{Location: to.Ptr("eastus"),
		Properties: &armnetwork.LoadBalancerPropertiesFormat{FrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{
			Name: to.Ptr("fe"), Properties: &armnetwork.FrontendIPConfigurationPropertiesFormat{PublicIPAddress: &armnetwork.PublicIPAddress{ID: pip.ID}},
		}}}}, nil)
	public := finish(e, lp, err).LoadBalancer
	if *public.Properties.FrontendIPConfigurations[0].Properties.PublicIPAddress.ID != *pip.ID {
		t.Errorf("public frontend = %+v", public.Properties.FrontendIPConfigurations[0].Properties)
	}
	_, err = e.pips.BeginDelete(e.ctx, "rg", "pip", nil)
	refused(t, "deleting a public IP a frontend uses", err, "PublicIPAddressCannotBeDeleted")

	var all []string
	for pager := e.lbs.NewListAllPager(nil); pager.More(); {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, lb := range page.Value {
			all = append(all, *lb.Name)
		}
	}
	if len(all) != 3 {
		t.Errorf("load balancers in the subscription = %v", all)
	}
}

// privateLinkFixture is a provider subscription with an internal LB and a
// NAT subnet, and a customer subscription with an endpoint subnet.
type privateLinkFixture struct {
	f                  *cloudsimtest.Fixture
	provider, customer *netEnv
	third              *netEnv
	frontendID         string
	natSubnetID        string
	customerSubnetID   string
}

func newPrivateLinkFixture(t *testing.T) *privateLinkFixture {
	f, clock := startNetwork(t)
	admin := f.AzureAdminCredential(t)
	x := &privateLinkFixture{f: f,
		provider: newNetEnv(t, f, clock, admin, cloudsimtest.ProviderSubscription),
		customer: newNetEnv(t, f, clock, admin, cloudsimtest.CustomerSubscription),
		third:    newNetEnv(t, f, clock, admin, thirdSubscription),
	}
	vnet := x.provider.vnet("mgmt", []string{"10.0.0.0/16"},
		subnetBody("lb", "10.0.1.0/24", ""),
		subnetBody("nat", "10.0.2.0/24", armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesDisabled),
		subnetBody("nat-policies-on", "10.0.3.0/24", ""))
	lb := x.provider.internalLB("router", *vnet.ID+"/subnets/lb", "")
	x.frontendID = *lb.Properties.FrontendIPConfigurations[0].ID
	x.natSubnetID = *vnet.ID + "/subnets/nat"
	guest := x.customer.vnet("guest", []string{"192.168.0.0/16"}, subnetBody("endpoints", "192.168.1.0/24", ""))
	x.customerSubnetID = *guest.Properties.Subnets[0].ID
	x.third.vnet("other", []string{"172.20.0.0/16"}, subnetBody("endpoints", "172.20.1.0/24", ""))
	return x
}

func (x *privateLinkFixture) plsBody(natSubnet string, visibility, autoApproval []string) armnetwork.PrivateLinkService {
	return armnetwork.PrivateLinkService{
		Location: to.Ptr("eastus"), Tags: map[string]*string{"hcplink.io/cluster": to.Ptr("c1")},
		Properties: &armnetwork.PrivateLinkServiceProperties{
			LoadBalancerFrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{ID: to.Ptr(x.frontendID)}},
			IPConfigurations: []*armnetwork.PrivateLinkServiceIPConfiguration{{
				Name:       to.Ptr("nat"),
				Properties: &armnetwork.PrivateLinkServiceIPConfigurationProperties{Subnet: &armnetwork.Subnet{ID: to.Ptr(natSubnet)}},
			}},
			Visibility:   &armnetwork.PrivateLinkServicePropertiesVisibility{Subscriptions: to.SliceOfPtrs(visibility...)},
			AutoApproval: &armnetwork.PrivateLinkServicePropertiesAutoApproval{Subscriptions: to.SliceOfPtrs(autoApproval...)},
			Fqdns:        to.SliceOfPtrs("api.c1.hypershift.local"),
		},
	}
}

func (e *netEnv) endpoint(name, subnetID, target string, manual bool) (*runtime.Poller[armnetwork.PrivateEndpointsClientCreateOrUpdateResponse], error) {
	conn := []*armnetwork.PrivateLinkServiceConnection{{Name: to.Ptr(name + "-conn"), Properties: &armnetwork.PrivateLinkServiceConnectionProperties{
		PrivateLinkServiceID: to.Ptr(target), RequestMessage: to.Ptr("please"),
	}}}
	props := &armnetwork.PrivateEndpointProperties{Subnet: &armnetwork.Subnet{ID: to.Ptr(subnetID)}}
	if manual {
		props.ManualPrivateLinkServiceConnections = conn
	} else {
		props.PrivateLinkServiceConnections = conn
	}
	return e.pes.BeginCreateOrUpdate(e.ctx, "rg", name, armnetwork.PrivateEndpoint{Location: to.Ptr("eastus"), Properties: props}, nil)
}

func connectionStatus(pe armnetwork.PrivateEndpoint) string {
	for _, c := range append(pe.Properties.PrivateLinkServiceConnections, pe.Properties.ManualPrivateLinkServiceConnections...) {
		return *c.Properties.PrivateLinkServiceConnectionState.Status
	}
	return ""
}

var aliasFormat = regexp.MustCompile(`^pls-c1\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.eastus\.azure\.privatelinkservice$`)

func TestPrivateLinkServiceAndEndpointsAcrossSubscriptions(t *testing.T) {
	x := newPrivateLinkFixture(t)
	p, c := x.provider, x.customer

	_, err := p.pls.BeginCreateOrUpdate(p.ctx, "rg", "pls-c1", x.plsBody(x.natSubnetID[:len(x.natSubnetID)-3]+"nat-policies-on", []string{c.sub}, []string{c.sub}), nil)
	refused(t, "a NAT subnet with Private Link Service network policies on", err, "PrivateLinkServiceCannotBeCreatedInSubnetThatHasNetworkPoliciesEnabled")
	bad := x.plsBody(x.natSubnetID, nil, nil)
	bad.Properties.LoadBalancerFrontendIPConfigurations[0].ID = to.Ptr(x.frontendID + "-missing")
	_, err = p.pls.BeginCreateOrUpdate(p.ctx, "rg", "pls-c1", bad, nil)
	refused(t, "a frontend that does not exist", err, "InvalidResourceReference")
	elsewhere := x.plsBody(x.natSubnetID, nil, nil)
	elsewhere.Location = to.Ptr("westus")
	_, err = p.pls.BeginCreateOrUpdate(p.ctx, "rg", "pls-c1", elsewhere, nil)
	refused(t, "a service in another region than its load balancer", err, "InvalidResourceReference")

	// Visible to the customer and auto-approved for it; the third
	// subscription is made visible but not auto-approved further down.
	pp, err := p.pls.BeginCreateOrUpdate(p.ctx, "rg", "pls-c1", x.plsBody(x.natSubnetID, []string{c.sub}, []string{c.sub}), nil)
	pls := finish(p, pp, err).PrivateLinkService
	if !aliasFormat.MatchString(*pls.Properties.Alias) {
		t.Errorf("alias %s is not in Azure's format", *pls.Properties.Alias)
	}
	nat := pls.Properties.IPConfigurations[0].Properties
	if *nat.PrivateIPAddress != "10.0.2.4" || *pls.Tags["hcplink.io/cluster"] != "c1" {
		t.Errorf("NAT IP configuration = %+v, tags %v", nat, pls.Tags)
	}

	// The customer connects by alias (manual): auto-approved.
	ep, err := c.endpoint("pe-alias", x.customerSubnetID, *pls.Properties.Alias, true)
	pe := finish(c, ep, err).PrivateEndpoint
	if connectionStatus(pe) != "Approved" {
		t.Errorf("auto-approved endpoint is %s", connectionStatus(pe))
	}
	nic, err := c.nics.Get(c.ctx, "rg", lastSegment(*pe.Properties.NetworkInterfaces[0].ID), nil)
	if err != nil {
		t.Fatalf("the endpoint's NIC: %v", err)
	}
	ip := *nic.Properties.IPConfigurations[0].Properties.PrivateIPAddress
	if ip != "192.168.1.4" || *nic.Properties.PrivateEndpoint.ID != *pe.ID {
		t.Errorf("endpoint NIC = %s, private endpoint %v", ip, nic.Properties.PrivateEndpoint)
	}
	if dns := pe.Properties.CustomDNSConfigs; len(dns) != 1 || *dns[0].Fqdn != "api.c1.hypershift.local" || *dns[0].IPAddresses[0] != ip {
		t.Errorf("customDnsConfigs = %+v", dns)
	}
	_, err = c.nics.BeginDelete(c.ctx, "rg", *nic.Name, nil)
	refused(t, "deleting an endpoint's NIC", err, "CannotModifyNicAttachedToPrivateEndpoint")

	// The customer may check visibility first; the third subscription sees nothing.
	for _, tc := range []struct {
		env  *netEnv
		want bool
	}{{c, true}, {x.third, false}} {
		vp, err := tc.env.pls.BeginCheckPrivateLinkServiceVisibility(tc.env.ctx, "eastus", armnetwork.CheckPrivateLinkServiceVisibilityRequest{PrivateLinkServiceAlias: pls.Properties.Alias}, nil)
		if err != nil {
			t.Fatalf("checking visibility from %s: %v", tc.env.sub, err)
		}
		res, err := vp.PollUntilDone(tc.env.ctx, &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
		if err != nil || res.Visible == nil || *res.Visible != tc.want {
			t.Errorf("visibility from %s = %v, %v; want %v", tc.env.sub, res.Visible, err, tc.want)
		}
	}

	// The third subscription cannot see the service, by alias or by ID.
	_, err = x.third.endpoint("pe-hidden", "/subscriptions/"+thirdSubscription+"/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/other/subnets/endpoints", *pls.Properties.Alias, true)
	refused(t, "an endpoint from a subscription outside visibility (alias)", err, "ThirdPartyPrivateLinkServiceProvidedDuringPrivateEndpointCreationDoesNotExistOrIsNotVisible")
	_, err = x.third.endpoint("pe-hidden", "/subscriptions/"+thirdSubscription+"/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/other/subnets/endpoints", *pls.ID, true)
	refused(t, "an endpoint from a subscription outside visibility (ID)", err, "ThirdPartyPrivateLinkServiceProvidedDuringPrivateEndpointCreationDoesNotExistOrIsNotVisible")

	// Visible but not auto-approved: the connection waits on the owner.
	pp, err = p.pls.BeginCreateOrUpdate(p.ctx, "rg", "pls-c1", x.plsBody(x.natSubnetID, []string{c.sub, thirdSubscription}, []string{c.sub}), nil)
	if again := finish(p, pp, err).PrivateLinkService; *again.Properties.Alias != *pls.Properties.Alias {
		t.Errorf("an update changed the alias to %s", *again.Properties.Alias)
	}
	tp, err := x.third.endpoint("pe-third", "/subscriptions/"+thirdSubscription+"/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/other/subnets/endpoints", *pls.ID, true)
	third := finish(x.third, tp, err).PrivateEndpoint
	if connectionStatus(third) != "Pending" {
		t.Errorf("endpoint outside auto-approval is %s, want Pending", connectionStatus(third))
	}

	// The owner sees both connections and approves the pending one.
	var pending *armnetwork.PrivateEndpointConnection
	n := 0
	for pager := p.pls.NewListPrivateEndpointConnectionsPager("rg", "pls-c1", nil); pager.More(); {
		page, err := pager.NextPage(p.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, conn := range page.Value {
			n++
			if *conn.Properties.PrivateEndpoint.ID == *third.ID {
				pending = conn
			}
		}
	}
	if n != 2 || pending == nil || *pending.Properties.PrivateLinkServiceConnectionState.Status != "Pending" {
		t.Fatalf("connections listed = %d, third's = %+v", n, pending)
	}
	if _, err := p.pls.UpdatePrivateEndpointConnection(p.ctx, "rg", "pls-c1", *pending.Name, armnetwork.PrivateEndpointConnection{
		Properties: &armnetwork.PrivateEndpointConnectionProperties{PrivateLinkServiceConnectionState: &armnetwork.PrivateLinkServiceConnectionState{
			Status: to.Ptr("Approved"), Description: to.Ptr("ok"),
		}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := x.third.pes.Get(x.third.ctx, "rg", "pe-third", nil); connectionStatus(got.PrivateEndpoint) != "Approved" {
		t.Errorf("after approval the endpoint shows %s", connectionStatus(got.PrivateEndpoint))
	}

	// Dependency rules on the provider's side.
	_, err = p.pls.BeginDelete(p.ctx, "rg", "pls-c1", nil)
	refused(t, "deleting a service with connections", err, "PrivateLinkServiceWithPrivateEndpointConnectionsCannotBeDeleted")
	_, err = p.lbs.BeginDelete(p.ctx, "rg", "router", nil)
	refused(t, "deleting a load balancer behind a service", err, "CannotDeleteLoadBalancerWithPrivateLinkService")
	_, err = p.subnets.BeginDelete(p.ctx, "rg", "mgmt", "nat", nil)
	refused(t, "deleting the NAT subnet", err, "InUseSubnetCannotBeDeleted")
	_, err = p.subnets.BeginCreateOrUpdate(p.ctx, "rg", "mgmt", "nat", *subnetBody("nat", "10.0.2.0/24", armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesEnabled), nil)
	refused(t, "turning policies on in the NAT subnet", err, "PrivateLinkServiceNetworkPoliciesCannotBeEnabledOnPrivateLinkServiceSubnet")
	_, err = c.subnets.BeginDelete(c.ctx, "rg", "guest", "endpoints", nil)
	refused(t, "deleting the endpoint's subnet", err, "InUseSubnetCannotBeDeleted")

	// The owner deletes the third's connection: its endpoint is Disconnected.
	dp, err := p.pls.BeginDeletePrivateEndpointConnection(p.ctx, "rg", "pls-c1", *pending.Name, nil)
	finish(p, dp, err)
	if got, _ := x.third.pes.Get(x.third.ctx, "rg", "pe-third", nil); connectionStatus(got.PrivateEndpoint) != "Disconnected" {
		t.Errorf("after the owner deleted the connection the endpoint shows %s", connectionStatus(got.PrivateEndpoint))
	}
	// The customer deletes its endpoint: its NIC and its connection go too.
	ed, err := c.pes.BeginDelete(c.ctx, "rg", "pe-alias", nil)
	finish(c, ed, err)
	if _, err := c.nics.Get(c.ctx, "rg", *nic.Name, nil); armCode(err) != "ResourceNotFound" {
		t.Errorf("the endpoint's NIC after the endpoint went: %v", err)
	}
	if got, err := p.pls.Get(p.ctx, "rg", "pls-c1", nil); err != nil || len(got.Properties.PrivateEndpointConnections) != 0 {
		t.Errorf("connections left on the service: %v, %v", got.Properties.PrivateEndpointConnections, err)
	}
	sd, err := p.pls.BeginDelete(p.ctx, "rg", "pls-c1", nil)
	finish(p, sd, err)
	ld, err := p.lbs.BeginDelete(p.ctx, "rg", "router", nil)
	finish(p, ld, err)
}

func TestPrivateEndpointAutomaticConnectionAndFixedFields(t *testing.T) {
	x := newPrivateLinkFixture(t)
	p, c := x.provider, x.customer
	pp, err := p.pls.BeginCreateOrUpdate(p.ctx, "rg", "pls-c1", x.plsBody(x.natSubnetID, []string{c.sub}, nil), nil)
	pls := finish(p, pp, err).PrivateLinkService

	// An automatic connection by a caller allowed to approve is approved.
	ep, err := c.endpoint("pe-auto", x.customerSubnetID, *pls.ID, false)
	pe := finish(c, ep, err).PrivateEndpoint
	if connectionStatus(pe) != "Approved" || *pe.Properties.PrivateLinkServiceConnections[0].ID != *pe.ID+"/privateLinkServiceConnections/pe-auto-conn" {
		t.Errorf("automatic connection = %s %s", connectionStatus(pe), *pe.Properties.PrivateLinkServiceConnections[0].ID)
	}
	// A manual one outside auto-approval waits.
	mp, err := c.endpoint("pe-manual", x.customerSubnetID, *pls.Properties.Alias, true)
	if manual := finish(c, mp, err).PrivateEndpoint; connectionStatus(manual) != "Pending" {
		t.Errorf("manual connection outside auto-approval = %s", connectionStatus(manual))
	}
	// The owner rejects it; the endpoint shows the owner's decision.
	var manualConn string
	for pager := p.pls.NewListPrivateEndpointConnectionsPager("rg", "pls-c1", nil); pager.More(); {
		page, err := pager.NextPage(p.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, conn := range page.Value {
			if lastSegment(*conn.Properties.PrivateEndpoint.ID) == "pe-manual" {
				manualConn = *conn.Name
			}
		}
	}
	if _, err := p.pls.UpdatePrivateEndpointConnection(p.ctx, "rg", "pls-c1", manualConn, armnetwork.PrivateEndpointConnection{
		Properties: &armnetwork.PrivateEndpointConnectionProperties{PrivateLinkServiceConnectionState: &armnetwork.PrivateLinkServiceConnectionState{
			Status: to.Ptr("Rejected"), Description: to.Ptr("not ours"),
		}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	if conn, err := p.pls.GetPrivateEndpointConnection(p.ctx, "rg", "pls-c1", manualConn, nil); err != nil ||
		*conn.Properties.PrivateLinkServiceConnectionState.Status != "Rejected" || *conn.Properties.PrivateLinkServiceConnectionState.Description != "not ours" {
		t.Errorf("the rejected connection = %+v, %v", conn.Properties, err)
	}
	if got, _ := c.pes.Get(c.ctx, "rg", "pe-manual", nil); connectionStatus(got.PrivateEndpoint) != "Rejected" {
		t.Errorf("after rejection the endpoint shows %s", connectionStatus(got.PrivateEndpoint))
	}
	// Subnet and connection are fixed once created.
	_, err = c.endpoint("pe-auto", x.customerSubnetID, *pls.Properties.Alias, false)
	refused(t, "changing an endpoint's connection", err, "CannotChangePrivateLinkConnectionOnPrivateEndpoint")
	other := x.customer.subnet("guest", "more", "192.168.2.0/24", "")
	_, err = c.endpoint("pe-auto", *other.ID, *pls.ID, false)
	refused(t, "changing an endpoint's subnet", err, "CannotChangeSubnetOnExistingPrivateEndpoint")
	// Tags on everything, replaced whole by UpdateTags.
	tags := armnetwork.TagsObject{Tags: map[string]*string{"hcplink.io/cluster": to.Ptr("c2")}}
	retag := x.plsBody(x.natSubnetID, []string{c.sub}, nil)
	retag.Tags = tags.Tags
	rp, err := p.pls.BeginCreateOrUpdate(p.ctx, "rg", "pls-c1", retag, nil)
	if r := finish(p, rp, err).PrivateLinkService; *r.Tags["hcplink.io/cluster"] != "c2" || len(r.Tags) != 1 || *r.Properties.Alias != *pls.Properties.Alias {
		t.Errorf("PLS re-put with new tags = %v, alias %s", r.Tags, *r.Properties.Alias)
	}
	if r, err := c.pes.Get(c.ctx, "rg", "pe-auto", nil); err != nil || r.Tags != nil {
		t.Errorf("an untagged endpoint shows tags %v, %v", r.Tags, err)
	}
	for name, update := range map[string]func() (map[string]*string, error){
		"vnet": func() (map[string]*string, error) {
			r, err := c.vnets.UpdateTags(c.ctx, "rg", "guest", tags, nil)
			return r.Tags, err
		},
		"lb": func() (map[string]*string, error) {
			r, err := p.lbs.UpdateTags(p.ctx, "rg", "router", tags, nil)
			return r.Tags, err
		},
	} {
		if got, err := update(); err != nil || *got["hcplink.io/cluster"] != "c2" {
			t.Errorf("%s UpdateTags = %v, %v", name, got, err)
		}
	}
	got, err := p.pls.Get(p.ctx, "rg", "pls-c1", nil)
	if err != nil || *got.Tags["hcplink.io/cluster"] != "c2" {
		t.Errorf("PLS tags after update = %v, %v", got.Tags, err)
	}

	// A second endpoint in the subnet takes the next address.
	nics := 0
	for pager := c.nics.NewListPager("rg", nil); pager.More(); {
		page, err := pager.NextPage(c.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range page.Value {
			nics++
			if ip := *n.Properties.IPConfigurations[0].Properties.PrivateIPAddress; ip != "192.168.1.4" && ip != "192.168.1.5" {
				t.Errorf("endpoint NIC address %s", ip)
			}
		}
	}
	if nics != 2 {
		t.Errorf("NICs = %d, want one per endpoint", nics)
	}
}

func lastSegment(id string) string {
	for i := len(id) - 1; i >= 0; i-- {
		if id[i] == '/' {
			return id[i+1:]
		}
	}
	return id
}

// A snapshot shows what a GET would: a subnet read while a Private
// Endpoint was in it no longer names that endpoint or its network
// interface once the endpoint is deleted. (A stale back-reference read as
// a leftover in the bad-input corpus's inventory.)
func TestSnapshotShowsASubnetWithoutItsDeletedEndpoint(t *testing.T) {
	x := newPrivateLinkFixture(t)
	p, c := x.provider, x.customer
	pp, err := p.pls.BeginCreateOrUpdate(p.ctx, "rg", "pls-c1", x.plsBody(x.natSubnetID, []string{c.sub}, []string{c.sub}), nil)
	pls := finish(p, pp, err).PrivateLinkService
	ep, err := c.endpoint("pe-gone", x.customerSubnetID, *pls.ID, false)
	finish(c, ep, err)
	if _, err := c.subnets.Get(c.ctx, "rg", "guest", "endpoints", nil); err != nil {
		t.Fatal(err)
	}
	dp, err := c.pes.BeginDelete(c.ctx, "rg", "pe-gone", nil)
	finish(c, dp, err)
	snap, err := x.f.Server.Azure.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var parts struct{ Resources json.RawMessage }
	if err := json.Unmarshal(snap, &parts); err != nil {
		t.Fatal(err)
	}
	if s := string(parts.Resources); strings.Contains(s, "pe-gone") {
		i := strings.Index(s, "pe-gone")
		t.Errorf("the snapshot's resources still name the deleted endpoint: …%s…", s[max(0, i-200):min(len(s), i+60)])
	}
}
