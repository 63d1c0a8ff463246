// Package azureprivatelink is the control-plane operator's side of Azure
// Private Link: the observer that turns the private router's internal
// load-balancer Service into an AzurePrivateLinkService, and the endpoint
// controller that builds, in the customer's subscription, the Private
// Endpoint connected to the operator's Private Link Service, the private
// DNS zone with its VNet link and records, and the ExternalName Services
// of a Private cluster; and removes them, in order, on deletion.
package azureprivatelink

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// ObserverFieldOwner is the field manager of the observer's writes.
const ObserverFieldOwner = "hcplink-azure-observer"

// Observer watches the private-router Service of an Azure cluster with the
// private configuration and keeps the AzurePrivateLinkService of the same
// name: the router's internal address and the cluster's Azure settings. A
// Service that goes away takes its AzurePrivateLinkService with it.
type Observer struct {
	Client client.Client
}

// SetupWithManager registers the observer for the private-router Service,
// the HostedControlPlane and the CR.
func (o *Observer) SetupWithManager(mgr ctrl.Manager) error {
	if o.Client == nil {
		o.Client = mgr.GetClient()
	}
	return reconcilekit.Observer{Name: "azureobserver", ServiceName: hcplinkv1beta1.PrivateRouterServiceName,
		For: &hcplinkv1beta1.AzurePrivateLinkService{}, ControlPlaneChanges: []predicate.Predicate{predicate.GenerationChangedPredicate{}}}.Setup(mgr, o)
}

// internalIP is the Service's internal load-balancer address, "" while it
// has none or is not an internal load balancer.
func internalIP(svc *corev1.Service) string {
	if svc.Annotations[azurecloud.LoadBalancerInternalAnnotation] != "true" {
		return ""
	}
	if len(svc.Status.LoadBalancer.Ingress) == 0 {
		return ""
	}
	return svc.Status.LoadBalancer.Ingress[0].IP
}

// Reconcile keeps the CR named like the Service in step with it.
func (o *Observer) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return ctrl.Result{}, reconcilekit.ObserverPass{
		Writer: reconcilekit.ObservedWriter{Client: o.Client, Kind: "AzurePrivateLinkService", FieldOwner: ObserverFieldOwner,
			CreateOptions: []client.CreateOption{client.FieldOwner(ObserverFieldOwner)}},
		New:        func() client.Object { return &hcplinkv1beta1.AzurePrivateLinkService{} },
		Serves:     PrivateConfigured,
		Address:    internalIP,
		AddressKey: "loadBalancerIP",
		Desired: func(hcp *hcplinkv1beta1.HostedControlPlane, ip string) client.Object {
			return &hcplinkv1beta1.AzurePrivateLinkService{Spec: DesiredSpec(hcp, ip)}
		},
		Changes: func(have, want client.Object) map[string]any {
			return specChanges(have.(*hcplinkv1beta1.AzurePrivateLinkService).Spec, want.(*hcplinkv1beta1.AzurePrivateLinkService).Spec)
		},
	}.Run(ctx, types.NamespacedName{Namespace: req.Namespace, Name: hcplinkv1beta1.PrivateRouterServiceName})
}

// specChanges are the fields that may change (the router's address and the
// additional subscriptions) where have differs from want.
func specChanges(have, want hcplinkv1beta1.AzurePrivateLinkServiceSpec) map[string]any {
	spec := map[string]any{}
	if have.LoadBalancerIP != want.LoadBalancerIP {
		spec["loadBalancerIP"] = want.LoadBalancerIP
	}
	if !slices.Equal(have.AdditionalAllowedSubscriptions, want.AdditionalAllowedSubscriptions) {
		if len(want.AdditionalAllowedSubscriptions) == 0 {
			spec["additionalAllowedSubscriptions"] = nil
		} else {
			spec["additionalAllowedSubscriptions"] = want.AdditionalAllowedSubscriptions
		}
	}
	return spec
}

// RouterAnnotations are an Azure cluster's router Service annotations:
// internal or public, on the load-balancer configuration the operator
// placed the cluster on, when it placed it.
func RouterAnnotations(hcp *hcplinkv1beta1.HostedControlPlane, internal bool) map[string]string {
	return azurecloud.RouterAnnotations(hcp.Spec.AzureLoadBalancerConfiguration, internal)
}
