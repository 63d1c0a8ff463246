package azure

import (
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
)

func TestNames(t *testing.T) {
	long := strings.Repeat("x", 90)
	for _, tc := range []struct {
		name, got, want string
		max             int
	}{
		{"PLS", PrivateLinkServiceName("demo-x7k2p"), "pls-demo-x7k2p", 80},
		{"NAT subnet", NATSubnetName("demo-x7k2p"), "pls-nat-demo-x7k2p", 80},
		{"endpoint", PrivateEndpointName("demo-x7k2p", "private-router"), "demo-x7k2p-private-router-pe", 64},
		{"link", VNetLinkName("demo-x7k2p"), "demo-x7k2p-link", 80},
		{"zone", PrivateDNSZoneName("demo"), "demo.hypershift.local", 0},
		{"zone keeps dots", PrivateDNSZoneName("prod.eu"), "prod.eu.hypershift.local", 0},
		{"long PLS is bounded", PrivateLinkServiceName(long), "", 80},
		{"long endpoint is bounded", PrivateEndpointName(long, "private-router"), "", 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want != "" && tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
			if tc.max > 0 && len(tc.got) > tc.max {
				t.Errorf("%q is %d characters, more than %d", tc.got, len(tc.got), tc.max)
			}
		})
	}
}

func TestLongNamesStayDistinct(t *testing.T) {
	a := PrivateLinkServiceName(strings.Repeat("a", 100) + "1")
	b := PrivateLinkServiceName(strings.Repeat("a", 100) + "2")
	if a == b {
		t.Fatalf("two long cluster IDs share the name %q", a)
	}
	if !strings.HasPrefix(a, "pls-aaaa") {
		t.Errorf("a bounded name lost its prefix: %q", a)
	}
}

// TestEndpointAndLinkNamesAreUniquePerCluster: every cluster's CR has the
// same name, and clusters share resource groups.
func TestEndpointAndLinkNamesAreUniquePerCluster(t *testing.T) {
	if PrivateEndpointName("c1", "private-router") == PrivateEndpointName("c2", "private-router") {
		t.Error("two clusters' endpoints share a name")
	}
	if VNetLinkName("c1") == VNetLinkName("c2") {
		t.Error("two clusters' links share a name")
	}
}

func TestTagKeysAreValidAzureTagNames(t *testing.T) {
	tags := ZoneTags("demo-x7k2p", "private-router")
	for k := range ManagementTags("demo-x7k2p", "private-router", "mgmt-1") {
		tags[k] = to.Ptr("")
	}
	for k := range tags {
		if strings.ContainsAny(k, "<>%&\\?/") || len(k) > 512 {
			t.Errorf("tag name %q is not valid on Azure", k)
		}
	}
}

func TestOwnership(t *testing.T) {
	tags := ManagementTags("c1", "private-router", "mgmt-1")
	if !OwnedBy(tags, "c1", "private-router") {
		t.Error("own tags not recognised")
	}
	if OwnedBy(tags, "c2", "private-router") || OwnedBy(tags, "c1", "other") {
		t.Error("another cluster's or CR's tags recognised as ours")
	}
	if deref(tags[ManagementClusterTagKey]) != "mgmt-1" {
		t.Errorf("management tag = %v", tags[ManagementClusterTagKey])
	}
	if _, ok := ManagementTags("c1", "cr", "")[ManagementClusterTagKey]; ok {
		t.Error("an empty management cluster ID became a tag")
	}
	// Azure tag names are case-insensitive; a portal edit may change case.
	upper := map[string]*string{"KUBERNETES.IO_CLUSTER_C1": to.Ptr("owned"), "HCPLINK.IO_PRIVATE-LINK-SERVICE": to.Ptr("private-router")}
	if !OwnedBy(upper, "c1", "private-router") {
		t.Error("tags differing in case not recognised")
	}
}

func TestCreatedByHcplinkOnlyOnOurZones(t *testing.T) {
	if !CreatedByHcplink(ZoneTags("c1", "cr")) {
		t.Error("our zone's tags not recognised")
	}
	for _, tags := range []map[string]*string{nil, {}, OwnershipTags("c1", "cr"), {CreatedByTagKey: to.Ptr("someone")}} {
		if CreatedByHcplink(tags) {
			t.Errorf("tags %v count as created by hcplink", tags)
		}
	}
}

func TestTagsContain(t *testing.T) {
	have := map[string]*string{"a": to.Ptr("1"), "b": to.Ptr("2"), "theirs": to.Ptr("x")}
	if !TagsContain(have, map[string]*string{"a": to.Ptr("1")}) {
		t.Error("a subset is not contained")
	}
	if TagsContain(have, map[string]*string{"a": to.Ptr("2")}) || TagsContain(have, map[string]*string{"c": to.Ptr("1")}) {
		t.Error("a differing or missing tag is contained")
	}
}

func TestSharedNATSubnetNames(t *testing.T) {
	uid := "0b5f6f2e-6c1d-4f7e-9a51-3d2c1b0a9f8e"
	for _, tc := range []struct {
		name, managementCluster string
		n                       int
		want                    string
	}{
		{"a namespace UID stands as it is", uid, 1, "hcplink-nat-" + uid + "-1"},
		{"the second", "mgmt-1", 2, "hcplink-nat-mgmt-1-2"},
		{"upper case is lowered", "MGMT", 1, "hcplink-nat-mgmt-1"},
		{"characters Azure refuses are hashed", "prod/eu west", 1, ""},
		{"a long ID is hashed", strings.Repeat("m", 90), 3, ""},
		{"an empty ID is hashed", "", 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SharedNATSubnetName(tc.managementCluster, tc.n)
			if tc.want != "" && got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if len(got) > MaxSubnetNameLength || strings.ContainsAny(got, "/ ") {
				t.Errorf("%q is not a name Azure takes", got)
			}
			if n := SharedNATSubnetIndex(tc.managementCluster, got); n != tc.n {
				t.Errorf("SharedNATSubnetIndex(%q) = %d, want %d", got, n, tc.n)
			}
		})
	}
	for _, tc := range []struct{ managementCluster, name string }{
		{"mgmt-1", "hcplink-nat-mgmt-2-1"},  // another management cluster's
		{"mgmt-1", "hcplink-nat-mgmt-1-01"}, // not a name we give
		{"mgmt-1", "hcplink-nat-mgmt-1-0"},
		{"mgmt-1", "hcplink-nat-mgmt-1-x"},
		{"mgmt-1", "pls-nat-mgmt-1-1"},
		{"mgmt", "hcplink-nat-mgmt-1-1"}, // mgmt-1's, not mgmt's
	} {
		if n := SharedNATSubnetIndex(tc.managementCluster, tc.name); n != 0 {
			t.Errorf("SharedNATSubnetIndex(%q, %q) = %d, want 0 (not its)", tc.managementCluster, tc.name, n)
		}
	}
}

func TestSubnetCapacity(t *testing.T) {
	for bits, want := range map[int]int{25: 123, 28: 11, 29: 3, 30: 0, 24: 251} {
		if got := SubnetCapacity(bits); got != want {
			t.Errorf("SubnetCapacity(%d) = %d, want %d", bits, got, want)
		}
	}
}
