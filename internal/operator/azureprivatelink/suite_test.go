package azureprivatelink

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

const (
	mgmtSub     = cloudsimtest.ProviderSubscription
	customerSub = cloudsimtest.CustomerSubscription
	// foreignSub is a third subscription, allowed only when a test adds it.
	foreignSub = "33333333-3333-4333-8333-333333333333"
	mgmtRG     = "mgmt-rg"
	lbIP       = "10.0.1.10"
	testDrift  = 5 * time.Minute
	managerID  = "mgmt-cluster"
)

var seq atomic.Int64

// world is cloudsim's Azure on a manual clock with the management VNet
// (an internal load balancer with address lbIP, a given NAT subnet), the
// customer's VNet, and the test API server.
type world struct {
	t        *testing.T
	ctx      context.Context
	f        *cloudsimtest.Fixture
	clk      *sim.ManualClock
	mgmt     *armnetwork.ClientFactory
	customer *armnetwork.ClientFactory
	foreign  *armnetwork.ClientFactory
	// vnetID is the management VNet; givenNAT a subnet of it with
	// Private Link Service network policies disabled.
	vnetID, givenNAT string
	guestSubnet      string
	foreignSubnet    string
	// managerID names the world's management cluster: each world its own,
	// as the worlds share one API server whose objects outlive them (a
	// world's operator counts the objects that record its NAT subnets).
	managerID string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	clk := sim.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	f := cloudsimtest.StartAzure(t, cloudsim.Options{Clock: clk})
	if err := f.Server.Azure.AddSubscription(azure.DefaultTenantID, foreignSub); err != nil {
		t.Fatal(err)
	}
	admin := f.AzureAdminCredential(t)
	w := &world{t: t, ctx: ctrl.LoggerInto(t.Context(), testenv.Logger(t)), f: f, clk: clk, managerID: fmt.Sprintf("%s-%d", managerID, seq.Add(1))}
	w.mgmt, w.customer, w.foreign = w.factory(admin, mgmtSub), w.factory(admin, customerSub), w.factory(admin, foreignSub)
	w.group(admin, mgmtSub, mgmtRG)
	w.group(admin, customerSub, "customer-rg")
	w.group(admin, foreignSub, "foreign-rg")
	vnet := w.vnet(w.mgmt, mgmtRG, "mgmt", "10.0.0.0/16",
		subnet("nodes", "10.0.0.0/24", ""), subnet("lb", "10.0.1.0/24", ""),
		subnet("given-nat", "10.0.2.0/24", armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesDisabled))
	w.vnetID, w.givenNAT = *vnet.ID, *vnet.ID+"/subnets/given-nat"
	w.internalLB("kubernetes-internal", *vnet.ID+"/subnets/lb", lbIP)
	guest := w.vnet(w.customer, "customer-rg", "guest", "192.168.0.0/16", subnet("workers", "192.168.1.0/24", ""))
	w.guestSubnet = *guest.Properties.Subnets[0].ID
	foreign := w.vnet(w.foreign, "foreign-rg", "foreign", "172.20.0.0/16", subnet("endpoints", "172.20.1.0/24", ""))
	w.foreignSubnet = *foreign.Properties.Subnets[0].ID
	return w
}

func (w *world) factory(cred azcore.TokenCredential, sub string) *armnetwork.ClientFactory {
	w.t.Helper()
	f, err := armnetwork.NewClientFactory(sub, cred, w.f.AzureClientOptions())
	if err != nil {
		w.t.Fatal(err)
	}
	return f
}

func (w *world) group(cred azcore.TokenCredential, sub, name string) {
	w.t.Helper()
	groups, err := armresources.NewResourceGroupsClient(sub, cred, w.f.AzureClientOptions())
	if err == nil {
		_, err = groups.CreateOrUpdate(w.ctx, name, armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil)
	}
	if err != nil {
		w.t.Fatalf("resource group %s: %v", name, err)
	}
}

