package gcp_test

import (
	"testing"

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
