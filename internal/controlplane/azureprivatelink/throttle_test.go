package azureprivatelink

import (
	"testing"
	"time"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// TestThrottledConverges runs the controller against ARM buckets far
// smaller than a pass needs: each throttled pass stops at its first 429,
// says so in a clean condition, comes back no sooner than Retry-After, and
// the path still converges.
func TestThrottledConverges(t *testing.T) {
	w := newWorld(t)
	cred := w.cpoIdentity()
	w.f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		azure.ThrottlingService: {NonMutating: sim.Limit{Burst: 3, PerSecond: 0.1}, Mutating: sim.Limit{Burst: 2, PerSecond: 0.1}},
	}}})
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, cred)

	throttledPasses, passes := 0, 0
	for !available(c.get()) {
		if passes++; passes > 60 {
			t.Fatalf("never converged; conditions %+v", c.get().Status.Conditions)
		}
		res := c.reconcile()
		cr := c.get()
		if got := condition(cr, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition); got.Reason == hcplinkv1beta1.ThrottledReason {
			throttledPasses++
			checkMessages(t, cr)
			if res.RequeueAfter < 10*time.Second {
				t.Errorf("throttled pass requeued after %v", res.RequeueAfter)
			}
		}
		w.clk.Advance(max(res.RequeueAfter, time.Second))
	}
	if throttledPasses == 0 {
		t.Fatal("the buckets never throttled: the test proves nothing")
	}
	var throttledCalls int64
	for _, count := range w.f.Server.Counters.Snapshot()[customer] {
		throttledCalls += count.Throttled
	}
	// One 429 per throttled pass: a pass never retries inside itself.
	if throttledCalls > int64(throttledPasses) {
		t.Errorf("%d throttled calls in %d throttled passes", throttledCalls, throttledPasses)
	}
	t.Logf("converged in %d passes, %d throttled", passes, throttledPasses)
	w.f.Server.Faults.Set(sim.FaultConfig{}) // the test's own reads are not throttled
	c.assertPath(t)
}
