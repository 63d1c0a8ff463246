package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of a NodePool.
const (
	// NodePoolValidConfigurationCondition is True when the operator accepts
	// the NodePool's configuration (for example its cluster exists and runs
	// on the same platform).
	NodePoolValidConfigurationCondition = "ValidConfiguration"
)

// NodePoolSpec is the part of a NodePool that private connectivity needs:
// which cluster it belongs to and which subnet its machines live in.
type NodePoolSpec struct {
	// clusterName is the name of the HostedCluster, in the same namespace,
	// that the NodePool belongs to. It cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="clusterName must be the name of a HostedCluster: lowercase letters, digits, '-' and '.'"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="clusterName is immutable"
	ClusterName string `json:"clusterName"`

	// platform says where the NodePool's machines live.
	//
	// +required
	Platform NodePoolPlatform `json:"platform"`
}

// NodePoolPlatform is the cloud-specific configuration of a NodePool. Only
// the member matching type may be set.
//
// +kubebuilder:validation:XValidation:rule="self.type == 'AWS' || !has(self.aws)",message="platform.aws must not be set when platform.type is Azure or GCP",fieldPath=".aws"
// +kubebuilder:validation:XValidation:rule="self.type == 'Azure' || !has(self.azure)",message="platform.azure must not be set when platform.type is AWS or GCP",fieldPath=".azure"
// +kubebuilder:validation:XValidation:rule="self.type == 'GCP' || !has(self.gcp)",message="platform.gcp must not be set when platform.type is AWS or Azure",fieldPath=".gcp"
type NodePoolPlatform struct {
	// type is the cloud: AWS, Azure or GCP, the same as the cluster's. It
	// cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="platform.type is immutable"
	Type PlatformType `json:"type"`

	// aws is the AWS configuration of the NodePool.
	//
	// +optional
	AWS *AWSNodePoolPlatform `json:"aws,omitempty"`

	// azure is the Azure configuration of the NodePool.
	//
	// +optional
	Azure *AzureNodePoolPlatform `json:"azure,omitempty"`

	// gcp is the GCP configuration of the NodePool.
	//
	// +optional
	GCP *GCPNodePoolPlatform `json:"gcp,omitempty"`
}

// AWSNodePoolPlatform is the AWS configuration of a NodePool.
type AWSNodePoolPlatform struct {
	// subnet is the subnet the machines live in. The cluster's VPC endpoint
	// gets a network interface in one subnet per availability zone among its
	// NodePools' subnets. It may change.
	//
	// +optional
	Subnet *AWSSubnetReference `json:"subnet,omitempty"`
}

// AzureNodePoolPlatform is the Azure configuration of a NodePool.
type AzureNodePoolPlatform struct {
	// subnetID is the resource ID of the subnet the machines live in:
	// /subscriptions/<uuid>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<name>/subnets/<subnet>.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=355
	// +kubebuilder:validation:XValidation:rule="self.matches('^/(?i:subscriptions)/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/(?i:resourceGroups)/[-A-Za-z0-9_.()]+/(?i:providers/Microsoft[.]Network/virtualNetworks)/[^/]+/(?i:subnets)/[^/]+$')",message="subnetID must be a subnet resource ID: /subscriptions/<uuid>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<name>/subnets/<subnet>"
	// +kubebuilder:validation:XValidation:rule="self.matches('^.*/(?i:virtualNetworks)/[A-Za-z0-9][-A-Za-z0-9_.]{0,62}[A-Za-z0-9_]/(?i:subnets)/[A-Za-z0-9]([-A-Za-z0-9_.]{0,78}[A-Za-z0-9_])?$')",message="subnetID names a subnet Azure would refuse: subnet names are 1 to 80 letters, digits, _ . and - (virtual network names 2 to 64), starting with a letter or digit and ending with a letter, digit or _"
	SubnetID string `json:"subnetID"`
}

// GCPNodePoolPlatform is the GCP configuration of a NodePool.
type GCPNodePoolPlatform struct {
	// subnet is the name of the subnet, in the cluster's network and
	// region, that the machines live in. The Private Service Connect
	// endpoint in the cluster's subnet serves every subnet of the network.
	// It may change.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="subnet must be a subnet name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen"
	Subnet string `json:"subnet"`
}

// NodePoolStatus is the observed state of a NodePool.
type NodePoolStatus struct {
	// conditions describe the NodePool's state.
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// NodePool is a group of worker machines of a HostedCluster. hcplink reads
// only the subnet its machines live in, to place the cluster's private
// endpoint where the workers are.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=nodepools,scope=Namespaced,shortName=np
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=".spec.clusterName",description="HostedCluster the NodePool belongs to"
// +kubebuilder:printcolumn:name="Platform",type=string,JSONPath=".spec.platform.type",description="Cloud platform"
// +kubebuilder:printcolumn:name="Subnet",type=string,JSONPath=".spec.platform..['id','subnetID','subnet']",description="Subnet of the machines (AWS subnet, Azure subnet resource ID or GCP subnet name)",priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state.
	//
	// +required
	Spec NodePoolSpec `json:"spec"`

	// status is the observed state.
	//
	// +optional
	Status NodePoolStatus `json:"status,omitzero"`
}

// NodePoolList is a list of NodePools.
//
// +kubebuilder:object:root=true
type NodePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodePool `json:"items"`
}

// Condition types and reasons written by the nodepool controller.
const (
	// HostedClusterNotFoundReason: spec.clusterName names no HostedCluster
	// in the NodePool's namespace.
	HostedClusterNotFoundReason = "HostedClusterNotFound"

	// PlatformMismatchReason: the NodePool's platform type is not its
	// cluster's.
	PlatformMismatchReason = "PlatformMismatch"

	// SubnetNotInClusterSubscriptionReason: an Azure NodePool's subnet is
	// in another subscription than its cluster's subscriptionID, where the
	// Private Endpoint is made and which the Private Link Service lets in.
	// CEL cannot see the cluster from the NodePool, so the controller says it.
	SubnetNotInClusterSubscriptionReason = "SubnetNotInClusterSubscription"
)