// finish completes a test's own long-running operation on the sim clock.
func finish[T any](w *world, p *runtime.Poller[T], err error) T {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("starting an operation: %v", err)
	}
	w.clk.Advance(10 * time.Minute)
	res, err := p.PollUntilDone(w.ctx, &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	if err != nil {
		w.t.Fatalf("finishing an operation: %v", err)
	}
	return res
}

func subnet(name, prefix string, pls armnetwork.VirtualNetworkPrivateLinkServiceNetworkPolicies) *armnetwork.Subnet {
	s := &armnetwork.Subnet{Name: to.Ptr(name), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr(prefix)}}
	if pls != "" {
		s.Properties.PrivateLinkServiceNetworkPolicies = to.Ptr(pls)
	}
	return s
}

func (w *world) vnet(f *armnetwork.ClientFactory, rg, name, space string, subnets ...*armnetwork.Subnet) armnetwork.VirtualNetwork {
	w.t.Helper()
	p, err := f.NewVirtualNetworksClient().BeginCreateOrUpdate(w.ctx, rg, name, armnetwork.VirtualNetwork{
		Location: to.Ptr("eastus"),
		Properties: &armnetwork.VirtualNetworkPropertiesFormat{
			AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: to.SliceOfPtrs(space)},
			Subnets:      subnets,
		},
	}, nil)
	return finish(w, p, err).VirtualNetwork
}

func (w *world) internalLB(name, subnetID, ip string) {
	w.t.Helper()
	w.internalLBIn(mgmtRG, "eastus", name, subnetID, ip)
}

// internalLBIn is an internal load balancer in resource group rg and
// region location, with one frontend holding ip in subnetID.
func (w *world) internalLBIn(rg, location, name, subnetID, ip string) {
	w.t.Helper()
	p, err := w.mgmt.NewLoadBalancersClient().BeginCreateOrUpdate(w.ctx, rg, name, armnetwork.LoadBalancer{
		Location: to.Ptr(location),
		SKU:      &armnetwork.LoadBalancerSKU{Name: to.Ptr(armnetwork.LoadBalancerSKUNameStandard)},
		Properties: &armnetwork.LoadBalancerPropertiesFormat{
			FrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{Name: to.Ptr("private-router"), Properties: &armnetwork.FrontendIPConfigurationPropertiesFormat{
				Subnet: &armnetwork.Subnet{ID: to.Ptr(subnetID)}, PrivateIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodStatic), PrivateIPAddress: to.Ptr(ip),
			}}},
			BackendAddressPools: []*armnetwork.BackendAddressPool{{Name: to.Ptr("pool")}},
		},
	}, nil)
	finish(w, p, err)
}

// reconciler is the operator's controller on the management subscription,
// logged in as cred (the administrator when nil).
func (w *world) reconciler(cred azcore.TokenCredential) *Reconciler {
	if cred == nil {
		cred = w.f.AzureAdminCredential(w.t)
	}
	provider := azurecloud.NewPrivateLinkServices(w.factory(cred, mgmtSub))
	return &Reconciler{Client: env.Client, Cloud: &Cloud{Provider: provider, Subscription: mgmtSub, LoadBalancers: azurecloud.LoadBalancerScope{ResourceGroup: mgmtRG}},
		ManagementClusterID: w.managerID, DriftInterval: testDrift, Now: w.clk.Now}
}

// calls is the management subscription's count of one ARM operation.
func (w *world) calls(op string) sim.CallCount { return w.f.Calls(mgmtSub)["Microsoft.Network:"+op] }

func (w *world) pls(name string) *armnetwork.PrivateLinkService {
	w.t.Helper()
	got, err := w.mgmt.NewPrivateLinkServicesClient().Get(w.ctx, mgmtRG, name, nil)
	if err != nil {
		if azurecloud.IsNotFound(err) {
			return nil
		}
		w.t.Fatalf("reading %s: %v", name, err)
	}
	return &got.PrivateLinkService
}

