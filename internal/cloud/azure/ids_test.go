package azure

import "testing"

func TestResourceGroupOfNode(t *testing.T) {
	const sub = "11111111-1111-4111-8111-111111111111"
	tests := []struct {
		name, providerID, want string
	}{
		{"an AKS scale-set VM", "azure:///subscriptions/" + sub + "/resourceGroups/MC_rg_aks_eastus/providers/Microsoft.Compute/virtualMachineScaleSets/aks-nodepool1-1/virtualMachines/0", "MC_rg_aks_eastus"},
		{"a VM", "azure:///subscriptions/" + sub + "/resourceGroups/ocp-abc12/providers/Microsoft.Compute/virtualMachines/ocp-abc12-worker-1", "ocp-abc12"},
		{"the subscription in other case", "azure:///subscriptions/" + "11111111-1111-4111-8111-111111111111" + "/resourcegroups/rg/providers/Microsoft.Compute/virtualMachines/vm", "rg"},
		{"another subscription", "azure:///subscriptions/22222222-2222-4222-8222-222222222222/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm", ""},
		{"another cloud", "aws:///us-east-1a/i-0123456789abcdef0", ""},
		{"kind", "kind://docker/kind/kind-control-plane", ""},
		{"empty", "", ""},
		{"not a resource ID", "azure:///nothing", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResourceGroupOfNode(tt.providerID, sub); got != tt.want {
				t.Errorf("ResourceGroupOfNode(%q) = %q, want %q", tt.providerID, got, tt.want)
			}
		})
	}
}
