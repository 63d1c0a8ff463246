package reconcilekit

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/kubepatch"
	"github.com/hcplink/hcplink/internal/outcome"
)

// ServiceController is how a management operator's service controller is
// registered: the controller that publishes a cluster's load balancer as
// a cloud's private-link service, one object of its kind per cluster,
// brought back by its own spec and by its HostedCluster.
type ServiceController struct {
	// Name names the controller; Kind names the object's kind (logs).
	Name string
	Kind string
	// For is an empty object of the kind; List an empty list of it.
	For  client.Object
	List client.ObjectList
	// AlsoChanged picks the further updates of the object that bring it
	// back (beyond those ObjectChanged always passes); nil: none.
	AlsoChanged func(old, new client.Object) bool
	// Platform is the HostedCluster's platform spec of the controller's
	// cloud: a change of it brings the cluster's objects back.
	Platform func(*hcplinkv1beta1.HostedCluster) any
	// Workers is the worker count when the options name none.
	Workers int
	// Watching adds the watches only this cloud's controller has; nil:
	// none.
	Watching func(*builder.Builder) *builder.Builder
}

// Setup registers r as the controller.
func (s ServiceController) Setup(mgr ctrl.Manager, opts controller.Options, r reconcile.Reconciler) error {
	if opts.MaxConcurrentReconciles == 0 {
		opts.MaxConcurrentReconciles = s.Workers
	}
	b := ctrl.NewControllerManagedBy(mgr).
		Named(s.Name).
		For(s.For, builder.WithPredicates(ObjectChanged(s.AlsoChanged))).
		Watches(&hcplinkv1beta1.HostedCluster{}, handler.EnqueueRequestsFromMapFunc(s.ForHostedCluster(mgr.GetClient())),
			builder.WithPredicates(HostedClusterChanged(s.Platform)))
	if s.Watching != nil {
		b = s.Watching(b)
	}
	return b.WithOptions(opts).Complete(QuietWhenStale(s.Name, r))
}

// ForHostedCluster maps a HostedCluster to the objects of the kind in its
// control-plane namespace.
func (s ServiceController) ForHostedCluster(c client.Reader) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		return s.InControlPlaneNamespace(ctx, c, o.GetNamespace(), o.GetName())
	}
}

// InControlPlaneNamespace returns a request for each object of the kind in
// the control-plane namespace of the cluster namespace/name.
func (s ServiceController) InControlPlaneNamespace(ctx context.Context, c client.Reader, namespace, name string) []reconcile.Request {
	l, ok := s.List.DeepCopyObject().(client.ObjectList)
	if !ok {
		return nil
	}
	return RequestsInNamespace(ctx, c, l, hcplinkv1beta1.HostedControlPlaneNamespace(namespace, name))
}

// ObjectChanged skips status writes (the management operator's and the
// control-plane operator's) and passes what matters to a service
// controller: spec, deletion, finalizers (the control-plane operator's
// going away unblocks deletion), the cluster annotation, and what also
// picks.
func ObjectChanged(also func(old, new client.Object) bool) predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, n := e.ObjectOld, e.ObjectNew
			return o.GetGeneration() != n.GetGeneration() ||
				!o.GetDeletionTimestamp().Equal(n.GetDeletionTimestamp()) ||
				!slices.Equal(o.GetFinalizers(), n.GetFinalizers()) ||
				o.GetAnnotations()[hcplinkv1beta1.ClusterAnnotation] != n.GetAnnotations()[hcplinkv1beta1.ClusterAnnotation] ||
				(also != nil && also(o, n))
		},
	}
}

