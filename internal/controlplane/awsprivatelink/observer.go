// Package awsprivatelink is the control-plane operator's side of AWS
// PrivateLink: observers that turn the private load-balancer Services into
// AWSEndpointServices, the endpoint controller that builds the VPC
// endpoint, its security group and DNS records in the customer's VPC, a
// sweeper for resources tagged for the cluster that no object claims, and
// the final sweep of the customer account when the cluster is deleted
// (CloudCleanupComplete). Every cloud call goes through the providers in
// internal/cloud/aws; delays come from the shared outcome policy.
package awsprivatelink

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// ObserverFieldOwner is the field manager of the observers' writes.
const ObserverFieldOwner = "hcplink-aws-observer"

// Observer watches one private load-balancer Service (private-router or
// kube-apiserver-private) and keeps the AWSEndpointService of the same
// name: its network load balancer name and the cluster's resource tags. A
// Service that goes away takes its AWSEndpointService with it.
type Observer struct {
	Client client.Client
	// ServiceName is the Service observed and the name of the CR.
	ServiceName string
}

// SetupWithManager registers the observer for its Service, the
// HostedControlPlane and the CR.
func (o *Observer) SetupWithManager(mgr ctrl.Manager) error {
	if o.Client == nil {
		o.Client = mgr.GetClient()
	}
	return reconcilekit.Observer{Name: "awsobserver-" + o.ServiceName, ServiceName: o.ServiceName,
		For: &hcplinkv1beta1.AWSEndpointService{}}.Setup(mgr, o)
}

// NLBNameFromHostname returns the load balancer's name from its DNS name:
// the first label minus its last "-segment" (the random suffix AWS adds); a
// label without "-" is used whole.
func NLBNameFromHostname(hostname string) string {
	label, _, _ := strings.Cut(hostname, ".")
	if i := strings.LastIndex(label, "-"); i > 0 {
		return label[:i]
	}
	return label
}

// Reconcile keeps the CR named like the Service in step with it. Its
// creations go under the client's default field manager, its patches under
// ObserverFieldOwner.
func (o *Observer) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return ctrl.Result{}, reconcilekit.ObserverPass{
		Writer: reconcilekit.ObservedWriter{Client: o.Client, Kind: "AWSEndpointService", FieldOwner: ObserverFieldOwner},
		New:    func() client.Object { return &hcplinkv1beta1.AWSEndpointService{} },
		Serves: func(hcp *hcplinkv1beta1.HostedControlPlane) bool {
			return hcp.Spec.Platform.Type == hcplinkv1beta1.AWSPlatform
		},
		Address:    loadBalancerName,
		AddressKey: "networkLoadBalancer",
		Desired: func(hcp *hcplinkv1beta1.HostedControlPlane, nlb string) client.Object {
			return &hcplinkv1beta1.AWSEndpointService{Spec: hcplinkv1beta1.AWSEndpointServiceSpec{NetworkLoadBalancerName: nlb, ResourceTags: resourceTags(hcp)}}
		},
		Changes: func(have, want client.Object) map[string]any {
			h, w := have.(*hcplinkv1beta1.AWSEndpointService).Spec, want.(*hcplinkv1beta1.AWSEndpointService).Spec
			spec := map[string]any{}
			if h.NetworkLoadBalancerName != w.NetworkLoadBalancerName {
				spec["networkLoadBalancerName"] = w.NetworkLoadBalancerName
			}
			if !equality.Semantic.DeepEqual(nonNil(h.ResourceTags), nonNil(w.ResourceTags)) {
				spec["resourceTags"] = w.ResourceTags
			}
			return spec
		},
	}.Run(ctx, types.NamespacedName{Namespace: req.Namespace, Name: o.ServiceName})
}

// loadBalancerName is the network load balancer's name from the Service's
// hostname, "" while it has none.
func loadBalancerName(svc *corev1.Service) string {
	if len(svc.Status.LoadBalancer.Ingress) == 0 || svc.Status.LoadBalancer.Ingress[0].Hostname == "" {
		return ""
	}
	return NLBNameFromHostname(svc.Status.LoadBalancer.Ingress[0].Hostname)
}

// resourceTags are the cluster's AWS resource tags.
func resourceTags(hcp *hcplinkv1beta1.HostedControlPlane) []hcplinkv1beta1.AWSResourceTag {
	if hcp.Spec.Platform.AWS == nil {
		return nil
	}
	return hcp.Spec.Platform.AWS.ResourceTags
}

func nonNil(tags []hcplinkv1beta1.AWSResourceTag) []hcplinkv1beta1.AWSResourceTag {
	if tags == nil {
		return []hcplinkv1beta1.AWSResourceTag{}
	}
	return tags
}
