package gcp

// LoadBalancerTypeAnnotation and LoadBalancerTypeInternal on a Service
// make GKE's load-balancer controller give it an internal passthrough
// Network Load Balancer: an internal forwarding rule in the cluster's
// network, the only kind a service attachment can front
// (https://cloud.google.com/kubernetes-engine/docs/how-to/internal-load-balancing).
// Without it a LoadBalancer Service gets an external one.
const (
	LoadBalancerTypeAnnotation = "networking.gke.io/load-balancer-type"
	LoadBalancerTypeInternal   = "Internal"
)

// RouterAnnotationKeys are the annotations RouterAnnotations may set: the
// routers controller owns them on a router Service.
var RouterAnnotationKeys = []string{LoadBalancerTypeAnnotation}

// RouterAnnotations are the annotations of an internal or public router:
// the internal one is on an internal load balancer; a public one carries
// none, GKE's default being external.
func RouterAnnotations(internal bool) map[string]string {
	if !internal {
		return map[string]string{}
	}
	return map[string]string{LoadBalancerTypeAnnotation: LoadBalancerTypeInternal}
}
