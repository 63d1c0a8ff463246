package hostedcluster

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	"github.com/hcplink/hcplink/internal/testenv"
)

// cleanupFinalizers are the control-plane operator's and the operator's
// finalizers on an AWSEndpointService; the tests remove them as those
// controllers would once their cloud cleanup is done.
var cleanupFinalizers = []string{hcplinkv1beta1.ControlPlaneFinalizer, hcplinkv1beta1.OperatorFinalizer}

// deletionFixture is a private AWS cluster with its control plane and one
// AWSEndpointService held by both components' finalizers, whose deletion
// was requested.
type deletionFixture struct {
	r        *Reconciler
	clock    *testingclock.FakeClock
	hc       *hcplinkv1beta1.HostedCluster
	endpoint *hcplinkv1beta1.AWSEndpointService
	cp       string
}

func newDeletionFixture(t *testing.T, cfg Config) *deletionFixture {
	t.Helper()
	ns := env.NewNamespace(t)
	hc := awsCluster(ns, "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
	create(t, hc, awsNodePool(ns, "workers", "demo", subnetA))
	r, clk := testReconciler(t, cfg)
	reconcileOnce(t, r, hc)
	cp := hcpNamespace(hc)

	endpoint := awsEndpointService(cp, "private-router")
	endpoint.Finalizers = append([]string(nil), cleanupFinalizers...)
	create(t, endpoint)
	endpoint.Status = hcplinkv1beta1.AWSEndpointServiceStatus{
		EndpointServiceName: "com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0",
		EndpointID:          "vpce-0123456789abcdef0",
		SecurityGroupID:     "sg-0123456789abcdef0",
		DNSNames:            []string{"api.demo.hypershift.local", "*.apps.demo.hypershift.local"},
		DNSZoneID:           "Z0123456789ABC",
		Region:              testRegion,
		InfraID:             hc.Spec.InfraID,
	}
	if err := env.Client.Status().Update(t.Context(), endpoint); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	get(t, hc)
	// The grace periods count from the deletion (a server time, in whole
	// seconds, possibly after the fake clock's start): start the fake clock
	// at it, so that stepping the clock by the grace period reaches the
	// deadline exactly.
	if at := hc.DeletionTimestamp.Time; at.After(clk.Now()) {
		clk.SetTime(at)
	}
	return &deletionFixture{r: r, clock: clk, hc: hc, endpoint: endpoint, cp: cp}
}

// controlPlaneObjects are the objects the operator made for the cluster.
func (f *deletionFixture) controlPlaneObjects() []client.Object {
	m := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: f.cp, Name: name} }
	return []client.Object{
		&hcplinkv1beta1.HostedControlPlane{ObjectMeta: m("demo")},
		&appsv1.Deployment{ObjectMeta: m(ControlPlaneOperatorName)},
		&corev1.Secret{ObjectMeta: m(awsplatform.CredentialsSecretName)},
		&corev1.ServiceAccount{ObjectMeta: m(ControlPlaneOperatorName)},
		&rbacv1.Role{ObjectMeta: m(ControlPlaneOperatorName)},
		&rbacv1.RoleBinding{ObjectMeta: m(ControlPlaneOperatorName)},
	}
}

// assertWaiting checks that deletion waits for the endpoint object with
// the control plane intact and both finalizers kept.
func (f *deletionFixture) assertWaiting(t *testing.T) {
	t.Helper()
	f.assertWaitingWith(t, cleanupFinalizers...)
}

