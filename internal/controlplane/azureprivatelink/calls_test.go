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

// TestCreateCalls: building a cluster's customer side costs few calls: the
// endpoint, the zone and the link are each created once and followed by
// their operations only, and the records are compared from one listing.
func TestCreateCalls(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, w.cpoIdentity())
	w.f.Server.Counters.Reset()
	passes := c.until("available", available)
	var total, mutating int64
	var ops []string
	for op, count := range w.f.Server.Counters.Snapshot()[customer] {
		total, mutating = total+count.Total, mutating+count.Mutating
		ops = append(ops, fmt.Sprintf("%s=%d", op, count.Total))
	}
	slices.Sort(ops)
	t.Logf("create: %d calls (%d mutating) in %d passes: %s", total, mutating, passes, strings.Join(ops, " "))
	if total > 12 {
		t.Errorf("creating the customer side made %d calls; want at most 12", total)
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