// HostedClusterChanged passes the HostedCluster's changes that alter what
// a service controller writes: its cloud's platform spec (allowed
// principals, subscriptions or projects reach the service in the pass this
// event starts, not at the next drift check), pause, deletion.
func HostedClusterChanged(platform func(*hcplinkv1beta1.HostedCluster) any) predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*hcplinkv1beta1.HostedCluster)
			n, ok2 := e.ObjectNew.(*hcplinkv1beta1.HostedCluster)
			if !ok1 || !ok2 {
				return true
			}
			return !equality.Semantic.DeepEqual(platform(o), platform(n)) ||
				!equality.Semantic.DeepEqual(o.Spec.PausedUntil, n.Spec.PausedUntil) ||
				!o.DeletionTimestamp.Equal(n.DeletionTimestamp)
		},
	}
}

// HostedClusterOf finds the HostedCluster of a service controller's object
// through its hcplink.io/cluster annotation, written on the object when
// missing (from its namespace's annotation, else by matching control-plane
// namespaces); nil when there is none.
func HostedClusterOf(ctx context.Context, c client.Client, obj client.Object) (*hcplinkv1beta1.HostedCluster, error) {
	value, ok := obj.GetAnnotations()[hcplinkv1beta1.ClusterAnnotation]
	if !ok {
		var err error
		if value, ok, err = clusterOfNamespace(ctx, c, obj.GetNamespace()); err != nil || !ok {
			return nil, err
		}
		patch := map[string]any{"metadata": map[string]any{"annotations": map[string]any{hcplinkv1beta1.ClusterAnnotation: value}}}
		if err := kubepatch.Merge(ctx, c, obj, false, patch); err != nil {
			return nil, fmt.Errorf("writing the cluster annotation: %w", err)
		}
	}
	namespace, name, ok := hcplinkv1beta1.ParseClusterAnnotation(value)
	if !ok {
		return nil, nil
	}
	hc := &hcplinkv1beta1.HostedCluster{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, hc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading HostedCluster %s: %w", value, err)
	}
	return hc, nil
}

// clusterOfNamespace is the cluster annotation value of a control-plane
// namespace: its own annotation, else the HostedCluster whose control-plane
// namespace it is.
func clusterOfNamespace(ctx context.Context, c client.Client, namespace string) (string, bool, error) {
	ns := &corev1.Namespace{}
	if err := c.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil && !apierrors.IsNotFound(err) {
		return "", false, fmt.Errorf("reading namespace %s: %w", namespace, err)
	}
	if v, ok := ns.Annotations[hcplinkv1beta1.ClusterAnnotation]; ok {
		return v, true, nil
	}
	list := &hcplinkv1beta1.HostedClusterList{}
	if err := c.List(ctx, list); err != nil {
		return "", false, fmt.Errorf("listing HostedClusters: %w", err)
	}
	for _, hc := range list.Items {
		if hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name) == namespace {
			return hcplinkv1beta1.ClusterAnnotationValue(hc.Namespace, hc.Name), true, nil
		}
	}
	return "", false, nil
}

// ServiceStep is where a service controller's pass goes after its start.
type ServiceStep int

const (
	// StepOver: the pass is over (the object is gone, its cluster is not
	// served, or paused): return the start's Result and Err.
	StepOver ServiceStep = iota
	// StepDelete: the object is deleting: run the deletion.
	StepDelete
	// StepClusterMissing: the HostedCluster the object names does not
	// exist while the operator's finalizer holds the object: say so
	// (ClusterMissing).
	StepClusterMissing
	// StepReconcile: the cluster is served and the finalizer is on the
	// object: run the phases.
	StepReconcile
)

// ServiceStart is the start of a service controller's pass.
type ServiceStart struct {
	Step ServiceStep
	// Ctx carries the logger naming the object.
	Ctx context.Context
	// HostedCluster is the object's cluster; nil when there is none.
	HostedCluster *hcplinkv1beta1.HostedCluster
	Result        ctrl.Result
	Err           error
}

