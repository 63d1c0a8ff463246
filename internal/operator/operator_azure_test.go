package operator

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/testenv"
)

// With --private-platform=Azure the operator runs the Private Link Service
// controller on its own identity (configured once): an
// AzurePrivateLinkService gets its service, and a change of the cluster's
// additionalAllowedSubscriptions reaches it through the HostedCluster
// watch.
func TestRunServesAzurePrivateLink(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	sp := f.AzureServicePrincipalWithRole(t, "hcplink-operator", "Network Contributor", "/subscriptions/"+cloudsimtest.ProviderSubscription)
	admin := f.AzureAdminCredential(t)
	ctx := t.Context()
	groups, err := armresources.NewResourceGroupsClient(cloudsimtest.ProviderSubscription, admin, f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := groups.CreateOrUpdate(ctx, "mgmt-rg", armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil); err != nil {
		t.Fatal(err)
	}
	network, err := armnetwork.NewClientFactory(cloudsimtest.ProviderSubscription, admin, f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	done := func(err error, poll func() error) {
		t.Helper()
		if err == nil {
			err = poll()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	vp, err := network.NewVirtualNetworksClient().BeginCreateOrUpdate(ctx, "mgmt-rg", "mgmt", armnetwork.VirtualNetwork{Location: to.Ptr("eastus"),
		Properties: &armnetwork.VirtualNetworkPropertiesFormat{AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: to.SliceOfPtrs("10.0.0.0/16")},
			Subnets: []*armnetwork.Subnet{{Name: to.Ptr("lb"), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr("10.0.1.0/24")}}}}}, nil)
	done(err, func() error {
		_, err := vp.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: 50 * time.Millisecond})
		return err
	})
	subnetID := "/subscriptions/" + cloudsimtest.ProviderSubscription + "/resourceGroups/mgmt-rg/providers/Microsoft.Network/virtualNetworks/mgmt/subnets/lb"
	lp, err := network.NewLoadBalancersClient().BeginCreateOrUpdate(ctx, "mgmt-rg", "kubernetes-internal", armnetwork.LoadBalancer{Location: to.Ptr("eastus"),
		SKU: &armnetwork.LoadBalancerSKU{Name: to.Ptr(armnetwork.LoadBalancerSKUNameStandard)},
		Properties: &armnetwork.LoadBalancerPropertiesFormat{FrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{Name: to.Ptr("router"),
			Properties: &armnetwork.FrontendIPConfigurationPropertiesFormat{Subnet: &armnetwork.Subnet{ID: to.Ptr(subnetID)},
				PrivateIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodStatic), PrivateIPAddress: to.Ptr("10.0.1.10")}}}}}, nil)
	done(err, func() error {
		_, err := lp.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: 50 * time.Millisecond})
		return err
	})

	runCtx, cancel := context.WithCancel(ctrl.LoggerInto(ctx, ctrl.Log.WithName("operator")))
	stopped := make(chan error, 1)
	go func() {
		stopped <- Run(runCtx, Options{
			RestConfig:      env.Config,
			PrivatePlatform: PlatformAzure,
			Azure: &azurecloud.Config{Cloud: f.AzureCloud(), CACertPEM: f.Server.CACertPEM(), TenantID: sp.TenantID, ClientID: sp.ClientID,
				ClientSecret: sp.ClientSecret, SubscriptionID: cloudsimtest.ProviderSubscription, ResourceGroup: "mgmt-rg"},
			ControlPlaneOperatorImage: "registry.example.com/hcplink:test",
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-stopped:
			if err != nil {
				t.Errorf("Run returned %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	})

	ns := env.NewNamespace(t)
	guestVNet := "/subscriptions/" + cloudsimtest.CustomerSubscription + "/resourceGroups/customer-rg/providers/Microsoft.Network/virtualNetworks/guest"
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "az"},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID: "az-run", ClusterID: "6f1c2a40-1111-4000-8000-000000000001",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "azdemo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "192.168.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
				Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.azdemo.example.com"}}}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
				SubscriptionID: cloudsimtest.CustomerSubscription, ResourceGroupName: "customer-rg", Location: "eastus",
				VnetID: guestVNet, SubnetID: guestVNet + "/subnets/workers", Topology: hcplinkv1beta1.AzureTopologyPrivate,
				Private:  &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink},
				TenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47", AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig("3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"),
			}},
		},
	}
	if err := env.Client.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	hcpNS := hcplinkv1beta1.HostedControlPlaneNamespace(ns, hc.Name)
	testenv.Eventually(t, "the control-plane namespace", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKey{Name: hcpNS}, &corev1.Namespace{})
		return err == nil, client.IgnoreNotFound(err)
	})
	cr := &hcplinkv1beta1.AzurePrivateLinkService{
		ObjectMeta: metav1.ObjectMeta{Namespace: hcpNS, Name: "private-router"},
		Spec: hcplinkv1beta1.AzurePrivateLinkServiceSpec{LoadBalancerIP: "10.0.1.10", SubscriptionID: cloudsimtest.CustomerSubscription,
			ResourceGroupName: "customer-rg", Location: "eastus", GuestSubnetID: guestVNet + "/subnets/workers", GuestVNetID: guestVNet,
			BaseDomain: "azdemo.example.com"},
	}
	if err := env.Client.Create(ctx, cr); err != nil {
		t.Fatal(err)
	}
	plsName := azurecloud.PrivateLinkServiceName(hc.Spec.ClusterID)
	pls := func() *armnetwork.PrivateLinkService {
		got, err := network.NewPrivateLinkServicesClient().Get(ctx, "mgmt-rg", plsName, nil)
		if err != nil {
			return nil
		}
		return &got.PrivateLinkService
	}
	testenv.EventuallyWithin(t, 90*time.Second, "the Private Link Service's alias in status", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(cr), cr)
		return err == nil && cr.Status.PrivateLinkServiceAlias != "" && pls() != nil, err
	})

	const foreign = "33333333-3333-4333-8333-333333333333"
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
		t.Fatal(err)
	}
	// A patch, not an update: the running operator writes the status.
	base := hc.DeepCopy()
	hc.Spec.Platform.Azure.Private.PrivateLink = &hcplinkv1beta1.AzurePrivateLinkSpec{AdditionalAllowedSubscriptions: []string{foreign}}
	if err := env.Client.Patch(ctx, hc, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	testenv.EventuallyWithin(t, 90*time.Second, "the added subscription on the Private Link Service", func() (bool, error) {
		p := pls()
		if p == nil {
			return false, nil
		}
		var subs []string
		for _, s := range p.Properties.AutoApproval.Subscriptions {
			subs = append(subs, strings.ToLower(*s))
		}
		return slices.Contains(subs, foreign), nil
	})
}
