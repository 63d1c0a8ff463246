package lbcontroller

import (
	"context"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

const (
	azureGroup  = "mgmt-rg"
	azureSubnet = "10.0.0.0/24"
)

// azureCloud is cloudsim's Azure with the management resource group and a
// VNet whose subnet takes the internal frontends.
type azureCloud struct {
	f        *cloudsimtest.Fixture
	network  *armnetwork.ClientFactory
	subnetID string
}

func newAzureCloud(t *testing.T) *azureCloud {
	t.Helper()
	ctx := t.Context()
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	admin := f.AzureAdminCredential(t)
	sub := cloudsimtest.ProviderSubscription
	groups, err := armresources.NewResourceGroupsClient(sub, admin, f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := groups.CreateOrUpdate(ctx, azureGroup, armresources.ResourceGroup{Location: to.Ptr(cloudsimtest.AzureLocation)}, nil); err != nil {
		t.Fatal(err)
	}
	network, err := armnetwork.NewClientFactory(sub, admin, f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, err := network.NewVirtualNetworksClient().BeginCreateOrUpdate(ctx, azureGroup, "mgmt", armnetwork.VirtualNetwork{
		Location: to.Ptr(cloudsimtest.AzureLocation),
		Properties: &armnetwork.VirtualNetworkPropertiesFormat{
			AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: to.SliceOfPtrs("10.0.0.0/16")},
			Subnets: []*armnetwork.Subnet{
				{Name: to.Ptr("lb"), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr(azureSubnet)}},
				{Name: to.Ptr("nat"), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.0.1.0/24"),
					PrivateLinkServiceNetworkPolicies: to.Ptr(armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesDisabled)}},
			},
		},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	vnet, err := p.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return &azureCloud{f: f, network: network, subnetID: *vnet.ID + "/subnets/lb"}
}

func (c *azureCloud) reconciler(t *testing.T) *AzureReconciler {
	return &AzureReconciler{Client: env.Client, Options: AzureOptions{
		Credential: c.f.AzureAdminCredential(t), ClientOptions: c.f.AzureClientOptions(),
		SubscriptionID: cloudsimtest.ProviderSubscription, ResourceGroup: azureGroup,
		Location: cloudsimtest.AzureLocation, SubnetID: c.subnetID,
	}}
}

// loadBalancer returns the load balancer of that name, or nil.
func (c *azureCloud) loadBalancer(t *testing.T, name string) *armnetwork.LoadBalancer {
	t.Helper()
	out, err := c.network.NewLoadBalancersClient().Get(t.Context(), azureGroup, name, nil)
	return orNil(t, &out.LoadBalancer, err)
}

// publicIP returns the public address of that name, or nil.
func (c *azureCloud) publicIP(t *testing.T, name string) *armnetwork.PublicIPAddress {
	t.Helper()
	out, err := c.network.NewPublicIPAddressesClient().Get(t.Context(), azureGroup, name, nil)
	return orNil(t, &out.PublicIPAddress, err)
}

// orNil is what a Get answered: the resource, nil when Azure does not
// have it, a failed test on any other error.
func orNil[T any](t *testing.T, v *T, err error) *T {
	t.Helper()
	if azureStatus(err) == 404 {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// settleAzure calls Reconcile, as the workqueue would after each requested
// delay, until it asks for nothing more, within the deadline.
func settleAzure(t *testing.T, r *AzureReconciler, svc *corev1.Service) {
	t.Helper()
	var last ctrl.Result
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, deadline, true, func(ctx context.Context) (bool, error) {
		res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)})
		if err != nil {
			return false, err
		}
		last = res
		return res.IsZero(), nil
	})
	if err != nil {
		t.Fatalf("Reconcile did not settle within %v (last %+v): %v", deadline, last, err)
	}
}

func ingressIP(svc *corev1.Service) string {
	if ing := svc.Status.LoadBalancer.Ingress; len(ing) == 1 {
		return ing[0].IP
	}
	return ""
}

