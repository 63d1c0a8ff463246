package outcome

import (
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
	"github.com/hcplink/hcplink/internal/metrics"
)

// Every resolved error outcome is counted by its reason; waits and
// successes are not errors.
func TestResolveCountsErrorsByReason(t *testing.T) {
	count := func(reason string) float64 { return testutil.ToFloat64(metrics.ReconcileErrorCounter(reason)) }
	throttled, internal := count(hcplinkv1beta1.ThrottledReason), count(hcplinkv1beta1.InternalErrorReason)
	var tr Tracker
	tr.Resolve("a", FromError(&cloud.Error{Class: cloud.ClassThrottled, Code: "Throttling", Message: "slow down"}))
	tr.Resolve("a", FromError(errors.New("boom")))
	tr.Resolve("a", Wait("Pending", "waiting", 0))
	tr.Resolve("a", Ready("AsExpected", "fine", 0))
	if got := count(hcplinkv1beta1.ThrottledReason) - throttled; got != 1 {
		t.Errorf("throttled errors counted %v, want 1", got)
	}
	if got := count(hcplinkv1beta1.InternalErrorReason) - internal; got != 1 {
		t.Errorf("internal errors counted %v, want 1", got)
	}
}
