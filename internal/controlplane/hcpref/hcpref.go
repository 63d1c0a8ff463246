// Package hcpref finds a control-plane namespace's HostedControlPlane and
// makes it the owner of the objects the control-plane operator creates, the
// same way for every platform.
package hcpref

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// Find returns the HostedControlPlane named by an owner reference in refs,
// or else the only one in the namespace; nil when there is none.
func Find(ctx context.Context, c client.Client, namespace string, refs []metav1.OwnerReference) (*hcplinkv1beta1.HostedControlPlane, error) {
	for _, ref := range refs {
		if ref.Kind != "HostedControlPlane" {
			continue
		}
		hcp := &hcplinkv1beta1.HostedControlPlane{}
		err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: ref.Name}, hcp)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading HostedControlPlane %s: %w", ref.Name, err)
		}
		return hcp, nil
	}
	var list hcplinkv1beta1.HostedControlPlaneList
	if err := c.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing HostedControlPlanes: %w", err)
	}
	if len(list.Items) != 1 {
		return nil, nil
	}
	return &list.Items[0], nil
}

// Controller makes hcp the controlling owner of a private-link object, so
// that the object goes with the HostedControlPlane.
func Controller(hcp *hcplinkv1beta1.HostedControlPlane) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: hcplinkv1beta1.GroupVersion.String(), Kind: "HostedControlPlane",
		Name: hcp.Name, UID: hcp.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
}
