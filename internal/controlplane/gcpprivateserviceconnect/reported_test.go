package gcpprivateserviceconnect

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"google.golang.org/api/compute/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/outcome"
)

// report writes status.endpointConnection as the operator does from its
// listing of the attachments (nil removes it).
func (c *cluster) report(conn *hcplinkv1beta1.GCPEndpointConnection) {
	c.w.t.Helper()
	cr := c.get()
	patch := client.MergeFrom(cr.DeepCopy())
	cr.Status.EndpointConnection = conn
	if err := env.Client.Status().Patch(c.w.ctx, cr, patch); err != nil {
		c.w.t.Fatal(err)
	}
}

// reportOfRule is the operator's report of rule as its attachment shows it.
func reportOfRule(rule *compute.ForwardingRule) *hcplinkv1beta1.GCPEndpointConnection {
	return &hcplinkv1beta1.GCPEndpointConnection{ForwardingRule: gcpcloud.RelativeName(rule.SelfLink),
		PSCConnectionID: strconv.FormatUint(rule.PscConnectionId, 10), Status: rule.PscConnectionStatus}
}

// reportedCluster is a Private cluster, Available, whose endpoint (name,
// rule) the operator reports ACCEPTED, one drift pass after the report.
func (w *world) reportedCluster(clusterName string) (c *cluster, name string, rule *compute.ForwardingRule) {
	w.t.Helper()
	c = w.newCluster(clusterName, hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	name = gcpcloud.EndpointName(c.ownerHere())
	rule = w.rule(name)
	c.report(reportOfRule(rule))
	c.driftPass()
	return c, name, rule
}

// ruleReads counts the control-plane operator's forwardingRules.get calls.
func (w *world) ruleReads() int64 {
	var n int64
	for op, c := range w.callsByOp() {
		if strings.HasSuffix(op, "forwardingRules.get") {
			n += c
		}
	}
	return n
}

// driftPass moves past the drift interval and runs the drift check; it
// returns the calls it made, the forwarding-rule reads among them, and the
// mutating ones.
func (c *cluster) driftPass() (calls, ruleReads, mutating int64) {
	c.w.t.Helper()
	before, beforeMut := c.w.calls()
	beforeRule := c.w.ruleReads()
	c.w.clock.Advance(DefaultDriftInterval * 115 / 100)
	c.reconcile()
	after, afterMut := c.w.calls()
	return after - before, c.w.ruleReads() - beforeRule, afterMut - beforeMut
}

// While the operator reports the endpoint's connection ACCEPTED, a drift
// check reads the zone and its records only: two reads, no forwarding
// rule, nothing written. The operator's first report, just after Ready,
// costs nothing either.
func TestDriftPassTrustsTheOperatorsReportOfTheEndpoint(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("trusted", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	rule := w.rule(gcpcloud.EndpointName(c.ownerHere()))
	before, _ := w.calls()
	c.report(reportOfRule(rule))
	c.reconcile() // the pass the report's change brings
	if after, _ := w.calls(); after != before {
		t.Fatalf("the pass the operator's first report brought made %d calls, want none", after-before)
	}
	for pass := 1; pass <= 2; pass++ {
		calls, ruleReads, mutating := c.driftPass()
		t.Logf("drift pass %d: %d calls, %d forwarding-rule reads, %d mutating", pass, calls, ruleReads, mutating)
		if ruleReads != 0 || calls != 2 || mutating != 0 {
			t.Fatalf("drift pass %d made %d calls (%d forwarding-rule reads, %d mutating); want the zone and its records only", pass, calls, ruleReads, mutating)
		}
		if !available(c.get()) {
			t.Fatalf("drift pass %d: %+v", pass, c.get().Status.Conditions)
		}
	}
	// Without a report (the operator's has not come yet) the rule is read.
	c.report(nil)
	if _, ruleReads, _ := c.driftPass(); ruleReads != 1 {
		t.Fatalf("a drift pass with no report read the forwarding rule %d times, want 1", ruleReads)
	}
}

// The operator's report stands in for a read for a while at most (an
// hour; 20 minutes here, so that the test stays within the credentials'
// lifetime): were the operator stopped, its last ACCEPTED would stand for
// ever, and an endpoint deleted meanwhile would never be read missing.
// The first drift pass past it reads the rule, and the while starts over.
func TestTheReportStandsInForAReadForAWhileOnly(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("trust-limit", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.r.reportTrust = 20 * time.Minute
	c.until("available", available)
	c.report(reportOfRule(w.rule(gcpcloud.EndpointName(c.ownerHere()))))
	c.reconcile()
	lastRead, reads := w.clock.Now(), 0 // no later than the last read
	for pass := 1; pass <= 8; pass++ {  // 46 minutes: two reads at least
		_, ruleReads, _ := c.driftPass()
		since := w.clock.Now().Sub(lastRead)
		switch {
		case ruleReads == 1:
			reads++
		case ruleReads > 1:
			t.Fatalf("drift pass %d read the forwarding rule %d times", pass, ruleReads)
		case since >= c.r.reportTrust+DefaultDriftInterval*115/100:
			t.Fatalf("drift pass %d, %v after the last read, took the report; want a read %v after it at most", pass, since, c.r.reportTrust)
		}
		if ruleReads == 1 {
			if since < c.r.reportTrust {
				t.Fatalf("drift pass %d read the forwarding rule %v after the last read; the report stands in for %v", pass, since, c.r.reportTrust)
			}
			lastRead = w.clock.Now()
		}
	}
	if reads < 2 {
		t.Fatalf("%d reads of the forwarding rule in 8 drift passes (46 minutes); want one at least every %v", reads, c.r.reportTrust)
	}
}

// A report the controller must not take for its endpoint's: another
// connection ID (the endpoint made again by someone else under its name),
// another project's forwarding rule, another status. Each drift pass
// reads the rule.
func TestAReportOfAnotherConnectionIsNotTrusted(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("distrust", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	ours := reportOfRule(w.rule(gcpcloud.EndpointName(c.ownerHere())))
	c.report(ours)
	c.driftPass() // proves it again, then trusts the report
	for _, tc := range []struct {
		name   string
		mutate func(*hcplinkv1beta1.GCPEndpointConnection)
	}{
		{"another connection ID", func(r *hcplinkv1beta1.GCPEndpointConnection) { r.PSCConnectionID += "1" }},
		{"no connection ID", func(r *hcplinkv1beta1.GCPEndpointConnection) { r.PSCConnectionID = "" }},
		{"another project's rule", func(r *hcplinkv1beta1.GCPEndpointConnection) {
			r.ForwardingRule = strings.Replace(r.ForwardingRule, customerProject, "partner-project", 1)
		}},
		{"pending", func(r *hcplinkv1beta1.GCPEndpointConnection) { r.Status = gcpcloud.PSCPending }},
	} {
		report := *ours
		tc.mutate(&report)
		c.report(&report)
		if _, ruleReads, _ := c.driftPass(); ruleReads != 1 {
			t.Fatalf("%s: the drift pass read the forwarding rule %d times, want 1", tc.name, ruleReads)
		}
		c.report(ours)
		if _, ruleReads, _ := c.driftPass(); ruleReads != 0 {
			t.Fatalf("%s, then ours again: the drift pass read the forwarding rule %d times, want 0", tc.name, ruleReads)
		}
	}
}

// The endpoint deleted behind our back and a forwarding rule of its name
// made by someone else, accepted by the attachment: the operator's report
// of it (ACCEPTED, another connection ID) changes, the pass it brings
// reads the rule and finds it is not ours; hcplink says so and leaves it.
func TestAnEndpointMadeAgainBySomeoneElseIsNotMistakenForOurs(t *testing.T) {
	w := newWorld(t)
	c, name, old := w.reportedCluster("impostor")

	w.adminDone(w.admin.ForwardingRules.Delete(customerProject, region, name).Do())
	w.adminDone(w.admin.ForwardingRules.Insert(customerProject, region, &compute.ForwardingRule{Name: name, Network: old.Network,
		IPAddress: old.IPAddress, Target: old.Target}).Do())
	impostor := w.rule(name)
	if impostor.PscConnectionStatus != gcpcloud.PSCAccepted || impostor.PscConnectionId == old.PscConnectionId {
		t.Fatalf("setting up: the new rule is %s with connection %d (ours had %d)", impostor.PscConnectionStatus, impostor.PscConnectionId, old.PscConnectionId)
	}
	c.report(reportOfRule(impostor))
	w.clock.Advance(time.Minute) // well within the drift interval
	c.reconcile()                // the pass the report's change brings
	cond := condition(c.get(), hcplinkv1beta1.GCPEndpointAvailableCondition)
	if cond.Status != metav1.ConditionFalse || cond.Reason != NotOursReason {
		t.Fatalf("with someone else's rule of the endpoint's name reported ACCEPTED: %+v; want %s", cond, NotOursReason)
	}
	if got := w.rule(name); got == nil || got.PscConnectionId != impostor.PscConnectionId {
		t.Fatal("someone else's rule was changed or deleted")
	}
}

// The endpoint deleted behind our back: the operator's report of it goes
// (its attachment no longer shows it), the pass that brings makes it
// again, long before the controller's own drift check.
func TestAnEndpointReportedGoneIsMadeAgainAtOnce(t *testing.T) {
	w := newWorld(t)
	c, name, old := w.reportedCluster("regone")

	w.adminDone(w.admin.ForwardingRules.Delete(customerProject, region, name).Do())
	c.report(nil)
	start := w.clock.Now()
	c.until("available again", func(cr *hcplinkv1beta1.GCPPrivateServiceConnect) bool {
		rule := w.rule(name)
		return available(cr) && rule != nil && rule.PscConnectionId != old.PscConnectionId
	})
	t.Logf("the endpoint came back %s after the report", w.clock.Now().Sub(start))
	if took := w.clock.Now().Sub(start); took >= time.Minute {
		t.Fatalf("the endpoint came back after %s: at the controller's drift check, not at the operator's report", took)
	}
	if rule := w.rule(name); rule.IPAddress != old.IPAddress || rule.PscConnectionStatus != gcpcloud.PSCAccepted {
		t.Fatalf("the endpoint came back at %s (%s), want %s ACCEPTED", rule.IPAddress, rule.PscConnectionStatus, old.IPAddress)
	}
}

// The watch: a change of the operator's report alone (no spec change, no
// drift check due) brings the controller, which makes the endpoint deleted
// behind our back again.
func TestTheOperatorsReportWakesTheController(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	w := newWorld(t)
	c := w.newCluster("woken", hcplinkv1beta1.GCPEndpointAccessPrivate)
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{c.cr.Namespace: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	// An hour between drift checks: only an event brings a pass within the test.
	r := &Reconciler{Client: mgr.GetClient(), Cloud: w.factory, DriftInterval: time.Hour, OperationPoll: 200 * time.Millisecond,
		Tracker: &outcome.Tracker{Now: w.clock.Now}}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(w.ctx)
	stopped := make(chan struct{})
	go func() { defer close(stopped); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-stopped })

	name := gcpcloud.EndpointName(c.ownerHere())
	eventually(t, "the path becomes available", func() bool {
		w.clock.Advance(time.Second)
		return available(c.get()) && w.rule(name) != nil
	})
	old := w.rule(name)
	c.report(reportOfRule(old))
	uid := c.get().UID
	eventually(t, "the pass the report brings has seen it", func() bool {
		v, ok := r.converged.Load(uid)
		return ok && v.(readyProof).report == reportAccepted
	})
	w.adminDone(w.admin.ForwardingRules.Delete(customerProject, region, name).Do())
	c.report(nil)
	eventually(t, "the endpoint is made again", func() bool {
		w.clock.Advance(time.Second)
		rule := w.rule(name)
		return rule != nil && rule.PscConnectionId != old.PscConnectionId && available(c.get())
	})
}

func TestReportStillReady(t *testing.T) {
	for _, tc := range []struct {
		atReady, now string
		want         bool
	}{
		{reportNone, reportNone, true},
		{reportNone, reportAccepted, true}, // the operator's first report
		{reportNone, reportOther, false},
		{reportAccepted, reportAccepted, true},
		{reportAccepted, reportNone, false}, // deleted behind our back
		{reportAccepted, reportOther, false},
		{reportOther, reportAccepted, true},
		{reportOther, reportOther, false},
	} {
		if got := reportStillReady(tc.atReady, tc.now); got != tc.want {
			t.Errorf("reportStillReady(%q, %q) = %v, want %v", tc.atReady, tc.now, got, tc.want)
		}
	}
}
