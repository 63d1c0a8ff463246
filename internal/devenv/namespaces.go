package devenv

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// namespaceFinalizer stands in for kube-controller-manager's namespace
// controller, which envtest does not run: it empties a terminating namespace
// and then finalizes it, so that namespace deletion completes as it does on
// a real cluster. Objects with finalizers stay until their owners let go,
// exactly as there.
type namespaceFinalizer struct {
	client client.Client
}

// namespacedKinds are the kinds hcplink and its operators put in namespaces.
func namespacedKinds() []client.ObjectList {
	return []client.ObjectList{
		&hcplinkv1beta1.AWSEndpointServiceList{}, &hcplinkv1beta1.AzurePrivateLinkServiceList{}, &hcplinkv1beta1.GCPPrivateServiceConnectList{},
		&hcplinkv1beta1.HostedControlPlaneList{}, &hcplinkv1beta1.NodePoolList{}, &hcplinkv1beta1.HostedClusterList{},
		&corev1.ServiceList{}, &appsv1.DeploymentList{}, &corev1.SecretList{}, &corev1.ConfigMapList{},
		&corev1.ServiceAccountList{}, &rbacv1.RoleList{}, &rbacv1.RoleBindingList{}, &corev1.EventList{},
		&coordinationv1.LeaseList{},
	}
}

// remainingPoll is how often a terminating namespace is looked at again
// while objects in it wait for their finalizers.
const remainingPoll = 250 * time.Millisecond

func (r *namespaceFinalizer) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("devenv-namespaces").For(&corev1.Namespace{}).Complete(r)
}

func (r *namespaceFinalizer) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var ns corev1.Namespace
	if err := r.client.Get(ctx, req.NamespacedName, &ns); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if ns.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	remaining := 0
	for _, list := range namespacedKinds() {
		if err := r.client.List(ctx, list, client.InNamespace(ns.Name)); err != nil {
			return ctrl.Result{}, fmt.Errorf("listing %T in %s: %w", list, ns.Name, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return ctrl.Result{}, err
		}
		for _, item := range items {
			obj := item.(client.Object)
			remaining++
			if obj.GetDeletionTimestamp().IsZero() {
				if err := r.client.Delete(ctx, obj, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
					return ctrl.Result{}, err
				}
			}
		}
	}
	if remaining > 0 {
		return ctrl.Result{RequeueAfter: remainingPoll}, nil
	}
	ns.Spec.Finalizers = nil
	if err := r.client.SubResource("finalize").Update(ctx, &ns); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("finalizing namespace %s: %w", ns.Name, err)
	}
	return ctrl.Result{}, nil
}
