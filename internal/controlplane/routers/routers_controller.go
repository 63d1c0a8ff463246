// Package routers is the control-plane operator's router controller: it
// keeps the load-balancer Services in front of the control plane's routers
// (private-router, router, kube-apiserver-private) as the
// HostedControlPlane's endpoint access (AWS) or topology (Azure) and API
// server publishing call for, creating and deleting them as those change.
package routers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/conditions"
)

// FieldOwner is the field manager of this controller's writes.
const FieldOwner = "hcplink-routers"

// Reconciler reconciles the HostedControlPlane of its namespace into router
// Services.
type Reconciler struct {
	// Client reads (through the manager's cache, limited to the
	// control-plane namespace) and writes.
	Client client.Client
	// Now returns the current time; nil means time.Now. Tests set it to
	// check pausedUntil.
	Now func() time.Time
	// MayCreate, when set, holds back the creation of a Service that does
	// not exist yet (a load balancer, and all that follows from it) until
	// the cluster's cloud settings were validated; existing Services are
	// never removed by it.
	MayCreate func(*hcplinkv1beta1.HostedControlPlane) bool
	// Annotations give each cloud's load-balancer annotations (the
	// platform registry).
	Annotations Annotations
}

// SetupWithManager registers the controller: it reconciles a
// HostedControlPlane when its spec or annotations change and when one of
// the Services it owns changes.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("routers").
		For(&hcplinkv1beta1.HostedControlPlane{}, builder.WithPredicates(
			predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, r.gateChanged()))).
		Owns(&corev1.Service{}).
		// Many control-plane operators share one process in devenv.
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(r)
}

// Reconcile makes the router Services match the HostedControlPlane.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := ctrl.LoggerFrom(ctx)

	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if err := r.Client.Get(ctx, req.NamespacedName, hcp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !hcp.DeletionTimestamp.IsZero() {
		// The Services are owned by the HostedControlPlane: they go with it,
		// and until then the private path keeps working for cleanup.
		return ctrl.Result{}, nil
	}

	if paused, remaining := hcplinkv1beta1.PausedFor(hcp.Spec.PausedUntil, r.now()); paused {
		log.V(1).Info("Reconciliation is paused", "pausedUntil", *hcp.Spec.PausedUntil)
		cond := metav1.Condition{
			Type:    hcplinkv1beta1.RoutersReadyCondition,
			Status:  metav1.ConditionUnknown,
			Reason:  hcplinkv1beta1.ReconciliationPausedReason,
			Message: fmt.Sprintf("Reconciliation is paused until %s; the router Services are left as they are", pausedUntilText(*hcp.Spec.PausedUntil)),
		}
		if _, err := r.conditions().Apply(ctx, hcp, &hcp.Status.Conditions, cond); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: remaining}, nil
	}

	desired := DesiredServices(hcp, r.Annotations)
	actual, err := r.reconcileServices(ctx, hcp, desired)
	if err != nil {
		return ctrl.Result{}, err
	}
	cond := routersReadyCondition(desired, actual)
	if r.MayCreate != nil && !r.MayCreate(hcp) && cond.Reason == hcplinkv1beta1.WaitingForServiceReason {
		cond.Message = heldMessage
	}
	if _, err := r.conditions().Apply(ctx, hcp, &hcp.Status.Conditions, cond); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// gateChanged brings the HostedControlPlane back when the gate on creating
// its Services (MayCreate: for example its cloud's settings check, found
// valid by a status write that changes no generation) opens or closes.
func (r *Reconciler) gateChanged() predicate.Funcs {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, okOld := e.ObjectOld.(*hcplinkv1beta1.HostedControlPlane)
		n, okNew := e.ObjectNew.(*hcplinkv1beta1.HostedControlPlane)
		return okOld && okNew && r.MayCreate != nil && r.MayCreate(o) != r.MayCreate(n)
	}}
}

// reconcileServices creates, updates and deletes the router Services and
// returns those that exist afterwards, by name.
func (r *Reconciler) reconcileServices(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane, desired []*corev1.Service) (map[string]*corev1.Service, error) {
	want := make(map[string]*corev1.Service, len(desired))
	for _, svc := range desired {
		want[svc.Name] = svc
	}
	actual := map[string]*corev1.Service{}
	for _, name := range hcplinkv1beta1.RouterServiceNames {
		have := &corev1.Service{}
		if err := r.Client.Get(ctx, types.NamespacedName{Namespace: hcp.Namespace, Name: name}, have); apierrors.IsNotFound(err) {
			have = nil
		} else if err != nil {
			return nil, fmt.Errorf("reading Service %s: %w", name, err)
		}

		switch d := want[name]; {
		case d == nil && have != nil:
			if err := r.deleteService(ctx, hcp, have); err != nil {
				return nil, err
			}
		case d != nil && have == nil:
			if r.MayCreate != nil && !r.MayCreate(hcp) {
				continue // reported missing until the settings are valid
			}
			if err := r.Client.Create(ctx, d); err != nil {
				// AlreadyExists: the cache has not seen it yet; the retry
				// finds it.
				return nil, fmt.Errorf("creating Service %s: %w", name, err)
			}
			ctrl.LoggerFrom(ctx).Info("Created router Service", "service", name)
			actual[name] = d
		case d != nil && have != nil:
			if !have.DeletionTimestamp.IsZero() {
				// A Service no longer wanted a moment ago is still waiting for
				// its load balancer to go; its deletion event brings us back
				// to create the new one.
				actual[name] = have
				continue
			}
			merged := MergeService(have, d, r.Annotations.RouterAnnotationKeys())
			if !equality.Semantic.DeepEqual(have, merged) {
				if err := r.Client.Update(ctx, merged); err != nil {
					return nil, fmt.Errorf("updating Service %s: %w", name, err)
				}
				ctrl.LoggerFrom(ctx).Info("Updated router Service", "service", name)
			}
			actual[name] = merged
		}
	}
	return actual, nil
}

// deleteService deletes a router Service the cluster no longer needs, if
// it is ours (made for a HostedControlPlane, or labelled as hcplink's). It
// does not wait: the load-balancer controller's finalizer holds the Service
// until its load balancer is gone.
func (r *Reconciler) deleteService(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane, svc *corev1.Service) error {
	if !svc.DeletionTimestamp.IsZero() {
		return nil
	}
	if !ours(svc) {
		ctrl.LoggerFrom(ctx).V(1).Info("Leaving a Service that hcplink did not create", "service", svc.Name)
		return nil
	}
	err := r.Client.Delete(ctx, svc, client.Preconditions{UID: ptr.To(svc.UID)})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting Service %s, which the cluster no longer needs: %w", svc.Name, err)
	}
	ctrl.LoggerFrom(ctx).Info("Deleted router Service the cluster no longer needs", "service", svc.Name,
		"platform", hcp.Spec.Platform.Type)
	return nil
}

func ours(svc *corev1.Service) bool {
	if svc.Labels[managedByLabel] == managedByValue {
		return true
	}
	for _, ref := range svc.OwnerReferences {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err == nil && gv.Group == hcplinkv1beta1.GroupName && ref.Kind == "HostedControlPlane" {
			return true
		}
	}
	return false
}

func pausedUntilText(v string) string {
	if v == "true" {
		return "pausedUntil is removed"
	}
	return v
}

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// conditions writes this controller's condition on the HostedControlPlane.
func (r *Reconciler) conditions() conditions.Writer {
	return conditions.Writer{Client: r.Client, FieldOwner: FieldOwner, Now: r.now}
}
