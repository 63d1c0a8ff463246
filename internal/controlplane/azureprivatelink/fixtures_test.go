package azureprivatelink

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
	"github.com/hcplink/hcplink/internal/outcome"
)

const (
	provider = cloudsimtest.ProviderSubscription
	customer = cloudsimtest.CustomerSubscription
	location = cloudsimtest.AzureLocation
	// guestRG holds the customer's VNet and everything the controller makes.
	guestRG = "guest-rg"
	lbIP    = "10.0.0.9"
)

var (
	guestVNet   = "/subscriptions/" + customer + "/resourceGroups/" + guestRG + "/providers/Microsoft.Network/virtualNetworks/guest"
	guestSubnet = guestVNet + "/subnets/workers"
)

// leakPattern matches what must never reach a condition message: URLs,
// subscription or request IDs (UUIDs), resource IDs, JSON.
var leakPattern = regexp.MustCompile(`(?i)(https?://|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|/subscriptions/|request ?id|correlation|[{}])`)

// world is cloudsim's Azure on a manual clock: the management side (an
// internal load balancer and the operator's part, a Private Link Service
// visible to and auto-approving the customer subscription, made here by
// hand) and the customer's VNet; envtest holds the clusters.
type world struct {
	t     *testing.T
	ctx   context.Context
	f     *cloudsimtest.Fixture
	clk   *sim.ManualClock
	admin azcore.TokenCredential

	mgmt *armnetwork.ClientFactory
	cust *armnetwork.ClientFactory
	dns  *armprivatedns.ClientFactory

	frontendID, natSubnetID string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	clk := sim.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	f := cloudsimtest.StartAzure(t, cloudsim.Options{Clock: clk})
	w := &world{t: t, ctx: t.Context(), f: f, clk: clk, admin: f.AzureAdminCredential(t)}
	opts := f.AzureClientOptions()
	var err error
	if w.mgmt, err = armnetwork.NewClientFactory(provider, w.admin, opts); err != nil {
		t.Fatal(err)
	}
	if w.cust, err = armnetwork.NewClientFactory(customer, w.admin, opts); err != nil {
		t.Fatal(err)
	}
	if w.dns, err = armprivatedns.NewClientFactory(customer, w.admin, opts); err != nil {
		t.Fatal(err)
	}
	for sub, rg := range map[string]string{provider: "mgmt-rg", customer: guestRG} {
		groups, err := armresources.NewResourceGroupsClient(sub, w.admin, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := groups.CreateOrUpdate(w.ctx, rg, armresources.ResourceGroup{Location: to.Ptr(location)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Management: VNet with the LB's subnet and a NAT subnet, the internal LB.
	p1, err1 := w.mgmt.NewVirtualNetworksClient().BeginCreateOrUpdate(w.ctx, "mgmt-rg", "mgmt", armnetwork.VirtualNetwork{
		Location: to.Ptr(location),
		Properties: &armnetwork.VirtualNetworkPropertiesFormat{
			AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: to.SliceOfPtrs("10.0.0.0/16")},
			Subnets: []*armnetwork.Subnet{
				{Name: to.Ptr("lb"), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.0.0.0/24")}},
				{Name: to.Ptr("nat"), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.0.1.0/24"),
					PrivateLinkServiceNetworkPolicies: to.Ptr(armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesDisabled)}},
			},
		},
	}, nil)
	vnet := done(w, p1, err1).VirtualNetwork
	w.natSubnetID = *vnet.ID + "/subnets/nat"
	p2, err2 := w.mgmt.NewLoadBalancersClient().BeginCreateOrUpdate(w.ctx, "mgmt-rg", "kube-internal", armnetwork.LoadBalancer{
		Location: to.Ptr(location),
		SKU:      &armnetwork.LoadBalancerSKU{Name: to.Ptr(armnetwork.LoadBalancerSKUNameStandard)},
		Properties: &armnetwork.LoadBalancerPropertiesFormat{
			FrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{Name: to.Ptr("fe"), Properties: &armnetwork.FrontendIPConfigurationPropertiesFormat{
				Subnet: &armnetwork.Subnet{ID: to.Ptr(*vnet.ID + "/subnets/lb")}, PrivateIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodStatic), PrivateIPAddress: to.Ptr(lbIP)}}},
			BackendAddressPools: []*armnetwork.BackendAddressPool{{Name: to.Ptr("pool")}},
		},
	}, nil)
	lb := done(w, p2, err2).LoadBalancer
	w.frontendID = *lb.Properties.FrontendIPConfigurations[0].ID
	// Customer: the guest VNet and its workers' subnet.
	p3, err3 := w.cust.NewVirtualNetworksClient().BeginCreateOrUpdate(w.ctx, guestRG, "guest", armnetwork.VirtualNetwork{
		Location: to.Ptr(location),
		Properties: &armnetwork.VirtualNetworkPropertiesFormat{
			AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: to.SliceOfPtrs("10.1.0.0/16")},
			Subnets:      []*armnetwork.Subnet{{Name: to.Ptr("workers"), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.1.0.0/24")}}},
		},
	}, nil)
	done(w, p3, err3)
	return w
}

// done drives a long-running operation to its end on the manual clock.
func done[T any](w *world, p *runtime.Poller[T], err error) T {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("starting an operation: %v", err)
	}
	for i := 0; !p.Done(); i++ {
		if i > 100 {
			w.t.Fatal("the operation never finished")
		}
		w.clk.Advance(time.Second)
		if _, err := p.Poll(w.ctx); err != nil {
			w.t.Fatalf("polling: %v", err)
		}
	}
	res, err := p.Result(w.ctx)
	if err != nil {
		w.t.Fatalf("operation failed: %v", err)
	}
	return res
}

// plsFor makes (or remakes) the operator's Private Link Service named
// name, visible to and auto-approving the customer, and returns its alias.
func (w *world) plsFor(name string) string {
	w.t.Helper()
	return w.plsWith(name, true)
}

// plsWith puts the Private Link Service named name, visible to the
// customer and auto-approving its endpoints when autoApprove.
func (w *world) plsWith(name string, autoApprove bool) string {
	w.t.Helper()
	var approved []string
	if autoApprove {
		approved = []string{customer}
	}
	p4, err4 := w.mgmt.NewPrivateLinkServicesClient().BeginCreateOrUpdate(w.ctx, "mgmt-rg", name, armnetwork.PrivateLinkService{
		Location: to.Ptr(location),
		Properties: &armnetwork.PrivateLinkServiceProperties{
			LoadBalancerFrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{ID: to.Ptr(w.frontendID)}},
			IPConfigurations: []*armnetwork.PrivateLinkServiceIPConfiguration{{Name: to.Ptr("nat-" + name),
				Properties: &armnetwork.PrivateLinkServiceIPConfigurationProperties{Subnet: &armnetwork.Subnet{ID: to.Ptr(w.natSubnetID)}}}},
			Visibility:   &armnetwork.PrivateLinkServicePropertiesVisibility{Subscriptions: to.SliceOfPtrs(customer)},
			AutoApproval: &armnetwork.PrivateLinkServicePropertiesAutoApproval{Subscriptions: to.SliceOfPtrs(approved...)},
		},
	}, nil)
	pls := done(w, p4, err4).PrivateLinkService
	return *pls.Properties.Alias
}

