package routers

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

const lbCleanupFinalizer = "service.kubernetes.io/load-balancer-cleanup"

// createHCP creates hcp (built by a fixture for namespace ns) and returns it
// as stored.
func createHCP(t *testing.T, hcp *hcplinkv1beta1.HostedControlPlane) *hcplinkv1beta1.HostedControlPlane {
	t.Helper()
	hcp.UID = "" // the fixture's UID is for pure tests; the API server assigns one
	if err := env.Client.Create(t.Context(), hcp); err != nil {
		t.Fatalf("creating HostedControlPlane: %v", err)
	}
	return hcp
}

// writeCounter is a real client (no fake) that counts the writes going
// through it.
type writeCounter struct {
	client.Client
	writes atomic.Int64
}

func newWriteCounter(t *testing.T) *writeCounter {
	t.Helper()
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	w := &writeCounter{}
	count := func() { w.writes.Add(1) }
	w.Client = interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			count()
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			count()
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			count()
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			count()
			return c.Apply(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			count()
			return c.Delete(ctx, obj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			count()
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			count()
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
		SubResourceApply: func(ctx context.Context, c client.Client, sub string, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
			count()
			return c.SubResource(sub).Apply(ctx, obj, opts...)
		},
	})
	return w
}

func reconcile(t *testing.T, r *Reconciler, hcp *hcplinkv1beta1.HostedControlPlane) ctrl.Result {
	t.Helper()
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hcp)})
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	return res
}

// serviceNames lists the router Services present in ns.
func serviceNames(t *testing.T, ns string) map[string]*corev1.Service {
	t.Helper()
	var list corev1.ServiceList
	if err := env.Client.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
		t.Fatalf("listing Services: %v", err)
	}
	out := map[string]*corev1.Service{}
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out
}

func requireServices(t *testing.T, ns string, want ...string) map[string]*corev1.Service {
	t.Helper()
	got := serviceNames(t, ns)
	if len(got) != len(want) {
		t.Fatalf("Services %v, want %v", keys(got), want)
	}
	for _, n := range want {
		if got[n] == nil {
			t.Fatalf("Services %v, want %v", keys(got), want)
		}
	}
	return got
}

func keys(m map[string]*corev1.Service) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}

func updateHCP(t *testing.T, hcp *hcplinkv1beta1.HostedControlPlane, mutate func(*hcplinkv1beta1.HostedControlPlane)) {
	t.Helper()
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hcp), hcp); err != nil {
		t.Fatal(err)
	}
	mutate(hcp)
	if err := env.Client.Update(t.Context(), hcp); err != nil {
		t.Fatalf("updating HostedControlPlane: %v", err)
	}
}

func condition(t *testing.T, hcp *hcplinkv1beta1.HostedControlPlane) *metav1.Condition {
	t.Helper()
	var got hcplinkv1beta1.HostedControlPlane
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hcp), &got); err != nil {
		t.Fatal(err)
	}
	c := meta.FindStatusCondition(got.Status.Conditions, hcplinkv1beta1.RoutersReadyCondition)
	if c == nil {
		t.Fatalf("no %s condition in %v", hcplinkv1beta1.RoutersReadyCondition, got.Status.Conditions)
	}
	if c.ObservedGeneration != got.Generation {
		t.Errorf("%s observedGeneration %d, want %d", hcplinkv1beta1.RoutersReadyCondition, c.ObservedGeneration, got.Generation)
	}
	return c
}

// giveLoadBalancer does what the cloud's load-balancer controller does: a
// finalizer, then an address in status.
func giveLoadBalancer(t *testing.T, ns, name string) {
	t.Helper()
	svc := &corev1.Service{}
	if err := env.Client.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: name}, svc); err != nil {
		t.Fatal(err)
	}
	svc.Finalizers = append(svc.Finalizers, lbCleanupFinalizer)
	if err := env.Client.Update(t.Context(), svc); err != nil {
		t.Fatalf("adding the load-balancer finalizer: %v", err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "k8s-" + name + "-0123456789-0123456789abcdef.elb.us-east-1.amazonaws.com"}}
	if err := env.Client.Status().Update(t.Context(), svc); err != nil {
		t.Fatalf("writing the load-balancer status: %v", err)
	}
}

