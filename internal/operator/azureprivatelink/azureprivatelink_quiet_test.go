package azureprivatelink

import (
	"maps"
	"slices"
	"testing"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// A drift pass over many healthy clusters costs one listing of the
// resource group's Private Link Services for them all (their connections
// inline), and nothing else: no load-balancer listing, no NAT subnet read,
// no per-service read, no write.
func TestADriftPassOverManyClustersIsOneListing(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(nil)
	var clusters []*cluster
	for range 5 {
		c := w.cluster()
		w.settle(r, c.cr)
		clusters = append(clusters, c)
	}
	before := w.f.Calls(mgmtSub)
	w.clk.Advance(testDrift + testDrift/5) // past every jittered requeue
	for _, c := range clusters {
		w.reconcile(r, c.cr)
	}
	pass := map[string]sim.CallCount{}
	for k, v := range w.f.Calls(mgmtSub) {
		if d := v.Total - before[k].Total; d > 0 {
			pass[k] = sim.CallCount{Total: d, Mutating: v.Mutating - before[k].Mutating}
		}
	}
	total := sim.Sum(pass)
	if total.Total > 1 || total.Mutating != 0 {
		t.Errorf("a drift pass over %d clusters made %d calls (%d mutating), want 1 listing: %v", len(clusters), total.Total, total.Mutating, slices.Sorted(maps.Keys(pass)))
	}
}

// Creating one cluster's service costs the management side at most 10
// calls, 2 of them writes (the NAT subnet, the service): the load
// balancers listed once, the NAT subnet read once before it is placed
// (ownership) and its creation then polled through its operation, not
// read again; the services' listing, one read and one poll of the
// service.
func TestCreatingAServiceCostsAtMostTenCalls(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(nil)
	before := w.f.Calls(mgmtSub)
	c := w.cluster()
	w.settle(r, c.cr)
	made := map[string]sim.CallCount{}
	for k, v := range w.f.Calls(mgmtSub) {
		if d := v.Total - before[k].Total; d > 0 {
			made[k] = sim.CallCount{Total: d, Mutating: v.Mutating - before[k].Mutating}
		}
	}
	if total := sim.Sum(made); total.Total > 10 || total.Mutating != 2 {
		t.Errorf("creating a service made %d calls (%d mutating), want at most 10 (2): %v", total.Total, total.Mutating, made)
	}
}
