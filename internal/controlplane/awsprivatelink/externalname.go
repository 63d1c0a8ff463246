package awsprivatelink

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
	"github.com/hcplink/hcplink/internal/controlplane/routers"
)

// ExternalName Services that point Route hostnames of a non-public
// cluster at the private endpoint, for external-dns.
const (
	KubeAPIServerPrivateExternalService = "kube-apiserver-private-external"
	OAuthPrivateExternalService         = "oauth-private-external"
	// ExternalDNSHostnameAnnotation tells external-dns which name to serve.
	ExternalDNSHostnameAnnotation = "external-dns.alpha.kubernetes.io/hostname"
)

// DesiredExternalNames returns the ExternalName Services wanted, by name,
// with the hostname each serves: only on a cluster that is not public, for
// the API server and OAuth when they are Routes with hostnames.
func DesiredExternalNames(hcp *hcplinkv1beta1.HostedControlPlane) map[string]string {
	out := map[string]string{}
	if hcp.Spec.Platform.IsPublic() {
		return out
	}
	for svc, name := range map[hcplinkv1beta1.ServiceType]string{
		hcplinkv1beta1.APIServer:   KubeAPIServerPrivateExternalService,
		hcplinkv1beta1.OAuthServer: OAuthPrivateExternalService,
	} {
		s, _ := hcplinkv1beta1.PublishingStrategyFor(hcp.Spec.Services, svc)
		if s.Type == hcplinkv1beta1.RoutePublishing && s.Route != nil && s.Route.Hostname != "" {
			out[name] = s.Route.Hostname
		}
	}
	return out
}

// reconcileExternalNames keeps the ExternalName Services (private-router
// CR only), compare before write; those not wanted are deleted.
func (r *Reconciler) reconcileExternalNames(ctx context.Context, s *scope, target string) error {
	if s.cr.Name != routers.PrivateRouterServiceName {
		return nil
	}
	want := DesiredExternalNames(s.hcp)
	for _, name := range []string{KubeAPIServerPrivateExternalService, OAuthPrivateExternalService} {
		have := &corev1.Service{}
		err := r.Client.Get(ctx, types.NamespacedName{Namespace: s.cr.Namespace, Name: name}, have)
		if apierrors.IsNotFound(err) {
			have = nil
		} else if err != nil {
			return fmt.Errorf("reading Service %s: %w", name, err)
		}
		hostname, wanted := want[name]
		if !wanted {
			if have != nil && metav1.IsControlledBy(have, s.cr) {
				if err := r.Client.Delete(ctx, have, client.Preconditions{UID: ptr.To(have.UID)}); client.IgnoreNotFound(err) != nil {
					return fmt.Errorf("deleting Service %s: %w", name, err)
				}
				ctrl.LoggerFrom(ctx).Info("Deleted ExternalName Service", "service", name)
			}
			continue
		}
		if have == nil {
			svc := &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.cr.Namespace,
					Annotations: map[string]string{ExternalDNSHostnameAnnotation: hostname},
					OwnerReferences: []metav1.OwnerReference{{APIVersion: hcplinkv1beta1.GroupVersion.String(), Kind: "AWSEndpointService",
						Name: s.cr.Name, UID: s.cr.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
				Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: target},
			}
			if err := r.Client.Create(ctx, svc); err != nil {
				return fmt.Errorf("creating Service %s: %w", name, err)
			}
			ctrl.LoggerFrom(ctx).Info("Created ExternalName Service", "service", name, "hostname", hostname)
			continue
		}
		if !metav1.IsControlledBy(have, s.cr) {
			continue // not ours
		}
		if have.Spec.Type == corev1.ServiceTypeExternalName && have.Spec.ExternalName == target && have.Annotations[ExternalDNSHostnameAnnotation] == hostname {
			continue
		}
		patch := client.MergeFrom(have.DeepCopy())
		have.Spec.Type, have.Spec.ExternalName = corev1.ServiceTypeExternalName, target
		if have.Annotations == nil {
			have.Annotations = map[string]string{}
		}
		have.Annotations[ExternalDNSHostnameAnnotation] = hostname
		if err := r.Client.Patch(ctx, have, patch); err != nil {
			return fmt.Errorf("updating Service %s: %w", name, err)
		}
	}
	return nil
}
