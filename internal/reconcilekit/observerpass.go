package reconcilekit

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
)

// ObserverPass is an observer's pass, the same for every cloud: it keeps
// the private-link object named like the observed Service in step with
// that Service and the HostedControlPlane. What differs per cloud is what
// it serves, how the Service says where its load balancer is, and the
// object's spec.
type ObserverPass struct {
	// Kind names the object's kind (messages, logs); New makes an empty
	// one.
	Kind string
	New  func() client.Object
	// Serves reports whether the cluster has a private path of this kind.
	Serves func(hcp *hcplinkv1beta1.HostedControlPlane) bool
	// Address is where the Service's load balancer is, as the object's
	// spec records it; "" while it has none (the Service's update brings
	// the observer back).
	Address func(svc *corev1.Service) string
	// Create makes the object named name for address; Update brings obj
	// (of Kind) in step with it.
	Create func(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane, name types.NamespacedName, address string) error
	Update func(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane, obj client.Object, address string) error
}

// Run runs the pass for the Service key names.
func (p ObserverPass) Run(ctx context.Context, c client.Client, key types.NamespacedName) error {
	hcp, err := hcpref.Find(ctx, c, key.Namespace, nil)
	if err != nil {
		return err
	}
	if hcp == nil || !hcp.DeletionTimestamp.IsZero() || !p.Serves(hcp) {
		return nil // the operator deletes the object in order
	}
	obj := p.New()
	// A Service gone (endpoint access or publishing changed) takes the
	// object with it.
	svc, found, err := Observe(ctx, c, key, obj, p.Kind)
	if err != nil || svc == nil {
		return err
	}
	address := p.Address(svc)
	if address == "" {
		return nil // the Service's update brings us back
	}
	if !found {
		return p.Create(ctx, hcp, key, address)
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		return nil // an earlier one is still cleaning up
	}
	return p.Update(ctx, hcp, obj, address)
}