// internalRouter starts a cloud and a stand-in, and gives an internal
// private-router Service its load balancer.
func internalRouter(t *testing.T) (*azureCloud, *AzureReconciler, *corev1.Service, string, *armnetwork.LoadBalancer) {
	t.Helper()
	c := newAzureCloud(t)
	r := c.reconciler(t)
	ns := env.NewNamespace(t)
	svc := createService(t, ns, "private-router", map[string]string{AzureInternalAnnotation: "true"})
	settleAzure(t, r, svc)
	name := DefaultAzureClusterName + "-internal"
	lb := c.loadBalancer(t, name)
	if lb == nil {
		t.Fatalf("no load balancer %s", name)
	}
	return c, r, svc, name, lb
}

// An internal Service gets a frontend on the shared internal Standard
// load balancer (kubernetes-internal), with a private address from the
// management subnet, written to its status; made public, it moves to the
// public load balancer (kubernetes) on a public address of its own, and
// the internal load balancer, now empty, goes; deleted, the public load
// balancer and the address go and the Service is let go.
func TestAzureInternalThenPublicThenDeleted(t *testing.T) {
	c, r, svc, name, lb := internalRouter(t)
	pipName := DefaultAzureClusterName + "-" + azureFrontendName(svc.UID)
	fe := lb.Properties.FrontendIPConfigurations[0].Properties
	ip := ingressIP(get(t, svc))
	if fe.PublicIPAddress != nil || deref(fe.Subnet.ID, "") != c.subnetID || deref(fe.PrivateIPAddress, "") != ip {
		t.Fatalf("frontend %+v, Service ingress %q: want a private address from %s in status", fe, ip, c.subnetID)
	}
	if addr, err := netip.ParseAddr(ip); err != nil || !netip.MustParsePrefix(azureSubnet).Contains(addr) {
		t.Errorf("ingress IP %q is not in the management subnet %s", ip, azureSubnet)
	}
	if *lb.SKU.Name != armnetwork.LoadBalancerSKUNameStandard {
		t.Errorf("SKU %s, want Standard (Private Link needs it)", *lb.SKU.Name)
	}

	// Public now: Azure cannot turn the frontend around, so it is replaced.
	patched := get(t, svc)
	orig := patched.DeepCopy()
	delete(patched.Annotations, AzureInternalAnnotation)
	patched.Annotations["service.beta.kubernetes.io/azure-dns-label-name"] = "router"
	if err := env.Client.Patch(t.Context(), patched, client.MergeFrom(orig)); err != nil {
		t.Fatal(err)
	}
	// The replacement takes several passes, each waiting on Azure's
	// operations: reconcile until the public load balancer is there (a pass
	// that finds nothing to do before the old one is gone is not the end).
	var pip *armnetwork.PublicIPAddress
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, deadline, true, func(ctx context.Context) (bool, error) {
		if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)}); err != nil {
			return false, err
		}
		lb, pip = c.loadBalancer(t, DefaultAzureClusterName), c.publicIP(t, pipName)
		return lb != nil && pip != nil && len(lb.Properties.FrontendIPConfigurations) > 0 &&
			lb.Properties.FrontendIPConfigurations[0].Properties.PublicIPAddress != nil, nil
	})
	if err != nil {
		t.Fatalf("after going public: load balancer %v, public address %v: %v", lb, pip, err)
	}
	settleAzure(t, r, svc)
	if c.loadBalancer(t, name) != nil {
		t.Errorf("the internal load balancer %s is still there with no frontend left", name)
	}
	if got := ingressIP(get(t, svc)); got == "" || got != deref(pip.Properties.IPAddress, "") {
		t.Errorf("ingress IP %q, want the public address %q", got, deref(pip.Properties.IPAddress, ""))
	}

	if err := env.Client.Delete(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	settleAzure(t, r, svc)
	if c.loadBalancer(t, DefaultAzureClusterName) != nil || c.publicIP(t, pipName) != nil {
		t.Error("the load balancer or its public address is still there")
	}
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(svc), &corev1.Service{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Service is still there (%v): the finalizer was not removed", err)
	}
}