// deletePLS deletes the operator's Private Link Service behind the
// controller's back (its connections first, as Azure requires).
func (w *world) deletePLS(name string) {
	w.t.Helper()
	plsClient := w.mgmt.NewPrivateLinkServicesClient()
	pager := plsClient.NewListPrivateEndpointConnectionsPager("mgmt-rg", name, nil)
	for pager.More() {
		page, err := pager.NextPage(w.ctx)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, conn := range page.Value {
			p, err := plsClient.BeginDeletePrivateEndpointConnection(w.ctx, "mgmt-rg", name, *conn.Name, nil)
			done(w, p, err)
		}
	}
	p5, err5 := w.mgmt.NewPrivateLinkServicesClient().BeginDelete(w.ctx, "mgmt-rg", name, nil)
	done(w, p5, err5)
}

// cluster is one hosted cluster's objects in envtest and its controller.
type cluster struct {
	w   *world
	hcp *hcplinkv1beta1.HostedControlPlane
	cr  *hcplinkv1beta1.AzurePrivateLinkService
	r   *Reconciler
	pls string // the operator's Private Link Service's name
}

// newCluster creates the HostedControlPlane named name and its CR (as the
// observer would), publishes the PLS alias in status (as the operator
// would), and builds the endpoint controller with cred.
func (w *world) newCluster(name string, topology hcplinkv1beta1.AzureTopology, cred azcore.TokenCredential) *cluster {
	w.t.Helper()
	return w.newClusterAs(name, name+"-x7k2p", "pls-"+name, topology, cred)
}

