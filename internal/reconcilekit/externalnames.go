package reconcilekit

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// ExternalNames keeps the ExternalName Services of a private cluster
// pointing at target, owned by owner (a private-link object of kind): want
// maps each wanted Service to its external-dns hostname. A wanted Service
// is created, or corrected when it reads differently; one not wanted is
// deleted when it is ours. A Service of the name that is not ours is left
// alone. want nil deletes all of ours.
func ExternalNames(ctx context.Context, c client.Client, owner client.Object, kind string, want map[string]string, target string) error {
	for _, name := range hcplinkv1beta1.PrivateExternalServiceNames {
		have := &corev1.Service{}
		err := c.Get(ctx, types.NamespacedName{Namespace: owner.GetNamespace(), Name: name}, have)
		if apierrors.IsNotFound(err) {
			have = nil
		} else if err != nil {
			return fmt.Errorf("reading Service %s: %w", name, err)
		}
		hostname, wanted := want[name]
		switch {
		case !wanted:
			if have != nil && metav1.IsControlledBy(have, owner) {
				if err := c.Delete(ctx, have, client.Preconditions{UID: ptr.To(have.UID)}); client.IgnoreNotFound(err) != nil {
					return fmt.Errorf("deleting Service %s: %w", name, err)
				}
				ctrl.LoggerFrom(ctx).Info("Deleted ExternalName Service", "service", name)
			}
		case have == nil:
			svc := &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: owner.GetNamespace(),
					Annotations: map[string]string{hcplinkv1beta1.ExternalDNSHostnameAnnotation: hostname},
					OwnerReferences: []metav1.OwnerReference{{APIVersion: hcplinkv1beta1.GroupVersion.String(), Kind: kind,
						Name: owner.GetName(), UID: owner.GetUID(), Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
				Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: target},
			}
			if err := c.Create(ctx, svc); err != nil {
				return fmt.Errorf("creating Service %s: %w", name, err)
			}
			ctrl.LoggerFrom(ctx).Info("Created ExternalName Service", "service", name, "hostname", hostname)
		case !metav1.IsControlledBy(have, owner):
			// not ours: left alone
		case have.Spec.Type == corev1.ServiceTypeExternalName && have.Spec.ExternalName == target && have.Annotations[hcplinkv1beta1.ExternalDNSHostnameAnnotation] == hostname:
			// as wanted
		default:
			patch := client.MergeFrom(have.DeepCopy())
			have.Spec.Type, have.Spec.ExternalName = corev1.ServiceTypeExternalName, target
			if have.Annotations == nil {
				have.Annotations = map[string]string{}
			}
			have.Annotations[hcplinkv1beta1.ExternalDNSHostnameAnnotation] = hostname
			if err := c.Patch(ctx, have, patch); err != nil {
				return fmt.Errorf("updating Service %s: %w", name, err)
			}
		}
	}
	return nil
}