func (w *world) subnetExists(id string) bool {
	w.t.Helper()
	ref, err := azurecloud.ParseSubnetID(id)
	if err != nil {
		w.t.Fatal(err)
	}
	_, err = w.mgmt.NewSubnetsClient().Get(w.ctx, ref.ResourceGroup, ref.VNet, ref.Name, nil)
	if err != nil && !azurecloud.IsNotFound(err) {
		w.t.Fatal(err)
	}
	return err == nil
}

// cluster is one private Azure HostedCluster, its control-plane namespace
// and its AzurePrivateLinkService.
type cluster struct {
	hc *hcplinkv1beta1.HostedCluster
	cr *hcplinkv1beta1.AzurePrivateLinkService
}

func (w *world) cluster(mutate ...func(*hcplinkv1beta1.HostedCluster, *hcplinkv1beta1.AzurePrivateLinkService)) *cluster {
	w.t.Helper()
	ns := env.NewNamespace(w.t)
	n := seq.Add(1)
	guestVNet := strings.TrimSuffix(w.guestSubnet, "/subnets/workers")
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("az%d", n)},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    fmt.Sprintf("az-%d-%d", time.Now().UnixNano()%100000, n),
			ClusterID:  fmt.Sprintf("6f1c2a40-0000-4000-8000-%012d", time.Now().UnixNano()%1000000000000),
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "azdemo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "192.168.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{
				{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.azdemo.example.com"}}},
			},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
				SubscriptionID: customerSub, ResourceGroupName: "customer-rg", Location: "eastus",
				VnetID: guestVNet, SubnetID: w.guestSubnet, Topology: hcplinkv1beta1.AzureTopologyPrivate,
				Private:  &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink},
				TenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47", AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig("3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"),
			}},
		},
	}
	hcpNS := hcplinkv1beta1.HostedControlPlaneNamespace(ns, hc.Name)
	cr := &hcplinkv1beta1.AzurePrivateLinkService{
		ObjectMeta: metav1.ObjectMeta{Namespace: hcpNS, Name: "private-router",
			Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: hcplinkv1beta1.ClusterAnnotationValue(ns, hc.Name)}},
		Spec: hcplinkv1beta1.AzurePrivateLinkServiceSpec{LoadBalancerIP: lbIP, SubscriptionID: customerSub, ResourceGroupName: "customer-rg",
			Location: "eastus", GuestSubnetID: w.guestSubnet, GuestVNetID: guestVNet, BaseDomain: "azdemo.example.com"},
	}
	for _, m := range mutate {
		m(hc, cr)
	}
	create(w.t, hc)
	create(w.t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hcpNS}})
	create(w.t, cr)
	return &cluster{hc: hc, cr: cr}
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Create(t.Context(), obj); err != nil {
		t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

func get(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatalf("reading %T %s: %v", obj, obj.GetName(), err)
	}
}

func update(t *testing.T, obj client.Object, mutate func()) {
	t.Helper()
	for range 5 {
		get(t, obj)
		mutate()
		err := env.Client.Update(t.Context(), obj)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			t.Fatalf("updating %T %s: %v", obj, obj.GetName(), err)
		}
	}
	t.Fatalf("updating %T %s: conflicts", obj, obj.GetName())
}

func (w *world) reconcile(r *Reconciler, cr *hcplinkv1beta1.AzurePrivateLinkService) ctrl.Result {
	w.t.Helper()
	res, err := r.Reconcile(w.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(cr)})
	if err != nil {
		w.t.Fatalf("Reconcile(%s): %v", cr.Name, err)
	}
	return res
}

// settle reconciles, letting cloudsim's clock run past Azure's operations,
// until AzurePLSCreated is True.
func (w *world) settle(r *Reconciler, cr *hcplinkv1beta1.AzurePrivateLinkService) {
	w.t.Helper()
	for range 8 {
		w.reconcile(r, cr)
		get(w.t, cr)
		if c := meta.FindStatusCondition(cr.Status.Conditions, hcplinkv1beta1.AzurePLSCreatedCondition); c != nil && c.Status == metav1.ConditionTrue {
			return
		}
		w.clk.Advance(time.Minute)
	}
	w.t.Fatalf("AzurePrivateLinkService %s/%s did not become ready: %+v", cr.Namespace, cr.Name, cr.Status.Conditions)
}

