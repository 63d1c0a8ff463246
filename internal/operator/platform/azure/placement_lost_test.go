package azure

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/operator/azureprivatelink"
	"github.com/hcplink/hcplink/internal/operator/platform"
	"github.com/hcplink/hcplink/internal/testenv"
)

// A cluster whose placement is only in its HostedControlPlane (its status
// write was lost, and this operator process has not placed it) still holds
// its room: a new cluster is refused rather than put on a full load
// balancer. Sixteen clusters fill two configurations of eight; the first
// one's placement is in its control plane alone.
func TestPlacementInTheControlPlaneHoldsItsRoom(t *testing.T) {
	env := testenv.Start(t)
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	ctx := t.Context()
	sub := cloudsimtest.ProviderSubscription
	groups, err := armresources.NewResourceGroupsClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := groups.CreateOrUpdate(ctx, "mgmt-rg", armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil); err != nil {
		t.Fatal(err)
	}
	providers, err := azurecloud.NewProviders(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	cloud := &azureprivatelink.Cloud{Provider: providers.PrivateLinkServices, Subscription: sub, LoadBalancers: azurecloud.LoadBalancerScope{ResourceGroup: "mgmt-rg"}}
	placer := &Placer{Configurations: []string{"kubernetes", "lb-2"}, Reader: env.Client, ResourceGroup: "mgmt-rg",
		Services: &azureprivatelink.ServiceCache{Cloud: cloud, Now: time.Now, TTL: time.Minute}}

	ns := env.NewNamespace(t)
	cluster := func(i int) *hcplinkv1beta1.HostedCluster {
		hc := &hcplinkv1beta1.HostedCluster{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("c%02d", i)},
			Spec: hcplinkv1beta1.HostedClusterSpec{
				InfraID: fmt.Sprintf("c%02d-infra", i), ClusterID: fmt.Sprintf("6f1c2a40-2222-4000-8000-%012d", i),
				DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "azdemo.example.com"},
				Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "192.168.0.0/16"}}},
				Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: fmt.Sprintf("api.c%02d.azdemo.example.com", i)}}}},
				Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
					SubscriptionID: cloudsimtest.CustomerSubscription, ResourceGroupName: "customer-rg", Location: "eastus",
					VnetID:   "/subscriptions/" + cloudsimtest.CustomerSubscription + "/resourceGroups/customer-rg/providers/Microsoft.Network/virtualNetworks/guest",
					SubnetID: "/subscriptions/" + cloudsimtest.CustomerSubscription + "/resourceGroups/customer-rg/providers/Microsoft.Network/virtualNetworks/guest/subnets/workers",
					Topology: hcplinkv1beta1.AzureTopologyPrivate, Private: &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink},
					TenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47", AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig("3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"),
				}},
			},
		}
		if err := env.Client.Create(ctx, hc); err != nil {
			t.Fatal(err)
		}
		return hc
	}
	for i := range 16 {
		hc := cluster(i)
		where := []string{"kubernetes", "lb-2"}[i%2]
		if i == 0 {
			// Placed by an earlier process: its control plane says where,
			// its status lost it.
			hcpNamespace := hcplinkv1beta1.HostedControlPlaneNamespace(ns, hc.Name)
			if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hcpNamespace}}); err != nil {
				t.Fatal(err)
			}
			hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: hcpNamespace, Name: hc.Name},
				Spec: hcplinkv1beta1.HostedControlPlaneSpec{InfraID: hc.Spec.InfraID, ClusterID: hc.Spec.ClusterID, DNS: hc.Spec.DNS,
					Networking: hc.Spec.Networking, Services: hc.Spec.Services, Platform: hc.Spec.Platform, AzureLoadBalancerConfiguration: where}}
			if err := env.Client.Create(ctx, hcp); err != nil {
				t.Fatal(err)
			}
			continue
		}
		hc.Status.AzureLoadBalancerConfiguration = where
		if err := env.Client.Status().Update(ctx, hc); err != nil {
			t.Fatal(err)
		}
	}

	newcomer := cluster(16)
	got, err := placer.Place(ctx, newcomer, "")
	var refused *platform.PlacementRefused
	if !errors.As(err, &refused) || refused.Reason != hcplinkv1beta1.LoadBalancerPrivateLinkServiceLimitReason {
		t.Errorf("the seventeenth cluster was placed on %q (error %v); want it refused: c00's placement in its control plane fills that configuration", got, err)
	}
}
