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