func removeFinalizer(t *testing.T, ns, name string) {
	t.Helper()
	svc := &corev1.Service{}
	if err := env.Client.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: name}, svc); err != nil {
		t.Fatal(err)
	}
	svc.Finalizers = nil
	if err := env.Client.Update(t.Context(), svc); err != nil {
		t.Fatalf("removing finalizers: %v", err)
	}
}

// TestEndpointAccessChanges walks an AWS cluster Private → PublicAndPrivate
// → Private → PublicAndPrivate, with the router Service held by the
// load-balancer controller's finalizer in between.
func TestEndpointAccessChanges(t *testing.T) {
	ns := env.NewNamespace(t)
	hcp := createHCP(t, awsHCP(ns, hcplinkv1beta1.AWSEndpointAccessPrivate, hcplinkv1beta1.RoutePublishing))
	r := &Reconciler{Annotations: platforms, Client: env.Client}

	// Private: only the internal private-router.
	reconcile(t, r, hcp)
	svcs := requireServices(t, ns, "private-router")
	pr := svcs["private-router"]
	if d := diff(awsInternalAnnotations, pr.Annotations); d != "" {
		t.Errorf("private-router annotations:\n%s", d)
	}
	if pr.Spec.Type != corev1.ServiceTypeLoadBalancer || pr.Spec.Ports[0].Port != 443 || pr.Spec.Ports[0].TargetPort.StrVal != "https" {
		t.Errorf("private-router spec %+v", pr.Spec)
	}
	if !metav1.IsControlledBy(pr, hcp) {
		t.Errorf("private-router owner references %v, want the HostedControlPlane %s", pr.OwnerReferences, hcp.UID)
	}
	if c := condition(t, hcp); c.Status != metav1.ConditionFalse || c.Reason != hcplinkv1beta1.WaitingForLoadBalancerReason {
		t.Errorf("RoutersReady %s/%s %q, want False/WaitingForLoadBalancer", c.Status, c.Reason, c.Message)
	}

	// PublicAndPrivate: router appears, internet-facing.
	updateHCP(t, hcp, func(h *hcplinkv1beta1.HostedControlPlane) {
		h.Spec.Platform.AWS.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate
	})
	reconcile(t, r, hcp)
	svcs = requireServices(t, ns, "private-router", "router")
	if d := diff(awsPublicAnnotations, svcs["router"].Annotations); d != "" {
		t.Errorf("router annotations:\n%s", d)
	}
	if svcs["private-router"].ResourceVersion != pr.ResourceVersion {
		t.Error("private-router was written although it did not change")
	}
	giveLoadBalancer(t, ns, "router")
	giveLoadBalancer(t, ns, "private-router")
	reconcile(t, r, hcp)
	if c := condition(t, hcp); c.Status != metav1.ConditionTrue || c.Reason != hcplinkv1beta1.AsExpectedReason {
		t.Errorf("RoutersReady %s/%s %q, want True/AsExpected", c.Status, c.Reason, c.Message)
	}

	// Back to Private: router is deleted; the load-balancer finalizer holds
	// it until the load balancer is gone.
	oldRouter := serviceNames(t, ns)["router"]
	updateHCP(t, hcp, func(h *hcplinkv1beta1.HostedControlPlane) {
		h.Spec.Platform.AWS.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPrivate
	})
	reconcile(t, r, hcp)
	svcs = requireServices(t, ns, "private-router", "router")
	if svcs["router"].DeletionTimestamp.IsZero() {
		t.Fatal("router was not deleted when the cluster became Private")
	}
	if c := condition(t, hcp); c.Status != metav1.ConditionTrue {
		t.Errorf("RoutersReady %s/%s %q, want True: a Service no longer wanted does not count", c.Status, c.Reason, c.Message)
	}

	// PublicAndPrivate again while the old router is still deleting: no
	// error, no duplicate, the condition says why it waits.
	updateHCP(t, hcp, func(h *hcplinkv1beta1.HostedControlPlane) {
		h.Spec.Platform.AWS.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate
	})
	reconcile(t, r, hcp)
	if c := condition(t, hcp); c.Status != metav1.ConditionFalse || c.Reason != hcplinkv1beta1.WaitingForServiceReason {
		t.Errorf("RoutersReady %s/%s %q, want False/WaitingForService", c.Status, c.Reason, c.Message)
	}
	// The load balancer goes; the Service with it; the next pass makes a
	// new router.
	removeFinalizer(t, ns, "router")
	if err := env.Client.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: "router"}, &corev1.Service{}); !apierrors.IsNotFound(err) {
		t.Fatalf("router still there after its finalizer went: %v", err)
	}
	reconcile(t, r, hcp)
	svcs = requireServices(t, ns, "private-router", "router")
	if svcs["router"].UID == oldRouter.UID || !svcs["router"].DeletionTimestamp.IsZero() {
		t.Error("the router was not made anew")
	}

	// Private for good, without a finalizer: the Service disappears.
	updateHCP(t, hcp, func(h *hcplinkv1beta1.HostedControlPlane) {
		h.Spec.Platform.AWS.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPrivate
	})
	reconcile(t, r, hcp)
	requireServices(t, ns, "private-router")
}

