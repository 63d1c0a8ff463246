package gcp

import (
	"strings"

	dns "google.golang.org/api/dns/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// The GCP half's part in sim.Ledger: its inventory, and the resources a
// mutating call acts on.

// ledgerCloud is the GCP half's name in the ledger.
const ledgerCloud = "gcp"

// inventory lists every resource the ledger follows, by relative name:
// networks, subnetworks, addresses, forwarding rules, service attachments,
// managed zones and their record sets. An insert's resource counts from
// the call that made it, before its operation is DONE, so that the ledger
// names its creator right. Callers hold c.mu.
func (c *Cloud) inventory() []sim.InventoryItem {
	st := c.st
	out := make([]sim.InventoryItem, 0, len(st.addresses)+len(st.forwardingRules)+len(st.attachments)+len(st.zones))
	add := func(kind, key string, labels map[string]string) {
		out = append(out, sim.InventoryItem{Cloud: ledgerCloud, Account: projectOf(key), Kind: kind, ID: key, Tags: labels})
	}
	for key := range st.networks {
		add("compute#network", key, nil)
	}
	for key := range st.subnetworks {
		add("compute#subnetwork", key, nil)
	}
	for key, a := range st.addresses {
		add("compute#address", key, a.Labels)
	}
	for key, fr := range st.forwardingRules {
		add("compute#forwardingRule", key, fr.Labels)
	}
	for key, sa := range st.attachments {
		// An attachment takes no labels; its owner is the forwarding rule
		// it publishes: two attachments of one rule at once are a duplicate.
		add("compute#serviceAttachment", key, nil)
		out[len(out)-1].Owner = rel(sa.TargetService)
	}
	for key, z := range st.zones {
		add("dns#managedZone", key, z.zone.Labels)
		for _, rs := range z.records {
			add("dns#resourceRecordSet", recordSetLedgerID(key, rs.Name, rs.Type), nil)
		}
	}
	return out
}

// recordSetLedgerID names a record set as its get and delete paths do:
// projects/P/managedZones/Z/rrsets/NAME/TYPE.
func recordSetLedgerID(zoneKey, name, typ string) string {
	return zoneKey + "/rrsets/" + name + "/" + typ
}

// ledgerTargets are the existing resources a mutating call acts on: the one
// its path names (a custom method's resource is the path without the
// method's segment, as .../addresses/A/setLabels), and for a Cloud DNS
// change the zone and the record sets it deletes.
func (x *call) ledgerTargets() []string {
	name := x.resourceName()
	out := []string{name}
	if i := strings.LastIndex(name, "/"); i > 0 {
		out = append(out, name[:i])
	}
	if x.api.service == dnsService && x.api.method == "changes.create" {
		var ch dns.Change
		if x.decode(&ch) == nil {
			zone := strings.TrimSuffix(name, "/changes")
			for _, d := range ch.Deletions {
				out = append(out, recordSetLedgerID(zone, d.Name, d.Type))
			}
		}
	}
	return out
}

// ledgerMutating: a call that may change a resource; token exchanges and
// reads do not.
func (x *call) ledgerMutating() bool {
	switch x.api.service {
	case "oauth2.googleapis.com", "sts.googleapis.com", "iamcredentials.googleapis.com":
		return false
	}
	return !isRead(x.api.method)
}

// record tells the ledger about a successful mutating call. Callers hold c.mu.
func (c *Cloud) record(x *call) {
	if c.ledger == nil || !c.ledger.On() || !x.ledgerMutating() {
		return
	}
	c.ledger.Touched(ledgerCloud, x.api.service+":"+x.api.method, x.principal, x.ledgerTargets(), x.now)
	c.ledger.Observe(ledgerCloud, c.inventory(), x.principal, x.now)
}

// Inventory lists the resources the ledger follows, for its baseline and
// its report (operations that finished since the last call are applied).
func (c *Cloud) Inventory() []sim.InventoryItem {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(c.clock.Now())
	return c.inventory()
}