// assertWaitingWith checks that deletion waits for the endpoint object
// held by finalizers, with the control plane intact.
func (f *deletionFixture) assertWaitingWith(t *testing.T, finalizers ...string) {
	t.Helper()
	res := reconcileOnce(t, f.r, f.hc)
	if res.RequeueAfter <= 0 {
		t.Errorf("RequeueAfter = %s, want a delay while waiting", res.RequeueAfter)
	}
	get(t, f.hc)
	c := condition(f.hc, hcplinkv1beta1.DeletingCondition)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != hcplinkv1beta1.WaitingForPrivateLinkCleanupReason ||
		!strings.Contains(c.Message, "AWSEndpointService private-router") || !strings.Contains(c.Message, finalizers[0]) {
		t.Errorf("Deleting = %+v, want True/%s naming the object and its finalizer", c, hcplinkv1beta1.WaitingForPrivateLinkCleanupReason)
	}
	if a := condition(f.hc, hcplinkv1beta1.AvailableCondition); a == nil || a.Status != metav1.ConditionFalse || a.Reason != hcplinkv1beta1.DeletingReason {
		t.Errorf("Available = %+v, want False/%s", a, hcplinkv1beta1.DeletingReason)
	}
	endpoint := &hcplinkv1beta1.AWSEndpointService{ObjectMeta: f.endpoint.ObjectMeta}
	get(t, endpoint)
	if endpoint.DeletionTimestamp.IsZero() || !equalSets(endpoint.Finalizers, finalizers) {
		t.Errorf("endpoint object: deletionTimestamp %v, finalizers %v; want deletion requested, finalizers %v kept", endpoint.DeletionTimestamp, endpoint.Finalizers, finalizers)
	}
	// The control-plane operator and its credentials stay, so that it can
	// clean up. The HostedControlPlane stays too, but Terminating and held by
	// the operator's finalizer: that is how the control-plane operator knows
	// the cluster is going and stops recreating the private-link objects.
	for _, o := range f.controlPlaneObjects() {
		if !exists(t, o) {
			t.Errorf("%T %s is gone while the private-link cleanup runs", o, o.GetName())
			continue
		}
		hcp, isHCP := o.(*hcplinkv1beta1.HostedControlPlane)
		switch {
		case isHCP && (hcp.DeletionTimestamp.IsZero() || !contains(hcp.Finalizers, hcplinkv1beta1.OperatorFinalizer)):
			t.Errorf("HostedControlPlane: deletionTimestamp %v, finalizers %v; want deletion requested and held by %s",
				hcp.DeletionTimestamp, hcp.Finalizers, hcplinkv1beta1.OperatorFinalizer)
		case !isHCP && !o.GetDeletionTimestamp().IsZero():
			t.Errorf("%T %s is going while the private-link cleanup runs", o, o.GetName())
		}
	}
	if len(finalizers) == len(cleanupFinalizers) && condition(f.hc, hcplinkv1beta1.CloudResourcesMayHaveLeakedCondition) != nil {
		t.Error("CloudResourcesMayHaveLeaked is set although nothing was abandoned")
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.cp}}
	if get(t, ns); !ns.DeletionTimestamp.IsZero() {
		t.Error("the namespace is being deleted while the private-link cleanup runs")
	}
}

func equalSets(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}

// hcp is the fixture's HostedControlPlane, read.
func (f *deletionFixture) hcp(t *testing.T) *hcplinkv1beta1.HostedControlPlane {
	t.Helper()
	hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: f.cp, Name: f.hc.Name}}
	get(t, hcp)
	return hcp
}

