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
	// Writer creates and patches the object (its Kind names it).
	Writer ObservedWriter
	// New makes an empty object of the kind.
	New func() client.Object
	// Serves reports whether the cluster has a private path of this kind.
	Serves func(hcp *hcplinkv1beta1.HostedControlPlane) bool
	// Address is where the Service's load balancer is, as the object's
	// spec records it; "" while it has none (the Service's update brings
	// the observer back). AddressKey names it in the log.
	Address    func(svc *corev1.Service) string
	AddressKey string
	// Desired is the object the observer wants for address: its spec (the
	// pass names it and sets its owner and cluster).
	Desired func(hcp *hcplinkv1beta1.HostedControlPlane, address string) client.Object
	// Changes are the spec fields (JSON names) of have that differ from
	// want's, with want's values; the others are immutable and were set at
	// creation.
	Changes func(have, want client.Object) map[string]any
}

// Run runs the pass for the Service key names.
func (p ObserverPass) Run(ctx context.Context, key types.NamespacedName) error {
	c := p.Writer.Client
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
	svc, found, err := Observe(ctx, c, key, obj, p.Writer.Kind)
	if err != nil || svc == nil {
		return err
	}
	address := p.Address(svc)
	if address == "" {
		return nil // the Service's update brings us back
	}
	if found && !obj.GetDeletionTimestamp().IsZero() {
		return nil // an earlier one is still cleaning up
	}
	want := p.Desired(hcp, address)
	if !found {
		want.SetName(key.Name)
		want.SetNamespace(key.Namespace)
		return p.Writer.Create(ctx, hcp, want, p.AddressKey, address)
	}
	return p.Writer.Patch(ctx, hcp, obj, p.Changes(obj, want), p.AddressKey, address)
}
