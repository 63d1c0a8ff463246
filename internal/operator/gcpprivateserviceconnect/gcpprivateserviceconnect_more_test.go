package gcpprivateserviceconnect

import (
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/events"
)

// Adding a project to additionalAllowedProjects reaches the attachment's
// accept list in the one pass the HostedCluster's update starts; removing
// it again likewise.
func TestAcceptListFollowsTheClusterWithinOneReconcile(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	c := w.cluster()
	w.settle(r, c.cr)
	name := c.cr.Status.ServiceAttachmentName

	for _, additional := range [][]string{{partnerProject}, nil} {
		update(t, c.hc, func() { c.hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = additional })
		w.reconcile(r, c.cr) // the one pass the watch starts
		w.clk.Advance(time.Second)
		want := []gcpcloud.Consumer{{Project: customerProject}}
		for _, p := range additional {
			want = append(want, gcpcloud.Consumer{Project: p})
		}
		if sa := w.attachment(name); !gcpcloud.SameConsumers(sa, want) {
			t.Fatalf("after one pass with additional projects %v the accept list is %+v", additional, gcpcloud.ConsumersOf(sa))
		}
		w.settle(r, c.cr)
		if cond := condition(t, c.cr); !strings.Contains(cond.Message, "projects may connect") {
			t.Fatalf("condition %+v", cond)
		}
	}
}

// An accept list edited behind hcplink's back is put back at the next
// drift pass; a drift pass over an attachment that is as it must be makes
// one read and no write.
func TestDriftIsRepairedAtTheDriftPassAndSteadyStateIsQuiet(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	c := w.cluster()
	w.settle(r, c.cr)
	name := c.cr.Status.ServiceAttachmentName

	before := w.calls("")
	res := w.reconcile(r, c.cr)
	after := w.calls("")
	if after.Total-before.Total != 1 || after.Mutating != before.Mutating {
		t.Fatalf("a steady-state pass made %d calls (%d mutating), want 1 read: %+v", after.Total-before.Total, after.Mutating-before.Mutating, w.f.Calls(mgmtProject))
	}
	if res.RequeueAfter < testDrift*85/100 || res.RequeueAfter > testDrift*115/100 {
		t.Fatalf("next look in %v, want the drift interval %v ±15%%", res.RequeueAfter, testDrift)
	}

	sa := w.attachment(name)
	w.adminDone(w.admin.ServiceAttachments.Patch(mgmtProject, region, name, &compute.ServiceAttachment{Fingerprint: sa.Fingerprint,
		ConsumerAcceptLists: []*compute.ServiceAttachmentConsumerProjectLimit{{ProjectIdOrNum: "someone-else", ConnectionLimit: 10}}}).Do())
	w.clk.Advance(res.RequeueAfter)
	w.reconcile(r, c.cr) // the drift pass
	w.clk.Advance(time.Second)
	if sa := w.attachment(name); !gcpcloud.SameConsumers(sa, []gcpcloud.Consumer{{Project: customerProject}}) {
		t.Fatalf("after the drift pass the accept list is %+v", gcpcloud.ConsumersOf(sa))
	}
}

// An operator restarted between "attachment created" and "status written"
// adopts the attachment marked for the object: one attachment, one insert.
func TestRestartBetweenCreateAndStatusAdopts(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	first := w.reconciler(managerID, mgmtNetwork)
	w.reconcile(first, c.cr) // starts the insert, then "crashes"
	get(t, c.cr)
	if c.cr.Status.ServiceAttachmentName != "" {
		t.Fatalf("status names %q before the attachment exists", c.cr.Status.ServiceAttachmentName)
	}
	w.clk.Advance(time.Minute)

	restarted := w.reconciler(managerID, mgmtNetwork)
	w.settle(restarted, c.cr)
	// And once more with the status lost after it was written.
	patchStatus(t, c.cr, map[string]any{"serviceAttachmentName": nil, "serviceAttachmentURI": nil, "natSubnets": nil})
	again := w.reconciler(managerID, mgmtNetwork)
	w.settle(again, c.cr)

	if got := w.attachments(); len(got) != 1 {
		t.Fatalf("attachments %v, want one", got)
	}
	// Each restarted process knows nothing of the attachment, so it
	// inserts: Google answers alreadyExists, and the insert adopts ours.
	// One insert made it.
	inserts := w.calls("serviceAttachments.insert")
	if made := inserts.Total - inserts.Failed; made != 1 || inserts.Total != 3 {
		t.Fatalf("%d inserts answered with an operation of %d, want 1 of 3 (the two adoptions answered alreadyExists)", made, inserts.Total)
	}
	if !slices.Equal(c.cr.Status.NATSubnets, []string{"psc-nat-a"}) {
		t.Fatalf("NAT subnetworks %v", c.cr.Status.NATSubnets)
	}
}

