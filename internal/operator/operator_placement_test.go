package operator

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/testenv"
)

// With --azure-load-balancer-configurations=kubernetes,lb-2 the operator
// places each new private Azure cluster on one configuration with room,
// before its control plane exists: sixteen clusters go eight and eight
// (status and control plane agree), the seventeenth gets
// LoadBalancerPrivateLinkServiceLimit naming both configurations and
// nothing is made for it. A restarted operator moves no cluster, and a
// placement whose status write was lost is taken back from the control
// plane, not chosen again.
func TestRunPlacesClustersOnLoadBalancerConfigurations(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	sp := f.AzureServicePrincipalWithRole(t, "hcplink-operator", "Network Contributor", "/subscriptions/"+cloudsimtest.ProviderSubscription)
	ctx := t.Context()
	groups, err := armresources.NewResourceGroupsClient(cloudsimtest.ProviderSubscription, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := groups.CreateOrUpdate(ctx, "mgmt-rg", armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil); err != nil {
		t.Fatal(err)
	}
	configs := []string{"kubernetes", "lb-2"}
	start := func() func() {
		runCtx, cancel := context.WithCancel(ctrl.LoggerInto(ctx, ctrl.Log.WithName("operator")))
		stopped := make(chan error, 1)
		go func() {
			stopped <- Run(runCtx, Options{
				RestConfig:      env.Config,
				PrivatePlatform: PlatformAzure,
				Azure: &azurecloud.Config{Cloud: f.AzureCloud(), CACertPEM: f.Server.CACertPEM(), TenantID: sp.TenantID, ClientID: sp.ClientID,
					ClientSecret: sp.ClientSecret, SubscriptionID: cloudsimtest.ProviderSubscription, ResourceGroup: "mgmt-rg"},
				AzureLoadBalancerConfigurations: configs,
				ControlPlaneOperatorImage:       "registry.example.com/hcplink:test",
				MetricsBindAddress:              "0",
				HealthProbeBindAddress:          "0",
			})
		}()
		var once sync.Once
		return func() {
			once.Do(func() {
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
		}
	}
	stop := start()
	t.Cleanup(func() { stop() })

	ns := env.NewNamespace(t)
	var clusters []*hcplinkv1beta1.HostedCluster
	for i := range 17 {
		hc := azurePrivateCluster(ns, fmt.Sprintf("c%02d", i), fmt.Sprintf("6f1c2a40-2222-4000-8000-%012d", i))
		if err := env.Client.Create(ctx, hc); err != nil {
			t.Fatal(err)
		}
		clusters = append(clusters, hc)
	}
	placements := func() (map[string]int, map[string]string, *hcplinkv1beta1.HostedCluster, error) {
		count, where := map[string]int{}, map[string]string{}
		var refused *hcplinkv1beta1.HostedCluster
		for _, hc := range clusters {
			got := &hcplinkv1beta1.HostedCluster{}
			if err := env.Client.Get(ctx, client.ObjectKeyFromObject(hc), got); err != nil {
				return nil, nil, nil, err
			}
			if c := got.Status.AzureLoadBalancerConfiguration; c != "" {
				count[c]++
				where[got.Name] = c
			} else if a := meta.FindStatusCondition(got.Status.Conditions, hcplinkv1beta1.AvailableCondition); a != nil &&
				a.Reason == hcplinkv1beta1.LoadBalancerPrivateLinkServiceLimitReason {
				refused = got
			}
		}
		return count, where, refused, nil
	}
	var before map[string]string
	var refused *hcplinkv1beta1.HostedCluster
	testenv.EventuallyWithin(t, 90*time.Second, "sixteen clusters placed eight and eight, the seventeenth refused", func() (bool, error) {
		count, where, r, err := placements()
		before, refused = where, r
		return count["kubernetes"] == 8 && count["lb-2"] == 8 && refused != nil, err
	})
	cond := meta.FindStatusCondition(refused.Status.Conditions, hcplinkv1beta1.AvailableCondition)
	if cond.Status != metav1.ConditionFalse || !strings.Contains(cond.Message, "kubernetes, lb-2") || !strings.Contains(cond.Message, "8 Private Link Services") ||
		!strings.Contains(cond.Message, "--azure-load-balancer-configurations") {
		t.Errorf("the refused cluster's Available = %+v", cond)
	}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: hcplinkv1beta1.HostedControlPlaneNamespace(ns, refused.Name), Name: refused.Name}, &hcplinkv1beta1.HostedControlPlane{}); err == nil {
		t.Error("a control plane was made for the cluster no configuration had room for")
	}
	for _, hc := range clusters {
		if where, ok := before[hc.Name]; ok {
			hcp := &hcplinkv1beta1.HostedControlPlane{}
			testenv.EventuallyWithin(t, 30*time.Second, "the control plane of "+hc.Name+" naming its placement", func() (bool, error) {
				err := env.Client.Get(ctx, client.ObjectKey{Namespace: hcplinkv1beta1.HostedControlPlaneNamespace(ns, hc.Name), Name: hc.Name}, hcp)
				return err == nil && hcp.Spec.AzureLoadBalancerConfiguration == where, client.IgnoreNotFound(err)
			})
		}
	}

	// A restart, and meanwhile one cluster's recorded placement lost.
	stop()
	lost := &hcplinkv1beta1.HostedCluster{}
	lostKey := client.ObjectKeyFromObject(clusters[0])
	if clusters[0].Name == refused.Name {
		lostKey = client.ObjectKeyFromObject(clusters[1])
	}
	if err := env.Client.Get(ctx, lostKey, lost); err != nil {
		t.Fatal(err)
	}
	lostWas := lost.Status.AzureLoadBalancerConfiguration
	patch := client.RawPatch("application/json-patch+json", []byte(`[{"op":"remove","path":"/status/azureLoadBalancerConfiguration"}]`))
	if err := env.Client.Status().Patch(ctx, lost, patch); err != nil {
		t.Fatal(err)
	}
	stop = start()
	testenv.EventuallyWithin(t, 90*time.Second, "the lost placement taken back from the control plane", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(lost), lost)
		return err == nil && lost.Status.AzureLoadBalancerConfiguration != "", err
	})
	if lost.Status.AzureLoadBalancerConfiguration != lostWas {
		t.Errorf("after a restart with its status lost, %s is on %s, was on %s", lost.Name, lost.Status.AzureLoadBalancerConfiguration, lostWas)
	}
	_, after, stillRefused, err := placements()
	if err != nil {
		t.Fatal(err)
	}
	for name, was := range before {
		if after[name] != was {
			t.Errorf("after a restart %s is on %q, was on %q", name, after[name], was)
		}
	}
	if stillRefused == nil || stillRefused.Name != refused.Name {
		t.Errorf("after a restart the refused cluster is %v, want %s still refused", stillRefused, refused.Name)
	}
}

// azurePrivateCluster is a private Azure HostedCluster.
func azurePrivateCluster(namespace, name, clusterID string) *hcplinkv1beta1.HostedCluster {
	guestVNet := "/subscriptions/" + cloudsimtest.CustomerSubscription + "/resourceGroups/customer-rg/providers/Microsoft.Network/virtualNetworks/guest"
	return &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID: name + "-infra", ClusterID: clusterID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "azdemo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "192.168.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
				Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api." + name + ".azdemo.example.com"}}}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
				SubscriptionID: cloudsimtest.CustomerSubscription, ResourceGroupName: "customer-rg", Location: "eastus",
				VnetID: guestVNet, SubnetID: guestVNet + "/subnets/workers", Topology: hcplinkv1beta1.AzureTopologyPrivate,
				Private:  &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink},
				TenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47", AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig("3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"),
			}},
		},
	}
}
