package gcp_test

import (
	"net/http"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// The reads the operators make: the router's forwarding rule by IP, the
// PSC NAT subnetworks by purpose, attachments, addresses, operations, a
// record set and a zone's changes.
func TestOperatorReads(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	prod := e.producer(t, "10.1.0.0/28")

	rules, err := e.compute.ForwardingRules.List(p, region).Filter(`IPAddress = "10.0.0.10"`).Do()
	if err != nil || len(rules.Items) != 1 || rules.Items[0].SelfLink != prod.router.SelfLink {
		t.Fatalf("the router's rule by IP: %+v, %v", rules, err)
	}
	if rules, _ := e.compute.ForwardingRules.List(p, region).Filter(`IPAddress = "10.0.0.11"`).Do(); len(rules.Items) != 0 {
		t.Fatalf("another IP found %d rules", len(rules.Items))
	}
	nats, err := e.compute.Subnetworks.List(p, region).Filter(`purpose = "PRIVATE_SERVICE_CONNECT"`).Do()
	if err != nil || len(nats.Items) != 1 || nats.Items[0].Name != "psc-nat" {
		t.Fatalf("PSC NAT subnetworks: %+v, %v", nats, err)
	}
	atts, err := e.compute.ServiceAttachments.List(p, region).Do()
	if err != nil || len(atts.Items) != 1 || atts.Items[0].Fingerprint == "" {
		t.Fatalf("attachments: %+v, %v", atts, err)
	}
	ops, err := e.compute.RegionOperations.List(p, region).Filter(`operationType = "insert"`).Do()
	if err != nil || len(ops.Items) != 4 {
		t.Fatalf("the region's insert operations: %d, %v; want 4 (two subnetworks, the rule, the attachment)", len(ops.Items), err)
	}

	agg, err := e.compute.ForwardingRules.AggregatedList(p).Filter(`loadBalancingScheme = "INTERNAL"`).Do()
	if err != nil || len(agg.Items) != 1 || len(agg.Items["regions/"+region].ForwardingRules) != 1 {
		t.Fatalf("forwarding rules aggregated by region: %+v, %v", agg, err)
	}
	subnets, err := e.compute.Subnetworks.AggregatedList(p).Do()
	if err != nil || len(subnets.Items["regions/"+region].Subnetworks) != 2 {
		t.Fatalf("subnetworks aggregated by region: %+v, %v", subnets, err)
	}

	workers := e.network(t, cloudsimtest.CustomerProject, "customer", "workers", "10.10.0.0/24")
	e.endpoint(t, cloudsimtest.CustomerProject, workers, "api", prod.attachment.SelfLink)
	ep := e.rule(t, cloudsimtest.CustomerProject, "api")
	_, err = e.compute.ForwardingRules.SetLabels(cloudsimtest.CustomerProject, region, "api",
		&compute.RegionSetLabelsRequest{Labels: map[string]string{"hcplink-cluster": "a"}, LabelFingerprint: "stale"}).Do()
	wantError(t, err, http.StatusPreconditionFailed, "conditionNotMet")
	e.done(t)(e.compute.ForwardingRules.SetLabels(cloudsimtest.CustomerProject, region, "api",
		&compute.RegionSetLabelsRequest{Labels: map[string]string{"hcplink-cluster": "a"}, LabelFingerprint: ep.LabelFingerprint}).Do())
	if labelled, err := e.compute.ForwardingRules.List(cloudsimtest.CustomerProject, region).Filter(`labels.hcplink-cluster = "a"`).Do(); err != nil || len(labelled.Items) != 1 {
		t.Fatalf("endpoints labelled hcplink-cluster=a: %+v, %v; want the endpoint", labelled, err)
	}
	addrs, err := e.compute.Addresses.List(cloudsimtest.CustomerProject, region).Do()
	if err != nil || len(addrs.Items) != 1 || addrs.Items[0].Status != "IN_USE" {
		t.Fatalf("the customer's addresses: %+v, %v", addrs, err)
	}

	d := e.f.DNS(t, cloudsimtest.GCPAdminTokens())
	if _, err := d.ManagedZones.Create(cloudsimtest.CustomerProject, &dns.ManagedZone{Name: "cluster-a", DnsName: "cluster-a.hypershift.local.", Visibility: "private",
		PrivateVisibilityConfig: &dns.ManagedZonePrivateVisibilityConfig{Networks: []*dns.ManagedZonePrivateVisibilityConfigNetwork{{NetworkUrl: workers.Network}}}}).Do(); err != nil {
		t.Fatal(err)
	}
	rs := &dns.ResourceRecordSet{Name: "api.cluster-a.hypershift.local.", Type: "A", Ttl: 60, Rrdatas: []string{addrs.Items[0].Address}}
	if _, err := d.ResourceRecordSets.Create(cloudsimtest.CustomerProject, "cluster-a", rs).Do(); err != nil {
		t.Fatalf("rrsets.create: %v", err)
	}
	got, err := d.ResourceRecordSets.Get(cloudsimtest.CustomerProject, "cluster-a", rs.Name, "A").Do()
	if err != nil || got.Rrdatas[0] != "10.10.0.2" {
		t.Fatalf("rrsets.get: %+v, %v", got, err)
	}
	e.clock.Advance(time.Second)
	changes, err := d.Changes.List(cloudsimtest.CustomerProject, "cluster-a").Do()
	if err != nil || len(changes.Changes) != 2 || changes.Changes[1].Status != "done" {
		t.Fatalf("changes: %+v, %v; want the zone's creation and the record's, done", changes, err)
	}
	zones, err := d.ManagedZones.List(cloudsimtest.CustomerProject).DnsName("cluster-a.hypershift.local.").Do()
	if err != nil || len(zones.ManagedZones) != 1 {
		t.Fatalf("zones by DNS name: %+v, %v", zones, err)
	}
	if _, err := d.ResourceRecordSets.Delete(cloudsimtest.CustomerProject, "cluster-a", rs.Name, "A").Do(); err != nil {
		t.Fatalf("rrsets.delete: %v", err)
	}
}
