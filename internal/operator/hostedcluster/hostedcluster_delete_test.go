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
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// testFinalizer stands for the control-plane operator's and the endpoint
// service controller's finalizers: the test removes it when "the cloud
// cleanup" is done.
const testFinalizer = "test.hcplink.io/cloud-cleanup"

// deletionFixture is a private AWS cluster with its control plane and one
// AWSEndpointService held by testFinalizer, whose deletion was requested.
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
	endpoint.Finalizers = []string{testFinalizer}
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
	return &deletionFixture{r: r, clock: clk, hc: hc, endpoint: endpoint, cp: cp}
}

// controlPlaneObjects are the objects the operator made for the cluster.
func (f *deletionFixture) controlPlaneObjects() []client.Object {
	m := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: f.cp, Name: name} }
	return []client.Object{
		&hcplinkv1beta1.HostedControlPlane{ObjectMeta: m("demo")},
		&appsv1.Deployment{ObjectMeta: m(ControlPlaneOperatorName)},
		&corev1.Secret{ObjectMeta: m(AWSCredentialsSecretName)},
		&corev1.ServiceAccount{ObjectMeta: m(ControlPlaneOperatorName)},
		&rbacv1.Role{ObjectMeta: m(ControlPlaneOperatorName)},
		&rbacv1.RoleBinding{ObjectMeta: m(ControlPlaneOperatorName)},
	}
}