// newClusterAs is newCluster with the cluster's infraID and its Private
// Link Service's name given (two clusters of one name differ in both).
func (w *world) newClusterAs(name, infraID, plsName string, topology hcplinkv1beta1.AzureTopology, cred azcore.TokenCredential) *cluster {
	w.t.Helper()
	ns := env.NewNamespace(w.t)
	hcp := azureHCP(ns, name, topology)
	hcp.Spec.InfraID = infraID
	az := hcp.Spec.Platform.Azure
	az.SubscriptionID, az.ResourceGroupName, az.VnetID, az.SubnetID = customer, guestRG, guestVNet, guestSubnet
	hcp.Spec.ClusterID = ""
	if err := env.Client.Create(w.ctx, hcp); err != nil {
		w.t.Fatal(err)
	}
	cr := &hcplinkv1beta1.AzurePrivateLinkService{
		ObjectMeta: metav1.ObjectMeta{Name: hcplinkv1beta1.PrivateRouterServiceName, Namespace: ns, OwnerReferences: []metav1.OwnerReference{hcpref.Controller(hcp)}},
		Spec:       DesiredSpec(hcp, lbIP),
	}
	if err := env.Client.Create(w.ctx, cr); err != nil {
		w.t.Fatal(err)
	}
	c := &cluster{w: w, hcp: hcp, cr: cr, pls: plsName}
	c.publishAlias(w.plsFor(c.pls))
	c.r = &Reconciler{Client: env.Client, Cloud: &ARMFactory{Credential: cred, Options: w.f.AzureClientOptions()},
		Tracker: &outcome.Tracker{Now: w.clk.Now}}
	return c
}

// publishAlias writes status.privateLinkServiceAlias as the operator does.
func (c *cluster) publishAlias(alias string) {
	c.w.t.Helper()
	cr := c.get()
	patch := client.MergeFrom(cr.DeepCopy())
	cr.Status.PrivateLinkServiceAlias = alias
	if err := env.Client.Status().Patch(c.w.ctx, cr, patch); err != nil {
		c.w.t.Fatal(err)
	}
}

func (c *cluster) get() *hcplinkv1beta1.AzurePrivateLinkService {
	c.w.t.Helper()
	cr := &hcplinkv1beta1.AzurePrivateLinkService{}
	if err := env.Client.Get(c.w.ctx, client.ObjectKeyFromObject(c.cr), cr); err != nil {
		c.w.t.Fatal(err)
	}
	return cr
}

// reconcile runs one pass and returns its requeue.
func (c *cluster) reconcile() ctrl.Result {
	c.w.t.Helper()
	res, err := c.r.Reconcile(c.w.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(c.cr)})
	if err != nil {
		c.w.t.Fatalf("Reconcile: %v", err)
	}
	return res
}

// until runs passes, moving the sim clock by each pass's requeue (capped at
// a minute), until cond holds; it returns the passes it took.
func (c *cluster) until(what string, cond func(*hcplinkv1beta1.AzurePrivateLinkService) bool) int {
	c.w.t.Helper()
	for i := 1; i <= 40; i++ {
		res := c.reconcile()
		if cond(c.get()) {
			return i
		}
		step := min(res.RequeueAfter, time.Minute)
		if step <= 0 {
			step = time.Second
		}
		c.w.clk.Advance(step)
	}
	cr := c.get()
	c.w.t.Fatalf("never %s; conditions %+v", what, cr.Status.Conditions)
	return 0
}

func available(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
	return meta.IsStatusConditionTrue(cr.Status.Conditions, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition)
}

