package gcpprivateserviceconnect

import (
	"strings"
	"testing"
	"time"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpsim "github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/outcome"
)

// TestDeletionUnderQuotaWaitsForTheWindow deletes a cluster under per-minute
// rate quotas far smaller than its deletion needs (Compute Engine: 2 reads
// and 1 write a minute for the project; Cloud DNS: 2 reads and 1 write a
// minute). A refused pass looks again once the quota's window has refilled
// (the next minute, plus a little jitter so that a fleet does not come back
// at once), however often it was refused before: a deletion that makes
// progress each minute takes the minutes the quota requires, not delays
// doubling to the policy's cap.
func TestDeletionUnderQuotaWaitsForTheWindow(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("quota-gone", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	if err := env.Client.Delete(w.ctx, c.get()); err != nil {
		t.Fatal(err)
	}
	w.f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		"compute.googleapis.com": {NonMutating: sim.Limit{Burst: 2}, Mutating: sim.Limit{Burst: 1}},
		"dns.googleapis.com":     {NonMutating: sim.Limit{Burst: 2}, Mutating: sim.Limit{Burst: 1}},
	}}})
	start := w.clock.Now()
	throttled := 0
	for passes := 1; ; passes++ {
		if passes > 60 {
			t.Fatalf("never finished deleting; left %v", w.customerResources())
		}
		wait := c.reconcileGone()
		if wait < 0 {
			break
		}
		if cr := c.get(); condition(cr, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition).Reason == hcplinkv1beta1.ThrottledReason {
			throttled++
			checkMessages(t, cr)
			// The window refills at the next minute; the jitter spreads a
			// fleet over the first part of it.
			untilNext := w.clock.Now().Truncate(time.Minute).Add(time.Minute).Sub(w.clock.Now())
			if wait < untilNext || wait > untilNext+outcome.DefaultPolicy.QuotaRefillSpread {
				t.Errorf("throttled pass %d at %s requeued after %v; the quota refills in %v", passes,
					w.clock.Now().Format("15:04:05"), wait, untilNext)
			}
		}
		w.clock.Advance(max(wait, time.Second))
	}
	if throttled < 2 {
		t.Fatalf("the quotas refused %d passes: the test proves nothing", throttled)
	}
	took := w.clock.Now().Sub(start)
	w.f.Server.Faults.Set(sim.FaultConfig{}) // the project's quota is the test's too
	if got := w.customerResources(); len(got) != 0 {
		t.Fatalf("after deletion the customer project holds %v", got)
	}
	// Six writes (records, zone, endpoint, address, and each one's wait
	// reads) at one write a minute per service: about four windows.
	if took > 5*time.Minute {
		t.Errorf("the deletion took %v under the quota; its calls fit in about four minutes", took)
	}
	t.Logf("deleted in %v, %d passes throttled", took, throttled)
}

