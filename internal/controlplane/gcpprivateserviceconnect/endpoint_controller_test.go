package gcpprivateserviceconnect

import (
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/outcome"
)

// calls are the control-plane operator's calls to Compute Engine and Cloud
// DNS so far: all of them, and the mutating ones.
func (w *world) calls() (total, mutating int64) {
	for op, n := range w.f.Server.GCP.PrincipalCalls()["serviceAccount:"+w.wi.Email] {
		if strings.HasPrefix(op, "compute.") || strings.HasPrefix(op, "dns.") {
			total += n.Total
			mutating += n.Mutating
		}
	}
	return total, mutating
}

// The happy path, hop by hop: the address, the endpoint targeting the
// attachment and accepted, the private zone visible to the customer's
// network, the records to the endpoint's address, the ExternalName
// Services of a Private cluster; then a quiet drift check.
func TestHappyPathHopByHop(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("demo", hcplinkv1beta1.GCPEndpointAccessPrivate)
	owner := c.ownerHere()
	ruleName, addrName, zoneName := gcpcloud.EndpointName(owner), gcpcloud.EndpointAddressName(owner), gcpcloud.ZoneName(owner.InfraID)

	c.until("reserved the address", func(*hcplinkv1beta1.GCPPrivateServiceConnect) bool {
		a, err := w.admin.Addresses.Get(customerProject, region, addrName).Do()
		return err == nil && a.Address != ""
	})
	cr := c.get()
	if cr.Annotations[InfraIDAnnotation] != owner.InfraID || !slices.Contains(cr.Finalizers, hcplinkv1beta1.ControlPlaneFinalizer) {
		t.Fatalf("the finalizer and the infraID must be kept before anything is made: %v %v", cr.Annotations, cr.Finalizers)
	}
	c.until("made the endpoint", func(*hcplinkv1beta1.GCPPrivateServiceConnect) bool { return w.rule(ruleName) != nil })
	rule := w.rule(ruleName)
	if gcpcloud.RelativeName(rule.Target) != cr.Status.ServiceAttachmentURI || !owner.OwnsLabels(rule.Labels) {
		t.Fatalf("endpoint target %s labels %v; want the attachment %s and the cluster's labels", rule.Target, rule.Labels, cr.Status.ServiceAttachmentURI)
	}
	c.until("available", available)
	cr = c.get()
	rule = w.rule(ruleName)
	if rule.PscConnectionStatus != gcpcloud.PSCAccepted || cr.Status.EndpointIP != rule.IPAddress || cr.Status.EndpointName != ruleName {
		t.Fatalf("endpoint %s status %s ip %s; CR status %+v", rule.Name, rule.PscConnectionStatus, rule.IPAddress, cr.Status)
	}
	zone, err := w.dns.ManagedZones.Get(customerProject, zoneName).Do()
	if err != nil {
		t.Fatal(err)
	}
	if zone.DnsName != "demo.hypershift.local." || zone.Visibility != "private" || !gcpcloud.ZoneVisibleTo(zone, "projects/"+customerProject+"/global/networks/customer") {
		t.Fatalf("zone %s %s visible to %+v", zone.DnsName, zone.Visibility, zone.PrivateVisibilityConfig)
	}
	recs := w.records(zoneName)
	for _, name := range []string{"api.demo.hypershift.local.", "*.apps.demo.hypershift.local."} {
		if !slices.Equal(recs[name], []string{rule.IPAddress}) {
			t.Fatalf("record %s = %v, want %s (all: %v)", name, recs[name], rule.IPAddress, recs)
		}
	}
	for name, host := range map[string]string{hcplinkv1beta1.KubeAPIServerPrivateExternalService: "api.demo.example.com", hcplinkv1beta1.OAuthPrivateExternalService: "oauth.demo.example.com"} {
		svc := &corev1.Service{}
		if err := env.Client.Get(w.ctx, types.NamespacedName{Namespace: cr.Namespace, Name: name}, svc); err != nil {
			t.Fatalf("ExternalName Service %s: %v", name, err)
		}
		if svc.Spec.ExternalName != "api.demo.hypershift.local" || svc.Annotations[hcplinkv1beta1.ExternalDNSHostnameAnnotation] != host {
			t.Fatalf("Service %s: %s %v", name, svc.Spec.ExternalName, svc.Annotations)
		}
	}
	for _, ct := range ownedConditions {
		if cond := condition(cr, ct); cond.Status != metav1.ConditionTrue || cond.Reason != hcplinkv1beta1.GCPSuccessReason {
			t.Errorf("condition %s = %+v", ct, cond)
		}
	}
	checkMessages(t, cr)

	// A drift check at steady state: three reads (the rule, the zone, its
	// records), no write, and the next check a drift interval away.
	before, beforeMut := w.calls()
	w.clock.Advance(DefaultDriftInterval)
	res := c.reconcile()
	after, afterMut := w.calls()
	t.Logf("drift pass: %d calls (%d before), %d mutating", after-before, before, afterMut-beforeMut)
	if after-before > 3 || afterMut != beforeMut {
		t.Fatalf("a drift pass made %d calls, %d mutating; want at most 3 reads", after-before, afterMut-beforeMut)
	}
	if res.RequeueAfter < DefaultDriftInterval*8/10 {
		t.Fatalf("steady state requeues after %s", res.RequeueAfter)
	}
}