// assertWaiting checks that deletion waits for the endpoint object with
// the control plane intact.
func (f *deletionFixture) assertWaiting(t *testing.T) {
	t.Helper()
	res := reconcileOnce(t, f.r, f.hc)
	if res.RequeueAfter <= 0 {
		t.Errorf("RequeueAfter = %s, want a delay while waiting", res.RequeueAfter)
	}
	get(t, f.hc)
	c := condition(f.hc, DeletingCondition)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != WaitingForPrivateLinkCleanupReason ||
		!strings.Contains(c.Message, "AWSEndpointService private-router") || !strings.Contains(c.Message, testFinalizer) {
		t.Errorf("Deleting = %+v, want True/%s naming the object and its finalizer", c, WaitingForPrivateLinkCleanupReason)
	}
	if a := condition(f.hc, hcplinkv1beta1.AvailableCondition); a == nil || a.Status != metav1.ConditionFalse || a.Reason != hcplinkv1beta1.DeletingReason {
		t.Errorf("Available = %+v, want False/%s", a, hcplinkv1beta1.DeletingReason)
	}
	endpoint := &hcplinkv1beta1.AWSEndpointService{ObjectMeta: f.endpoint.ObjectMeta}
	get(t, endpoint)
	if endpoint.DeletionTimestamp.IsZero() || !contains(endpoint.Finalizers, testFinalizer) {
		t.Errorf("endpoint object: deletionTimestamp %v, finalizers %v; want deletion requested, finalizer kept", endpoint.DeletionTimestamp, endpoint.Finalizers)
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
	if condition(f.hc, CloudResourcesMayHaveLeakedCondition) != nil {
		t.Error("CloudResourcesMayHaveLeaked is set although nothing was abandoned")
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.cp}}
	if get(t, ns); !ns.DeletionTimestamp.IsZero() {
		t.Error("the namespace is being deleted while the private-link cleanup runs")
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

func removeTestFinalizer(t *testing.T, obj client.Object) {
	t.Helper()
	update(t, obj, func() { obj.SetFinalizers(nil) })
}

func TestDeletionWaitsForThePrivateLinkCleanup(t *testing.T) {
	f := newDeletionFixture(t, awsConfig())
	f.assertWaiting(t)
	f.clock.Step(24 * time.Hour) // time alone never gives up
	f.assertWaiting(t)

	// The "cloud cleanup" finishes: the finalizer goes, and with it the object.
	removeTestFinalizer(t, f.endpoint)
	if exists(t, &hcplinkv1beta1.AWSEndpointService{ObjectMeta: f.endpoint.ObjectMeta}) {
		t.Fatal("the endpoint object outlived its last finalizer")
	}
	reconcileOnce(t, f.r, f.hc)
	get(t, f.hc)
	if c := condition(f.hc, DeletingCondition); c == nil || c.Reason != WaitingForControlPlaneDeletionReason {
		t.Errorf("Deleting = %+v, want %s", c, WaitingForControlPlaneDeletionReason)
	}
	f.finish(t)
}

func TestEscapeHatch(t *testing.T) {
	grace := 10 * time.Minute
	cfg := awsConfig()
	cfg.CleanupGracePeriod = grace
	f := newDeletionFixture(t, cfg)
	hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: f.cp, Name: "demo"}}
	setCredentials := func(status metav1.ConditionStatus, at time.Time) {
		t.Helper()
		get(t, hcp)
		meta.RemoveStatusCondition(&hcp.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition)
		hcp.Status.Conditions = append(hcp.Status.Conditions, metav1.Condition{Type: hcplinkv1beta1.ValidCloudCredentialsCondition, Status: status,
			Reason: "InvalidCredentials", Message: "AWS refused the role: AccessDenied", LastTransitionTime: metav1.NewTime(at)})
		if err := env.Client.Status().Update(t.Context(), hcp); err != nil {
			t.Fatal(err)
		}
	}

	// Without a credentials condition, long past the grace period: wait.
	f.clock.Step(time.Hour)
	f.assertWaiting(t)
	// Valid credentials, long past the grace period: wait.
	setCredentials(metav1.ConditionTrue, f.clock.Now())
	f.clock.Step(time.Hour)
	f.assertWaiting(t)
	// Unknown credentials (field problem 1): wait.
	setCredentials(metav1.ConditionUnknown, f.clock.Now())
	f.clock.Step(time.Hour)
	f.assertWaiting(t)

	// Invalid credentials: wait out the grace period, visibly.
	setCredentials(metav1.ConditionFalse, f.clock.Now())
	f.assertWaiting(t)
	if c := condition(f.hc, DeletingCondition); !strings.Contains(c.Message, "invalid cloud credentials") || !strings.Contains(c.Message, "abandoned at") {
		t.Errorf("Deleting message %q does not announce the deadline", c.Message)
	}
	f.clock.Step(grace - time.Second)
	f.assertWaiting(t)

	// Grace period over with credentials still invalid: give up, visibly.
	f.clock.Step(time.Second)
	reconcileOnce(t, f.r, f.hc)
	if exists(t, &hcplinkv1beta1.AWSEndpointService{ObjectMeta: f.endpoint.ObjectMeta}) {
		t.Fatal("the endpoint object is still there after the escape hatch")
	}
	get(t, f.hc)
	leak := condition(f.hc, CloudResourcesMayHaveLeakedCondition)
	ids := []string{"vpce-0123456789abcdef0", "sg-0123456789abcdef0", "com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0",
		"api.demo.hypershift.local", "*.apps.demo.hypershift.local", "Z0123456789ABC"}
	if leak == nil || leak.Status != metav1.ConditionTrue || leak.Reason != CleanupAbandonedReason {
		t.Fatalf("CloudResourcesMayHaveLeaked = %+v, want True/%s", leak, CleanupAbandonedReason)
	}
	for _, id := range ids {
		if !strings.Contains(leak.Message, id) {
			t.Errorf("CloudResourcesMayHaveLeaked message %q does not name %s", leak.Message, id)
		}
	}
	eventually(t, "a Warning event naming what may have leaked", func() (bool, error) {
		var list eventsv1.EventList
		if err := env.Client.List(t.Context(), &list, client.InNamespace(f.hc.Namespace)); err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.Regarding.Name == "demo" && e.Type == corev1.EventTypeWarning && e.Reason == CloudResourcesMayHaveLeakedEvent {
				for _, id := range ids {
					if !strings.Contains(e.Note, id) {
						t.Errorf("event note %q does not name %s", e.Note, id)
					}
				}
				return true, nil
			}
		}
		return false, nil
	})

	// The rest of the deletion proceeds; the condition stays until the end.
	reconcileOnce(t, f.r, f.hc)
	get(t, f.hc)
	if condition(f.hc, CloudResourcesMayHaveLeakedCondition) == nil {
		t.Error("CloudResourcesMayHaveLeaked disappeared before the cluster did")
	}
	f.finish(t)
}