// A Private Link Service on the frontend holds the load balancer (Azure
// refuses to delete it): the Service waits with its finalizer, and goes
// once the Private Link Service is gone.
func TestAzureLoadBalancerHeldByPrivateLinkService(t *testing.T) {
	c, r, svc, name, lb := internalRouter(t)
	plsClient := c.network.NewPrivateLinkServicesClient()
	p, err := plsClient.BeginCreateOrUpdate(t.Context(), azureGroup, "pls", armnetwork.PrivateLinkService{
		Location: to.Ptr(cloudsimtest.AzureLocation),
		Properties: &armnetwork.PrivateLinkServiceProperties{
			LoadBalancerFrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{ID: lb.Properties.FrontendIPConfigurations[0].ID}},
			IPConfigurations: []*armnetwork.PrivateLinkServiceIPConfiguration{{Name: to.Ptr("nat"), Properties: &armnetwork.PrivateLinkServiceIPConfigurationProperties{
				Subnet: &armnetwork.Subnet{ID: to.Ptr(c.subnetID[:len(c.subnetID)-len("lb")] + "nat")}, Primary: to.Ptr(true)}}},
		},
	}, nil)
	if err == nil {
		_, err = p.PollUntilDone(t.Context(), &runtime.PollUntilDoneOptions{Frequency: 50 * time.Millisecond})
	}
	if err != nil {
		t.Fatalf("creating the Private Link Service: %v", err)
	}

	if err := env.Client.Delete(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)})
	if err != nil || res.RequeueAfter != inUseRequeue {
		t.Fatalf("Reconcile = %+v, %v; want a wait of %v while the Private Link Service holds the load balancer", res, err, inUseRequeue)
	}
	if c.loadBalancer(t, name) == nil || !controllerutil.ContainsFinalizer(get(t, svc), Finalizer) {
		t.Fatal("the load balancer went, or the Service lost its finalizer, while a Private Link Service was on it")
	}

	dp, err := plsClient.BeginDelete(t.Context(), azureGroup, "pls", nil)
	if err == nil {
		_, err = dp.PollUntilDone(t.Context(), &runtime.PollUntilDoneOptions{Frequency: 50 * time.Millisecond})
	}
	if err != nil {
		t.Fatal(err)
	}
	settleAzure(t, r, svc)
	if c.loadBalancer(t, name) != nil {
		t.Error("the load balancer is still there after the Private Link Service went")
	}
}

// frontendsOf names the frontends of a load balancer (none when absent).
func (c *azureCloud) frontendsOf(t *testing.T, name string) []string {
	t.Helper()
	lb := c.loadBalancer(t, name)
	if lb == nil {
		return nil
	}
	var out []string
	for _, fe := range lb.Properties.FrontendIPConfigurations {
		out = append(out, deref(fe.Name, ""))
	}
	return out
}

// Internal Services share one internal load balancer, as
// cloud-provider-azure's default: each Service is a frontend on
// kubernetes-internal with its own address; deleting one takes only its
// frontend, deleting the last takes the load balancer.
func TestAzureInternalServicesShareOneLoadBalancer(t *testing.T) {
	c := newAzureCloud(t)
	r := c.reconciler(t)
	var svcs []*corev1.Service
	for range 3 {
		svc := createService(t, env.NewNamespace(t), "private-router", map[string]string{AzureInternalAnnotation: "true"})
		settleAzure(t, r, svc)
		svcs = append(svcs, svc)
	}
	const shared = DefaultAzureClusterName + "-internal"
	if got := c.frontendsOf(t, shared); len(got) != 3 {
		t.Fatalf("load balancer %s has frontends %v, want one per Service (3)", shared, got)
	}
	ips := map[string]bool{}
	for _, svc := range svcs {
		ips[ingressIP(get(t, svc))] = true
	}
	if len(ips) != 3 || ips[""] {
		t.Errorf("the Services' addresses %v: want three distinct ones", ips)
	}

	if err := env.Client.Delete(t.Context(), svcs[0]); err != nil {
		t.Fatal(err)
	}
	settleAzure(t, r, svcs[0])
	if got := c.frontendsOf(t, shared); len(got) != 2 || slices.Contains(got, azureFrontendName(svcs[0].UID)) {
		t.Errorf("after deleting one Service the frontends are %v, want the other two", got)
	}
	for _, svc := range svcs[1:] {
		if err := env.Client.Delete(t.Context(), svc); err != nil {
			t.Fatal(err)
		}
		settleAzure(t, r, svc)
	}
	if c.loadBalancer(t, shared) != nil {
		t.Errorf("load balancer %s is still there with no Service left", shared)
	}
}