func TestKubeAPIServerPrivate(t *testing.T) {
	ns := env.NewNamespace(t)
	hcp := createHCP(t, awsHCP(ns, hcplinkv1beta1.AWSEndpointAccessPrivate, hcplinkv1beta1.LoadBalancerPublishing))
	r := &Reconciler{Annotations: platforms, Client: env.Client}
	reconcile(t, r, hcp)
	svcs := requireServices(t, ns, "private-router", "kube-apiserver-private")
	kas := svcs["kube-apiserver-private"]
	if p := kas.Spec.Ports; len(p) != 1 || p[0].Port != 6443 || p[0].TargetPort.StrVal != "client" || p[0].NodePort == 0 {
		t.Errorf("kube-apiserver-private ports %+v, want 6443 → client with a node port", p)
	}
	if kas.Spec.Selector["app"] != "kube-apiserver" {
		t.Errorf("selector %v", kas.Spec.Selector)
	}
	if d := diff(awsInternalAnnotations, kas.Annotations); d != "" {
		t.Errorf("annotations:\n%s", d)
	}

	// Publishing the API server by Route removes it.
	updateHCP(t, hcp, func(h *hcplinkv1beta1.HostedControlPlane) {
		h.Spec.Services = []hcplinkv1beta1.ServicePublishingStrategyMapping{apiServerMapping(hcplinkv1beta1.RoutePublishing)}
	})
	reconcile(t, r, hcp)
	requireServices(t, ns, "private-router")
}

// TestNoWriteWhenNothingChanged: after the Services and the condition are
// in place, reconciling again writes nothing, even though the API server and
// the load-balancer controller filled in fields of their own.
func TestNoWriteWhenNothingChanged(t *testing.T) {
	ns := env.NewNamespace(t)
	hcp := createHCP(t, awsHCP(ns, hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate, hcplinkv1beta1.LoadBalancerPublishing))
	counter := newWriteCounter(t)
	r := &Reconciler{Annotations: platforms, Client: counter}
	reconcile(t, r, hcp)
	if n := counter.writes.Load(); n != 4 {
		t.Errorf("first pass made %d writes, want 4 (three Services, one condition)", n)
	}
	for _, n := range []string{"private-router", "router", "kube-apiserver-private"} {
		giveLoadBalancer(t, ns, n)
	}
	// Someone else's annotation and label stay untouched too.
	svc := serviceNames(t, ns)["router"]
	svc.Annotations["example.com/note"] = "mine"
	svc.Labels["example.com/team"] = "net"
	if err := env.Client.Update(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	reconcile(t, r, hcp) // condition becomes True

	before := serviceNames(t, ns)
	var hcpBefore hcplinkv1beta1.HostedControlPlane
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hcp), &hcpBefore); err != nil {
		t.Fatal(err)
	}
	counter.writes.Store(0)
	reconcile(t, r, hcp)
	if n := counter.writes.Load(); n != 0 {
		t.Errorf("a pass with nothing to do made %d writes, want 0", n)
	}
	after := serviceNames(t, ns)
	for name, b := range before {
		if after[name].ResourceVersion != b.ResourceVersion {
			t.Errorf("Service %s written although nothing changed", name)
		}
		if len(after[name].Finalizers) != 1 || len(after[name].Status.LoadBalancer.Ingress) != 1 || after[name].Spec.ClusterIP == "" {
			t.Errorf("Service %s lost a field others own: %+v", name, after[name])
		}
	}
	if after["router"].Annotations["example.com/note"] != "mine" || after["router"].Labels["example.com/team"] != "net" {
		t.Error("someone else's annotation or label was removed")
	}
	var hcpAfter hcplinkv1beta1.HostedControlPlane
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hcp), &hcpAfter); err != nil {
		t.Fatal(err)
	}
	if hcpAfter.ResourceVersion != hcpBefore.ResourceVersion {
		t.Error("HostedControlPlane status written although nothing changed")
	}
	if c := condition(t, hcp); c.Status != metav1.ConditionTrue {
		t.Errorf("RoutersReady %s/%s %q, want True", c.Status, c.Reason, c.Message)
	}
}

