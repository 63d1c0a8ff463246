package gcp

import (
	"net/netip"
	"testing"
)

func TestFilterTerms(t *testing.T) {
	item := map[string]any{"name": "router", "IPAddress": "10.0.0.10", "purpose": "PRIVATE_SERVICE_CONNECT",
		"network": "http://127.0.0.1/compute/v1/projects/p/global/networks/management", "labels": map[string]any{"owner": "hcplink", "hcplink-cluster": "a"}}
	for _, tc := range []struct {
		filter string
		want   bool
	}{
		{``, true},
		{`name = "router"`, true},
		{`name = router`, true},
		{`name != "router"`, false},
		{`IPAddress = "10.0.0.10"`, true},
		{`IPAddress = "10.0.0.1"`, false},
		{`(purpose = "PRIVATE_SERVICE_CONNECT") AND (name = "router")`, true},
		{`(purpose = "PRIVATE") AND (name = "router")`, false},
		{`name eq rout.*`, true},
		{`name eq rout`, false}, // eq is a whole-value regular expression
		{`name ne rout.*`, false},
		{`labels.owner = hcplink`, true},
		{`labels.owner = other`, false},
		{`labels.hcplink-cluster = "a"`, true}, // label keys hold hyphens
		{`labels:*`, true},
		{`description:*`, false},
		{`network = management`, true}, // a link matches its last segment
	} {
		terms, err := parseFilter(tc.filter)
		if err != nil {
			t.Errorf("%q: %v", tc.filter, err)
			continue
		}
		if got := matchesAll(terms, item); got != tc.want {
			t.Errorf("%q matched %v, want %v", tc.filter, got, tc.want)
		}
	}
	for _, bad := range []string{`name = "a" OR name = "b"`, `name eq (`, `= x`} {
		if _, err := parseFilter(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestSubnetAddresses(t *testing.T) {
	p := netip.MustParsePrefix("10.1.0.0/29")
	if got := usableAddresses(p); got != 4 {
		t.Fatalf("a /29 has %d usable addresses, want 4", got)
	}
	for ip, want := range map[string]bool{"10.1.0.0": false, "10.1.0.1": false, "10.1.0.2": true, "10.1.0.5": true, "10.1.0.6": false, "10.1.0.7": false, "10.1.0.8": false} {
		if got := assignable(p, netip.MustParseAddr(ip)); got != want {
			t.Errorf("assignable(%s) = %v, want %v", ip, got, want)
		}
	}
	free, ok := firstFree(p, map[string]bool{"10.1.0.2": true})
	if !ok || free.String() != "10.1.0.3" {
		t.Fatalf("first free after 10.1.0.2: %v %v", free, ok)
	}
	if _, ok := firstFree(p, map[string]bool{"10.1.0.2": true, "10.1.0.3": true, "10.1.0.4": true, "10.1.0.5": true}); ok {
		t.Fatal("a full /29 had a free address")
	}
	for cidr, ok := range map[string]bool{"10.0.0.0/24": true, "10.0.0.1/24": false, "10.0.0.0/30": false, "10.0.0.0/7": false, "fd00::/64": false} {
		if _, got := parseRange(cidr); got != ok {
			t.Errorf("parseRange(%s) ok = %v, want %v", cidr, got, ok)
		}
	}
}

func TestMembersAndConditions(t *testing.T) {
	principal := "principal://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/hcplink/subject/system:serviceaccount:hcp:op"
	for member, want := range map[string]bool{
		principal: true,
		"principalSet://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/hcplink/*": true,
		"principalSet://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/other/*":   false,
		"principalSet://iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/hcp/*":     false,
		"allAuthenticatedUsers":                      true,
		"serviceAccount:x@p.iam.gserviceaccount.com": false,
	} {
		if got := memberMatches(member, principal); got != want {
			t.Errorf("memberMatches(%s) = %v, want %v", member, got, want)
		}
	}
	cond := &Expr{Expression: `resource.name.startsWith("projects/p/regions/us-central1/serviceAttachments/hcp-") || resource.name == "projects/p/global/networks/m"`}
	if !cond.valid() {
		t.Fatal("a supported condition was refused")
	}
	for resource, want := range map[string]bool{
		"projects/p/regions/us-central1/serviceAttachments/hcp-a": true,
		"projects/p/regions/us-central1/serviceAttachments/other": false,
		"projects/p/global/networks/m":                            true,
		"projects/p/global/networks/m2":                           false,
	} {
		if got := cond.holds(resource); got != want {
			t.Errorf("condition on %s = %v, want %v", resource, got, want)
		}
	}
	if (&Expr{Expression: `request.time < timestamp("2030-01-01T00:00:00Z")`}).valid() {
		t.Error("an unsupported condition was accepted")
	}
}

func TestLinks(t *testing.T) {
	for link, want := range map[string]string{
		"https://compute.googleapis.com/compute/v1/projects/p/regions/r/subnetworks/s": "projects/p/regions/r/subnetworks/s",
		"http://127.0.0.1:1/compute/v1/projects/p/global/networks/n":                   "projects/p/global/networks/n",
		"projects/p/global/networks/n":                                                 "projects/p/global/networks/n",
		"regions/r/subnetworks/s":                                                      "regions/r/subnetworks/s",
		"s":                                                                            "s",
	} {
		if got := rel(link); got != want {
			t.Errorf("rel(%s) = %s, want %s", link, got, want)
		}
	}
	for method, read := range map[string]bool{"networks.get": true, "forwardingRules.aggregatedList": true, "regionOperations.wait": true,
		"serviceAttachments.patch": false, "changes.create": false, "projects.setIamPolicy": false} {
		if got := isRead(method); got != read {
			t.Errorf("isRead(%s) = %v, want %v", method, got, read)
		}
	}
}
