package gcpprivateserviceconnect

import (
	"testing"
	"time"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// The attachment deleted behind the operator's back, its URI still
// published: the endpoint's connection closes; the controller says so and
// does not churn the customer's project while the attachment stays gone;
// once the operator makes it again under the same URI, the endpoint
// connects again.
func TestAttachmentGone(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("closed", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	w.unpublish(c.owner)
	w.clock.Advance(DefaultDriftInterval * 115 / 100)
	_, mutBefore := w.calls()
	var reasons []string
	for elapsed := time.Duration(0); elapsed < 30*time.Minute; {
		res := c.reconcile()
		reasons = append(reasons, condition(c.get(), hcplinkv1beta1.GCPEndpointAvailableCondition).Reason)
		step := max(res.RequeueAfter, time.Second)
		w.clock.Advance(step)
		elapsed += step
	}
	_, mutAfter := w.calls()
	t.Logf("reasons %v; %d mutating calls in 30 minutes", reasons, mutAfter-mutBefore)
	checkMessages(t, c.get())
	if available(c.get()) {
		t.Fatal("available without its attachment")
	}
	if got := condition(c.get(), hcplinkv1beta1.GCPEndpointAvailableCondition).Reason; got != hcplinkv1beta1.ServiceAttachmentNotFoundReason {
		t.Fatalf("reason %s, want %s", got, hcplinkv1beta1.ServiceAttachmentNotFoundReason)
	}
	if mutAfter-mutBefore > 8 {
		t.Fatalf("%d mutating calls in 30 minutes while the attachment is gone", mutAfter-mutBefore)
	}
	w.publish(c.owner, 0)
	c.until("available again", available)
}
