package azure

import "testing"

func TestRequestName(t *testing.T) {
	for _, tc := range []struct {
		method, path, service, operation string
	}{
		{"PUT", "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/privateLinkServices/pls-1", "Microsoft.Network", "PUT privateLinkServices"},
		{"GET", "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/w", "Microsoft.Network", "GET virtualNetworks/subnets"},
		{"GET", "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/privateDnsZones/z.hypershift.local/A/api", "Microsoft.Network", "GET privateDnsZones/A"},
		{"GET", "/subscriptions/s/providers/Microsoft.Network/locations/eastus/operations/abc", "Microsoft.Network", "GET locations/operations"},
		{"GET", "/subscriptions/s/resourceGroups/rg", "ARM", "GET subscriptions/resourceGroups"},
		{"POST", "/tenant-id/oauth2/v2.0/token", "EntraID", "POST token"},
	} {
		service, operation := RequestName(tc.method, tc.path)
		if service != tc.service || operation != tc.operation {
			t.Errorf("RequestName(%s %s) = %q, %q; want %q, %q", tc.method, tc.path, service, operation, tc.service, tc.operation)
		}
	}
}
