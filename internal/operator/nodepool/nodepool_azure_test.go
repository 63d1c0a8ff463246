package nodepool

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

const (
	azSubscription    = "550e8400-e29b-41d4-a716-446655440000"
	otherSubscription = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
)

func azureSubnet(subscription, name string) string {
	return "/subscriptions/" + subscription + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/workers-vnet/subnets/" + name
}

func publicAzureCluster(namespace, name string) *hcplinkv1beta1.HostedCluster {
	hc := publicAWSCluster(namespace, name)
	hc.Spec.Platform = hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
		SubscriptionID: azSubscription, ResourceGroupName: "rg", Location: "eastus",
		VnetID: strings.TrimSuffix(azureSubnet(azSubscription, "workers"), "/subnets/workers"), SubnetID: azureSubnet(azSubscription, "workers"),
	}}
	return hc
}

// An Azure NodePool whose subnet is in another subscription than its
// cluster's is refused with a condition naming the field and no
// subscription ID; one in the cluster's subscription is valid (issue 18,
// item 16: CEL cannot see the cluster from the NodePool).
func TestAzureNodePoolSubnetMustBeInTheClusterSubscription(t *testing.T) {
	ns := env.NewNamespace(t)
	startManager(t, ns)
	if err := env.Client.Create(t.Context(), publicAzureCluster(ns, "demo")); err != nil {
		t.Fatal(err)
	}
	pool := func(name, subnet string) *hcplinkv1beta1.NodePool {
		return &hcplinkv1beta1.NodePool{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: hcplinkv1beta1.NodePoolSpec{ClusterName: "demo", Platform: hcplinkv1beta1.NodePoolPlatform{Type: hcplinkv1beta1.AzurePlatform,
				Azure: &hcplinkv1beta1.AzureNodePoolPlatform{SubnetID: subnet}}},
		}
	}
	elsewhere := pool("elsewhere", azureSubnet(otherSubscription, "workers"))
	ours := pool("ours", strings.ToUpper(azureSubnet(azSubscription, "workers-2")))
	for _, np := range []*hcplinkv1beta1.NodePool{elsewhere, ours} {
		if err := env.Client.Create(t.Context(), np); err != nil {
			t.Fatal(err)
		}
	}
	c := waitForCondition(t, elsewhere, metav1.ConditionFalse, hcplinkv1beta1.SubnetNotInClusterSubscriptionReason)
	if !strings.Contains(c.Message, "spec.platform.azure.subnetID") || strings.Contains(c.Message, otherSubscription) || strings.Contains(c.Message, azSubscription) {
		t.Errorf("message %q: want the field named and no subscription ID", c.Message)
	}
	waitForCondition(t, ours, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason)
}