func condition(cr *hcplinkv1beta1.AzurePrivateLinkService, t string) metav1.Condition {
	if c := meta.FindStatusCondition(cr.Status.Conditions, t); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// checkMessages fails on any condition message that leaks.
func checkMessages(t *testing.T, cr *hcplinkv1beta1.AzurePrivateLinkService) {
	t.Helper()
	for _, c := range cr.Status.Conditions {
		if leakPattern.MatchString(c.Message) {
			t.Errorf("condition %s leaks: %q", c.Type, c.Message)
		}
	}
}

// --- the cloud as it is ---

func (c *cluster) infraID() string { return c.hcp.Spec.InfraID }

func (c *cluster) endpointName() string {
	return azurecloud.PrivateEndpointName(c.infraID(), c.cr.Name)
}

func (c *cluster) zone() string { return azurecloud.PrivateDNSZoneName(c.hcp.Name) }

func (w *world) endpoint(name string) *armnetwork.PrivateEndpoint {
	w.t.Helper()
	res, err := w.cust.NewPrivateEndpointsClient().Get(w.ctx, guestRG, name, nil)
	if azurecloud.IsNotFound(err) {
		return nil
	}
	if err != nil {
		w.t.Fatal(err)
	}
	return &res.PrivateEndpoint
}

func (w *world) zoneOf(name string) *armprivatedns.PrivateZone {
	w.t.Helper()
	res, err := w.dns.NewPrivateZonesClient().Get(w.ctx, guestRG, name, nil)
	if azurecloud.IsNotFound(err) {
		return nil
	}
	if err != nil {
		w.t.Fatal(err)
	}
	return &res.PrivateZone
}

func (w *world) link(zone, name string) *armprivatedns.VirtualNetworkLink {
	w.t.Helper()
	res, err := w.dns.NewVirtualNetworkLinksClient().Get(w.ctx, guestRG, zone, name, nil)
	if azurecloud.IsNotFound(err) {
		return nil
	}
	if err != nil {
		w.t.Fatal(err)
	}
	return &res.VirtualNetworkLink
}

func (w *world) record(zone string, typ armprivatedns.RecordType, name string) *armprivatedns.RecordSet {
	w.t.Helper()
	res, err := w.dns.NewRecordSetsClient().Get(w.ctx, guestRG, zone, typ, name, nil)
	if azurecloud.IsNotFound(err) {
		return nil
	}
	if err != nil {
		w.t.Fatal(err)
	}
	return &res.RecordSet
}

// endpoints lists the customer resource group's Private Endpoints by name.
func (w *world) endpoints() []string {
	w.t.Helper()
	var names []string
	pager := w.cust.NewPrivateEndpointsClient().NewListPager(guestRG, nil)
	for pager.More() {
		page, err := pager.NextPage(w.ctx)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, pe := range page.Value {
			names = append(names, *pe.Name)
		}
	}
	return names
}

// zones lists the customer resource group's private zones by name.
func (w *world) zones() []string {
	w.t.Helper()
	var names []string
	pager := w.dns.NewPrivateZonesClient().NewListByResourceGroupPager(guestRG, nil)
	for pager.More() {
		page, err := pager.NextPage(w.ctx)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, z := range page.Value {
			names = append(names, *z.Name)
		}
	}
	return names
}

func aIPs(rs *armprivatedns.RecordSet) string {
	return strings.Join(azurecloud.ARecordIPs(rs), ",")
}

// setConnection approves or rejects, as the service's owner, the one
// connection of the Private Link Service named name.
func (w *world) setConnection(name, status string) {
	w.t.Helper()
	plsClient := w.mgmt.NewPrivateLinkServicesClient()
	pager := plsClient.NewListPrivateEndpointConnectionsPager("mgmt-rg", name, nil)
	n := 0
	for pager.More() {
		page, err := pager.NextPage(w.ctx)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, conn := range page.Value {
			n++
			if _, err := plsClient.UpdatePrivateEndpointConnection(w.ctx, "mgmt-rg", name, *conn.Name, armnetwork.PrivateEndpointConnection{
				Properties: &armnetwork.PrivateEndpointConnectionProperties{PrivateLinkServiceConnectionState: &armnetwork.PrivateLinkServiceConnectionState{
					Status: to.Ptr(status), Description: to.Ptr("by the test"),
				}},
			}, nil); err != nil {
				w.t.Fatal(err)
			}
		}
	}
	if n != 1 {
		w.t.Fatalf("%d connections on %s, want 1", n, name)
	}
}
