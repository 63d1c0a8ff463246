package gcpprivateserviceconnect

import (
	"testing"
	"time"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// TestQuotaConverges runs the controller against rate quotas far smaller
// than a cluster's creation needs (Compute Engine: 3 reads and 2 writes a
// minute for the project; Cloud DNS: 2 requests a minute): each refused
// pass stops at its first refusal, says so in a clean condition, comes
// back once the quota has refilled (the next minute), not before, and the
// path still converges.
func TestQuotaConverges(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("quota", hcplinkv1beta1.GCPEndpointAccessPrivate)
	w.f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		"compute.googleapis.com": {NonMutating: sim.Limit{Burst: 3}, Mutating: sim.Limit{Burst: 2}},
		"dns.googleapis.com":     {NonMutating: sim.Limit{Burst: 2}, Mutating: sim.Limit{Burst: 2}},
	}}})
	throttledPasses, passes := 0, 0
	for !available(c.get()) {
		if passes++; passes > 80 {
			t.Fatalf("never converged; conditions %+v", c.get().Status.Conditions)
		}
		res := c.reconcile()
		cr := c.get()
		if got := condition(cr, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition); got.Reason == hcplinkv1beta1.ThrottledReason {
			throttledPasses++
			checkMessages(t, cr)
			// Not before the quota refills, at the next minute.
			if refill := w.clock.Now().Truncate(time.Minute).Add(time.Minute); w.clock.Now().Add(res.RequeueAfter).Before(refill) {
				t.Errorf("throttled pass requeued after %v, before the quota refills at %s", res.RequeueAfter, refill.Format("15:04:05"))
			}
		}
		w.clock.Advance(max(res.RequeueAfter, time.Second))
	}
	if throttledPasses == 0 {
		t.Fatal("the quotas never refused a call: the test proves nothing")
	}
	var throttledCalls int64
	for _, n := range w.f.Server.GCP.PrincipalCalls()["serviceAccount:"+w.wi.Email] {
		throttledCalls += n.Throttled
	}
	// One refusal per throttled pass: a pass never retries inside itself.
	if throttledCalls > int64(throttledPasses) {
		t.Errorf("%d throttled calls in %d throttled passes", throttledCalls, throttledPasses)
	}
	t.Logf("converged in %d passes, %d throttled", passes, throttledPasses)
}