// Two management clusters share the management project, each with its own
// network and a router rule at the same address, serving clusters of the
// same infra ID and object name: each publishes its own rule from its own
// NAT pool, and deleting one never touches the other's attachment.
func TestTwoManagementClustersInOneProject(t *testing.T) {
	w := newWorld(t)
	mine, theirs := w.reconciler(managerID, mgmtNetwork), w.reconciler(otherManagerID, otherNetwork)
	a := w.cluster()
	b := w.cluster(func(hc *hcplinkv1beta1.HostedCluster, _ *hcplinkv1beta1.GCPPrivateServiceConnect) {
		hc.Spec.InfraID = a.hc.Spec.InfraID
	})
	w.settle(mine, a.cr)
	w.settle(theirs, b.cr)

	if a.cr.Status.ServiceAttachmentName == b.cr.Status.ServiceAttachmentName {
		t.Fatalf("both management clusters use attachment %s", a.cr.Status.ServiceAttachmentName)
	}
	for _, tc := range []struct {
		cr         *hcplinkv1beta1.GCPPrivateServiceConnect
		rule, nat  string
		management string
	}{{a.cr, w.router.SelfLink, "psc-nat-a", managerID}, {b.cr, w.otherRouter.SelfLink, "other-psc-nat", otherManagerID}} {
		sa := w.attachment(tc.cr.Status.ServiceAttachmentName)
		o, _ := gcpcloud.OwnerFromDescription(sa.Description)
		if gcpcloud.RelativeName(sa.TargetService) != gcpcloud.RelativeName(tc.rule) || !slices.Equal(lastSegments(sa.NatSubnets), []string{tc.nat}) || o.ManagementCluster != tc.management {
			t.Errorf("attachment %s targets %s with NAT %v for %s; want %s, [%s], %s", sa.Name, sa.TargetService, sa.NatSubnets, o.ManagementCluster, tc.rule, tc.nat, tc.management)
		}
	}
	w.deleteAndSettle(mine, a.cr)
	if w.attachment(b.cr.Status.ServiceAttachmentName) == nil {
		t.Fatal("deleting the first management cluster's object deleted the other's attachment")
	}
	if got := w.attachments(); !slices.Equal(got, []string{b.cr.Status.ServiceAttachmentName}) {
		t.Fatalf("attachments %v, want only the other management cluster's", got)
	}
}

// The pool serves one attachment per NAT subnetwork; when it is empty the
// condition names what to add and nothing is created; a subnetwork added
// to the pool is taken at the next look.
func TestNATSubnetsExhaustedIsACondition(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	first, second, third := w.cluster(), w.cluster(), w.cluster()
	w.settle(r, first.cr)
	w.settle(r, second.cr)
	res := w.reconcile(r, third.cr)
	cond := condition(t, third.cr)
	if cond.Status != metav1.ConditionFalse || cond.Reason != hcplinkv1beta1.NATSubnetsExhaustedReason ||
		!strings.Contains(cond.Message, "add a subnetwork of purpose PRIVATE_SERVICE_CONNECT") || !strings.Contains(cond.Message, "management") {
		t.Fatalf("condition %+v", cond)
	}
	if n := w.calls("serviceAttachments.insert").Total; n != 2 {
		t.Fatalf("%d inserts, want 2 (none for the third cluster)", n)
	}
	if res.RequeueAfter < 10*time.Second {
		t.Fatalf("next look in %v: a person must act, so not sooner than the person policy's first step", res.RequeueAfter)
	}
	w.natSubnet("management", "psc-nat-c", "10.1.0.32/28")
	w.clk.Advance(res.RequeueAfter)
	w.settle(r, third.cr)
	if !slices.Equal(third.cr.Status.NATSubnets, []string{"psc-nat-c"}) {
		t.Fatalf("the third cluster's NAT subnetworks %v", third.cr.Status.NATSubnets)
	}
}