// With several load-balancer configurations, an unannotated Service goes
// on the configuration allowing placement whose load balancer has the
// fewest frontends; an annotated one only on the configurations it names,
// even one that does not allow placement.
func TestAzureServicesArePlacedOnConfigurations(t *testing.T) {
	c := newAzureCloud(t)
	r := c.reconciler(t)
	r.Options.Configurations = []AzureLoadBalancerConfiguration{{Name: "kubernetes"}, {Name: "lb-2"}, {Name: "reserved", NoServicePlacement: true}}
	internal := map[string]string{AzureInternalAnnotation: "true"}
	for range 4 {
		settleAzure(t, r, createService(t, env.NewNamespace(t), "private-router", internal))
	}
	if a, b := c.frontendsOf(t, "kubernetes-internal"), c.frontendsOf(t, "lb-2-internal"); len(a) != 2 || len(b) != 2 {
		t.Errorf("unannotated Services: kubernetes-internal %v, lb-2-internal %v; want two each", a, b)
	}
	if got := c.frontendsOf(t, "reserved-internal"); len(got) != 0 {
		t.Errorf("a configuration without service placement took unannotated Services: %v", got)
	}
	pinned := createService(t, env.NewNamespace(t), "private-router", map[string]string{AzureInternalAnnotation: "true", AzureConfigurationsAnnotation: "reserved"})
	settleAzure(t, r, pinned)
	if got := c.frontendsOf(t, "reserved-internal"); !slices.Equal(got, []string{azureFrontendName(pinned.UID)}) {
		t.Errorf("the Service pinned to reserved: reserved-internal has %v", got)
	}
}

func TestEligibleAndChosenConfigurations(t *testing.T) {
	configs := []AzureLoadBalancerConfiguration{{Name: "kubernetes"}, {Name: "lb-2"}, {Name: "drain", NoServicePlacement: true}}
	frontends := map[string]int{"kubernetes-internal": 8, "lb-2-internal": 3, "drain-internal": 0, "kubernetes": 1}
	count := func(lb string) int { return frontends[lb] }
	for _, tc := range []struct {
		name       string
		annotation *string
		internal   bool
		eligible   []string
		chosen     string
	}{
		{"unannotated: those allowing placement, fewest frontends", nil, true, []string{"kubernetes", "lb-2"}, "lb-2"},
		{"public ones are counted apart", nil, false, []string{"kubernetes", "lb-2"}, "lb-2"},
		{"annotated: only those named, placement allowed or not", to.Ptr("drain"), true, []string{"drain"}, "drain"},
		{"several named, spaces and case ignored", to.Ptr(" LB-2 , kubernetes"), true, []string{"kubernetes", "lb-2"}, "lb-2"},
		{"unknown names: none eligible", to.Ptr("other"), true, nil, ""},
		{"an empty annotation is no annotation", to.Ptr(""), true, []string{"kubernetes", "lb-2"}, "lb-2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := &corev1.Service{}
			if tc.annotation != nil {
				svc.Annotations = map[string]string{AzureConfigurationsAnnotation: *tc.annotation}
			}
			got := eligibleConfigurations(configs, svc)
			if !slices.Equal(got, tc.eligible) {
				t.Errorf("eligible = %v, want %v", got, tc.eligible)
			}
			if chosen := chooseConfiguration(got, tc.internal, count); chosen != tc.chosen {
				t.Errorf("chosen = %q, want %q", chosen, tc.chosen)
			}
		})
	}
	if got := chooseConfiguration([]string{"a", "b"}, true, func(string) int { return 0 }); got != "a" {
		t.Errorf("a tie goes to %q, want the first configuration", got)
	}
}
