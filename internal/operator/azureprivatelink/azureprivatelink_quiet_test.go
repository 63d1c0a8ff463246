package azureprivatelink

import (
	"maps"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
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

// Creating the first cluster's service costs the management side its two
// writes (the shared NAT subnet, the service) and six reads: the load
// balancers listed once; the VNet read once, which shows both that no
// subnet has the shared NAT subnet's name (ownership) and where it fits;
// the subnet's creation polled through its operation and, done, not read
// back; the services' listing, one read of the service before it is
// created and one after. Every later cluster costs only its service: its
// NAT address is in the subnet already made, and its frontend in the
// load balancers already listed.
func TestCreatingAServiceCostsItsWritesAndSixReads(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(nil)
	created := func() map[string]int64 {
		before := w.f.Calls(mgmtSub)
		c := w.cluster()
		w.settle(r, c.cr)
		made := map[string]int64{}
		for k, v := range w.f.Calls(mgmtSub) {
			if d := v.Total - before[k].Total; d > 0 {
				made[k] = d
			}
		}
		return made
	}
	check := func(which string, made, want map[string]int64) {
		t.Logf("%s: %v", which, made)
		for op, n := range made {
			if want[op] != n {
				t.Errorf("%s: %s: %d calls, want %d", which, op, n, want[op])
			}
		}
		for op, n := range want {
			if _, ok := made[op]; !ok {
				t.Errorf("%s: %s: no call, want %d", which, op, n)
			}
		}
	}
	check("the first cluster", created(), map[string]int64{
		"Microsoft.Network:loadBalancers/read":            1,
		"Microsoft.Network:virtualNetworks/read":          1,
		"Microsoft.Network:virtualNetworks/subnets/write": 1,
		"Microsoft.Network:locations/operations/read":     1, // the subnet's operation
		"Microsoft.Network:privateLinkServices/read":      3, // the listing, before, after
		"Microsoft.Network:privateLinkServices/write":     1,
	})
	check("the second cluster", created(), map[string]int64{
		"Microsoft.Network:privateLinkServices/read":  2, // before (the listing predates it), after
		"Microsoft.Network:privateLinkServices/write": 1,
	})
}

// The NAT subnet's and the service's operations are looked at again when
// Azure's Retry-After says: with cloudsim's fast delays a fraction of a
// second, with its realistic ones ARM's 10 s; never a guessed 5–8 s.
func TestOperationsAreLookedAtWhenAzureSays(t *testing.T) {
	for _, tc := range []struct {
		name     string
		delays   azure.Delays
		min, max time.Duration
	}{
		{"fast", azure.FastDelays(), time.Millisecond, time.Second},
		{"realistic", azure.RealisticDelays(), 5 * time.Second, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.f.Server.Azure.SetDelays(tc.delays)
			r := w.reconciler(nil)
			c := w.cluster()
			var waits []string
			for range 6 {
				res := w.reconcile(r, c.cr)
				cond := condition(t, c.cr, hcplinkv1beta1.AzurePLSCreatedCondition)
				if cond.Status == metav1.ConditionTrue {
					break
				}
				waits = append(waits, cond.Message)
				if res.RequeueAfter < tc.min || res.RequeueAfter > tc.max {
					t.Errorf("%q: looked at again after %v, want what Azure said (%v–%v)", cond.Message, res.RequeueAfter, tc.min, tc.max)
				}
				w.clk.Advance(res.RequeueAfter)
			}
			if len(waits) < 2 {
				t.Errorf("waited on %d operations (%v), want the NAT subnet's and the service's", len(waits), waits)
			}
		})
	}
}