// TestDeletionProgressStartsTheWaitOver deletes a cluster whose Compute
// Engine operations take 90 s: the polls of the endpoint's deletion grow
// while it runs, and once it is done the address's deletion, started in
// the same pass, is first looked at after the first poll again, not after
// a delay grown on the endpoint.
func TestDeletionProgressStartsTheWaitOver(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("slow-gone", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	w.f.Server.GCP.SetDelays(gcpsim.Delays{Operation: sim.Duration(90 * time.Second)})
	if err := env.Client.Delete(w.ctx, c.get()); err != nil {
		t.Fatal(err)
	}
	var endpointPolls []time.Duration
	for passes := 1; ; passes++ {
		if passes > 40 {
			t.Fatalf("never finished deleting; left %v", w.customerResources())
		}
		wait := c.reconcileGone()
		if wait < 0 {
			break
		}
		msg := condition(c.get(), hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition).Message
		switch {
		case strings.Contains(msg, "Private Service Connect endpoint"):
			endpointPolls = append(endpointPolls, wait)
		case strings.Contains(msg, "Waiting for address"):
			if len(endpointPolls) < 3 || endpointPolls[len(endpointPolls)-1] <= endpointPolls[0] {
				t.Fatalf("the endpoint's polls %v did not grow: the test proves nothing", endpointPolls)
			}
			if wait > operationPoll {
				t.Fatalf("the address's deletion is first looked at after %v (the endpoint's polls: %v); want the first poll, %v",
					wait, endpointPolls, operationPoll)
			}
			return
		}
		w.clock.Advance(max(wait, time.Second))
	}
	t.Fatal("the deletion never waited on the address's operation")
}

// TestFleetDeletionUnderQuota deletes four clusters of one customer
// project at once under per-minute rate quotas the fleet shares (Compute
// Engine: 4 reads and 2 writes a minute for the project; Cloud DNS: 4
// reads and 2 writes a minute for the control-plane operator's account),
// each cluster looked at again when its controller asked: the fleet is gone
// in about 6 to 7 minutes (11 to 18 when refusals doubled their delays and
// every pass read again what it had deleted), not 9.
func TestFleetDeletionUnderQuota(t *testing.T) {
	w := newWorld(t)
	w.nats = append(w.nats, w.natSubnet("psc-nat-c", "10.1.0.32/28"), w.natSubnet("psc-nat-d", "10.1.0.48/28"))
	var fleet []*cluster
	for _, name := range []string{"fleet-a", "fleet-b", "fleet-c", "fleet-d"} {
		c := w.newCluster(name, hcplinkv1beta1.GCPEndpointAccessPrivate)
		c.until("available", available)
		fleet = append(fleet, c)
	}
	for _, c := range fleet {
		if err := env.Client.Delete(w.ctx, c.get()); err != nil {
			t.Fatal(err)
		}
	}
	w.f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		"compute.googleapis.com": {NonMutating: sim.Limit{Burst: 4}, Mutating: sim.Limit{Burst: 2}},
		"dns.googleapis.com":     {NonMutating: sim.Limit{Burst: 4}, Mutating: sim.Limit{Burst: 2}},
	}}})
	start := w.clock.Now()
	next := map[*cluster]time.Time{}
	gone := map[*cluster]bool{}
	for step := 0; len(gone) < len(fleet); step++ {
		if step > 400 {
			t.Fatalf("%d of %d clusters deleted after %v", len(gone), len(fleet), w.clock.Now().Sub(start))
		}
		now := w.clock.Now()
		soonest := now.Add(time.Hour)
		for _, c := range fleet {
			if gone[c] {
				continue
			}
			if at, ok := next[c]; ok && at.After(now) {
				if at.Before(soonest) {
					soonest = at
				}
				continue
			}
			wait := c.reconcileGone()
			if wait < 0 {
				gone[c] = true
				continue
			}
			next[c] = now.Add(max(wait, time.Second))
			if next[c].Before(soonest) {
				soonest = next[c]
			}
		}
		if len(gone) < len(fleet) && soonest.After(now) {
			w.clock.Advance(soonest.Sub(now))
		}
	}
	took := w.clock.Now().Sub(start)
	throttled := int64(0)
	for _, n := range w.f.Server.GCP.PrincipalCalls()["serviceAccount:"+w.wi.Email] {
		throttled += n.Throttled
	}
	w.f.Server.Faults.Set(sim.FaultConfig{})
	if got := w.customerResources(); len(got) != 0 {
		t.Fatalf("after deletion the customer project holds %v", got)
	}
	t.Logf("4 clusters deleted in %v under the quota, %d calls refused", took, throttled)
	if took > 9*time.Minute {
		t.Errorf("the fleet's deletion took %v; its calls fit in about 7 at the quota's pace", took)
	}
}

// TestDeletionReadsWhatIsGoneOnce deletes a cluster whose Compute Engine
// operations take 90 s, over many passes: the zone is read once (it is
// deleted in that pass), the forwarding rule and the address twice each
// (before their deletion, and once to find them gone), however many
// passes the operations take.
func TestDeletionReadsWhatIsGoneOnce(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("read-gone", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	w.f.Server.GCP.SetDelays(gcpsim.Delays{Operation: sim.Duration(90 * time.Second)})
	if err := env.Client.Delete(w.ctx, c.get()); err != nil {
		t.Fatal(err)
	}
	before := w.f.Server.GCP.PrincipalCalls()["serviceAccount:"+w.wi.Email]
	passes := 0
	for ; ; passes++ {
		if passes > 40 {
			t.Fatalf("never finished deleting; left %v", w.customerResources())
		}
		wait := c.reconcileGone()
		if wait < 0 {
			break
		}
		w.clock.Advance(max(wait, time.Second))
	}
	after := w.f.Server.GCP.PrincipalCalls()["serviceAccount:"+w.wi.Email]
	for op, want := range map[string]int64{"dns.googleapis.com:managedZones.get": 1, "compute.googleapis.com:forwardingRules.get": 2,
		"compute.googleapis.com:addresses.get": 2} {
		got := after[op].Total - before[op].Total
		if got != want {
			t.Errorf("%s: %d calls in %d passes of the deletion, want %d", op, got, passes, want)
		}
	}
}