func condition(t *testing.T, cr *hcplinkv1beta1.AzurePrivateLinkService, condType string) metav1.Condition {
	t.Helper()
	get(t, cr)
	c := meta.FindStatusCondition(cr.Status.Conditions, condType)
	if c == nil {
		t.Fatalf("no %s condition on %s: %+v", condType, cr.Name, cr.Status.Conditions)
	}
	return *c
}

// patchStatus merge-patches status fields (nil removes one).
func patchStatus(t *testing.T, cr *hcplinkv1beta1.AzurePrivateLinkService, fields map[string]any) {
	t.Helper()
	data, err := json.Marshal(map[string]any{"status": fields})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Status().Patch(t.Context(), cr, client.RawPatch(types.MergePatchType, data)); err != nil {
		t.Fatalf("patching status: %v", err)
	}
}

func setAdditional(t *testing.T, hc *hcplinkv1beta1.HostedCluster, subs []string) {
	t.Helper()
	update(t, hc, func() {
		if len(subs) == 0 {
			hc.Spec.Platform.Azure.Private.PrivateLink = nil
			return
		}
		hc.Spec.Platform.Azure.Private.PrivateLink = &hcplinkv1beta1.AzurePrivateLinkSpec{AdditionalAllowedSubscriptions: subs}
	})
}

// deleteAndSettle deletes the object and reconciles, the sim clock running
// past Azure's operations, until it is gone.
func (w *world) deleteAndSettle(r *Reconciler, cr *hcplinkv1beta1.AzurePrivateLinkService) {
	w.t.Helper()
	if err := env.Client.Delete(w.ctx, cr); client.IgnoreNotFound(err) != nil {
		w.t.Fatal(err)
	}
	for range 10 {
		w.reconcile(r, cr)
		if err := env.Client.Get(w.ctx, client.ObjectKeyFromObject(cr), cr); apierrors.IsNotFound(err) {
			return
		}
		w.clk.Advance(time.Minute)
	}
	w.t.Fatalf("AzurePrivateLinkService %s was not deleted: %+v", cr.Name, cr.Status.Conditions)
}

// foreignEndpoint is a Private Endpoint from the foreign subscription,
// connecting manually to the alias; it returns its name.
func (w *world) foreignEndpoint(alias string) string {
	w.t.Helper()
	return w.foreignEndpointNamed("foreign-pe", alias)
}

// foreignEndpointNamed is foreignEndpoint with the endpoint's name.
func (w *world) foreignEndpointNamed(name, alias string) string {
	w.t.Helper()
	p, err := w.foreign.NewPrivateEndpointsClient().BeginCreateOrUpdate(w.ctx, "foreign-rg", name, armnetwork.PrivateEndpoint{
		Location: to.Ptr("eastus"),
		Properties: &armnetwork.PrivateEndpointProperties{
			Subnet: &armnetwork.Subnet{ID: to.Ptr(w.foreignSubnet)},
			ManualPrivateLinkServiceConnections: []*armnetwork.PrivateLinkServiceConnection{{Name: to.Ptr("foreign-conn"),
				Properties: &armnetwork.PrivateLinkServiceConnectionProperties{PrivateLinkServiceID: to.Ptr(alias), RequestMessage: to.Ptr("hello")}}},
		},
	}, nil)
	finish(w, p, err)
	return name
}

func (w *world) endpoint(name string) armnetwork.PrivateEndpoint {
	w.t.Helper()
	got, err := w.foreign.NewPrivateEndpointsClient().Get(w.ctx, "foreign-rg", name, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	return got.PrivateEndpoint
}

func endpointStatus(pe armnetwork.PrivateEndpoint) string {
	for _, c := range append(pe.Properties.PrivateLinkServiceConnections, pe.Properties.ManualPrivateLinkServiceConnections...) {
		if c.Properties != nil && c.Properties.PrivateLinkServiceConnectionState != nil {
			return deref(c.Properties.PrivateLinkServiceConnectionState.Status)
		}
	}
	return ""
}
