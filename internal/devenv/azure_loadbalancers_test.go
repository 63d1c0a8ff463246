package devenv

import (
	"slices"
	"testing"
)

// The stand-in's calls are counted under cloudsim's names, so that the
// benchmark can take them out of the management subscription's counts.
func TestAzureOperationNamesCallsAsCloudsim(t *testing.T) {
	const lb = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/k8s-a-b-c"
	for _, tc := range []struct {
		method, path, want string
	}{
		{"PUT", lb, "loadBalancers/write"},
		{"GET", lb, "loadBalancers/read"},
		{"DELETE", lb, "loadBalancers/delete"},
		{"PUT", "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/publicIPAddresses/x", "publicIPAddresses/write"},
		{"GET", "/subscriptions/s/providers/Microsoft.Network/locations/eastus/operations/123", "locations/operations/read"},
		{"GET", lb + "/frontendIPConfigurations/frontend", "loadBalancers/frontendIPConfigurations/read"},
		{"GET", "/subscriptions/s/resourcegroups/rg", "other/read"},
	} {
		if got := azureOperation(tc.method, tc.path); got != tc.want {
			t.Errorf("azureOperation(%s %s) = %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
}

func TestAzureLoadBalancerConfigurationsFor(t *testing.T) {
	for _, tc := range []struct {
		want, clusters int
		names          []string
	}{
		{0, 1, nil},
		{0, 8, nil},
		{0, 9, []string{"kubernetes", "lb-2"}},
		{0, 16, []string{"kubernetes", "lb-2"}},
		{0, 50, []string{"kubernetes", "lb-2", "lb-3", "lb-4", "lb-5", "lb-6", "lb-7"}},
		{2, 4, []string{"kubernetes", "lb-2"}},
		{1, 4, []string{"kubernetes"}},
	} {
		if got := AzureLoadBalancerConfigurationsFor(tc.want, tc.clusters); !slices.Equal(got, tc.names) {
			t.Errorf("AzureLoadBalancerConfigurationsFor(%d, %d) = %v, want %v", tc.want, tc.clusters, got, tc.names)
		}
	}
}