// Private → PublicAndPrivate → Private: the ExternalName Services follow
// the HostedControlPlane's endpoint access.
func TestEndpointAccessTransitions(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("flip", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	svcKey := types.NamespacedName{Namespace: c.cr.Namespace, Name: hcplinkv1beta1.KubeAPIServerPrivateExternalService}
	exists := func() bool {
		err := env.Client.Get(w.ctx, svcKey, &corev1.Service{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	if !exists() {
		t.Fatal("a Private cluster has its ExternalName Services")
	}
	c.setAccess(hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate)
	c.reconcile()
	if exists() {
		t.Fatal("a PublicAndPrivate cluster keeps an ExternalName Service")
	}
	if !available(c.get()) {
		t.Fatal("the private path stays available across the change")
	}
	c.setAccess(hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.reconcile()
	if !exists() {
		t.Fatal("back to Private: the ExternalName Services come back")
	}
}

func (c *cluster) setAccess(access hcplinkv1beta1.GCPEndpointAccessType) {
	c.w.t.Helper()
	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if err := env.Client.Get(c.w.ctx, client.ObjectKeyFromObject(c.hcp), hcp); err != nil {
		c.w.t.Fatal(err)
	}
	patch := client.MergeFrom(hcp.DeepCopy())
	hcp.Spec.Platform.GCP.EndpointAccess = access
	if err := env.Client.Patch(c.w.ctx, hcp, patch); err != nil {
		c.w.t.Fatal(err)
	}
	c.hcp = hcp
}

// A record deleted behind our back is back at the next drift check.
func TestRecordDeletedBehindOurBack(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("drift", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	zoneName := gcpcloud.ZoneName(c.ownerHere().InfraID)
	ip := c.get().Status.EndpointIP
	rr, err := w.dns.ResourceRecordSets.Get(customerProject, zoneName, "api.drift.hypershift.local.", "A").Do()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.dns.Changes.Create(customerProject, zoneName, &dnsChange{Deletions: []*dnsRecord{rr}}).Do(); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.records(zoneName)["api.drift.hypershift.local."]; ok {
		t.Fatal("the record was not deleted")
	}
	w.clock.Advance(DefaultDriftInterval * 115 / 100)
	c.reconcile()
	if got := w.records(zoneName)["api.drift.hypershift.local."]; !slices.Equal(got, []string{ip}) {
		t.Fatalf("after one drift check the api record is %v, want %s", got, ip)
	}
}

// The operator recreated the attachment (a new URI): the endpoint is made
// again, targeting the new one, and the records follow its address.
func TestAttachmentReplaced(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("moved", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	ruleName := gcpcloud.EndpointName(c.ownerHere())
	second := c.owner
	second.Name = "private-router-2"
	uri := w.publish(second, 1)
	c.publishURI(uri)
	c.reconcile()
	if cond := condition(c.get(), hcplinkv1beta1.GCPEndpointAvailableCondition); cond.Reason != hcplinkv1beta1.ServiceAttachmentReplacedReason {
		t.Fatalf("after the URI changed: %+v", cond)
	}
	c.until("available again", available)
	rule := w.rule(ruleName)
	if gcpcloud.RelativeName(rule.Target) != uri || rule.PscConnectionStatus != gcpcloud.PSCAccepted {
		t.Fatalf("endpoint targets %s (%s), want %s", rule.Target, rule.PscConnectionStatus, uri)
	}
	zoneName := gcpcloud.ZoneName(c.ownerHere().InfraID)
	if got := w.records(zoneName)["api.moved.hypershift.local."]; !slices.Equal(got, []string{rule.IPAddress}) {
		t.Fatalf("api record %v, want %s", got, rule.IPAddress)
	}
	if got := w.customerResources(); len(got) != 3 {
		t.Fatalf("customer project holds %v; want one address, one rule, one zone", got)
	}
}

// The operator restarted between "endpoint created" and "status written":
// a new controller (no kept operations, no status) adopts what is there
// and makes nothing twice.
func TestRestartAdopts(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("restart", hcplinkv1beta1.GCPEndpointAccessPrivate)
	ruleName := gcpcloud.EndpointName(c.ownerHere())
	c.until("asked for the endpoint", func(*hcplinkv1beta1.GCPPrivateServiceConnect) bool {
		_, kept := c.r.kept(c.get(), opRuleInsert)
		return kept
	})
	// The restart: the insert's operation is forgotten, the status never
	// written.
	c.r = &Reconciler{Client: env.Client, Cloud: w.factory, Tracker: &outcome.Tracker{Now: w.clock.Now}}
	c.until("available", available)
	if got := w.customerResources(); !slices.Equal(got, []string{
		"address/" + gcpcloud.EndpointAddressName(c.ownerHere()), "forwardingRule/" + ruleName, "zone/" + gcpcloud.ZoneName(c.ownerHere().InfraID)}) {
		t.Fatalf("after the restart the customer project holds %v", got)
	}
}

// A role without compute.addresses.create: a condition naming the
// permission, delays that grow (no hot loop), and nothing made.
func TestMissingPermission(t *testing.T) {
	var perms []string
	for _, p := range gcpcloud.PermissionsOf(gcpcloud.ControlPlaneOperator) {
		if p != "compute.addresses.create" {
			perms = append(perms, p)
		}
	}
	w := newWorldWith(t, perms)
	c := w.newCluster("denied", hcplinkv1beta1.GCPEndpointAccessPrivate)
	var delays []time.Duration
	for range 5 {
		res := c.reconcile()
		delays = append(delays, res.RequeueAfter)
		w.clock.Advance(res.RequeueAfter)
	}
	cr := c.get()
	cond := condition(cr, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition)
	if cond.Reason != hcplinkv1beta1.AccessDeniedReason || !strings.Contains(cond.Message, "compute.addresses.create") {
		t.Fatalf("condition %+v; want AccessDenied naming compute.addresses.create", cond)
	}
	checkMessages(t, cr)
	if delays[0] < 10*time.Second || delays[len(delays)-1] <= delays[0] {
		t.Fatalf("delays %v: the rechecks of a refusal must start at seconds and grow", delays)
	}
	if got := w.customerResources(); len(got) != 0 {
		t.Fatalf("a refused pass made %v", got)
	}
}

// Deletion removes the records, the zone, the endpoint and the address,
// then the finalizer; nothing is left in the customer's project.
func TestDeletionLeavesNothing(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("gone", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	// Something of the customer's own in the project, of another name: left.
	w.adminDone(w.admin.Addresses.Insert(customerProject, region, &compute.Address{Name: "customers-own", AddressType: "INTERNAL",
		Subnetwork: "projects/" + customerProject + "/regions/" + region + "/subnetworks/workers"}).Do())
	if err := env.Client.Delete(w.ctx, c.get()); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if i > 40 {
			t.Fatalf("never finished deleting; left %v", w.customerResources())
		}
		res := c.reconcileGone()
		if res < 0 {
			break
		}
		w.clock.Advance(max(res, time.Second))
	}
	if got := w.customerResources(); !slices.Equal(got, []string{"address/customers-own"}) {
		t.Fatalf("after deletion the customer project holds %v", got)
	}
	svc := &corev1.Service{}
	err := env.Client.Get(w.ctx, types.NamespacedName{Namespace: c.cr.Namespace, Name: hcplinkv1beta1.KubeAPIServerPrivateExternalService}, svc)
	if err == nil && svc.DeletionTimestamp.IsZero() {
		t.Fatal("the ExternalName Service outlived its CR")
	}
}

// reconcileGone runs one pass of a deletion; -1 once the CR is gone.
func (c *cluster) reconcileGone() time.Duration {
	c.w.t.Helper()
	res := c.reconcile()
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{}
	if err := env.Client.Get(c.w.ctx, client.ObjectKeyFromObject(c.cr), cr); apierrors.IsNotFound(err) {
		return -1
	}
	return res.RequeueAfter
}

// A pass an event brings soon after a Ready one (the ExternalName Services
// it created, a change of endpoint access) asks nothing of Google Cloud.
func TestQuietAfterReady(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("quiet", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	before, _ := w.calls()
	w.clock.Advance(time.Minute)
	c.reconcile()
	c.setAccess(hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate)
	c.reconcile()
	if after, _ := w.calls(); after != before {
		t.Fatalf("passes soon after Ready made %d calls", after-before)
	}
	if !available(c.get()) {
		t.Fatal("still available")
	}
}

// callsByOp are the control-plane operator's Compute Engine and Cloud DNS
// calls so far, by operation.
func (w *world) callsByOp() map[string]int64 {
	out := map[string]int64{}
	for op, n := range w.f.Server.GCP.PrincipalCalls()["serviceAccount:"+w.wi.Email] {
		if strings.HasPrefix(op, "compute.") || strings.HasPrefix(op, "dns.") {
			out[op] += n.Total
		}
	}
	return out
}

// The create path from nothing to Available reads nothing it was just
// told: the address is reserved without a read before (the rule is
// missing, so the address almost always is) or after (the finished
// operation's targetLink is its link), and the rule is made without a
// read first. Address calls: the insert only; rule reads: the one after
// its insert, and the one that sees it accepted. The private zone is made
// without a read first (the status names no zone yet).
func TestCreateCallsAddressNotRead(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("quiet", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.until("available", available)
	byOp := w.callsByOp()
	var total, addressReads, ruleReads, zoneReads int64
	for op, n := range byOp {
		total += n
		if strings.HasSuffix(op, "addresses.get") {
			addressReads += n
		}
		if strings.HasSuffix(op, "managedZones.get") {
			zoneReads += n
		}
		if strings.HasSuffix(op, "forwardingRules.get") {
			ruleReads += n
		}
	}
	t.Logf("create: %d calls %v", total, byOp)
	if addressReads != 0 {
		t.Fatalf("the create path read the endpoint's address %d times; want 0 (the insert's operation carries its link)", addressReads)
	}
	if ruleReads > 2 {
		t.Fatalf("the create path read the endpoint's forwarding rule %d times; want 2 (not before its insert)", ruleReads)
	}
	if zoneReads != 0 {
		t.Fatalf("the create path read the private zone %d times; want 0 (made straight away, the create answers with the zone)", zoneReads)
	}
}
