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

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
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

// Reconcile keeps the CR named like the Service in step with it.
func (o *Observer) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	name := types.NamespacedName{Namespace: req.Namespace, Name: o.ServiceName}
	hcp, err := hcpref.Find(ctx, o.Client, req.Namespace, nil)
	if err != nil {
		return ctrl.Result{}, err
	}
	if hcp == nil || !hcp.DeletionTimestamp.IsZero() || hcp.Spec.Platform.Type != hcplinkv1beta1.AWSPlatform {
		return ctrl.Result{}, nil // the operator deletes the CRs in order
	}

	cr := &hcplinkv1beta1.AWSEndpointService{}
	// A Service gone (endpoint access or publishing changed) takes the CR
	// with it.
	svc, found, err := reconcilekit.Observe(ctx, o.Client, name, cr, "AWSEndpointService")
	if err != nil || svc == nil {
		return ctrl.Result{}, err
	}
	if !found {
		cr = nil
	}
	if len(svc.Status.LoadBalancer.Ingress) == 0 || svc.Status.LoadBalancer.Ingress[0].Hostname == "" {
		return ctrl.Result{}, nil // the Service's update brings us back
	}
	if cr != nil && !cr.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // an earlier one is still cleaning up
	}

	nlb := NLBNameFromHostname(svc.Status.LoadBalancer.Ingress[0].Hostname)
	var tags []hcplinkv1beta1.AWSResourceTag
	if hcp.Spec.Platform.AWS != nil {
		tags = hcp.Spec.Platform.AWS.ResourceTags
	}
	// The observer's creations go under the client's default field
	// manager, its patches under ObserverFieldOwner.
	w := reconcilekit.ObservedWriter{Client: o.Client, Kind: "AWSEndpointService", FieldOwner: ObserverFieldOwner}
	if cr == nil {
		cr = &hcplinkv1beta1.AWSEndpointService{
			ObjectMeta: metav1.ObjectMeta{Name: o.ServiceName, Namespace: req.Namespace},
			Spec:       hcplinkv1beta1.AWSEndpointServiceSpec{NetworkLoadBalancerName: nlb, ResourceTags: tags},
		}
		return ctrl.Result{}, w.Create(ctx, hcp, cr, "networkLoadBalancer", nlb)
	}

	// Merge-patch only the fields the observer owns, only when they differ.
	spec := map[string]any{}
	if cr.Spec.NetworkLoadBalancerName != nlb {
		spec["networkLoadBalancerName"] = nlb
	}
	if !equality.Semantic.DeepEqual(nonNil(cr.Spec.ResourceTags), nonNil(tags)) {
		spec["resourceTags"] = tags
	}
	return ctrl.Result{}, w.Patch(ctx, hcp, cr, spec, "networkLoadBalancer", nlb)
}

func nonNil(tags []hcplinkv1beta1.AWSResourceTag) []hcplinkv1beta1.AWSResourceTag {
	if tags == nil {
		return []hcplinkv1beta1.AWSResourceTag{}
	}
	return tags
}
