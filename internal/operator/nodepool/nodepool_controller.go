// Package nodepool is the management operator's NodePool controller. It
// reports in each NodePool's ValidConfiguration condition whether the
// NodePool can be used: its spec.clusterName must name a HostedCluster in
// the NodePool's namespace, on the same platform. A NodePool whose cluster
// does not exist (yet, or any more: NodePools outlive their cluster) says
// so instead of carrying no status at all. The HostedCluster controller
// copies the subnets of a cluster's NodePools into its HostedControlPlane;
// this controller only reports.
package nodepool

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// ControllerName names the controller (logs, metrics).
const ControllerName = "nodepool"

// FieldOwner is the field manager of the conditions this controller
// writes on NodePools.
const FieldOwner = "hcplink-operator-nodepool"

// Reconciler reports NodePools' ValidConfiguration.
//
// +kubebuilder:rbac:groups=hcplink.io,resources=nodepools,verbs=get;list;watch
// +kubebuilder:rbac:groups=hcplink.io,resources=nodepools/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=hcplink.io,resources=hostedclusters,verbs=get;list;watch
type Reconciler struct {
	// Client reads (through the manager's cache) and writes.
	Client client.Client
	// Platforms check what each cloud asks more of a NodePool
	// (Platform.ValidateNodePool); nil checks nothing more.
	Platforms *platform.Registry
	// Now stamps condition transitions; nil is the wall clock.
	Now func() time.Time
}

// SetupWithManager registers the controller. opts may set
// SkipNameValidation or MaxConcurrentReconciles.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		// Spec changes only: the controller's own status writes do not
		// bring the NodePool back.
		For(&hcplinkv1beta1.NodePool{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// A cluster appearing or going changes its NodePools' validity.
		Watches(&hcplinkv1beta1.HostedCluster{}, handler.EnqueueRequestsFromMapFunc(r.nodePoolsOf),
			builder.WithPredicates(predicate.Funcs{UpdateFunc: func(event.UpdateEvent) bool { return false }})).
		WithOptions(opts).
		Complete(r)
}

// nodePoolsOf maps a HostedCluster to the NodePools that name it.
func (r *Reconciler) nodePoolsOf(ctx context.Context, o client.Object) []reconcile.Request {
	list := &hcplinkv1beta1.NodePoolList{}
	if err := r.Client.List(ctx, list, client.InNamespace(o.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing NodePools", "namespace", o.GetNamespace())
		return nil
	}
	var out []reconcile.Request
	for _, np := range list.Items {
		if np.Spec.ClusterName == o.GetName() {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: np.Namespace, Name: np.Name}})
		}
	}
	return out
}

// Reconcile writes one NodePool's ValidConfiguration.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	np := &hcplinkv1beta1.NodePool{}
	if err := r.Client.Get(ctx, req.NamespacedName, np); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !np.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	hc := &hcplinkv1beta1.HostedCluster{}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: np.Namespace, Name: np.Spec.ClusterName}, hc); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, fmt.Errorf("reading HostedCluster %s/%s: %w", np.Namespace, np.Spec.ClusterName, err)
		}
		hc = nil
	}
	w := conditions.Writer{Client: r.Client, FieldOwner: FieldOwner,
		Types: []string{hcplinkv1beta1.NodePoolValidConfigurationCondition}, Now: r.Now}
	if _, err := w.Apply(ctx, np, &np.Status.Conditions, validConfiguration(np, hc, r.Platforms)); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// validConfiguration is the NodePool's ValidConfiguration given its
// cluster (nil when it does not exist) and its platform's own check.
func validConfiguration(np *hcplinkv1beta1.NodePool, hc *hcplinkv1beta1.HostedCluster, platforms *platform.Registry) metav1.Condition {
	c := metav1.Condition{Type: hcplinkv1beta1.NodePoolValidConfigurationCondition, Status: metav1.ConditionFalse}
	switch {
	case hc == nil:
		c.Reason = hcplinkv1beta1.HostedClusterNotFoundReason
		c.Message = fmt.Sprintf("spec.clusterName is %s, but there is no HostedCluster %s in namespace %s; create the cluster, or delete this NodePool if its cluster was deleted",
			np.Spec.ClusterName, np.Spec.ClusterName, np.Namespace)
	case hc.Spec.Platform.Type != np.Spec.Platform.Type:
		c.Reason = hcplinkv1beta1.PlatformMismatchReason
		c.Message = fmt.Sprintf("spec.platform.type is %s, but HostedCluster %s runs on %s; a NodePool must be on its cluster's platform",
			np.Spec.Platform.Type, hc.Name, hc.Spec.Platform.Type)
	default:
		if p := platforms.ForType(np.Spec.Platform.Type); p != nil && p.ValidateNodePool != nil {
			if problem := p.ValidateNodePool(np, hc); problem != nil {
				c.Reason, c.Message = problem.Reason, problem.Message
				return c
			}
		}
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason, hcplinkv1beta1.AllIsWellMessage
	}
	return c
}