// A management operator whose role lacks the permission to create service
// attachments gets a condition naming it, and looks again after growing
// delays: one refused call per pass, no hot loop.
func TestMissingPermissionIsAConditionWithoutAHotLoop(t *testing.T) {
	w := newWorld(t)
	const missing = "compute.serviceAttachments.create"
	var permissions []string
	for _, p := range gcpcloud.PermissionsOf(gcpcloud.ManagementOperator) {
		if p != missing {
			permissions = append(permissions, p)
		}
	}
	r := w.reconciler(managerID, mgmtNetwork, permissions...)
	c := w.cluster()
	var last time.Duration
	const passes = 5
	for i := range passes {
		res := w.reconcile(r, c.cr)
		cond := condition(t, c.cr)
		if cond.Reason != hcplinkv1beta1.AccessDeniedReason || !strings.Contains(cond.Message, missing) {
			t.Fatalf("pass %d: condition %+v, want AccessDenied naming %s", i+1, cond, missing)
		}
		if strings.Contains(cond.Message, "projects/") || strings.Contains(cond.Message, "://") || strings.Contains(cond.Message, cloudsimtest.ManagementProjectNumber) {
			t.Fatalf("pass %d: the message carries a resource path, URL or project number: %q", i+1, cond.Message)
		}
		if res.RequeueAfter < 15*time.Second || res.RequeueAfter < last {
			t.Fatalf("pass %d: next look in %v after %v; want at least 15 s and growing", i+1, res.RequeueAfter, last)
		}
		last = res.RequeueAfter
		w.clk.Advance(res.RequeueAfter)
	}
	if n := w.calls("serviceAttachments.insert").Total; n != passes {
		t.Fatalf("%d insert calls in %d passes", n, passes)
	}
	if got := w.attachments(); len(got) != 0 {
		t.Fatalf("attachments %v made without the permission", got)
	}
}

