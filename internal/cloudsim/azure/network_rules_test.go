package azure

import (
	"net/netip"
	"testing"
)

func mustPrefix(t *testing.T, s string) netip.Prefix {
	t.Helper()
	return netip.MustParsePrefix(s)
}

func TestParseAddressPrefix(t *testing.T) {
	for _, tc := range []struct {
		in, code string
	}{
		{"10.0.0.0/16", ""},
		{" 10.0.1.0/24", ""},
		{"10.0.3.5/24", "InvalidCIDRNotation"},
		{"10.0.0.0", "InvalidAddressPrefixFormat"},
		{"fd00::/64", "InvalidAddressPrefixFormat"},
		{"banana", "InvalidAddressPrefixFormat"},
	} {
		_, err := parseAddressPrefix(tc.in, "/x")
		got := ""
		if err != nil {
			got = err.Code
		}
		if got != tc.code {
			t.Errorf("parseAddressPrefix(%q) = %q, want %q", tc.in, got, tc.code)
		}
	}
	if _, err := parseAddressPrefix("10.0.3.5/24", "/x"); err == nil || err.Message != "The address prefix 10.0.3.5/24 in resource /x has an invalid CIDR notation. For the given prefix length, the address prefix should be 10.0.3.0/24." {
		t.Errorf("message = %v", err)
	}
}

func TestCheckSubnetPlacement(t *testing.T) {
	spaces := []netip.Prefix{mustPrefix(t, "10.0.0.0/16"), mustPrefix(t, "172.16.0.0/24")}
	siblings := []namedPrefix{{"a", mustPrefix(t, "10.0.0.0/24")}, {"b", mustPrefix(t, "10.0.1.0/25")}}
	for _, tc := range []struct {
		name, prefix, code string
	}{
		{"c", "10.0.2.0/24", ""},
		{"c", "172.16.0.128/25", ""},
		{"c", "10.1.0.0/24", "NetcfgSubnetRangeOutsideVnet"},
		{"c", "10.0.0.0/15", "NetcfgSubnetRangeOutsideVnet"},
		{"c", "172.16.0.0/23", "NetcfgSubnetRangeOutsideVnet"},
		{"c", "10.0.0.128/25", "NetcfgSubnetRangesOverlap"},
		{"c", "10.0.0.0/23", "NetcfgSubnetRangesOverlap"},
		{"c", "10.0.1.64/26", "NetcfgSubnetRangesOverlap"},
		{"A", "10.0.0.0/25", ""}, // a subnet never overlaps itself (names are case-insensitive)
	} {
		err := checkSubnetPlacement(tc.name, "vnet", mustPrefix(t, tc.prefix), spaces, siblings)
		got := ""
		if err != nil {
			got = err.Code
		}
		if got != tc.code {
			t.Errorf("%s %s: got %q, want %q", tc.name, tc.prefix, got, tc.code)
		}
	}
}

func TestReservedAddresses(t *testing.T) {
	p := mustPrefix(t, "10.0.1.0/24")
	for _, tc := range []struct {
		addr     string
		reserved bool
	}{
		{"10.0.1.0", true}, {"10.0.1.1", true}, {"10.0.1.2", true}, {"10.0.1.3", true},
		{"10.0.1.4", false}, {"10.0.1.254", false}, {"10.0.1.255", true},
	} {
		if got := isReservedAddress(p, netip.MustParseAddr(tc.addr)); got != tc.reserved {
			t.Errorf("isReservedAddress(%s) = %v", tc.addr, got)
		}
	}
}

