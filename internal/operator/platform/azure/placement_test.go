package azure

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

func TestChooseConfiguration(t *testing.T) {
	configs := []string{"kubernetes", "lb-2", "lb-3"}
	for _, tc := range []struct {
		name     string
		occupied map[string]int
		want     string
		ok       bool
	}{
		{"all empty: the first", map[string]int{}, "kubernetes", true},
		{"the one with the fewest", map[string]int{"kubernetes": 3, "lb-2": 1, "lb-3": 2}, "lb-2", true},
		{"a tie goes to the first listed", map[string]int{"kubernetes": 2, "lb-2": 1, "lb-3": 1}, "lb-2", true},
		{"a full one is skipped", map[string]int{"kubernetes": 8, "lb-2": 8, "lb-3": 7}, "lb-3", true},
		{"over the limit (made by someone else) is full too", map[string]int{"kubernetes": 9, "lb-2": 8, "lb-3": 8}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ChooseConfiguration(configs, tc.occupied, 8)
			if got != tc.want || ok != tc.ok {
				t.Errorf("ChooseConfiguration = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestOccupancy(t *testing.T) {
	const lbs = "/subscriptions/s/resourceGroups/mgmt/providers/Microsoft.Network/loadBalancers/"
	pls := func(name string, lb string) armnetwork.PrivateLinkService {
		return armnetwork.PrivateLinkService{Name: to.Ptr(name), Properties: &armnetwork.PrivateLinkServiceProperties{
			LoadBalancerFrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{ID: to.Ptr(lbs + lb + "/frontendIPConfigurations/a1")}}}}
	}
	listed := []armnetwork.PrivateLinkService{
		pls("pls-a", "kubernetes-internal"),
		pls("pls-b", "Kubernetes-Internal"), // Azure names are case-insensitive
		pls("someone-elses", "lb-2-internal"),
		pls("pls-c", "other-internal"), // not a configuration of ours
		pls("pls-public", "lb-2"),      // a public load balancer is not the internal one
		{Name: to.Ptr("no-properties")},
	}
	placed := map[string]string{
		"pls-a": "kubernetes", // listed already: counted once
		"pls-d": "lb-2",       // placed, its service not made yet
		"pls-e": "kubernetes",
	}
	got := Occupancy([]string{"kubernetes", "lb-2"}, listed, placed)
	if got["kubernetes"] != 3 || got["lb-2"] != 2 || len(got) != 2 {
		t.Errorf("Occupancy = %v, want kubernetes 3 (two listed, one placed), lb-2 2 (one listed, one placed)", got)
	}
}