// setHCPCondition sets a condition on the HostedControlPlane's status, as
// the control-plane operator would.
func setHCPCondition(t *testing.T, hcp *hcplinkv1beta1.HostedControlPlane, c metav1.Condition) {
	t.Helper()
	if c.LastTransitionTime.IsZero() {
		c.LastTransitionTime = metav1.Now()
	}
	// The operator may write the Available mirror meanwhile.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		get(t, hcp)
		meta.RemoveStatusCondition(&hcp.Status.Conditions, c.Type)
		hcp.Status.Conditions = append(hcp.Status.Conditions, c)
		return env.Client.Status().Update(t.Context(), hcp)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// setCredentials sets ValidCloudCredentials on the HostedControlPlane.
func (f *deletionFixture) setCredentials(t *testing.T, status metav1.ConditionStatus, at time.Time) {
	t.Helper()
	setHCPCondition(t, f.hcp(t), metav1.Condition{Type: hcplinkv1beta1.ValidCloudCredentialsCondition, Status: status,
		Reason: "InvalidCredentials", Message: "AWS refused the role: AccessDenied", LastTransitionTime: metav1.NewTime(at)})
}

// completeSweep reports the control-plane operator's final sweep done.
func (f *deletionFixture) completeSweep(t *testing.T) {
	t.Helper()
	setHCPCondition(t, f.hcp(t), metav1.Condition{Type: hcplinkv1beta1.CloudCleanupCompleteCondition, Status: metav1.ConditionTrue,
		Reason: hcplinkv1beta1.AsExpectedReason, Message: hcplinkv1beta1.AllIsWellMessage})
}

// assertWaitingForSweep checks that deletion waits for CloudCleanupComplete
// with the HostedControlPlane held and the control-plane operator up.
func (f *deletionFixture) assertWaitingForSweep(t *testing.T) {
	t.Helper()
	res := reconcileOnce(t, f.r, f.hc)
	if res.RequeueAfter <= 0 {
		t.Errorf("RequeueAfter = %s, want a delay while waiting", res.RequeueAfter)
	}
	get(t, f.hc)
	if c := condition(f.hc, hcplinkv1beta1.DeletingCondition); c == nil || c.Reason != hcplinkv1beta1.WaitingForCloudCleanupReason || !strings.Contains(c.Message, hcplinkv1beta1.CloudCleanupCompleteCondition) {
		t.Errorf("Deleting = %+v, want %s naming %s", c, hcplinkv1beta1.WaitingForCloudCleanupReason, hcplinkv1beta1.CloudCleanupCompleteCondition)
	}
	for _, o := range f.controlPlaneObjects() {
		if !exists(t, o) {
			t.Errorf("%T %s is gone before the final sweep", o, o.GetName())
		}
	}
}

// finish reconciles until the cluster is gone and checks what is left.
func (f *deletionFixture) finish(t *testing.T) {
	t.Helper()
	for i := 0; ; i++ {
		if !exists(t, &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: f.hc.Namespace, Name: f.hc.Name}}) {
			break
		}
		if i == 10 {
			get(t, f.hc)
			t.Fatalf("the cluster is still there after %d passes: %+v", i, f.hc.Status.Conditions)
		}
		reconcileOnce(t, f.r, f.hc)
	}
	for _, o := range f.controlPlaneObjects() {
		if exists(t, o) {
			t.Errorf("%T %s outlived the cluster", o, o.GetName())
		}
	}
	// envtest has no namespace controller: the namespace stays Terminating.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.cp}}
	if exists(t, ns) && ns.DeletionTimestamp.IsZero() {
		t.Error("the namespace's deletion was not requested")
	}
}

func removeFinalizers(t *testing.T, obj client.Object, finalizers ...string) {
	t.Helper()
	update(t, obj, func() {
		var kept []string
		for _, f := range obj.GetFinalizers() {
			if !contains(finalizers, f) {
				kept = append(kept, f)
			}
		}
		obj.SetFinalizers(kept)
	})
}

func TestDeletionWaitsForThePrivateLinkCleanupAndTheFinalSweep(t *testing.T) {
	f := newDeletionFixture(t, awsConfig())
	f.setCredentials(t, metav1.ConditionTrue, f.clock.Now())
	f.assertWaiting(t)
	f.clock.Step(24 * time.Hour) // time alone never gives up while the credentials work
	f.assertWaiting(t)

	// The control-plane operator's cleanup finishes; the operator's goes on.
	removeFinalizers(t, f.endpoint, hcplinkv1beta1.ControlPlaneFinalizer)
	f.assertWaitingWith(t, hcplinkv1beta1.OperatorFinalizer)
	// The endpoint service is deleted: the object goes.
	removeFinalizers(t, f.endpoint, hcplinkv1beta1.OperatorFinalizer)
	if exists(t, &hcplinkv1beta1.AWSEndpointService{ObjectMeta: f.endpoint.ObjectMeta}) {
		t.Fatal("the endpoint object outlived its last finalizer")
	}

	// Then the final customer-side sweep is awaited, however long it takes
	// while the credentials work.
	f.assertWaitingForSweep(t)
	f.clock.Step(24 * time.Hour)
	f.assertWaitingForSweep(t)
	if hcp := f.hcp(t); hcp.DeletionTimestamp.IsZero() || !contains(hcp.Finalizers, hcplinkv1beta1.OperatorFinalizer) {
		t.Errorf("HostedControlPlane deletionTimestamp %v finalizers %v: want deleting and held", hcp.DeletionTimestamp, hcp.Finalizers)
	}
	f.completeSweep(t)
	reconcileOnce(t, f.r, f.hc)
	get(t, f.hc)
	if c := condition(f.hc, hcplinkv1beta1.DeletingCondition); c == nil || c.Reason != hcplinkv1beta1.WaitingForControlPlaneDeletionReason {
		t.Errorf("Deleting = %+v, want %s", c, hcplinkv1beta1.WaitingForControlPlaneDeletionReason)
	}
	if condition(f.hc, hcplinkv1beta1.CloudResourcesMayHaveLeakedCondition) != nil {
		t.Error("CloudResourcesMayHaveLeaked is set although nothing was abandoned")
	}
	f.finish(t)
}

