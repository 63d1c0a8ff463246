package aws

// Annotations on a router Service that AWS's load-balancer controllers
// read, set for both the in-tree provider and the AWS Load Balancer
// Controller.
const (
	LoadBalancerTypeAnnotation       = "service.beta.kubernetes.io/aws-load-balancer-type"
	LoadBalancerInternalAnnotation   = "service.beta.kubernetes.io/aws-load-balancer-internal"
	LoadBalancerSchemeAnnotation     = "service.beta.kubernetes.io/aws-load-balancer-scheme"
	LoadBalancerCrossZoneAnnotation  = "service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled"
	LoadBalancerAttributesAnnotation = "service.beta.kubernetes.io/aws-load-balancer-attributes"
)

// RouterAnnotationKeys are the annotations RouterAnnotations may set: the
// routers controller owns them on a router Service.
var RouterAnnotationKeys = []string{
	LoadBalancerTypeAnnotation,
	LoadBalancerInternalAnnotation,
	LoadBalancerSchemeAnnotation,
	LoadBalancerCrossZoneAnnotation,
	LoadBalancerAttributesAnnotation,
}

// RouterAnnotations are the annotations of an internal or internet-facing
// router: an NLB. Internal ones get cross-zone load balancing, because a
// worker's VPC endpoint may sit in a zone where the router has no pod.
func RouterAnnotations(internal bool) map[string]string {
	if !internal {
		return map[string]string{
			LoadBalancerTypeAnnotation:   "nlb",
			LoadBalancerSchemeAnnotation: "internet-facing",
		}
	}
	return map[string]string{
		LoadBalancerTypeAnnotation:       "nlb",
		LoadBalancerInternalAnnotation:   "true",
		LoadBalancerSchemeAnnotation:     "internal",
		LoadBalancerCrossZoneAnnotation:  "true",
		LoadBalancerAttributesAnnotation: "load_balancing.cross_zone.enabled=true",
	}
}
