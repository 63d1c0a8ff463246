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
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
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
	return reconcilekit.Observer{Name: "gcpobserver", ServiceName: hcplinkv1beta1.PrivateRouterServiceName,
		For: &hcplinkv1beta1.GCPPrivateServiceConnect{}, ControlPlaneChanges: []predicate.Predicate{predicate.GenerationChangedPredicate{}}}.Setup(mgr, o)
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

// Reconcile keeps the CR named like the Service in step with it (the
// object is named like the Service it follows, private-router).
func (o *Observer) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return ctrl.Result{}, reconcilekit.ObserverPass{
		Writer: reconcilekit.ObservedWriter{Client: o.Client, Kind: "GCPPrivateServiceConnect", FieldOwner: ObserverFieldOwner,
			CreateOptions: []client.CreateOption{client.FieldOwner(ObserverFieldOwner)}},
		New:        func() client.Object { return &hcplinkv1beta1.GCPPrivateServiceConnect{} },
		Serves:     PrivateConfigured,
		Address:    internalIP,
		AddressKey: "loadBalancerIP",
		Desired: func(hcp *hcplinkv1beta1.HostedControlPlane, ip string) client.Object {
			return &hcplinkv1beta1.GCPPrivateServiceConnect{Spec: DesiredSpec(hcp, ip)}
		},
		Changes: func(have, want client.Object) map[string]any {
			h, w := have.(*hcplinkv1beta1.GCPPrivateServiceConnect).Spec, want.(*hcplinkv1beta1.GCPPrivateServiceConnect).Spec
			spec := map[string]any{}
			if h.LoadBalancerIP != w.LoadBalancerIP {
				spec["loadBalancerIP"] = w.LoadBalancerIP
			}
			if !slices.Equal(h.ConsumerAcceptList, w.ConsumerAcceptList) {
				spec["consumerAcceptList"] = w.ConsumerAcceptList
			}
			return spec
		},
	}.Run(ctx, types.NamespacedName{Namespace: req.Namespace, Name: hcplinkv1beta1.GCPPrivateServiceConnectName})
}