// assertLeak checks CloudResourcesMayHaveLeaked and a Warning event name
// every one of ids and none of absent.
func (f *deletionFixture) assertLeak(t *testing.T, ids, absent []string) {
	t.Helper()
	get(t, f.hc)
	leak := condition(f.hc, hcplinkv1beta1.CloudResourcesMayHaveLeakedCondition)
	if leak == nil || leak.Status != metav1.ConditionTrue || leak.Reason != hcplinkv1beta1.CleanupAbandonedReason {
		t.Fatalf("CloudResourcesMayHaveLeaked = %+v, want True/%s", leak, hcplinkv1beta1.CleanupAbandonedReason)
	}
	for _, id := range ids {
		if !strings.Contains(leak.Message, id) {
			t.Errorf("CloudResourcesMayHaveLeaked message %q does not name %s", leak.Message, id)
		}
	}
	for _, id := range absent {
		if strings.Contains(leak.Message, id) {
			t.Errorf("CloudResourcesMayHaveLeaked message %q names %s, which is still being cleaned up", leak.Message, id)
		}
	}
	testenv.Eventually(t, "a Warning event naming what may have leaked", func() (bool, error) {
		var list eventsv1.EventList
		if err := env.Client.List(t.Context(), &list, client.InNamespace(f.hc.Namespace)); err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.Regarding.Name == "demo" && e.Type == corev1.EventTypeWarning && e.Reason == CloudResourcesMayHaveLeakedEvent && strings.Contains(e.Note, ids[0]) {
				return true, nil
			}
		}
		return false, nil
	})
}

var (
	customerIDs   = []string{"vpce-0123456789abcdef0", "sg-0123456789abcdef0", "api.demo.hypershift.local", "*.apps.demo.hypershift.local", "Z0123456789ABC"}
	managementIDs = []string{"com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0"}
)

// Item 2: invalid control-plane credentials with working management
// credentials give up only the control-plane operator's side.
func TestEscapeHatchGivesUpOnlyTheControlPlaneSide(t *testing.T) {
	grace := 10 * time.Minute
	cfg := awsConfig()
	cfg.CleanupGracePeriod = grace
	cfg.ManagementCredentials = credentialsAt{platform.CredentialsValid, time.Now().Add(-time.Hour)}
	f := newDeletionFixture(t, cfg)

	// Invalid credentials: wait out the grace period, visibly.
	f.setCredentials(t, metav1.ConditionFalse, f.clock.Now())
	f.assertWaiting(t)
	if c := condition(f.hc, hcplinkv1beta1.DeletingCondition); !strings.Contains(c.Message, "invalid cloud credentials") || !strings.Contains(c.Message, "abandoned at") {
		t.Errorf("Deleting message %q does not announce the deadline", c.Message)
	}
	f.clock.Step(grace - time.Second)
	f.assertWaiting(t)

	// Grace period over: only the control-plane operator's finalizer goes.
	f.clock.Step(time.Second)
	reconcileOnce(t, f.r, f.hc)
	endpoint := &hcplinkv1beta1.AWSEndpointService{ObjectMeta: f.endpoint.ObjectMeta}
	if !exists(t, endpoint) || !equalSets(endpoint.Finalizers, []string{hcplinkv1beta1.OperatorFinalizer}) {
		t.Fatalf("endpoint object finalizers %v; want only %s (the management side still cleans up)", endpoint.Finalizers, hcplinkv1beta1.OperatorFinalizer)
	}
	f.assertLeak(t, customerIDs, managementIDs)

	// Long after, with the management credentials fine, the operator's
	// finalizer stays: its endpoint-service controller removes it.
	f.clock.Step(24 * time.Hour)
	f.assertWaitingWith(t, hcplinkv1beta1.OperatorFinalizer)
	removeFinalizers(t, endpoint, hcplinkv1beta1.OperatorFinalizer)

	// The final sweep cannot run with these credentials either: not waited
	// for, and said so.
	reconcileOnce(t, f.r, f.hc)
	get(t, f.hc)
	if leak := condition(f.hc, hcplinkv1beta1.CloudResourcesMayHaveLeakedCondition); !strings.Contains(leak.Message, "final sweep") || !strings.Contains(leak.Message, "vpce-0123456789abcdef0") {
		t.Errorf("CloudResourcesMayHaveLeaked %q does not add the final sweep to what was given up before", leak.Message)
	}
	f.finish(t)
}

