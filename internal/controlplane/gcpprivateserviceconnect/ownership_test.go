package gcpprivateserviceconnect

import (
	"slices"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// A zone of the cluster's zone name that hcplink did not make (the
// customer's own): reported as DNSZoneConflict, never written to, and left
// with its records when the cluster is deleted; everything of ours goes.
func TestForeignZoneLeftAlone(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("owned", hcplinkv1beta1.GCPEndpointAccessPrivate)
	zoneName := gcpcloud.ZoneName(c.ownerHere().InfraID)
	if _, err := w.dns.ManagedZones.Create(customerProject, &dns.ManagedZone{Name: zoneName, DnsName: "owned.hypershift.local.",
		Description: "the customer's own", Visibility: "private"}).Do(); err != nil {
		t.Fatal(err)
	}
	theirs := &dns.ResourceRecordSet{Name: "api.owned.hypershift.local.", Type: "A", Ttl: 300, Rrdatas: []string{"192.168.1.200"}}
	if _, err := w.dns.Changes.Create(customerProject, zoneName, &dns.Change{Additions: []*dns.ResourceRecordSet{theirs}}).Do(); err != nil {
		t.Fatal(err)
	}
	c.until("the zone conflict is reported", func(cr *hcplinkv1beta1.GCPPrivateServiceConnect) bool {
		return condition(cr, hcplinkv1beta1.GCPDNSAvailableCondition).Reason == hcplinkv1beta1.DNSZoneConflictReason
	})
	cr := c.get()
	checkMessages(t, cr)
	if available(cr) {
		t.Fatal("available with a zone that is not ours")
	}
	if got := w.records(zoneName)["api.owned.hypershift.local."]; !slices.Equal(got, []string{"192.168.1.200"}) {
		t.Fatalf("the customer's record was changed: %v", got)
	}
	if err := env.Client.Delete(w.ctx, cr); err != nil {
		t.Fatal(err)
	}
	for i := 0; c.reconcileGone() >= 0; i++ {
		if i > 40 {
			t.Fatalf("never finished deleting; left %v", w.customerResources())
		}
		w.clock.Advance(10 * time.Second)
	}
	if got := w.customerResources(); !slices.Equal(got, []string{"zone/" + zoneName}) {
		t.Fatalf("after deletion the project holds %v; want only the customer's zone", got)
	}
	if got := w.records(zoneName)["api.owned.hypershift.local."]; !slices.Equal(got, []string{"192.168.1.200"}) {
		t.Fatalf("the customer's record was changed by the deletion: %v", got)
	}
}

// An address of the endpoint's address name that the customer made: the
// endpoint is not made on it (ResourceNotOurs), and the deletion leaves it.
func TestForeignAddressLeftAlone(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("taken", hcplinkv1beta1.GCPEndpointAccessPrivate)
	addrName := gcpcloud.EndpointAddressName(c.ownerHere())
	w.adminDone(w.admin.Addresses.Insert(customerProject, region, &compute.Address{Name: addrName, AddressType: "INTERNAL",
		Subnetwork: "projects/" + customerProject + "/regions/" + region + "/subnetworks/workers"}).Do())
	c.until("the foreign address is reported", func(cr *hcplinkv1beta1.GCPPrivateServiceConnect) bool {
		return condition(cr, hcplinkv1beta1.GCPEndpointAvailableCondition).Reason == NotOursReason
	})
	checkMessages(t, c.get())
	if got := w.customerResources(); !slices.Equal(got, []string{"address/" + addrName}) {
		t.Fatalf("the project holds %v; want only the customer's address", got)
	}
	if err := env.Client.Delete(w.ctx, c.get()); err != nil {
		t.Fatal(err)
	}
	for i := 0; c.reconcileGone() >= 0; i++ {
		if i > 40 {
			t.Fatalf("never finished deleting; left %v", w.customerResources())
		}
		w.clock.Advance(10 * time.Second)
	}
	if got := w.customerResources(); !slices.Equal(got, []string{"address/" + addrName}) {
		t.Fatalf("after deletion the project holds %v; want the customer's address, untouched", got)
	}
}

// A forwarding rule of the endpoint's name that the customer made, found
// by the first insert (the create path does not read the rule first): it
// is reported as not ours, never adopted, and left by the deletion.
func TestForeignRuleLeftAlone(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("ruled", hcplinkv1beta1.GCPEndpointAccessPrivate)
	ruleName := gcpcloud.EndpointName(c.ownerHere())
	w.adminDone(w.admin.Addresses.Insert(customerProject, region, &compute.Address{Name: "theirs", AddressType: "INTERNAL",
		Subnetwork: "projects/" + customerProject + "/regions/" + region + "/subnetworks/workers"}).Do())
	w.adminDone(w.admin.ForwardingRules.Insert(customerProject, region, &compute.ForwardingRule{Name: ruleName,
		Network: "projects/" + customerProject + "/global/networks/customer", IPAddress: "projects/" + customerProject + "/regions/" + region + "/addresses/theirs",
		Target: c.get().Status.ServiceAttachmentURI}).Do())
	c.until("the foreign rule is reported", func(cr *hcplinkv1beta1.GCPPrivateServiceConnect) bool {
		return condition(cr, hcplinkv1beta1.GCPEndpointAvailableCondition).Reason == NotOursReason
	})
	checkMessages(t, c.get())
	if rule := w.rule(ruleName); rule == nil || len(rule.Labels) != 0 {
		t.Fatalf("the customer's rule was changed or removed: %+v", rule)
	}
	if err := env.Client.Delete(w.ctx, c.get()); err != nil {
		t.Fatal(err)
	}
	for i := 0; c.reconcileGone() >= 0; i++ {
		if i > 40 {
			t.Fatalf("never finished deleting; left %v", w.customerResources())
		}
		w.clock.Advance(10 * time.Second)
	}
	if got := w.customerResources(); !slices.Equal(got, []string{"address/theirs", "forwardingRule/" + ruleName}) {
		t.Fatalf("after deletion the project holds %v; want only the customer's address and rule", got)
	}
}
