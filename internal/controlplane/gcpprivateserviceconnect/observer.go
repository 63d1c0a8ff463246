// Package gcpprivateserviceconnect is the control-plane operator's side of
// GCP Private Service Connect: the observer that turns the private router's
// internal load-balancer Service into a GCPPrivateServiceConnect, and the
// endpoint controller that builds, in the customer's project, the PSC
// endpoint (an internal address and a forwarding rule targeting the
// operator's service attachment), the private Cloud DNS zone with its
// records, and the ExternalName Services of a Private cluster; and removes
// them, in order, on deletion.
package gcpprivateserviceconnect

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// ObserverFieldOwner is the field manager of the observer's writes.
const ObserverFieldOwner = "hcplink-gcp-observer"

// LoadBalancerTypeAnnotation and LoadBalancerTypeInternal make GKE's
// load-balancer controller give a Service an internal passthrough load
// balancer (https://cloud.google.com/kubernetes-engine/docs/how-to/internal-load-balancing):
// only such a router has the internal forwarding rule a service attachment
// can front.
const (
	LoadBalancerTypeAnnotation = "networking.gke.io/load-balancer-type"
	LoadBalancerTypeInternal   = "Internal"
)

// Observer watches the private-router Service of a GCP cluster served
// through Private Service Connect and keeps the GCPPrivateServiceConnect of
// the same name: the router's internal address and the cluster's GCP
// settings. A Service that goes away takes its GCPPrivateServiceConnect
// with it.
type Observer struct {
	Client client.Client
}

// SetupWithManager registers the observer for the private-router Service,
// the HostedControlPlane and the CR.
func (o *Observer) SetupWithManager(mgr ctrl.Manager) error {
	if o.Client == nil {
		o.Client = mgr.GetClient()
	}
	named := predicate.NewPredicateFuncs(func(obj client.Object) bool { return obj.GetName() == hcplinkv1beta1.PrivateRouterServiceName })
	toSelf := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, obj client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: hcplinkv1beta1.PrivateRouterServiceName}}}
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named("gcpobserver").
		For(&corev1.Service{}, builder.WithPredicates(named)).
		Watches(&hcplinkv1beta1.HostedControlPlane{}, toSelf, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Watches(&hcplinkv1beta1.GCPPrivateServiceConnect{}, toSelf, builder.WithPredicates(named)).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(o)
}

// internalIP is the Service's internal load-balancer address, "" while it
// has none or is not an internal load balancer.
func internalIP(svc *corev1.Service) string {
	if svc.Annotations[LoadBalancerTypeAnnotation] != LoadBalancerTypeInternal {
		return ""
	}
	if len(svc.Status.LoadBalancer.Ingress) == 0 {
		return ""
	}
	return svc.Status.LoadBalancer.Ingress[0].IP
}

// Reconcile keeps the CR named like the Service in step with it.
func (o *Observer) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	name := types.NamespacedName{Namespace: req.Namespace, Name: hcplinkv1beta1.GCPPrivateServiceConnectName}
	hcp, err := hcpref.Find(ctx, o.Client, req.Namespace, nil)
	if err != nil {
		return ctrl.Result{}, err
	}
	if hcp == nil || !hcp.DeletionTimestamp.IsZero() || !PrivateConfigured(hcp) {
		return ctrl.Result{}, nil // the operator deletes the CR in order
	}
	// The object is named like the Service it follows (private-router).
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{}
	svc, found, err := reconcilekit.Observe(ctx, o.Client, name, cr, "GCPPrivateServiceConnect")
	if err != nil || svc == nil {
		return ctrl.Result{}, err
	}
	if !found {
		cr = nil
	}
	ip := internalIP(svc)
	if ip == "" {
		return ctrl.Result{}, nil // the Service's update brings us back
	}
	if cr != nil && !cr.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // an earlier one is still cleaning up
	}
	want := DesiredSpec(hcp, ip)
	if cr == nil {
		return ctrl.Result{}, o.create(ctx, hcp, name, want)
	}
	return ctrl.Result{}, o.update(ctx, hcp, cr, want)
}

func (o *Observer) create(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane, name types.NamespacedName, spec hcplinkv1beta1.GCPPrivateServiceConnectSpec) error {
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{
		ObjectMeta: metav1.ObjectMeta{Name: name.Name, Namespace: name.Namespace, OwnerReferences: []metav1.OwnerReference{hcpref.Controller(hcp)}},
		Spec:       spec,
	}
	if cluster := hcp.Annotations[hcplinkv1beta1.ClusterAnnotation]; cluster != "" {
		cr.Annotations = map[string]string{hcplinkv1beta1.ClusterAnnotation: cluster}
	}
	if err := o.Client.Create(ctx, cr, client.FieldOwner(ObserverFieldOwner)); err != nil {
		return fmt.Errorf("creating GCPPrivateServiceConnect %s: %w", name.Name, err)
	}
	ctrl.LoggerFrom(ctx).Info("Created GCPPrivateServiceConnect", "gcpPrivateServiceConnect", name.Name, "loadBalancerIP", spec.LoadBalancerIP)
	return nil
}

// update merge-patches the fields that may change (the router's address
// and the accept list), only when they differ; the others are immutable
// and were set at creation.
func (o *Observer) update(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane, cr *hcplinkv1beta1.GCPPrivateServiceConnect, want hcplinkv1beta1.GCPPrivateServiceConnectSpec) error {
	spec := map[string]any{}
	if cr.Spec.LoadBalancerIP != want.LoadBalancerIP {
		spec["loadBalancerIP"] = want.LoadBalancerIP
	}
	if !slices.Equal(cr.Spec.ConsumerAcceptList, want.ConsumerAcceptList) {
		spec["consumerAcceptList"] = want.ConsumerAcceptList
	}
	patch := map[string]any{}
	if len(spec) > 0 {
		patch["spec"] = spec
	}
	meta := map[string]any{}
	if cluster := hcp.Annotations[hcplinkv1beta1.ClusterAnnotation]; cluster != "" && cr.Annotations[hcplinkv1beta1.ClusterAnnotation] != cluster {
		meta["annotations"] = map[string]any{hcplinkv1beta1.ClusterAnnotation: cluster}
	}
	if metav1.GetControllerOf(cr) == nil {
		meta["ownerReferences"] = append(slices.Clone(cr.OwnerReferences), hcpref.Controller(hcp))
	}
	if len(meta) > 0 {
		patch["metadata"] = meta
	}
	if len(patch) == 0 {
		return nil
	}
	raw, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	if err := o.Client.Patch(ctx, cr, client.RawPatch(types.MergePatchType, raw), client.FieldOwner(ObserverFieldOwner)); err != nil {
		return fmt.Errorf("updating GCPPrivateServiceConnect %s: %w", cr.Name, err)
	}
	ctrl.LoggerFrom(ctx).Info("Updated GCPPrivateServiceConnect", "gcpPrivateServiceConnect", cr.Name, "loadBalancerIP", want.LoadBalancerIP)
	return nil
}
