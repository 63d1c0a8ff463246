package azureprivatelink

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
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