// TestDriftIsRepaired: a router Service edited by hand is put back, keeping
// what the API server assigned.
func TestDriftIsRepaired(t *testing.T) {
	ns := env.NewNamespace(t)
	hcp := createHCP(t, awsHCP(ns, hcplinkv1beta1.AWSEndpointAccessPrivate, hcplinkv1beta1.RoutePublishing))
	r := &Reconciler{Annotations: platforms, Client: env.Client}
	reconcile(t, r, hcp)
	svc := serviceNames(t, ns)["private-router"]
	nodePort, clusterIP := svc.Spec.Ports[0].NodePort, svc.Spec.ClusterIP
	delete(svc.Annotations, awscloud.LoadBalancerInternalAnnotation)
	svc.Spec.Selector = map[string]string{"app": "elsewhere"}
	if err := env.Client.Update(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	reconcile(t, r, hcp)
	got := serviceNames(t, ns)["private-router"]
	if got.Annotations[awscloud.LoadBalancerInternalAnnotation] != "true" || got.Spec.Selector["app"] != "private-router" {
		t.Errorf("drift not repaired: annotations %v selector %v", got.Annotations, got.Spec.Selector)
	}
	if got.Spec.Ports[0].NodePort != nodePort || got.Spec.ClusterIP != clusterIP {
		t.Errorf("node port %d→%d or cluster IP %s→%s changed", nodePort, got.Spec.Ports[0].NodePort, clusterIP, got.Spec.ClusterIP)
	}
}

func TestAzure(t *testing.T) {
	tests := []struct {
		topology hcplinkv1beta1.AzureTopology
		want     []string
	}{
		{hcplinkv1beta1.AzureTopologyPrivate, []string{"private-router"}},
		{hcplinkv1beta1.AzureTopologyPublicAndPrivate, []string{"private-router", "router"}},
		{hcplinkv1beta1.AzureTopologyPublic, nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.topology), func(t *testing.T) {
			ns := env.NewNamespace(t)
			hcp := createHCP(t, azureHCP(ns, tt.topology))
			reconcile(t, &Reconciler{Annotations: platforms, Client: env.Client}, hcp)
			svcs := requireServices(t, ns, tt.want...)
			if pr := svcs["private-router"]; pr != nil && pr.Annotations[azurecloud.LoadBalancerInternalAnnotation] != "true" {
				t.Errorf("private-router annotations %v", pr.Annotations)
			}
			if len(tt.want) == 0 {
				if c := condition(t, hcp); c.Status != metav1.ConditionTrue || c.Message != noRoutersMessage {
					t.Errorf("RoutersReady %s %q", c.Status, c.Message)
				}
			}
		})
	}
}

