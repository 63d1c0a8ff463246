package azure

// Annotations on a router Service that cloud-provider-azure reads.
const (
	LoadBalancerInternalAnnotation = "service.beta.kubernetes.io/azure-load-balancer-internal"
	// LoadBalancerConfigurationsAnnotation names the cloud provider's
	// load-balancer configurations a Service may be placed on
	// (https://cloud-provider-azure.sigs.k8s.io/topics/multislb/).
	LoadBalancerConfigurationsAnnotation = "service.beta.kubernetes.io/azure-load-balancer-configurations"
)

// RouterAnnotationKeys are the annotations RouterAnnotations may set: the
// routers controller owns them on a router Service.
var RouterAnnotationKeys = []string{LoadBalancerInternalAnnotation, LoadBalancerConfigurationsAnnotation}

// RouterAnnotations are the annotations of an internal or public router:
// "false" is Azure's default (public) said explicitly, so that every
// Service of an Azure cluster names its cloud; and the load-balancer
// configuration the operator placed the cluster on, when it placed it.
func RouterAnnotations(configuration string, internal bool) map[string]string {
	out := map[string]string{LoadBalancerInternalAnnotation: "false"}
	if internal {
		out[LoadBalancerInternalAnnotation] = "true"
	}
	if configuration != "" {
		out[LoadBalancerConfigurationsAnnotation] = configuration
	}
	return out
}