// Start is the start of a service controller's pass, the same for every
// cloud: it reads the object into obj (gone: over), finds its HostedCluster,
// then picks the step: deletion; a missing cluster while the operator's
// finalizer holds the object; nothing to do for a cluster not served
// (served false: never private on this cloud, or nothing to create now);
// a paused cluster, looked at again when the pause ends; else the phases,
// the operator's finalizer added first.
func (s ServiceController) Start(ctx context.Context, c client.Client, key types.NamespacedName, obj client.Object,
	served func(*hcplinkv1beta1.HostedCluster) bool, now time.Time) ServiceStart {
	if err := c.Get(ctx, key, obj); err != nil {
		return ServiceStart{Ctx: ctx, Err: client.IgnoreNotFound(err)}
	}
	log := ctrl.LoggerFrom(ctx).WithValues(logKey(s.Kind), key)
	ctx = ctrl.LoggerInto(ctx, log)
	hc, err := HostedClusterOf(ctx, c, obj)
	switch {
	case err != nil:
		return ServiceStart{Ctx: ctx, Err: err}
	case !obj.GetDeletionTimestamp().IsZero():
		return ServiceStart{Step: StepDelete, Ctx: ctx, HostedCluster: hc}
	case hc == nil && controllerutil.ContainsFinalizer(obj, hcplinkv1beta1.OperatorFinalizer):
		return ServiceStart{Step: StepClusterMissing, Ctx: ctx}
	case hc == nil || !served(hc):
		// Never served, or nothing to create: deletion still cleans up
		// what exists.
		return ServiceStart{Ctx: ctx, HostedCluster: hc}
	}
	if paused, remaining := hcplinkv1beta1.PausedFor(hc.Spec.PausedUntil, now); paused {
		log.V(1).Info("reconciliation paused", "pausedUntil", *hc.Spec.PausedUntil)
		return ServiceStart{Ctx: ctx, HostedCluster: hc, Result: ctrl.Result{RequeueAfter: remaining}}
	}
	if !controllerutil.ContainsFinalizer(obj, hcplinkv1beta1.OperatorFinalizer) {
		if err := kubepatch.Finalizers(ctx, c, obj, func() { controllerutil.AddFinalizer(obj, hcplinkv1beta1.OperatorFinalizer) }); err != nil {
			return ServiceStart{Ctx: ctx, HostedCluster: hc, Err: err}
		}
	}
	return ServiceStart{Step: StepReconcile, Ctx: ctx, HostedCluster: hc}
}

// ClusterMissing is the outcome of an object whose HostedCluster does not
// exist: a wait for it (its creation, or the object's deletion, is an
// event).
func ClusterMissing() outcome.Outcome {
	return outcome.WaitForEvent(hcplinkv1beta1.HostedClusterNotFoundReason,
		"The HostedCluster named by the "+hcplinkv1beta1.ClusterAnnotation+" annotation does not exist.")
}

// DeletionStart is the start of a service controller's deletion, the same
// for every cloud: over (with the result to return) when the operator's
// finalizer is gone (forget then drops what the controller remembers of
// the object) or the cluster's pause holds deletion too (looked at again
// when it ends). hc is nil when the cluster is gone: deletion then goes on
// from the object alone.
func DeletionStart(obj client.Object, hc *hcplinkv1beta1.HostedCluster, now time.Time, forget func()) (res ctrl.Result, over bool) {
	if !controllerutil.ContainsFinalizer(obj, hcplinkv1beta1.OperatorFinalizer) {
		forget()
		return ctrl.Result{}, true
	}
	if hc != nil {
		if paused, remaining := hcplinkv1beta1.PausedFor(hc.Spec.PausedUntil, now); paused {
			return ctrl.Result{RequeueAfter: remaining}, true
		}
	}
	return ctrl.Result{}, false
}

// WaitsForControlPlane reports whether a deleting object still carries the
// control-plane operator's finalizer: its cleanup of the customer side
// comes before the service's.
func WaitsForControlPlane(obj client.Object) bool {
	return controllerutil.ContainsFinalizer(obj, hcplinkv1beta1.ControlPlaneFinalizer)
}
