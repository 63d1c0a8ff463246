package azureprivatelink

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
)

// TestCreateCalls: building a cluster's customer side costs the writes and
// one look at each operation: the endpoint, the zone and the link are each
// created once and followed by their operations only; a finished zone or
// link is not read back, the finished endpoint is read once with its
// interfaces expanded (its address without a read of the interface), and
// a zone just created is not listed before its records are written.
func TestCreateCalls(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, w.cpoIdentity())
	w.f.Server.Counters.Reset()
	passes := c.until("available", available)
	got := map[string]int64{}
	var ops []string
	for op, count := range w.f.Server.Counters.Snapshot()[customer] {
		got[op] = count.Total
		ops = append(ops, fmt.Sprintf("%s=%d", op, count.Total))
	}
	slices.Sort(ops)
	t.Logf("create: %d passes: %s", passes, strings.Join(ops, " "))
	want := map[string]int64{
		"Microsoft.Network:privateEndpoints/write":                    1,
		"Microsoft.Network:locations/operations/read":                 1, // the endpoint's operation
		"Microsoft.Network:privateEndpoints/read":                     1, // once done, expanded
		"Microsoft.Network:privateDnsZones/write":                     1,
		"Microsoft.Network:privateDnsZones/virtualNetworkLinks/write": 1,
		"Microsoft.Network:privateDnsOperationStatuses/read":          2, // the zone's and the link's operations
		"Microsoft.Network:privateDnsZones/A/write":                   2, // api, *.apps
	}
	for op, n := range got {
		if want[op] != n {
			t.Errorf("%s: %d calls, want %d", op, n, want[op])
		}
	}
	for op, n := range want {
		if _, ok := got[op]; !ok {
			t.Errorf("%s: no call, want %d", op, n)
		}
	}
}

// TestOperationsHonourRetryAfter: with Azure's provisioning times, a
// running operation is looked at again no sooner than its Retry-After
// (cloudsim asks for 10 s, as ARM's network operations do), and the whole
// creation still polls each operation only a few times.
func TestOperationsHonourRetryAfter(t *testing.T) {
	w := newWorld(t)
	w.f.Server.Azure.SetDelays(azure.RealisticDelays())
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, w.cpoIdentity())
	w.f.Server.Counters.Reset()
	first := c.reconcile()
	if first.RequeueAfter < 10*time.Second {
		t.Errorf("the first look at the running operations comes after %v; Azure asked for 10s", first.RequeueAfter)
	}
	w.clk.Advance(first.RequeueAfter)
	c.until("available", available)
	polls := w.f.Server.Counters.Snapshot()[customer]["Microsoft.Network:locations/operations/read"].Total
	t.Logf("operation status reads: %d", polls)
	if polls > 12 {
		t.Errorf("%d reads of operation status for three operations", polls)
	}
}

// TestAPassRightAfterAvailableAsksAzureNothing: the pass that an event
// brings right after the Ready one (the ExternalName Services it created,
// the management side's report) makes no cloud call; the drift check, at
// the shortest jittered interval, reads the link and lists the records.
func TestAPassRightAfterAvailableAsksAzureNothing(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, w.cpoIdentity())
	c.until("available", available)
	w.f.Server.Counters.Reset()
	c.reconcile()
	if calls := w.f.Server.Counters.Snapshot()[customer]; len(calls) != 0 {
		t.Errorf("a pass right after Available made cloud calls: %v", calls)
	}
	w.clk.Advance(DefaultDriftInterval * 85 / 100)
	c.reconcile()
	got := w.f.Server.Counters.Snapshot()[customer]
	for _, op := range []string{"Microsoft.Network:privateDnsZones/virtualNetworkLinks/read", "Microsoft.Network:privateDnsZones/ALL/read"} {
		if got[op].Total != 1 {
			t.Errorf("the drift check: %s %d times, want once (%v)", op, got[op].Total, got)
		}
	}
}

// TestOperationsAreLookedAtWhenAzureSays: with cloudsim's fast delays
// (operations of a tenth of a second, and a Retry-After that says so) the
// pass that starts the endpoint, the zone and the link asks to look again
// as soon as Azure said, not after a guessed 5 s; and following each
// requeue exactly, every operation is polled once.
func TestOperationsAreLookedAtWhenAzureSays(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, w.cpoIdentity())
	w.f.Server.Counters.Reset()
	first := c.reconcile()
	if first.RequeueAfter <= 0 || first.RequeueAfter > time.Second {
		t.Errorf("the first look at the running operations comes after %v; Azure asked for a fraction of a second", first.RequeueAfter)
	}
	w.clk.Advance(first.RequeueAfter)
	c.until("available", available)
	got := w.f.Server.Counters.Snapshot()[customer]
	if n := got["Microsoft.Network:locations/operations/read"].Total + got["Microsoft.Network:privateDnsOperationStatuses/read"].Total; n != 3 {
		t.Errorf("%d reads of operation status for three operations; want one each", n)
	}
}