// Under Compute Engine's rate quota a fleet converges, each refusal
// honoured by the one backoff policy, and the calls stay bounded by the
// work.
func TestQuotaAnswersConvergeWithBoundedCalls(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	w.natSubnet("management", "psc-nat-c", "10.1.0.32/28")
	clusters := []*cluster{w.cluster(), w.cluster(), w.cluster()}
	w.f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		"compute.googleapis.com": {NonMutating: sim.Limit{Burst: 3, PerSecond: 0.05}, Mutating: sim.Limit{Burst: 2, PerSecond: 0.02}},
	}}})
	before := w.calls("")
	next := map[*cluster]time.Time{}
	ready := map[*cluster]bool{}
	for step := 0; step < 200 && len(ready) < len(clusters); step++ {
		now := w.clk.Now()
		soonest := now.Add(time.Hour)
		for _, c := range clusters {
			if ready[c] {
				continue
			}
			if at, ok := next[c]; ok && at.After(now) {
				soonest = minTime(soonest, at)
				continue
			}
			res := w.reconcile(r, c.cr)
			if cond := condition(t, c.cr); cond.Status == metav1.ConditionTrue {
				ready[c] = true
				continue
			}
			next[c] = now.Add(max(res.RequeueAfter, time.Second))
			soonest = minTime(soonest, next[c])
		}
		if soonest.After(now) {
			w.clk.Advance(soonest.Sub(now))
		}
	}
	if len(ready) != len(clusters) {
		t.Fatalf("%d of %d clusters ready under the quota", len(ready), len(clusters))
	}
	used := w.calls("")
	if used.Throttled == before.Throttled {
		t.Fatal("the quota never refused a call; the test proves nothing")
	}
	// Seven calls create an attachment: a refusal costs at most a re-read
	// besides its retry, and the retries, spread by the policy, are fewer
	// than the calls that went through: never a loop.
	answered := (used.Total - before.Total) - (used.Throttled - before.Throttled)
	if perCluster := float64(answered) / float64(len(clusters)); perCluster > 10 || used.Throttled-before.Throttled > answered {
		t.Fatalf("%.1f answered calls per cluster, %d throttled: %+v", perCluster, used.Throttled-before.Throttled, w.f.Calls(mgmtProject))
	}
	t.Logf("%d clusters: %d calls, %d throttled, %d mutating", len(clusters), used.Total-before.Total, used.Throttled-before.Throttled, used.Mutating-before.Mutating)
	if n := w.calls("serviceAttachments.insert").Total - w.calls("serviceAttachments.insert").Failed; n != int64(len(clusters)) {
		t.Fatalf("%d successful inserts, want %d", n, len(clusters))
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// Deleting with a foreign consumer connected: its pending connection is
// rejected first, then the attachment is deleted (its endpoint closed) and
// the finalizer dropped; the NAT subnetwork, which hcplink did not make,
// stays.
func TestDeletionRejectsForeignConsumersThenDeletes(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	c := w.cluster()
	w.settle(r, c.cr)
	name := c.cr.Status.ServiceAttachmentName
	const intruder = "intruder-project"
	endpoint := w.foreignEndpoint(intruder, w.attachment(name))
	if got := w.endpointStatus(intruder, endpoint); got != gcpcloud.PSCPending {
		t.Fatalf("the foreign endpoint is %s, want PENDING", got)
	}
	patchesBefore := w.calls("serviceAttachments.patch").Total

	if err := env.Client.Delete(w.ctx, c.cr); err != nil {
		t.Fatal(err)
	}
	res := w.reconcile(r, c.cr)
	w.clk.Advance(max(res.RequeueAfter, time.Second))
	if got := w.endpointStatus(intruder, endpoint); got != gcpcloud.PSCRejected {
		t.Fatalf("after the first deletion pass the foreign endpoint is %s, want REJECTED", got)
	}
	if w.attachment(name) == nil {
		t.Fatal("the attachment was deleted before the foreign connection was rejected")
	}
	w.deleteAndSettle(r, c.cr)
	if w.attachment(name) != nil {
		t.Fatal("the attachment remains")
	}
	if got := w.endpointStatus(intruder, endpoint); got != gcpcloud.PSCClosed {
		t.Fatalf("the foreign endpoint is %s, want CLOSED", got)
	}
	if w.calls("serviceAttachments.patch").Total != patchesBefore+1 {
		t.Fatalf("%d patches, want one rejection", w.calls("serviceAttachments.patch").Total-patchesBefore)
	}
}

// Deletion leaves nothing hcplink made: the attachment is gone, the pool's
// NAT subnetworks stay, and a deleted object with nothing left drops its
// finalizer.
func TestDeletionLeavesNothing(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	c := w.cluster()
	w.settle(r, c.cr)
	w.deleteAndSettle(r, c.cr)
	if got := w.attachments(); len(got) != 0 {
		t.Fatalf("attachments left: %v", got)
	}
	for _, nat := range []string{"psc-nat-a", "psc-nat-b"} {
		if _, err := w.admin.Subnetworks.Get(mgmtProject, region, nat).Do(); err != nil {
			t.Fatalf("NAT subnetwork %s of the pool: %v", nat, err)
		}
	}
}

// Deletion waits for the control-plane operator's cleanup before touching
// the attachment.
func TestDeletionWaitsForTheControlPlaneOperator(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	c := w.cluster()
	w.settle(r, c.cr)
	update(t, c.cr, func() { c.cr.Finalizers = append(c.cr.Finalizers, hcplinkv1beta1.ControlPlaneFinalizer) })
	if err := env.Client.Delete(w.ctx, c.cr); err != nil {
		t.Fatal(err)
	}
	w.reconcile(r, c.cr)
	if cond := condition(t, c.cr); cond.Reason != hcplinkv1beta1.WaitingForControlPlaneCleanupReason {
		t.Fatalf("condition %+v", cond)
	}
	if w.attachment(c.cr.Status.ServiceAttachmentName) == nil {
		t.Fatal("the attachment was deleted while the control-plane operator's finalizer remained")
	}
	update(t, c.cr, func() {
		c.cr.Finalizers = slices.DeleteFunc(c.cr.Finalizers, func(f string) bool { return f == hcplinkv1beta1.ControlPlaneFinalizer })
	})
	w.deleteAndSettle(r, c.cr)
	if got := w.attachments(); len(got) != 0 {
		t.Fatalf("attachments left: %v", got)
	}
}

// A drift pass over a fleet at steady state shares one listing of this
// management cluster's attachments: one call for every cluster, no write.
func TestDriftPassesOfAFleetShareOneListing(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	w.natSubnet("management", "psc-nat-c", "10.1.0.32/28")
	fleet := []*cluster{w.cluster(), w.cluster(), w.cluster()}
	for _, c := range fleet {
		w.settle(r, c.cr)
	}
	for pass := 1; pass <= 2; pass++ {
		w.clk.Advance(testDrift * 115 / 100)
		before := w.calls("")
		for _, c := range fleet {
			w.reconcile(r, c.cr)
			if cond := condition(t, c.cr); cond.Status != metav1.ConditionTrue {
				t.Fatalf("drift pass %d: %s is %+v", pass, c.cr.Namespace, cond)
			}
		}
		after := w.calls("")
		if after.Total-before.Total != 1 || after.Mutating != before.Mutating {
			t.Fatalf("drift pass %d over %d clusters made %d calls (%d mutating), want one listing: %+v",
				pass, len(fleet), after.Total-before.Total, after.Mutating-before.Mutating, w.f.Calls(mgmtProject))
		}
	}
}

// The router's load balancer replaced (its address now on a new rule): the
// attachment, whose rule cannot change, is deleted and made again in front
// of the new rule under the same name; one attachment remains.
func TestANewRouterRuleReplacesTheAttachment(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	c := w.cluster()
	w.settle(r, c.cr)
	name := c.cr.Status.ServiceAttachmentName
	newRule := w.internalRule("router-2", "management", "nodes", "10.0.0.60")
	update(t, c.cr, func() { c.cr.Spec.LoadBalancerIP = "10.0.0.60" })
	w.settle(r, c.cr)

	sa := w.attachment(name)
	if sa == nil || gcpcloud.RelativeName(sa.TargetService) != gcpcloud.RelativeName(newRule.SelfLink) {
		t.Fatalf("attachment %s after the router moved: %+v", name, sa)
	}
	if got := w.attachments(); len(got) != 1 {
		t.Fatalf("attachments %v, want one", got)
	}
	if c.cr.Status.ForwardingRuleName != "router-2" || c.cr.Status.ServiceAttachmentName != name {
		t.Fatalf("status %+v", c.cr.Status)
	}
}

// A router's rule deleted and made again at the same address under
// another name (a load balancer replaced: GKE names a rule for its
// Service's UID, and the nodes' subnetwork gives the freed address out
// again) while the shared listing still holds the old one: the next
// cluster at that address is served from the new rule, not stuck on the
// old one for as long as its address stays.
func TestARuleRemadeAtTheSameAddressWithinTheListingIsFound(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	first := w.cluster()
	w.settle(r, first.cr) // lists the router's rules, shared for ruleListingTTL
	w.deleteAndSettle(r, first.cr)
	w.adminDone(w.admin.ForwardingRules.Delete(mgmtProject, region, w.router.Name).Do())
	remade := w.internalRule("router-remade", "management", "nodes", routerIP)

	second := w.cluster()
	w.settle(r, second.cr)
	sa := w.attachment(second.cr.Status.ServiceAttachmentName)
	if sa == nil || gcpcloud.RelativeName(sa.TargetService) != gcpcloud.RelativeName(remade.SelfLink) || second.cr.Status.ForwardingRuleName != remade.Name {
		t.Fatalf("the second cluster's attachment %+v, status %+v; want it in front of %s", sa, second.cr.Status, remade.Name)
	}
}

// The cluster's own natSubnet is taken whatever the pool's order; one that
// is not a PSC subnetwork of the management network is a condition saying
// so, and nothing is created.
func TestAGivenNATSubnet(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	given := func(name string) func(*hcplinkv1beta1.HostedCluster, *hcplinkv1beta1.GCPPrivateServiceConnect) {
		return func(hc *hcplinkv1beta1.HostedCluster, cr *hcplinkv1beta1.GCPPrivateServiceConnect) {
			hc.Spec.Platform.GCP.Private.NATSubnet, cr.Spec.NATSubnet = name, name
		}
	}
	ok := w.cluster(given("psc-nat-b"))
	w.settle(r, ok.cr)
	if !slices.Equal(ok.cr.Status.NATSubnets, []string{"psc-nat-b"}) {
		t.Fatalf("NAT subnetworks %v, want the given psc-nat-b", ok.cr.Status.NATSubnets)
	}
	for _, name := range []string{"other-psc-nat", "nodes"} { // another network's; not of purpose PRIVATE_SERVICE_CONNECT
		bad := w.cluster(given(name))
		w.reconcile(r, bad.cr)
		if cond := condition(t, bad.cr); cond.Reason != hcplinkv1beta1.NATSubnetNotFoundReason || !strings.Contains(cond.Message, name) {
			t.Fatalf("natSubnet %s: condition %+v", name, cond)
		}
	}
	if n := w.calls("serviceAttachments.insert").Total; n != 1 {
		t.Fatalf("%d inserts, want 1", n)
	}
}

// An attachment with the object's name that hcplink did not make for it is
// left alone: a condition says so, nothing is changed, and deletion does
// not delete it.
func TestAnAttachmentNotOursIsLeftAlone(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	c := w.cluster()
	name := gcpcloud.ServiceAttachmentName(gcpcloud.Owner{ManagementCluster: managerID, InfraID: c.hc.Spec.InfraID, Name: c.cr.Name})
	w.adminDone(w.admin.ServiceAttachments.Insert(mgmtProject, region, &compute.ServiceAttachment{Name: name, Description: "someone's",
		TargetService: w.router.SelfLink, ConnectionPreference: gcpcloud.ConnectionPreferenceManual,
		ConsumerAcceptLists: []*compute.ServiceAttachmentConsumerProjectLimit{{ProjectIdOrNum: "someone-else", ConnectionLimit: 1}},
		NatSubnets:          []string{"projects/" + mgmtProject + "/regions/" + region + "/subnetworks/psc-nat-a"}}).Do())
	w.reconcile(r, c.cr)
	if cond := condition(t, c.cr); cond.Reason != hcplinkv1beta1.OwnedByAnotherManagementClusterReason || !strings.Contains(cond.Message, "leaves it alone") {
		t.Fatalf("condition %+v", cond)
	}
	w.deleteAndSettle(r, c.cr)
	sa := w.attachment(name)
	if sa == nil || !gcpcloud.SameConsumers(sa, []gcpcloud.Consumer{{Project: "someone-else", ConnectionLimit: 1}}) {
		t.Fatalf("someone's attachment after hcplink's pass and deletion: %+v", sa)
	}
	if n := w.calls("serviceAttachments.patch").Total + w.calls("serviceAttachments.delete").Total; n != 0 {
		t.Fatalf("%d writes to someone's attachment", n)
	}
}

// A project off the accept list that connects waits PENDING; the next
// drift pass rejects it and says so in an Event, and the attachment stays
// ready.
func TestAForeignConnectionIsRejectedAtTheDriftPass(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	r.Events = events.New(env.EventRecorder(t, "hcplink-operator-test"))
	c := w.cluster()
	w.settle(r, c.cr)
	res := w.reconcile(r, c.cr) // steady state: the fleet's listing is made
	const intruder = "intruder-project"
	endpoint := w.foreignEndpoint(intruder, w.attachment(c.cr.Status.ServiceAttachmentName))
	w.clk.Advance(res.RequeueAfter)
	if passes := w.settle(r, c.cr); passes != 1 {
		t.Fatalf("the drift pass left the condition for %d passes", passes)
	}
	w.clk.Advance(time.Second) // the rejection's operation
	if got := w.endpointStatus(intruder, endpoint); got != gcpcloud.PSCRejected {
		t.Fatalf("the foreign endpoint is %s after the drift pass, want REJECTED", got)
	}
	sa := w.attachment(c.cr.Status.ServiceAttachmentName)
	if !slices.Equal(sa.ConsumerRejectLists, []string{intruder}) || !gcpcloud.SameConsumers(sa, []gcpcloud.Consumer{{Project: customerProject}}) {
		t.Fatalf("reject list %v, accept list %+v", sa.ConsumerRejectLists, gcpcloud.ConsumersOf(sa))
	}
	want := []string{events.ReasonCreated, hcplinkv1beta1.ConnectionNotAllowedReason}
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	got := eventReasons(t, c.cr)
	for ; !containsAll(got, want); got = eventReasons(t, c.cr) {
		if time.Now().After(deadline) {
			t.Fatalf("Events %v, want %v among them", got, want)
		}
		<-tick.C
	}
	// The attachment this operator made is not "adopted", and it served
	// the cluster throughout: the condition turned True once.
	if slices.Contains(got, events.ReasonAdopted) || countOf(got, hcplinkv1beta1.GCPSuccessReason) != 1 {
		t.Fatalf("Events %v: an adoption, or the condition turned False while rejecting", got)
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

// Clusters created at about the same time share one listing of the NAT
// subnetworks (they change only when an administrator adds one), one of
// the region's attachments (which subnetworks are taken; the first
// cluster's, made since, is held by its claim) and one of the management
// network's internal forwarding rules: the second attachment is made
// without listing any again, on another subnetwork.
func TestAFleetArrivingSharesOneNATSubnetListing(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	first, second := w.cluster(), w.cluster()
	w.settle(r, first.cr)
	w.settle(r, second.cr)
	if !slices.Equal(second.cr.Status.NATSubnets, []string{"psc-nat-b"}) && !slices.Equal(second.cr.Status.NATSubnets, []string{"psc-nat-a"}) ||
		slices.Equal(first.cr.Status.NATSubnets, second.cr.Status.NATSubnets) {
		t.Fatalf("NAT subnetworks %v and %v; want one each", first.cr.Status.NATSubnets, second.cr.Status.NATSubnets)
	}
	if n := w.calls("subnetworks.list").Total; n != 1 {
		t.Fatalf("%d listings of the NAT subnetworks for two clusters created together; want 1", n)
	}
	if n := w.calls("forwardingRules.list").Total; n != 1 {
		t.Fatalf("%d listings of the forwarding rules for two routers found together; want 1", n)
	}
	if n := w.calls("serviceAttachments.list").Total; n != 1 {
		t.Fatalf("%d listings of the region's attachments for two clusters created together; want 1", n)
	}
}

// The attachment this process just made is recorded from its operation
// once DONE, not read again: its creation does not read it at all (the
// insert adopts ours on a taken name), and the first drift check reads
// it.
func TestAMadeAttachmentIsNotReadAgain(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	c := w.cluster()
	w.settle(r, c.cr)
	if cond := condition(t, c.cr); cond.Status != metav1.ConditionTrue || c.cr.Status.ServiceAttachmentURI == "" {
		t.Fatalf("condition %+v, URI %q", cond, c.cr.Status.ServiceAttachmentURI)
	}
	// Counted before the administrator's read below.
	if n := w.calls("serviceAttachments.get").Total; n != 0 {
		t.Fatalf("%d reads of the attachment while making it; want none", n)
	}
	sa := w.attachment(c.cr.Status.ServiceAttachmentName)
	if sa == nil || gcpcloud.RelativeName(sa.SelfLink) != c.cr.Status.ServiceAttachmentURI {
		t.Fatalf("status URI %q does not name the attachment made", c.cr.Status.ServiceAttachmentURI)
	}
}

// A project taken off additionalAllowedProjects loses the connection it
// has (the attachment reconciles connections: Google puts it back to
// PENDING, and the operator rejects it); put back on the list, its endpoint
// is accepted again without reconnecting. An attachment whose
// reconcileConnections was turned off behind hcplink's back is put right at
// the next drift pass.
func TestARemovedProjectLosesItsConnection(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	r.Events = events.New(env.EventRecorder(t, "hcplink-operator-test"))
	c := w.cluster(func(hc *hcplinkv1beta1.HostedCluster, _ *hcplinkv1beta1.GCPPrivateServiceConnect) {
		hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = []string{partnerProject}
	})
	w.settle(r, c.cr)
	name := c.cr.Status.ServiceAttachmentName
	if sa := w.attachment(name); !sa.ReconcileConnections {
		t.Fatal("the attachment was made without reconcileConnections")
	}
	endpoint := w.foreignEndpoint(partnerProject, w.attachment(name))
	if got := w.endpointStatus(partnerProject, endpoint); got != gcpcloud.PSCAccepted {
		t.Fatalf("the partner's endpoint is %s while its project is allowed, want ACCEPTED", got)
	}

	// passes runs the passes the watch and the operations' requeues make.
	passes := func(want string) {
		t.Helper()
		for range 6 {
			res := w.reconcile(r, c.cr)
			w.clk.Advance(min(max(res.RequeueAfter, time.Second), 30*time.Second))
			if w.endpointStatus(partnerProject, endpoint) == want {
				return
			}
		}
		sa := w.attachment(name)
		t.Fatalf("the partner's endpoint is %s, want %s (accept list %+v, reject list %v, reconcileConnections %v)",
			w.endpointStatus(partnerProject, endpoint), want, gcpcloud.ConsumersOf(sa), sa.ConsumerRejectLists, sa.ReconcileConnections)
	}
	update(t, c.hc, func() { c.hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = nil })
	passes(gcpcloud.PSCRejected)
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for got := eventReasons(t, c.cr); !slices.Contains(got, hcplinkv1beta1.ConnectionNotAllowedReason); got = eventReasons(t, c.cr) {
		if time.Now().After(deadline) {
			t.Fatalf("Events %v: none says the removed project's connection was rejected", got)
		}
		<-tick.C
	}

	update(t, c.hc, func() { c.hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = []string{partnerProject} })
	passes(gcpcloud.PSCAccepted)
	if sa := w.attachment(name); len(sa.ConsumerRejectLists) != 0 {
		t.Fatalf("reject list %v after the project was allowed again, want empty", sa.ConsumerRejectLists)
	}
	w.settle(r, c.cr)

	sa := w.attachment(name)
	w.adminDone(w.admin.ServiceAttachments.Patch(mgmtProject, region, name, &compute.ServiceAttachment{Fingerprint: sa.Fingerprint,
		ForceSendFields: []string{"ReconcileConnections"}}).Do())
	if w.attachment(name).ReconcileConnections {
		t.Fatal("setting up: reconcileConnections is still on")
	}
	w.clk.Advance(testDrift * 6 / 5)
	w.reconcile(r, c.cr) // the drift pass
	w.clk.Advance(time.Second)
	if sa := w.attachment(name); !sa.ReconcileConnections || !gcpcloud.SameConsumers(sa, desiredConsumers(c.hc, c.cr)) {
		t.Fatalf("after the drift pass: reconcileConnections %v, accept list %+v", sa.ReconcileConnections, gcpcloud.ConsumersOf(sa))
	}
}
