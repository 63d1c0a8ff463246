package gcp_test

import (
	"net/http"
	"testing"
	"time"

	dns "google.golang.org/api/dns/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// The control-plane operator's zone: private, bound to the customer's
// network, with api and *.apps A records; Google's change rules hold.
func TestDNSPrivateZoneAndChangeRules(t *testing.T) {
	e := start(t)
	p := cloudsimtest.CustomerProject
	workers := e.network(t, p, "customer", "workers", "10.10.0.0/24")
	d := e.f.DNS(t, cloudsimtest.GCPAdminTokens())

	_, err := d.ManagedZones.Create(p, &dns.ManagedZone{Name: "cluster-a", DnsName: "cluster-a.hypershift.local", Visibility: "private"}).Do()
	wantError(t, err, http.StatusBadRequest, "invalid") // no trailing dot
	_, err = d.ManagedZones.Create(p, &dns.ManagedZone{Name: "cluster-a", DnsName: "cluster-a.hypershift.local.", Visibility: "private",
		PrivateVisibilityConfig: &dns.ManagedZonePrivateVisibilityConfig{Networks: []*dns.ManagedZonePrivateVisibilityConfigNetwork{{NetworkUrl: "projects/" + p + "/global/networks/nope"}}}}).Do()
	wantError(t, err, http.StatusBadRequest, "invalid") // no such network
	zone, err := d.ManagedZones.Create(p, &dns.ManagedZone{Name: "cluster-a", DnsName: "cluster-a.hypershift.local.", Visibility: "private",
		PrivateVisibilityConfig: &dns.ManagedZonePrivateVisibilityConfig{Networks: []*dns.ManagedZonePrivateVisibilityConfigNetwork{{NetworkUrl: workers.Network}}}}).Do()
	if err != nil || zone.Id == 0 || zone.PrivateVisibilityConfig.Networks[0].NetworkUrl != workers.Network {
		t.Fatalf("creating the zone: %+v, %v", zone, err)
	}
	_, err = d.ManagedZones.Create(p, &dns.ManagedZone{Name: "cluster-a", DnsName: "other.local."}).Do()
	wantError(t, err, http.StatusConflict, "alreadyExists")

	// A binding lost behind the operator's back is repaired by a patch.
	other := e.network(t, p, "other", "other-workers", "10.11.0.0/24")
	op, err := d.ManagedZones.Patch(p, "cluster-a", &dns.ManagedZone{Labels: map[string]string{"owner": "hcplink"},
		PrivateVisibilityConfig: &dns.ManagedZonePrivateVisibilityConfig{Networks: []*dns.ManagedZonePrivateVisibilityConfigNetwork{{NetworkUrl: other.Network}, {NetworkUrl: workers.Network}}}}).Do()
	if err != nil || op.Status != "done" || len(op.ZoneContext.NewValue.PrivateVisibilityConfig.Networks) != 2 {
		t.Fatalf("patching the zone's networks: %+v, %v", op, err)
	}
	_, err = d.ManagedZones.Patch(p, "cluster-a", &dns.ManagedZone{DnsName: "elsewhere.local."}).Do()
	wantError(t, err, http.StatusBadRequest, "invalid")
	if z, _ := d.ManagedZones.Get(p, "cluster-a").Do(); z.Labels["owner"] != "hcplink" || z.DnsName != "cluster-a.hypershift.local." {
		t.Fatalf("zone after the patches: %+v", z)
	}

	sets, err := d.ResourceRecordSets.List(p, "cluster-a").Do()
	if err != nil || len(sets.Rrsets) != 2 || sets.Rrsets[0].Type != "NS" || sets.Rrsets[1].Type != "SOA" {
		t.Fatalf("a new zone's record sets: %+v, %v; want its NS and SOA", sets, err)
	}

	api := &dns.ResourceRecordSet{Name: "api.cluster-a.hypershift.local.", Type: "A", Ttl: 60, Rrdatas: []string{"10.10.0.2"}}
	apps := &dns.ResourceRecordSet{Name: "*.apps.cluster-a.hypershift.local.", Type: "A", Ttl: 60, Rrdatas: []string{"10.10.0.2"}}
	change, err := d.Changes.Create(p, "cluster-a", &dns.Change{Additions: []*dns.ResourceRecordSet{api, apps}}).Do()
	if err != nil || change.Status != "pending" {
		t.Fatalf("adding api and *.apps: %+v, %v; want a pending change", change, err)
	}
	e.clock.Advance(time.Second)
	if got, _ := d.Changes.Get(p, "cluster-a", change.Id).Do(); got.Status != "done" {
		t.Fatalf("change a second later: %s, want done", got.Status)
	}

	_, err = d.Changes.Create(p, "cluster-a", &dns.Change{Additions: []*dns.ResourceRecordSet{api}}).Do()
	wantError(t, err, http.StatusConflict, "alreadyExists")
	stale := &dns.ResourceRecordSet{Name: api.Name, Type: "A", Ttl: 60, Rrdatas: []string{"10.10.0.9"}}
	moved := &dns.ResourceRecordSet{Name: api.Name, Type: "A", Ttl: 60, Rrdatas: []string{"10.10.0.3"}}
	_, err = d.Changes.Create(p, "cluster-a", &dns.Change{Deletions: []*dns.ResourceRecordSet{stale}, Additions: []*dns.ResourceRecordSet{moved}}).Do()
	wantError(t, err, http.StatusPreconditionFailed, "conditionNotMet")
	missing := &dns.ResourceRecordSet{Name: "gone.cluster-a.hypershift.local.", Type: "A", Ttl: 60, Rrdatas: []string{"10.10.0.2"}}
	_, err = d.Changes.Create(p, "cluster-a", &dns.Change{Additions: []*dns.ResourceRecordSet{moved}, Deletions: []*dns.ResourceRecordSet{api, missing}}).Do()
	wantError(t, err, http.StatusNotFound, "notFound")
	outside := &dns.ResourceRecordSet{Name: "api.elsewhere.local.", Type: "A", Ttl: 60, Rrdatas: []string{"10.10.0.2"}}
	_, err = d.Changes.Create(p, "cluster-a", &dns.Change{Additions: []*dns.ResourceRecordSet{outside}}).Do()
	wantError(t, err, http.StatusBadRequest, "invalid")
	got, err := d.ResourceRecordSets.List(p, "cluster-a").Name(api.Name).Type("A").Do()
	if err != nil || len(got.Rrsets) != 1 || got.Rrsets[0].Rrdatas[0] != "10.10.0.2" {
		t.Fatalf("api after the refused changes: %+v, %v; want it untouched (changes are all or nothing)", got, err)
	}

	// A replace is one change: deletion and addition together.
	if _, err := d.Changes.Create(p, "cluster-a", &dns.Change{Deletions: []*dns.ResourceRecordSet{api}, Additions: []*dns.ResourceRecordSet{moved}}).Do(); err != nil {
		t.Fatalf("replacing api: %v", err)
	}
	err = d.ManagedZones.Delete(p, "cluster-a").Do()
	wantError(t, err, http.StatusBadRequest, "containerNotEmpty")
	if _, err := d.Changes.Create(p, "cluster-a", &dns.Change{Deletions: []*dns.ResourceRecordSet{moved, apps}}).Do(); err != nil {
		t.Fatalf("removing the records: %v", err)
	}
	if err := d.ManagedZones.Delete(p, "cluster-a").Do(); err != nil {
		t.Fatalf("deleting the emptied zone: %v", err)
	}
	_, err = d.ManagedZones.Get(p, "cluster-a").Do()
	wantError(t, err, http.StatusNotFound, "notFound")
}
