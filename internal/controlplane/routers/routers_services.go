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

// Annotations that cloud load-balancer controllers read. The AWS ones are
// set for both the in-tree provider and the AWS Load Balancer Controller.
const (
	AWSLoadBalancerTypeAnnotation       = "service.beta.kubernetes.io/aws-load-balancer-type"
	AWSLoadBalancerInternalAnnotation   = "service.beta.kubernetes.io/aws-load-balancer-internal"
	AWSLoadBalancerSchemeAnnotation     = "service.beta.kubernetes.io/aws-load-balancer-scheme"
	AWSLoadBalancerCrossZoneAnnotation  = "service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled"
	AWSLoadBalancerAttributesAnnotation = "service.beta.kubernetes.io/aws-load-balancer-attributes"
	AzureLoadBalancerInternalAnnotation = "service.beta.kubernetes.io/azure-load-balancer-internal"
	// AzureLoadBalancerConfigurationsAnnotation names the cloud provider's
	// load-balancer configurations a Service may be placed on
	// (https://cloud-provider-azure.sigs.k8s.io/topics/multislb/).
	AzureLoadBalancerConfigurationsAnnotation = "service.beta.kubernetes.io/azure-load-balancer-configurations"
)

// Values of those annotations.
const (
	awsLoadBalancerTypeNLB           = "nlb"
	awsSchemeInternal                = "internal"
	awsSchemeInternetFacing          = "internet-facing"
	awsCrossZoneAttribute            = "load_balancing.cross_zone.enabled=true"
	annotationTrue                   = "true"
	annotationFalse                  = "false"
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

// managedAnnotations are the annotation keys this controller owns on a
// router Service: on update, each is set to its desired value or removed.
// Annotations with other keys belong to someone else and stay.
var managedAnnotations = []string{
	hcplinkv1beta1.ClusterAnnotation,
	AWSLoadBalancerTypeAnnotation,
	AWSLoadBalancerInternalAnnotation,
	AWSLoadBalancerSchemeAnnotation,
	AWSLoadBalancerCrossZoneAnnotation,
	AWSLoadBalancerAttributesAnnotation,
	AzureLoadBalancerInternalAnnotation,
	AzureLoadBalancerConfigurationsAnnotation,
}

// DesiredServices returns the router Services the HostedControlPlane calls
// for (hcplinkv1beta1.WantedRouterServices says which), in
// RouterServiceNames order, each owned by hcp: on AWS internal NLBs with
// cross-zone load balancing (private-router, and kube-apiserver-private on
// 6443) and an internet-facing NLB (router); on Azure an internal load
// balancer (private-router) and a public one (router), both on the
// load-balancer configuration the operator chose
// (spec.azureLoadBalancerConfiguration), when it chose one.
func DesiredServices(hcp *hcplinkv1beta1.HostedControlPlane) []*corev1.Service {
	var out []*corev1.Service
	for _, name := range hcplinkv1beta1.WantedRouterServices(hcp) {
		out = append(out, desiredService(hcp, name))
	}
	return out
}

// desiredService is one wanted router Service with its cloud's
// annotations.
func desiredService(hcp *hcplinkv1beta1.HostedControlPlane, name string) *corev1.Service {
	internal := name != hcplinkv1beta1.RouterServiceName
	if hcp.Spec.Platform.Type == hcplinkv1beta1.AzurePlatform {
		return routerService(hcp, name, azureAnnotations(hcp, internal))
	}
	if name == hcplinkv1beta1.KubeAPIServerPrivateServiceName {
		return kubeAPIServerPrivateService(hcp)
	}
	return routerService(hcp, name, awsAnnotations(internal))
}

// azureAnnotations returns the annotations of an internal or public Azure
// router: "false" is Azure's default (public) said explicitly, so that
// every Service of an Azure cluster names its cloud; the load-balancer
// configuration the operator placed the cluster on, when it placed it.
func azureAnnotations(hcp *hcplinkv1beta1.HostedControlPlane, internal bool) map[string]string {
	out := map[string]string{AzureLoadBalancerInternalAnnotation: annotationFalse}
	if internal {
		out[AzureLoadBalancerInternalAnnotation] = annotationTrue
	}
	if c := hcp.Spec.AzureLoadBalancerConfiguration; c != "" {
		out[AzureLoadBalancerConfigurationsAnnotation] = c
	}
	return out
}

// awsAnnotations returns the annotations of an internal or internet-facing
// NLB. Internal ones get cross-zone load balancing, because a worker's VPC
// endpoint may sit in a zone where the router has no pod.
func awsAnnotations(internal bool) map[string]string {
	if !internal {
		return map[string]string{
			AWSLoadBalancerTypeAnnotation:   awsLoadBalancerTypeNLB,
			AWSLoadBalancerSchemeAnnotation: awsSchemeInternetFacing,
		}
	}
	return map[string]string{
		AWSLoadBalancerTypeAnnotation:       awsLoadBalancerTypeNLB,
		AWSLoadBalancerInternalAnnotation:   annotationTrue,
		AWSLoadBalancerSchemeAnnotation:     awsSchemeInternal,
		AWSLoadBalancerCrossZoneAnnotation:  annotationTrue,
		AWSLoadBalancerAttributesAnnotation: awsCrossZoneAttribute,
	}
}

func routerService(hcp *hcplinkv1beta1.HostedControlPlane, name string, annotations map[string]string) *corev1.Service {
	return loadBalancerService(hcp, name, annotations, corev1.ServicePort{
		Name:       httpsPortName,
		Protocol:   corev1.ProtocolTCP,
		Port:       httpsPort,
		TargetPort: intstr.FromString(httpsPortName),
	}, routerSelectorValue)
}

func kubeAPIServerPrivateService(hcp *hcplinkv1beta1.HostedControlPlane) *corev1.Service {
	return loadBalancerService(hcp, hcplinkv1beta1.KubeAPIServerPrivateServiceName, awsAnnotations(true), corev1.ServicePort{
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
// owns set as in desired: its annotations (managedAnnotations), its labels,
// the owner reference, type, selector and ports. Everything else stays as
// others wrote it: clusterIP(s), node ports the API server assigned (kept
// per port name), other annotations and labels, finalizers (the
// load-balancer controller's), status. The caller writes the result only
// when it differs from existing.
func MergeService(existing, desired *corev1.Service) *corev1.Service {
	out := existing.DeepCopy()

	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	for _, key := range managedAnnotations {
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