// Field problem 2: a control-plane operator that never reported its
// credentials does not hold deletion forever.
func TestEscapeHatchNeverCheckedCredentials(t *testing.T) {
	grace := 10 * time.Minute
	cfg := awsConfig()
	cfg.CleanupGracePeriod = grace
	f := newDeletionFixture(t, cfg)
	f.assertWaiting(t)
	if c := condition(f.hc, hcplinkv1beta1.DeletingCondition); !strings.Contains(c.Message, "never reported") {
		t.Errorf("Deleting message %q does not say the credentials were never checked", c.Message)
	}
	f.clock.Step(grace - time.Second)
	f.assertWaiting(t)
	f.clock.Step(2 * time.Second)
	reconcileOnce(t, f.r, f.hc)
	endpoint := &hcplinkv1beta1.AWSEndpointService{ObjectMeta: f.endpoint.ObjectMeta}
	if !exists(t, endpoint) || !equalSets(endpoint.Finalizers, []string{hcplinkv1beta1.OperatorFinalizer}) {
		t.Fatalf("endpoint object finalizers %v; want only %s", endpoint.Finalizers, hcplinkv1beta1.OperatorFinalizer)
	}
	f.assertLeak(t, customerIDs, managementIDs)
}

// The operator's own finalizer goes only when the management credentials
// are invalid for the grace period; the control-plane side, whose
// credentials work, keeps its finalizer.
func TestEscapeHatchInvalidManagementCredentials(t *testing.T) {
	grace := 10 * time.Minute
	cfg := awsConfig()
	cfg.CleanupGracePeriod = grace
	cfg.ManagementCredentials = credentialsAt{platform.CredentialsInvalid, time.Now().Add(-time.Hour)}
	f := newDeletionFixture(t, cfg)
	f.setCredentials(t, metav1.ConditionTrue, f.clock.Now())
	f.assertWaiting(t)
	if c := condition(f.hc, hcplinkv1beta1.DeletingCondition); !strings.Contains(c.Message, "operator's own cloud credentials are invalid") {
		t.Errorf("Deleting message %q does not announce the operator's deadline", c.Message)
	}
	f.clock.Step(grace)
	reconcileOnce(t, f.r, f.hc)
	endpoint := &hcplinkv1beta1.AWSEndpointService{ObjectMeta: f.endpoint.ObjectMeta}
	if !exists(t, endpoint) || !equalSets(endpoint.Finalizers, []string{hcplinkv1beta1.ControlPlaneFinalizer}) {
		t.Fatalf("endpoint object finalizers %v; want only %s", endpoint.Finalizers, hcplinkv1beta1.ControlPlaneFinalizer)
	}
	f.assertLeak(t, managementIDs, []string{"sg-0123456789abcdef0"})
	f.clock.Step(24 * time.Hour)
	f.assertWaitingWith(t, hcplinkv1beta1.ControlPlaneFinalizer)
}
