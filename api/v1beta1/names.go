package v1beta1

import "strings"

// Names used on the wire. They are API: changing one strands the objects and
// cloud resources that carry the old name.
const (
	// ClusterAnnotation marks an object in a control-plane namespace with the
	// HostedCluster it belongs to; the value is "<namespace>/<name>" (see
	// ClusterAnnotationValue).
	ClusterAnnotation = "hcplink.io/cluster"

	// OperatorFinalizer holds an object until the operator has removed its
	// cloud resources (endpoint service, Private Link Service).
	OperatorFinalizer = "hcplink.io/operator-cleanup"

	// ControlPlaneFinalizer holds an object until the control-plane operator
	// has removed its cloud resources (VPC endpoint, security group, Private
	// Endpoint, DNS records). The control-plane operator never gives it up;
	// when the operator may is decided in one place:
	// internal/operator/hostedcluster/hostedcluster_giveup.go (controlPlaneGiveUp).
	ControlPlaneFinalizer = "hcplink.io/control-plane-cleanup"

	// EndpointServiceTagKey is the cloud tag naming the AWSEndpointService
	// or AzurePrivateLinkService a resource was made for. Together with the
	// cluster tag it finds a resource again after a restart.
	EndpointServiceTagKey = "hcplink.io/endpoint-service"

	// ClusterTagKeyPrefix starts the cloud tag that marks a resource as the
	// cluster's (see ClusterTagKey).
	ClusterTagKeyPrefix = "kubernetes.io/cluster/"

	// ClusterTagValueOwned is the value of the cluster tag on resources
	// hcplink created and deletes.
	ClusterTagValueOwned = "owned"

	// ManagementClusterTagKey names, on management-side cloud resources
	// (endpoint services, Private Link Services, NAT subnets), the
	// management cluster that owns them, so that several management
	// clusters can share one account or subscription and no sweeper ever
	// touches another's resources.
	ManagementClusterTagKey = "hcplink.io/management-cluster"

	// ManagementOperatorName names the management operator's
	// ServiceAccount (and its RBAC and Deployment) as hcplink install
	// renders them. Its cloud identity trusts exactly this ServiceAccount,
	// so renaming it locks the operator out of its cloud.
	ManagementOperatorName = "hcplink-operator"
)

// HostedControlPlaneNamespace returns the namespace that holds the control
// plane of the HostedCluster hcName in namespace hcNamespace:
// "<hcNamespace>-<hcName>" with every "." of the name replaced by "-",
// because a namespace name is a DNS label. The result may exceed the 63
// characters a namespace name allows; the caller must check it (the
// operator reports it in the ValidConfiguration condition).
func HostedControlPlaneNamespace(hcNamespace, hcName string) string {
	return hcNamespace + "-" + strings.ReplaceAll(hcName, ".", "-")
}

// ClusterAnnotationValue returns the value of ClusterAnnotation for the
// HostedCluster name in namespace.
func ClusterAnnotationValue(namespace, name string) string {
	return namespace + "/" + name
}

// ParseClusterAnnotation splits a ClusterAnnotation value into the
// HostedCluster's namespace and name. ok is false unless the value has
// exactly one "/" with text on both sides.
func ParseClusterAnnotation(value string) (namespace, name string, ok bool) {
	namespace, name, found := strings.Cut(value, "/")
	if !found || namespace == "" || name == "" || strings.Contains(name, "/") {
		return "", "", false
	}
	return namespace, name, true
}

// ClusterTagKey returns the key of the cloud tag that marks a resource as
// belonging to the cluster with infraID: "kubernetes.io/cluster/<infraID>".
func ClusterTagKey(infraID string) string {
	return ClusterTagKeyPrefix + infraID
}
