package gcp_test

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

func TestRecordChanges(t *testing.T) {
	const zone = "demo.hypershift.local."
	a := func(name, ip string, ttl int64) *dns.ResourceRecordSet {
		return &dns.ResourceRecordSet{Name: name + "." + zone, Type: "A", Ttl: ttl, Rrdatas: []string{ip}}
	}
	soa := &dns.ResourceRecordSet{Name: zone, Type: "SOA", Ttl: 21600, Rrdatas: []string{"x"}}
	want := gcpcloud.DesiredRecords(zone, "192.168.1.2")
	for _, tc := range []struct {
		name           string
		have           []*dns.ResourceRecordSet
		adds, removals int
	}{
		{"empty zone", []*dns.ResourceRecordSet{soa}, 2, 0},
		{"up to date", []*dns.ResourceRecordSet{soa, a("api", "192.168.1.2", 60), a("*.apps", "192.168.1.2", 60)}, 0, 0},
		{"one missing (deleted behind our back)", []*dns.ResourceRecordSet{a("api", "192.168.1.2", 60)}, 1, 0},
		{"endpoint re-pointed", []*dns.ResourceRecordSet{a("api", "192.168.1.9", 60), a("*.apps", "192.168.1.9", 60)}, 2, 2},
		{"TTL edited", []*dns.ResourceRecordSet{a("api", "192.168.1.2", 300), a("*.apps", "192.168.1.2", 60)}, 1, 1},
		{"a user's record is left alone", []*dns.ResourceRecordSet{a("api", "192.168.1.2", 60), a("*.apps", "192.168.1.2", 60), a("mine", "10.0.0.1", 5)}, 0, 0},
	} {
		adds, removals := gcpcloud.RecordChanges(tc.have, want)
		if len(adds) != tc.adds || len(removals) != tc.removals {
			t.Errorf("%s: %d additions, %d deletions; want %d, %d", tc.name, len(adds), len(removals), tc.adds, tc.removals)
		}
	}
}

// Only a pending connection from a project off the accept list is
// foreign: an accepted one matched the list (perhaps by project number).
func TestForeignProjects(t *testing.T) {
	sa := &compute.ServiceAttachment{
		ConsumerAcceptLists: []*compute.ServiceAttachmentConsumerProjectLimit{{ProjectIdOrNum: "customer", ConnectionLimit: 2}, {ProjectIdOrNum: "300000000003", ConnectionLimit: 2}},
		ConnectedEndpoints: []*compute.ServiceAttachmentConnectedEndpoint{
			{Endpoint: "https://compute.googleapis.com/compute/v1/projects/customer/regions/r/forwardingRules/e", Status: "ACCEPTED"},
			{Endpoint: "https://compute.googleapis.com/compute/v1/projects/by-number/regions/r/forwardingRules/e", Status: "ACCEPTED"},
			{Endpoint: "https://compute.googleapis.com/compute/v1/projects/intruder/regions/r/forwardingRules/e", Status: "PENDING"},
			{Endpoint: "https://compute.googleapis.com/compute/v1/projects/gone/regions/r/forwardingRules/e", Status: "REJECTED"},
		},
	}
	if got := gcpcloud.ForeignProjects(sa); len(got) != 1 || got[0] != "intruder" {
		t.Fatalf("ForeignProjects = %v, want [intruder]", got)
	}
}

// The connection policy holds when the accept list is the wanted one, the
// attachment reconciles connections, and no wanted project is rejected.
func TestConnectionPolicyHolds(t *testing.T) {
	want := []gcpcloud.Consumer{{Project: "customer"}, {Project: "partner"}}
	accept := func(projects ...string) []*compute.ServiceAttachmentConsumerProjectLimit {
		var out []*compute.ServiceAttachmentConsumerProjectLimit
		for _, p := range projects {
			out = append(out, &compute.ServiceAttachmentConsumerProjectLimit{ProjectIdOrNum: p, ConnectionLimit: gcpcloud.DefaultConnectionLimit})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		sa   *compute.ServiceAttachment
		hold bool
	}{
		{"as made", &compute.ServiceAttachment{ConsumerAcceptLists: accept("partner", "customer"), ReconcileConnections: true}, true},
		{"a foreign project rejected", &compute.ServiceAttachment{ConsumerAcceptLists: accept("customer", "partner"), ReconcileConnections: true,
			ConsumerRejectLists: []string{"intruder"}}, true},
		{"connections not reconciled", &compute.ServiceAttachment{ConsumerAcceptLists: accept("customer", "partner")}, false},
		{"an allowed project rejected", &compute.ServiceAttachment{ConsumerAcceptLists: accept("customer", "partner"), ReconcileConnections: true,
			ConsumerRejectLists: []string{"intruder", "partner"}}, false},
		{"a project missing", &compute.ServiceAttachment{ConsumerAcceptLists: accept("customer"), ReconcileConnections: true}, false},
	} {
		if got := gcpcloud.ConnectionPolicyHolds(tc.sa, want); got != tc.hold {
			t.Errorf("%s: ConnectionPolicyHolds = %v, want %v", tc.name, got, tc.hold)
		}
	}
}

// Every caveat names a permission its component's role holds, with where
// it was seen in custom roles and a predefined role to bind instead.
func TestCustomRoleCaveatsNameGrantedPermissions(t *testing.T) {
	for _, cv := range gcpcloud.CustomRoleCaveats {
		if !slices.Contains(gcpcloud.PermissionsOf(cv.Component), cv.Permission) {
			t.Errorf("caveat of %s %s: the role does not hold it", cv.Component, cv.Permission)
		}
		if cv.Seen == "" || !strings.HasPrefix(cv.Instead, "roles/") {
			t.Errorf("caveat of %s %s: says neither where it was seen nor a predefined role instead: %+v", cv.Component, cv.Permission, cv)
		}
	}
	for _, p := range []string{"compute.forwardingRules.pscCreate", "dns.networks.bindPrivateDNSZone"} {
		if _, ok := gcpcloud.CaveatOf(gcpcloud.ControlPlaneOperator, p); !ok {
			t.Errorf("no caveat for the control-plane operator's %s", p)
		}
	}
	if _, ok := gcpcloud.CaveatOf(gcpcloud.ManagementOperator, "compute.forwardingRules.use"); !ok {
		t.Error("no caveat for the management operator's compute.forwardingRules.use")
	}
}
