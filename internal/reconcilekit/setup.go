package reconcilekit

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// EndpointController is how a private-link endpoint controller is
// registered: its kind, the HostedControlPlane's spec (it feeds every
// object of the namespace) and the ExternalName Services it owns.
type EndpointController struct {
	// Name names the controller.
	Name string
	// For is an empty object of the kind; List an empty list of it.
	For  client.Object
	List client.ObjectList
	// StatusChanged reports whether an update of the object's status
	// written by someone else (the operator's) brings it back: the
	// controller's own status writes do not. Spec changes and the start of
	// deletion always do.
	StatusChanged func(old, new client.Object) bool
	// Workers is the worker count.
	Workers int
}

// Setup registers r as the controller.
func (e EndpointController) Setup(mgr ctrl.Manager, r reconcile.Reconciler) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(e.Name).
		For(e.For, builder.WithPredicates(SpecOrStatusChanged(e.StatusChanged))).
		Owns(&corev1.Service{}).
		// Only spec changes of the HostedControlPlane matter; its status
		// (other controllers' conditions) does not.
		Watches(&hcplinkv1beta1.HostedControlPlane{}, handler.EnqueueRequestsFromMapFunc(AllInNamespace(mgr.GetClient(), e.List)),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: e.Workers}).
		Complete(QuietWhenStale(e.Name, r))
}

// SpecOrStatusChanged passes a new generation, the start (or end) of
// deletion, and the status changes statusChanged picks.
func SpecOrStatusChanged(statusChanged func(old, new client.Object) bool) predicate.Predicate {
	return predicate.Or(
		predicate.GenerationChangedPredicate{},
		predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
			if e.ObjectOld == nil || e.ObjectNew == nil {
				return false
			}
			if e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero() {
				return true
			}
			return statusChanged != nil && statusChanged(e.ObjectOld, e.ObjectNew)
		}})
}

// AllInNamespace maps an object to a request for each object of list's
// kind in its namespace (from the cache); none when it cannot list.
func AllInNamespace(c client.Reader, list client.ObjectList) handler.MapFunc {
	return func(ctx context.Context, obj client.Object) []reconcile.Request {
		l, ok := list.DeepCopyObject().(client.ObjectList)
		if !ok {
			return nil
		}
		return RequestsInNamespace(ctx, c, l, obj.GetNamespace())
	}
}

// RequestsInNamespace lists the kind of list in namespace and returns a
// request for each object; none when it cannot list (and says so in the
// log).
func RequestsInNamespace(ctx context.Context, c client.Reader, list client.ObjectList, namespace string) []reconcile.Request {
	if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing objects to enqueue", "kind", fmt.Sprintf("%T", list), "namespace", namespace)
		return nil
	}
	var out []reconcile.Request
	_ = apimeta.EachListItem(list, func(o runtime.Object) error {
		if obj, ok := o.(client.Object); ok {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
		}
		return nil
	})
	return out
}

// Observer is how a Service observer is registered: it keeps the
// private-link object named like one Service in step with that Service
// and the HostedControlPlane.
type Observer struct {
	// Name names the controller.
	Name string
	// ServiceName is the Service observed, and the object's name.
	ServiceName string
	// For is an empty object of the kind the observer keeps.
	For client.Object
	// ControlPlaneChanges picks the HostedControlPlane's updates that
	// bring the observer back; none: all of them.
	ControlPlaneChanges []predicate.Predicate
}

// Setup registers r as the observer.
func (o Observer) Setup(mgr ctrl.Manager, r reconcile.Reconciler) error {
	named := predicate.NewPredicateFuncs(func(obj client.Object) bool { return obj.GetName() == o.ServiceName })
	toSelf := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: o.ServiceName}}}
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named(o.Name).
		For(&corev1.Service{}, builder.WithPredicates(named)).
		Watches(&hcplinkv1beta1.HostedControlPlane{}, toSelf, builder.WithPredicates(o.ControlPlaneChanges...)).
		Watches(o.For, toSelf, builder.WithPredicates(named)).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(r)
}

// OnControlPlaneSpec registers r, named name, for the HostedControlPlanes
// of the manager's namespace: their creation and each change of their
// spec (not their status, which other controllers write).
func OnControlPlaneSpec(mgr ctrl.Manager, name string, r reconcile.Reconciler) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(&hcplinkv1beta1.HostedControlPlane{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(r)
}

// StatusOf adapts a comparison of two objects of one kind to
// EndpointController.StatusChanged: objects of another kind never count as
// changed.
func StatusOf[T client.Object](changed func(old, new T) bool) func(old, new client.Object) bool {
	return func(old, new client.Object) bool {
		o, okOld := old.(T)
		n, okNew := new.(T)
		return okOld && okNew && changed(o, n)
	}
}
