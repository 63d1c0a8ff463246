package reconcilekit

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/kubepatch"
)

// ServiceController is how a management operator's service controller is
// registered: the controller that publishes a cluster's load balancer as
// a cloud's private-link service, one object of its kind per cluster,
// brought back by its own spec and by its HostedCluster.
type ServiceController struct {
	// Name names the controller.
	Name string
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
	return b.WithOptions(opts).Complete(r)
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
