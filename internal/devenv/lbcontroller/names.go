package lbcontroller

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Annotations the cloud provider reads on a LoadBalancer Service.
const (
	awsInternalAnnotation   = "service.beta.kubernetes.io/aws-load-balancer-internal"
	awsSchemeAnnotation     = "service.beta.kubernetes.io/aws-load-balancer-scheme"
	awsCrossZoneAnnotation  = "service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled"
	awsAttributesAnnotation = "service.beta.kubernetes.io/aws-load-balancer-attributes"
	azureAnnotationPrefix   = "service.beta.kubernetes.io/azure-"
	crossZoneAttribute      = "load_balancing.cross_zone.enabled"
)

// Schemes of an NLB, and the keys of Options.Subnets.
const (
	SchemeInternal       = "internal"
	SchemeInternetFacing = "internet-facing"
)

// LoadBalancerName names the NLB of a Service the way the AWS Load Balancer
// Controller does: "k8s-<namespace>-<name>-<hash>", the namespace and name
// cut to their first 8 letters and digits, the hash 10 hex digits of
// namespace/name/uid. It is at most 32 characters (AWS's limit), stable for
// a Service, and differs for a Service of the same name created again.
func LoadBalancerName(namespace, name string, uid types.UID) string {
	sum := sha256.Sum256([]byte(namespace + "/" + name + "/" + string(uid)))
	return "k8s-" + alnumPrefix(namespace, 8) + "-" + alnumPrefix(name, 8) + "-" + hex.EncodeToString(sum[:])[:10]
}

// alnumPrefix keeps the first n ASCII letters and digits of s: NLB names
// allow only those and hyphens, and hyphens would blur the separators.
func alnumPrefix(s string, n int) string {
	var b strings.Builder
	for _, c := range s {
		if b.Len() == n {
			break
		}
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// schemeOf reads the scheme a Service asks for, as the in-tree provider
// and the AWS Load Balancer Controller do: the internal annotation (any
// value but "false") or scheme=internal make it internal; otherwise it is
// internet-facing.
func schemeOf(svc *corev1.Service) string {
	if v := svc.Annotations[awsInternalAnnotation]; v != "" && v != "false" {
		return SchemeInternal
	}
	if svc.Annotations[awsSchemeAnnotation] == SchemeInternal {
		return SchemeInternal
	}
	return SchemeInternetFacing
}

// wantsCrossZone reports whether a Service asks for cross-zone load
// balancing, through the in-tree annotation or the AWS Load Balancer
// Controller's attributes annotation.
func wantsCrossZone(svc *corev1.Service) bool {
	if svc.Annotations[awsCrossZoneAnnotation] == "true" {
		return true
	}
	for _, kv := range strings.Split(svc.Annotations[awsAttributesAnnotation], ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		if k == crossZoneAttribute {
			return strings.TrimSpace(v) == "true"
		}
	}
	return false
}

// isAzure reports whether a Service is meant for Azure's cloud provider.
func isAzure(svc *corev1.Service) bool {
	for k := range svc.Annotations {
		if strings.HasPrefix(k, azureAnnotationPrefix) {
			return true
		}
	}
	return false
}

// wantsLoadBalancer reports whether this stand-in should give the Service
// a load balancer: type LoadBalancer, and no loadBalancerClass naming
// another controller.
func wantsLoadBalancer(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.LoadBalancerClass == nil
}
