package azure

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/testenv"
)

// Without --azure-pls-resource-group the operator takes the management
// cluster's resource group from its Nodes' spec.providerID, as AKS and
// OpenShift on Azure write it; Nodes of another subscription or cloud name
// none, and then start-up says which flag to set.
func TestResourceGroupFromNodes(t *testing.T) {
	env := testenv.Start(t)
	ctx := t.Context()
	sub := cloudsimtest.ProviderSubscription
	if _, err := resourceGroupFromNodes(ctx, env.Client, sub); err == nil || !strings.Contains(err.Error(), "--azure-pls-resource-group") {
		t.Errorf("with no Node: %v, want an error naming --azure-pls-resource-group", err)
	}
	for name, providerID := range map[string]string{
		"kind":  "kind://docker/kind/kind-worker",
		"other": "azure:///subscriptions/22222222-2222-4222-8222-222222222222/resourceGroups/theirs/providers/Microsoft.Compute/virtualMachines/vm",
	} {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: providerID}}
		if err := env.Client.Create(ctx, node); err != nil {
			t.Fatal(err)
		}
	}
	if rg, err := resourceGroupFromNodes(ctx, env.Client, sub); err == nil {
		t.Errorf("with Nodes of another cloud and subscription: %q, want an error", rg)
	}
	aks := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "aks-nodepool1-0"}, Spec: corev1.NodeSpec{
		ProviderID: "azure:///subscriptions/" + sub + "/resourceGroups/MC_mgmt_aks_eastus/providers/Microsoft.Compute/virtualMachineScaleSets/aks-nodepool1/virtualMachines/0"}}
	if err := env.Client.Create(ctx, aks); err != nil {
		t.Fatal(err)
	}
	if rg, err := resourceGroupFromNodes(ctx, env.Client, sub); err != nil || rg != "MC_mgmt_aks_eastus" {
		t.Errorf("with an AKS Node: %q, %v", rg, err)
	}
}