func TestPaused(t *testing.T) {
	ns := env.NewNamespace(t)
	hcp := awsHCP(ns, hcplinkv1beta1.AWSEndpointAccessPrivate, hcplinkv1beta1.RoutePublishing)
	hcp.Spec.PausedUntil = ptr.To("2030-01-01T00:00:00Z")
	hcp = createHCP(t, hcp)
	now := time.Date(2029, 12, 31, 23, 0, 0, 0, time.UTC)
	r := &Reconciler{Annotations: platforms, Client: env.Client, Now: func() time.Time { return now }}

	res := reconcile(t, r, hcp)
	requireServices(t, ns)
	if res.RequeueAfter != time.Hour {
		t.Errorf("RequeueAfter %v, want 1h (the end of the pause)", res.RequeueAfter)
	}
	if c := condition(t, hcp); c.Status != metav1.ConditionUnknown || c.Reason != hcplinkv1beta1.ReconciliationPausedReason {
		t.Errorf("RoutersReady %s/%s %q, want Unknown/ReconciliationPaused", c.Status, c.Reason, c.Message)
	}

	// "true" pauses until it is removed; changes to the spec wait.
	updateHCP(t, hcp, func(h *hcplinkv1beta1.HostedControlPlane) { h.Spec.PausedUntil = ptr.To("true") })
	if res := reconcile(t, r, hcp); res.RequeueAfter != 0 {
		t.Errorf("RequeueAfter %v, want none", res.RequeueAfter)
	}
	requireServices(t, ns)

	// The pause ends.
	now = time.Date(2030, 1, 1, 0, 0, 1, 0, time.UTC)
	updateHCP(t, hcp, func(h *hcplinkv1beta1.HostedControlPlane) { h.Spec.PausedUntil = ptr.To("2030-01-01T00:00:00Z") })
	reconcile(t, r, hcp)
	requireServices(t, ns, "private-router")
}

// TestOtherConditionsKept: the router controller's status patch leaves the
// conditions other writers own alone.
func TestOtherConditionsKept(t *testing.T) {
	ns := env.NewNamespace(t)
	hcp := createHCP(t, awsHCP(ns, hcplinkv1beta1.AWSEndpointAccessPrivate, hcplinkv1beta1.RoutePublishing))
	other := metav1.Condition{Type: hcplinkv1beta1.HostedControlPlaneAvailableCondition, Status: metav1.ConditionTrue, Reason: "AsExpected", Message: "served", LastTransitionTime: metav1.Now()}
	meta.SetStatusCondition(&hcp.Status.Conditions, other)
	if err := env.Client.Status().Update(t.Context(), hcp); err != nil {
		t.Fatal(err)
	}
	reconcile(t, &Reconciler{Annotations: platforms, Client: env.Client}, hcp)
	var got hcplinkv1beta1.HostedControlPlane
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hcp), &got); err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, other.Type); c == nil || c.Message != "served" {
		t.Errorf("the %s condition was lost or changed: %v", other.Type, got.Status.Conditions)
	}
	if meta.FindStatusCondition(got.Status.Conditions, hcplinkv1beta1.RoutersReadyCondition) == nil {
		t.Errorf("no %s condition: %v", hcplinkv1beta1.RoutersReadyCondition, got.Status.Conditions)
	}
}

// TestForeignServiceLeftAlone: a Service named like a router that hcplink
// did not create is not deleted when the cluster does not need it.
func TestForeignServiceLeftAlone(t *testing.T) {
	ns := env.NewNamespace(t)
	foreign := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "router", Namespace: ns},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
	if err := env.Client.Create(t.Context(), foreign); err != nil {
		t.Fatal(err)
	}
	hcp := createHCP(t, awsHCP(ns, hcplinkv1beta1.AWSEndpointAccessPrivate, hcplinkv1beta1.RoutePublishing))
	reconcile(t, &Reconciler{Annotations: platforms, Client: env.Client}, hcp)
	requireServices(t, ns, "private-router", "router")
}

func TestMissingHostedControlPlane(t *testing.T) {
	r := &Reconciler{Annotations: platforms, Client: env.Client}
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Namespace: env.NewNamespace(t), Name: "gone"}})
	if err != nil || res != (ctrl.Result{}) {
		t.Errorf("Reconcile of a missing HostedControlPlane = %v, %v; want nothing", res, err)
	}
}
