package gcpprivateserviceconnect

import (
	"slices"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

func (w *world) attachment(owner gcpcloud.Owner) *compute.ServiceAttachment {
	w.t.Helper()
	sa, err := w.mgmt.ServiceAttachments.Get(w.ctx, gcpcloud.ServiceAttachmentName(owner))
	if err != nil || sa == nil {
		w.t.Fatalf("reading the attachment: %v, %v", sa, err)
	}
	return sa
}

// The endpoint's connection, as the attachment decides it: PENDING while
// the customer's project is off the accept list, ACCEPTED once the
// operator puts it back, REJECTED when the producer rejects it; each a
// plain condition.
func TestConnectionStatuses(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("conn", hcplinkv1beta1.GCPEndpointAccessPrivate)
	op, err := w.mgmt.ServiceAttachments.SetConsumers(w.ctx, w.attachment(c.owner), []gcpcloud.Consumer{{Project: "partner-project"}})
	w.settle(op, err)
	c.until("pending", func(cr *hcplinkv1beta1.GCPPrivateServiceConnect) bool {
		return condition(cr, hcplinkv1beta1.GCPEndpointAvailableCondition).Reason == hcplinkv1beta1.PSCConnectionPendingReason
	})
	cr := c.get()
	if cond := condition(cr, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition); cond.Status != metav1.ConditionFalse {
		t.Fatalf("pending: %+v", cond)
	}
	checkMessages(t, cr)

	op, err = w.mgmt.ServiceAttachments.SetConsumers(w.ctx, w.attachment(c.owner), []gcpcloud.Consumer{{Project: customerProject}})
	w.settle(op, err)
	c.until("available once accepted", available)

	// Another cluster, whose project the producer rejects.
	r := w.newCluster("rejected", hcplinkv1beta1.GCPEndpointAccessPrivate)
	op, err = w.mgmt.ServiceAttachments.SetConsumers(w.ctx, w.attachment(r.owner), []gcpcloud.Consumer{{Project: "partner-project"}})
	w.settle(op, err)
	op, err = w.mgmt.ServiceAttachments.RejectProjects(w.ctx, w.attachment(r.owner), []string{customerProject})
	w.settle(op, err)
	r.until("rejected", func(cr *hcplinkv1beta1.GCPPrivateServiceConnect) bool {
		return condition(cr, hcplinkv1beta1.GCPEndpointAvailableCondition).Reason == hcplinkv1beta1.PSCConnectionRejectedReason
	})
	checkMessages(t, r.get())
}

// The forwarding rule deleted behind our back: the next drift check makes
// it again, on the same address, targeting the attachment, within seconds.
func TestRuleDeletedBehindOurBack(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("ruled", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	ruleName := gcpcloud.EndpointName(c.ownerHere())
	ip := c.get().Status.EndpointIP
	w.adminDone(w.admin.ForwardingRules.Delete(customerProject, region, ruleName).Do())
	if w.rule(ruleName) != nil {
		t.Fatal("the rule was not deleted")
	}
	w.clock.Advance(DefaultDriftInterval * 115 / 100)
	start := w.clock.Now()
	c.until("available again", available)
	if took := w.clock.Now().Sub(start); took > time.Minute {
		t.Fatalf("the endpoint took %s to come back after the drift check", took)
	}
	rule := w.rule(ruleName)
	if rule == nil || gcpcloud.RelativeName(rule.Target) != c.get().Status.ServiceAttachmentURI || rule.IPAddress != ip {
		t.Fatalf("rule %+v; want it targeting the attachment at %s", rule, ip)
	}
}

// Two clusters in one customer project: each finds only its own, and
// deleting one leaves the other's resources and path alone.
func TestTwoClustersInOneProject(t *testing.T) {
	w := newWorld(t)
	a := w.newCluster("alpha", hcplinkv1beta1.GCPEndpointAccessPrivate)
	b := w.newCluster("bravo", hcplinkv1beta1.GCPEndpointAccessPrivate)
	a.until("alpha available", available)
	b.until("bravo available", available)
	if got := w.customerResources(); len(got) != 6 {
		t.Fatalf("two clusters hold %v; want three each", got)
	}
	if err := env.Client.Delete(w.ctx, a.get()); err != nil {
		t.Fatal(err)
	}
	for i := 0; a.reconcileGone() >= 0; i++ {
		if i > 40 {
			t.Fatal("alpha never finished deleting")
		}
		w.clock.Advance(10 * time.Second)
	}
	bo := b.ownerHere()
	want := []string{"address/" + gcpcloud.EndpointAddressName(bo), "forwardingRule/" + gcpcloud.EndpointName(bo), "zone/" + gcpcloud.ZoneName(bo.InfraID)}
	slices.Sort(want)
	if got := w.customerResources(); !slices.Equal(got, want) {
		t.Fatalf("after alpha's deletion the project holds %v, want bravo's %v", got, want)
	}
	w.clock.Advance(DefaultDriftInterval * 115 / 100)
	b.reconcile()
	if !available(b.get()) {
		t.Fatalf("bravo after alpha's deletion: %+v", b.get().Status.Conditions)
	}
}
