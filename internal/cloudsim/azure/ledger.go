package azure

import "github.com/hcplink/hcplink/internal/cloudsim/sim"

// The Azure half's part in sim.Ledger: every stored resource, with the
// principal that created it, and the resource a mutating call acts on (the
// one its path names).

// inventory lists every stored resource. Callers hold c.mu.
func (c *Cloud) inventory() []sim.InventoryItem {
	out := make([]sim.InventoryItem, 0, len(c.store.byKey))
	for key, r := range c.store.byKey {
		out = append(out, sim.InventoryItem{Cloud: "azure", Account: r.ID.Subscription, Kind: r.Type, ID: key,
			Tags: r.Tags, CreatedBy: r.CreatedBy, Deleting: r.ProvisioningState == "Deleting"})
	}
	return out
}

// record tells the ledger about a successful mutating call. Callers hold c.mu.
func (c *Cloud) record(req *Request) {
	key := callKey(req.operation)
	if c.ledger == nil || !c.ledger.On() || !sim.IsMutating(key) {
		return
	}
	c.ledger.Touched("azure", key.String(), req.Principal.ObjectID, []string{req.ID.Key()}, req.Now)
	c.ledger.Observe("azure", c.inventory(), req.Principal.ObjectID, req.Now)
}

// Inventory lists every stored resource, for the ledger's baseline.
func (c *Cloud) Inventory() []sim.InventoryItem {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(c.now())
	return c.inventory()
}
