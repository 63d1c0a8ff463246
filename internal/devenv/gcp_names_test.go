package devenv

import "testing"

func TestGCPNames(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{gcpNATSubnetName(1), "psc-nat-1"},
		{gcpNATSubnetCIDR(1), "10.1.0.0/28"},
		{gcpNATSubnetCIDR(2), "10.1.0.16/28"},
		{gcpNATSubnetCIDR(17), "10.1.1.0/28"},
		{gcpOperation("GET", "/compute/v1/projects/p/regions/r/forwardingRules/a1"), "forwardingRules.get"},
		{gcpOperation("GET", "/compute/v1/projects/p/regions/r/forwardingRules"), "forwardingRules.list"},
		{gcpOperation("POST", "/compute/v1/projects/p/regions/r/forwardingRules"), "forwardingRules.insert"},
		{gcpOperation("DELETE", "/compute/v1/projects/p/regions/r/forwardingRules/a1"), "forwardingRules.delete"},
		{gcpOperation("GET", "/compute/v1/projects/p/regions/r/operations/op-1"), "regionOperations.get"},
		{gcpOperation("POST", "/compute/v1/projects/p/regions/r/operations/op-1/wait"), "regionOperations.wait"},
		{gcpOperation("GET", "/compute/v1/projects/p/regions/r/operations"), "regionOperations.list"},
		{gcpOperation("GET", "/compute/v1/projects/p/global/operations/op-2"), "globalOperations.get"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
