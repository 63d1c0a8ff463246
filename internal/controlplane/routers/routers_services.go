package routers

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// Annotations names the load-balancer annotations of a cluster's router
// Services, per cloud: the control-plane operator's platform registry.
type Annotations interface {
	// RouterAnnotations are the annotations of hcp's internal or public
	// router Service.
	RouterAnnotations(hcp *hcplinkv1beta1.HostedControlPlane, internal bool) map[string]string
	// RouterAnnotationKeys are every annotation RouterAnnotations may set:
	// this controller owns them.
	RouterAnnotationKeys() []string
}

// Names and values of the router Services themselves.
const (
	managedByLabel                   = "app.kubernetes.io/managed-by"
	managedByValue                   = "hcplink"
	routerSelectorValue              = "private-router"
	kubeAPIServerSelectorValue       = "kube-apiserver"
	selectorKey                      = "app"
	httpsPortName                    = "https"
	httpsPort                  int32 = 443
	kubeAPIServerPortName            = "client"
	kubeAPIServerPort          int32 = 6443
)

// DesiredServices returns the router Services the HostedControlPlane calls
// for (hcplinkv1beta1.WantedRouterServices says which), in
// RouterServiceNames order, each owned by hcp and annotated for its cloud's
// load balancer as annotations say (on AWS internal NLBs with cross-zone
// load balancing and an internet-facing one; on Azure internal and public
// load balancers on the configuration the operator chose).
func DesiredServices(hcp *hcplinkv1beta1.HostedControlPlane, annotations Annotations) []*corev1.Service {
	var out []*corev1.Service
	for _, name := range hcplinkv1beta1.WantedRouterServices(hcp) {
		internal := name != hcplinkv1beta1.RouterServiceName
		out = append(out, desiredService(hcp, name, annotations.RouterAnnotations(hcp, internal)))
	}
	return out
}

// desiredService is one wanted router Service: the API server's own
// private load balancer on 6443, or a router on 443.
func desiredService(hcp *hcplinkv1beta1.HostedControlPlane, name string, annotations map[string]string) *corev1.Service {
	if name == hcplinkv1beta1.KubeAPIServerPrivateServiceName {
		return kubeAPIServerPrivateService(hcp, annotations)
	}
	return routerService(hcp, name, annotations)
}

func routerService(hcp *hcplinkv1beta1.HostedControlPlane, name string, annotations map[string]string) *corev1.Service {
	return loadBalancerService(hcp, name, annotations, corev1.ServicePort{
		Name:       httpsPortName,
		Protocol:   corev1.ProtocolTCP,
		Port:       httpsPort,
		TargetPort: intstr.FromString(httpsPortName),
	}, routerSelectorValue)
}

func kubeAPIServerPrivateService(hcp *hcplinkv1beta1.HostedControlPlane, annotations map[string]string) *corev1.Service {
	return loadBalancerService(hcp, hcplinkv1beta1.KubeAPIServerPrivateServiceName, annotations, corev1.ServicePort{
		Name:       kubeAPIServerPortName,
		Protocol:   corev1.ProtocolTCP,
		Port:       kubeAPIServerPort,
		TargetPort: intstr.FromString(kubeAPIServerPortName),
	}, kubeAPIServerSelectorValue)
}

func loadBalancerService(hcp *hcplinkv1beta1.HostedControlPlane, name string, annotations map[string]string, port corev1.ServicePort, app string) *corev1.Service {
	if cluster := hcp.Annotations[hcplinkv1beta1.ClusterAnnotation]; cluster != "" {
		annotations[hcplinkv1beta1.ClusterAnnotation] = cluster
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       hcp.Namespace,
			Annotations:     annotations,
			Labels:          map[string]string{managedByLabel: managedByValue},
			OwnerReferences: []metav1.OwnerReference{ownerReference(hcp)},
		},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeLoadBalancer,
			Ports:    []corev1.ServicePort{port},
			Selector: map[string]string{selectorKey: app},
		},
	}
}

// ownerReference makes hcp the controller of a router Service, so that the
// Service goes with the HostedControlPlane. BlockOwnerDeletion stays unset:
// setting it needs the update permission on hostedcontrolplanes/finalizers,
// which the control-plane operator does not have.
func ownerReference(hcp *hcplinkv1beta1.HostedControlPlane) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: hcplinkv1beta1.GroupVersion.String(),
		Kind:       "HostedControlPlane",
		Name:       hcp.Name,
		UID:        hcp.UID,
		Controller: ptr.To(true),
	}
}

// MergeService returns a copy of existing with the fields this controller
// owns set as in desired: its annotations (the cluster annotation and
// managed, the load-balancer annotations of every cloud), its labels,
// the owner reference, type, selector and ports. Everything else stays as
// others wrote it: clusterIP(s), node ports the API server assigned (kept
// per port name), other annotations and labels, finalizers (the
// load-balancer controller's), status. The caller writes the result only
// when it differs from existing.
func MergeService(existing, desired *corev1.Service, managed []string) *corev1.Service {
	out := existing.DeepCopy()

	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	for _, key := range append([]string{hcplinkv1beta1.ClusterAnnotation}, managed...) {
		if v, ok := desired.Annotations[key]; ok {
			out.Annotations[key] = v
		} else {
			delete(out.Annotations, key)
		}
	}
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	maps.Copy(out.Labels, desired.Labels)

	for _, ref := range desired.OwnerReferences {
		out.OwnerReferences = mergeOwnerReferences(out.OwnerReferences, ref)
	}

	out.Spec.Type = desired.Spec.Type
	out.Spec.Selector = maps.Clone(desired.Spec.Selector)
	ports := make([]corev1.ServicePort, 0, len(desired.Spec.Ports))
	for _, want := range desired.Spec.Ports {
		for _, have := range existing.Spec.Ports {
			if have.Name == want.Name && have.Port == want.Port && want.NodePort == 0 {
				// The API server assigned it; keep it.
				want.NodePort = have.NodePort
			}
		}
		ports = append(ports, want)
	}
	out.Spec.Ports = ports
	return out
}

// mergeOwnerReferences puts the desired controller reference in place of
// the first HostedControlPlane reference (a predecessor of the same name
// has another UID), drops any further one, and keeps every other reference
// where it is, so that an unchanged list compares equal.
func mergeOwnerReferences(existing []metav1.OwnerReference, desired metav1.OwnerReference) []metav1.OwnerReference {
	out := make([]metav1.OwnerReference, 0, len(existing)+1)
	placed := false
	for _, ref := range existing {
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil || ref.Kind != "HostedControlPlane" || gv.Group != hcplinkv1beta1.GroupName {
			out = append(out, ref)
			continue
		}
		if !placed {
			out = append(out, desired)
			placed = true
		}
	}
	if !placed {
		out = append(out, desired)
	}
	return out
}