func TestAllocateDynamicIP(t *testing.T) {
	p := mustPrefix(t, "10.0.1.0/29") // .4, .5, .6 usable
	used := map[netip.Addr]string{}
	var got []string
	for i := 0; i < 3; i++ {
		a, err := allocateDynamicIP("/s", p, used)
		if err != nil {
			t.Fatalf("allocation %d: %v", i, err)
		}
		used[a] = "holder"
		got = append(got, a.String())
	}
	if want := "[10.0.1.4 10.0.1.5 10.0.1.6]"; fmtList(got) != want {
		t.Errorf("allocations = %v, want %s", got, want)
	}
	if _, err := allocateDynamicIP("/s", p, used); err == nil || err.Code != "SubnetIsFull" {
		t.Errorf("full subnet = %v, want SubnetIsFull", err)
	}
	delete(used, netip.MustParseAddr("10.0.1.5"))
	if a, _ := allocateDynamicIP("/s", p, used); a.String() != "10.0.1.5" {
		t.Errorf("after release = %s, want the lowest free 10.0.1.5", a)
	}
}

func fmtList(s []string) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}

func TestCheckStaticIP(t *testing.T) {
	p := mustPrefix(t, "10.0.1.0/24")
	used := map[netip.Addr]string{netip.MustParseAddr("10.0.1.10"): "/other"}
	for _, tc := range []struct {
		ip, code string
	}{
		{"10.0.1.11", ""},
		{"10.0.1.10", "PrivateIPAddressIsAllocated"},
		{"10.0.2.10", "PrivateIPAddressNotInSubnet"},
		{"10.0.1.1", "PrivateIPAddressInReservedRange"},
		{"10.0.1.255", "PrivateIPAddressInReservedRange"},
		{"x", "InvalidPrivateIPAddressFormat"},
	} {
		_, err := checkStaticIP("/me", "/s", p, tc.ip, used)
		got := ""
		if err != nil {
			got = err.Code
		}
		if got != tc.code {
			t.Errorf("checkStaticIP(%s) = %q, want %q", tc.ip, got, tc.code)
		}
	}
	if _, err := checkStaticIP("/other", "/s", p, "10.0.1.10", used); err != nil {
		t.Errorf("re-asserting one's own address: %v", err)
	}
}

func TestPrivateLinkServiceAlias(t *testing.T) {
	got := privateLinkServiceAlias("pls-Cluster1", "B08A765D-0BCB-41BF-A0EC-755D43737DBC", "EastUS")
	if want := "pls-cluster1.b08a765d-0bcb-41bf-a0ec-755d43737dbc.eastus.azure.privatelinkservice"; got != want {
		t.Errorf("alias = %s, want %s", got, want)
	}
	if !looksLikeAlias(got) || looksLikeAlias("/subscriptions/x/resourceGroups/rg/providers/Microsoft.Network/privateLinkServices/p") {
		t.Error("looksLikeAlias confuses aliases and IDs")
	}
}

func TestVisibilityAndAutoApproval(t *testing.T) {
	const owner, guest, other = "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222", "33333333-3333-3333-3333-333333333333"
	for _, tc := range []struct {
		name         string
		visibility   []string
		autoApproval []string
		sub          string
		visible      bool
		status       string
	}{
		{"owner sees its own service", nil, nil, owner, true, connectionPending},
		{"unlisted subscription", []string{guest}, []string{guest}, other, false, connectionPending},
		{"visible, not auto-approved", []string{guest, other}, []string{guest}, other, true, connectionPending},
		{"visible and auto-approved", []string{guest}, []string{guest}, guest, true, connectionApproved},
		{"IDs compare case-insensitively", []string{"22222222-2222-2222-2222-22222222222A"}, nil, "22222222-2222-2222-2222-22222222222a", true, connectionPending},
		{"star is everyone", []string{"*"}, nil, other, true, connectionPending},
	} {
		if got := privateLinkServiceVisible(owner, tc.visibility, tc.sub); got != tc.visible {
			t.Errorf("%s: visible = %v", tc.name, got)
		}
		if got := initialConnectionStatus(tc.autoApproval, tc.sub); got != tc.status {
			t.Errorf("%s: status = %s", tc.name, got)
		}
	}
}
