package azure_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// TestPrivateDNSLifecycle runs the control-plane operator's DNS calls with
// only its custom role: our zone created and tagged, the VNet link with
// registration off, the A records written only when they differ, the
// SOA's negative TTL, and deletion in order — while a zone we did not
// create is never deleted.
func TestPrivateDNSLifecycle(t *testing.T) {
	w := newWorld(t)
	cpo := w.providers(cloudsimtest.CustomerSubscription,
		w.customRoleIdentity(azurecloud.ControlPlaneOperator, cloudsimtest.CustomerSubscription, rgScope(cloudsimtest.CustomerSubscription, guestRG)))
	dns := cpo.PrivateDNS
	zone := azurecloud.PrivateDNSZoneName("demo")

	if z, err := dns.Zone(w.ctx, guestRG, zone); err != nil || z != nil {
		t.Fatalf("zone before creation = %v, %v", z, err)
	}
	var created *armprivatedns.PrivateZone
	settle(t, w, "creating the zone", func(token string) (string, error) {
		z, next, err := dns.CreateZone(w.ctx, guestRG, zone, azurecloud.ZoneTags(clusterID, crName), token)
		created = z
		return next, err
	})
	if !azurecloud.CreatedByHcplink(created.Tags) || !azurecloud.OwnedBy(created.Tags, clusterID, crName) {
		t.Errorf("created zone's tags = %v", created.Tags)
	}
	if again, token, err := dns.CreateZone(w.ctx, guestRG, zone, nil, ""); err != nil || token != "" || again == nil || !azurecloud.CreatedByHcplink(again.Tags) {
		t.Errorf("creating an existing zone: %v, %q, %v (its tags must be left as they are)", again, token, err)
	}

	link := azurecloud.VNetLinkName(clusterID)
	var linked *armprivatedns.VirtualNetworkLink
	settle(t, w, "linking the zone", func(token string) (string, error) {
		l, next, err := dns.CreateOrUpdateLink(w.ctx, guestRG, zone, link, w.guestVNetID, azurecloud.OwnershipTags(clusterID, crName), token)
		linked = l
		return next, err
	})
	if *linked.Properties.RegistrationEnabled || !strings.EqualFold(*linked.Properties.VirtualNetwork.ID, w.guestVNetID) {
		t.Errorf("link = registration %v, VNet %s", *linked.Properties.RegistrationEnabled, *linked.Properties.VirtualNetwork.ID)
	}
	if got, err := dns.Link(w.ctx, guestRG, zone, link); err != nil || got == nil {
		t.Errorf("Link = %v, %v", got, err)
	}

	for _, name := range []string{azurecloud.APIRecordName, azurecloud.AppsRecordName} {
		wrote, err := dns.SetARecord(w.ctx, guestRG, zone, name, "192.168.1.4", azurecloud.RecordTTL, nil)
		if err != nil || !wrote {
			t.Fatalf("writing %s: %v, %v", name, wrote, err)
		}
		if wrote, err := dns.SetARecord(w.ctx, guestRG, zone, name, "192.168.1.4", azurecloud.RecordTTL, nil); err != nil || wrote {
			t.Errorf("writing %s unchanged wrote again: %v, %v", name, wrote, err)
		}
		rs, err := dns.ARecord(w.ctx, guestRG, zone, name)
		if err != nil || !slices.Equal(azurecloud.ARecordIPs(rs), []string{"192.168.1.4"}) || azurecloud.ARecordTTL(rs) != 300 {
			t.Errorf("record %s = %v ttl %d, %v", name, azurecloud.ARecordIPs(rs), azurecloud.ARecordTTL(rs), err)
		}
	}
	if wrote, err := dns.SetARecord(w.ctx, guestRG, zone, azurecloud.APIRecordName, "192.168.1.9", azurecloud.RecordTTL, nil); err != nil || !wrote {
		t.Errorf("moving api to a new IP: %v, %v", wrote, err)
	}

	// One listing shows the SOA and both A records.
	sets, found, err := dns.RecordSets(w.ctx, guestRG, zone)
	if err != nil || !found {
		t.Fatalf("RecordSets = %v, %v", found, err)
	}
	if rs := azurecloud.FindRecordSet(sets, armprivatedns.RecordTypeA, azurecloud.AppsRecordName); !azurecloud.ARecordIsCurrent(rs, "192.168.1.4", azurecloud.RecordTTL, nil) {
		t.Errorf("listed *.apps = %+v", rs)
	}
	// A new zone's negative caching (10 s) is shorter than ours: kept.
	soa := azurecloud.FindRecordSet(sets, armprivatedns.RecordTypeSOA, "@")
	if got := azurecloud.SOAMinimumTTL(soa); got != 10 {
		t.Errorf("a new zone's SOA minimum TTL = %d, want Azure's 10", got)
	}
	if wrote, err := dns.LowerSOANegativeTTL(w.ctx, guestRG, zone, soa, azurecloud.MaxSOANegativeTTL); err != nil || wrote {
		t.Errorf("raising the SOA negative TTL: %v, %v", wrote, err)
	}
	// A longer one is lowered, once.
	soa.Properties.SoaRecord.MinimumTTL, soa.Properties.SoaRecord.Host = to.Ptr[int64](3600), nil
	if _, err := w.adminDNS().NewRecordSetsClient().CreateOrUpdate(w.ctx, guestRG, zone, armprivatedns.RecordTypeSOA, "@", *soa, nil); err != nil {
		t.Fatal(err)
	}
	sets, _, _ = dns.RecordSets(w.ctx, guestRG, zone)
	if wrote, err := dns.LowerSOANegativeTTL(w.ctx, guestRG, zone, azurecloud.FindRecordSet(sets, armprivatedns.RecordTypeSOA, "@"), azurecloud.MaxSOANegativeTTL); err != nil || !wrote {
		t.Fatalf("lowering the SOA negative TTL: %v, %v", wrote, err)
	}
	sets, _, _ = dns.RecordSets(w.ctx, guestRG, zone)
	if got := azurecloud.SOAMinimumTTL(azurecloud.FindRecordSet(sets, armprivatedns.RecordTypeSOA, "@")); got != azurecloud.MaxSOANegativeTTL {
		t.Errorf("SOA minimum TTL = %d; want %d", got, azurecloud.MaxSOANegativeTTL)
	}
	if _, found, err := dns.RecordSets(w.ctx, guestRG, "absent.hypershift.local"); err != nil || found {
		t.Errorf("listing an absent zone: %v, %v", found, err)
	}

	// A zone someone else made, with our zone's kind of name, is left alone.
	admin := w.adminDNS()
	theirs := azurecloud.PrivateDNSZoneName("theirs")
	p, err := admin.NewPrivateZonesClient().BeginCreateOrUpdate(w.ctx, guestRG, theirs, armprivatedns.PrivateZone{Location: to.Ptr("global")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(10 * time.Minute)
	if _, err := p.PollUntilDone(w.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if token, err := dns.DeleteZone(w.ctx, guestRG, theirs, ""); err != nil || token != "" {
		t.Errorf("deleting a zone we did not create: %q, %v", token, err)
	}
	if z, err := dns.Zone(w.ctx, guestRG, theirs); err != nil || z == nil {
		t.Errorf("the zone we did not create is gone: %v", err)
	}

	// Deletion: records, link, zone.
	for _, name := range []string{azurecloud.APIRecordName, azurecloud.AppsRecordName} {
		if err := dns.DeleteARecord(w.ctx, guestRG, zone, name); err != nil {
			t.Fatalf("deleting %s: %v", name, err)
		}
		if err := dns.DeleteARecord(w.ctx, guestRG, zone, name); err != nil {
			t.Errorf("deleting %s again: %v", name, err)
		}
	}
	settle(t, w, "unlinking the zone", func(token string) (string, error) { return dns.DeleteLink(w.ctx, guestRG, zone, link, token) })
	settle(t, w, "deleting our zone", func(token string) (string, error) { return dns.DeleteZone(w.ctx, guestRG, zone, token) })
	if z, err := dns.Zone(w.ctx, guestRG, zone); err != nil || z != nil {
		t.Errorf("our deleted zone = %v, %v", z, err)
	}
	if token, err := dns.DeleteLink(w.ctx, guestRG, zone, link, ""); err != nil || token != "" {
		t.Errorf("unlinking a deleted zone: %q, %v", token, err)
	}
	if rs, err := dns.ARecord(w.ctx, guestRG, zone, "api"); err != nil || rs != nil {
		t.Errorf("a record of a deleted zone: %v, %v", rs, err)
	}
}

func (w *world) adminDNS() *armprivatedns.ClientFactory {
	w.t.Helper()
	f, err := armprivatedns.NewClientFactory(cloudsimtest.CustomerSubscription, w.f.AzureAdminCredential(w.t), w.f.AzureClientOptions())
	if err != nil {
		w.t.Fatal(err)
	}
	return f
}
