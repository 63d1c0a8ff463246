package azure

import (
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"github.com/hcplink/hcplink/internal/cloud"
)

func TestNormalizeSubscriptions(t *testing.T) {
	got := NormalizeSubscriptions([]string{" BBBB ", "aaaa", "bbbb", "", "AAAA"})
	if !slices.Equal(got, []string{"aaaa", "bbbb"}) {
		t.Errorf("NormalizeSubscriptions = %v", got)
	}
	if got := NormalizeSubscriptions(nil); len(got) != 0 {
		t.Errorf("of nothing = %v", got)
	}
}

func TestPrivateLinkServiceBody(t *testing.T) {
	body := PrivateLinkServiceBody(PrivateLinkServiceSpec{Location: "eastus", FrontendID: "fe", NATSubnetID: "nat",
		Subscriptions: []string{"b", "a", "b"}, Tags: OwnershipTags("c1", "cr")})
	p := body.Properties
	if deref(body.Location) != "eastus" || len(p.LoadBalancerFrontendIPConfigurations) != 1 || deref(p.LoadBalancerFrontendIPConfigurations[0].ID) != "fe" {
		t.Fatalf("body = %+v", p)
	}
	if len(p.IPConfigurations) != 1 || deref(p.IPConfigurations[0].Properties.Subnet.ID) != "nat" || !*p.IPConfigurations[0].Properties.Primary {
		t.Errorf("NAT IP configurations = %+v", p.IPConfigurations)
	}
	if v, a := derefAll(p.Visibility.Subscriptions), derefAll(p.AutoApproval.Subscriptions); !slices.Equal(v, []string{"a", "b"}) || !slices.Equal(a, v) {
		t.Errorf("visibility %v, auto-approval %v; want both [a b]", v, a)
	}
	if !OwnedBy(body.Tags, "c1", "cr") {
		t.Errorf("tags = %v", body.Tags)
	}
}

func TestPrivateEndpointBodyAndStatus(t *testing.T) {
	pe := PrivateEndpointBody(PrivateEndpointSpec{Location: "eastus", SubnetID: "sn", Service: "alias.guid.eastus.azure.privatelinkservice"})
	conns := pe.Properties.ManualPrivateLinkServiceConnections
	if deref(pe.Properties.Subnet.ID) != "sn" || len(conns) != 1 || len(pe.Properties.PrivateLinkServiceConnections) != 0 {
		t.Fatalf("endpoint = %+v", pe.Properties)
	}
	if status, svc := EndpointConnectionStatus(&pe); status != "" || svc != "alias.guid.eastus.azure.privatelinkservice" {
		t.Errorf("before Azure answers: %q, %q", status, svc)
	}
	conns[0].Properties.PrivateLinkServiceConnectionState = &armnetwork.PrivateLinkServiceConnectionState{Status: to.Ptr("Pending")}
	if status, _ := EndpointConnectionStatus(&pe); status != ConnectionPending {
		t.Errorf("status = %q", status)
	}
	if status, svc := EndpointConnectionStatus(nil); status != "" || svc != "" {
		t.Error("a nil endpoint has a status")
	}
}

func TestCustomDNSConfigIP(t *testing.T) {
	for _, tc := range []struct {
		name string
		pe   *armnetwork.PrivateEndpoint
		want string
	}{
		{"nil", nil, ""},
		{"no configs", &armnetwork.PrivateEndpoint{Properties: &armnetwork.PrivateEndpointProperties{}}, ""},
		{"first address", &armnetwork.PrivateEndpoint{Properties: &armnetwork.PrivateEndpointProperties{CustomDNSConfigs: []*armnetwork.CustomDNSConfigPropertiesFormat{
			nil, {IPAddresses: []*string{to.Ptr("")}}, {IPAddresses: to.SliceOfPtrs("10.1.0.4", "10.1.0.5")},
		}}}, "10.1.0.4"},
	} {
		if got := CustomDNSConfigIP(tc.pe); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestParseIDs(t *testing.T) {
	const sub = "22222222-2222-4222-8222-222222222222"
	subnetID := "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/workers"
	s, err := ParseSubnetID(subnetID)
	if err != nil || s.SubscriptionID != sub || s.ResourceGroup != "rg" || s.VNet != "vnet" || s.Name != "workers" || s.ID() != subnetID {
		t.Errorf("ParseSubnetID = %+v, %v", s, err)
	}
	if v, err := ParseVNetID(s.VNetID()); err != nil || v.Name != "vnet" {
		t.Errorf("ParseVNetID = %+v, %v", v, err)
	}
	for _, bad := range []string{"", "not-an-id", s.VNetID()} {
		_, err := ParseSubnetID(bad)
		if err == nil {
			t.Errorf("ParseSubnetID(%q) accepted", bad)
			continue
		}
		if cloud.ClassOf(err) != cloud.ClassInvalidInput || Classify(err) != cloud.ClassInvalidInput {
			t.Errorf("a bad ID: class %s / %s, want invalid input", cloud.ClassOf(err), Classify(err))
		}
		if msg := err.Error(); strings.Contains(msg, sub) {
			t.Errorf("the message repeats the ID: %q", msg)
		}
	}
	if SubscriptionOf(subnetID) != sub || ResourceGroupOf(subnetID) != "rg" || NameOf(subnetID) != "workers" || SubscriptionOf("x") != "" {
		t.Error("ID helpers")
	}
}
