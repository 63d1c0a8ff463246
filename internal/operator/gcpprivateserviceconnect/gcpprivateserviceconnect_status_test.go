package gcpprivateserviceconnect

import (
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

func TestDesiredConsumers(t *testing.T) {
	spec := &hcplinkv1beta1.GCPPrivateServiceConnect{Spec: hcplinkv1beta1.GCPPrivateServiceConnectSpec{ConsumerAcceptList: []string{"spec-project", "spec-other"}}}
	gcp := func(project string, additional ...string) *hcplinkv1beta1.HostedCluster {
		return &hcplinkv1beta1.HostedCluster{Spec: hcplinkv1beta1.HostedClusterSpec{Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform,
			GCP: &hcplinkv1beta1.GCPPlatformSpec{Project: project, Private: &hcplinkv1beta1.GCPPrivateSpec{AdditionalAllowedProjects: additional}}}}}
	}
	tests := []struct {
		name string
		hc   *hcplinkv1beta1.HostedCluster
		want []string
	}{
		{"the HostedCluster's projects, not the spec's older copy", gcp("own-project", "partner-1", "123456789012"), []string{"own-project", "partner-1", "123456789012"}},
		{"each project once", gcp("own-project", "own-project", "partner-1", "partner-1"), []string{"own-project", "partner-1"}},
		{"the spec's list when the HostedCluster is gone", nil, []string{"spec-project", "spec-other"}},
		{"the spec's list when the HostedCluster has no GCP platform", &hcplinkv1beta1.HostedCluster{}, []string{"spec-project", "spec-other"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := desiredConsumers(tc.hc, spec)
			if !slices.Equal(projectsOf(got), tc.want) {
				t.Fatalf("projects %v, want %v", projectsOf(got), tc.want)
			}
			for _, c := range got {
				if c.ConnectionLimit != gcpcloud.DefaultConnectionLimit {
					t.Fatalf("limit %d for %s", c.ConnectionLimit, c.Project)
				}
			}
		})
	}
}

func TestAllowedNATSubnets(t *testing.T) {
	pool := []*compute.Subnetwork{{Name: "nat-a"}, {Name: "nat-b"}, {Name: "nat-c"}}
	tests := []struct {
		name    string
		given   string
		allowed []string
		want    []string
	}{
		{"the whole pool", "", nil, []string{"nat-a", "nat-b", "nat-c"}},
		{"the operator's list", "", []string{"nat-c", "nat-a", "elsewhere"}, []string{"nat-a", "nat-c"}},
		{"the cluster's own, whatever the operator's list", "nat-b", []string{"nat-a"}, []string{"nat-b"}},
		{"a given one that is not in the pool", "nat-z", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, s := range allowedNATSubnets(pool, tc.given, tc.allowed) {
				got = append(got, s.Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("%v, want %v", got, tc.want)
			}
		})
	}
}

// Two objects choosing at once never get the same NAT subnetwork; a
// released claim frees it; an object choosing again keeps its own.
func TestNATClaims(t *testing.T) {
	pool := []*compute.Subnetwork{{Name: "nat-a", SelfLink: "projects/p/regions/r/subnetworks/nat-a"}, {Name: "nat-b", SelfLink: "projects/p/regions/r/subnetworks/nat-b"}}
	var c natClaims
	first, err := c.choose("uid-1", pool, nil, time.Time{}, "sa-1")
	if err != nil || first.Name != "nat-a" {
		t.Fatalf("first: %v, %v", first, err)
	}
	second, err := c.choose("uid-2", pool, nil, time.Time{}, "sa-2")
	if err != nil || second.Name != "nat-b" {
		t.Fatalf("second: %v, %v", second, err)
	}
	if _, err := c.choose("uid-3", pool, nil, time.Time{}, "sa-3"); err == nil {
		t.Fatal("a third object got a claimed subnetwork")
	}
	if again, err := c.choose("uid-1", pool, nil, time.Time{}, "sa-1"); err != nil || again.Name != "nat-a" {
		t.Fatalf("the first object again: %v, %v", again, err)
	}
	c.release("uid-2")
	if third, err := c.choose("uid-3", pool, nil, time.Time{}, "sa-3"); err != nil || third.Name != "nat-b" {
		t.Fatalf("after a release: %v, %v", third, err)
	}
}

// A claim whose attachment is made holds its subnetwork while the shared
// listing of attachments is older than the attachment (the listing does
// not show it), and goes once a younger listing shows the attachment.
func TestNATClaimsHoldUntilAListingShowsTheAttachment(t *testing.T) {
	pool := []*compute.Subnetwork{{Name: "nat-a", SelfLink: "projects/p/regions/r/subnetworks/nat-a"}}
	made := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	var c natClaims
	if _, err := c.choose("uid-1", pool, nil, made.Add(-time.Minute), "sa-1"); err != nil {
		t.Fatal(err)
	}
	c.made("uid-1", made)
	if got, err := c.choose("uid-2", pool, nil, made.Add(-time.Second), "sa-2"); err == nil {
		t.Fatalf("a listing older than sa-1 gave uid-2 its subnetwork %s", got.Name)
	}
	shown := []*compute.ServiceAttachment{{Name: "sa-1", NatSubnets: []string{pool[0].SelfLink}}}
	if got, err := c.choose("uid-2", pool, shown, made.Add(time.Second), "sa-2"); err == nil {
		t.Fatalf("a listing showing sa-1 gave uid-2 its subnetwork %s", got.Name)
	}
	if len(c.claims) != 0 {
		t.Fatalf("the claim outlived a listing that shows its attachment: %v", c.claims)
	}
	c.release("uid-1") // the attachment deleted: the listing decides alone
	if got, err := c.choose("uid-2", pool, nil, made.Add(2*time.Second), "sa-2"); err != nil || got.Name != "nat-a" {
		t.Fatalf("with sa-1 gone from the listing: %v, %v", got, err)
	}
}

// The exhaustion condition names the network, the region and what to add,
// whether the pool is full or empty.
func TestNATSubnetsExhaustedSaysWhatToAdd(t *testing.T) {
	for _, n := range []int{0, 3} {
		o := natSubnetsExhausted(n, "projects/hcp-management/global/networks/management", "us-central1")
		if o.Reason != hcplinkv1beta1.NATSubnetsExhaustedReason || !strings.Contains(o.Message, "management network management") ||
			!strings.Contains(o.Message, "us-central1") || !strings.Contains(o.Message, "add") || strings.Contains(o.Message, "projects/") ||
			strings.Contains(o.Message, "Each of the 0") {
			t.Errorf("%d subnetworks: %+v", n, o)
		}
	}
}
