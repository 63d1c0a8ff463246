package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of a HostedControlPlane.
const (
	// HostedControlPlaneAvailableCondition is True when the control plane
	// serves, private path included. Written by the operator, mirroring the
	// HostedCluster's Available.
	HostedControlPlaneAvailableCondition = "Available"

	// CloudCleanupCompleteCondition is written by the control-plane
	// operator while the control plane is being deleted: True once nothing
	// it made for the cluster (tagged kubernetes.io/cluster/<infraID>)
	// remains in the customer's account, False with what remains. The
	// operator releases the HostedControlPlane only after it is True (or
	// after the bounded escape hatch for invalid credentials).
	CloudCleanupCompleteCondition = "CloudCleanupComplete"
)

// HostedControlPlaneSpec is what the control-plane operator needs to build
// the private path of one cluster. The operator copies it from the
// HostedCluster (and its NodePools); users do not write it.
//
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.clusterID) || (has(self.clusterID) && self.clusterID == oldSelf.clusterID)",message="clusterID is immutable once set",fieldPath=".clusterID"
// +kubebuilder:validation:XValidation:rule="self.platform.type != 'AWS' || !has(self.platform.aws) || !has(self.platform.aws.endpointAccess) || self.platform.aws.endpointAccess == 'Public' || !self.services.exists(s, s.service == 'APIServer' && s.servicePublishingStrategy.type == 'NodePort')",message="services: the APIServer of an AWS cluster whose endpointAccess is PublicAndPrivate or Private must be published by Route or LoadBalancer; NodePort has no private path",fieldPath=".services"
// +kubebuilder:validation:XValidation:rule="self.platform.type != 'Azure' || !has(self.platform.azure) || !has(self.platform.azure.topology) || self.platform.azure.topology == 'Public' || self.services.all(s, s.servicePublishingStrategy.type == 'Route')",message="services: every service of an Azure cluster whose topology is PublicAndPrivate or Private must be published by Route, so that one router and one Private Link Service serve them all",fieldPath=".services"
// +kubebuilder:validation:XValidation:rule="self.platform.type != 'GCP' || !has(self.platform.gcp) || !has(self.platform.gcp.endpointAccess) || self.platform.gcp.endpointAccess == 'Public' || self.services.all(s, s.servicePublishingStrategy.type == 'Route')",message="services: every service of a GCP cluster whose endpointAccess is PublicAndPrivate or Private must be published by Route, so that one router and one service attachment serve them all",fieldPath=".services"
type HostedControlPlaneSpec struct {
	// infraID is the HostedCluster's spec.infraID.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="infraID must consist of lowercase letters, digits and hyphens, and start and end with a letter or digit"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="infraID is immutable"
	InfraID string `json:"infraID"`

	// clusterID is the HostedCluster's spec.clusterID.
	//
	// +optional
	// +kubebuilder:validation:MinLength=36
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')",message="clusterID must be a UUID such as 550e8400-e29b-41d4-a716-446655440000"
	ClusterID string `json:"clusterID,omitempty"`

	// pausedUntil is the HostedCluster's spec.pausedUntil.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=35
	// +kubebuilder:validation:XValidation:rule="self == 'true' || self.matches('^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)([.][0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$')",message="pausedUntil must be 'true' or an RFC3339 timestamp such as 2026-01-02T15:04:05Z"
	PausedUntil *string `json:"pausedUntil,omitempty"`

	// dns is the HostedCluster's spec.dns.
	//
	// +required
	DNS DNSSpec `json:"dns"`

	// networking is the HostedCluster's spec.networking.
	//
	// +required
	Networking ClusterNetworking `json:"networking"`

	// services is the HostedCluster's spec.services.
	//
	// +required
	// +listType=map
	// +listMapKey=service
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:XValidation:rule="self.exists(s, s.service == 'APIServer')",message="services must include an entry for APIServer"
	Services []ServicePublishingStrategyMapping `json:"services"`

	// platform is the HostedCluster's spec.platform.
	//
	// +required
	Platform PlatformSpec `json:"platform"`

	// nodePools lists the cluster's NodePools with their subnets, because
	// the control-plane operator may not read NodePools. Written by the
	// operator; at most 500.
	//
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=500
	NodePools []HostedControlPlaneNodePool `json:"nodePools,omitempty"`

	// azureLoadBalancerConfiguration is the HostedCluster's
	// status.azureLoadBalancerConfiguration: the router Services carry it
	// in the annotation service.beta.kubernetes.io/azure-load-balancer-configurations,
	// which makes the Azure cloud provider put them on that
	// configuration's load balancers. Written by the operator.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=80
	AzureLoadBalancerConfiguration string `json:"azureLoadBalancerConfiguration,omitempty"`
}

// HostedControlPlaneNodePool is a NodePool as the control-plane operator
// sees it.
type HostedControlPlaneNodePool struct {
	// name is the NodePool's name.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// subnetID is the NodePool's subnet: an AWS subnet ID
	// (spec.platform.aws.subnet.id), an Azure subnet resource ID
	// (spec.platform.azure.subnetID) or a GCP subnet name
	// (spec.platform.gcp.subnet). Empty when the NodePool names none.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=355
	// +kubebuilder:validation:XValidation:rule="self.matches('^subnet-([0-9a-f]{8}|[0-9a-f]{17})$') || self.matches('^/(?i:subscriptions)/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/(?i:resourceGroups)/[-A-Za-z0-9_.()]+/(?i:providers/Microsoft[.]Network/virtualNetworks)/[^/]+/(?i:subnets)/[^/]+$') || (size(self) <= 63 && self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$'))",message="subnetID must be an AWS subnet ID, an Azure subnet resource ID or a GCP subnet name"
	SubnetID string `json:"subnetID,omitempty"`
}

// HostedControlPlaneStatus is the observed state of a hosted control plane.
type HostedControlPlaneStatus struct {
	// conditions describe the control plane's state.
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// HostedControlPlane is the operator's copy of a HostedCluster in the
// cluster's control-plane namespace: everything the control-plane operator
// needs, readable with that namespace's permissions alone.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=hostedcontrolplanes,scope=Namespaced,shortName=hcp
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Platform",type=string,JSONPath=".spec.platform.type",description="Cloud platform"
// +kubebuilder:printcolumn:name="Access",type=string,JSONPath=".spec.platform['aws','azure','gcp']['endpointAccess','topology']",description="AWS or GCP endpointAccess, or Azure topology"
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=".status.conditions[?(@.type==\"Available\")].status",description="Status of the Available condition"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type HostedControlPlane struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state, written by the operator.
	//
	// +required
	Spec HostedControlPlaneSpec `json:"spec"`

	// status is the observed state, written by the control-plane operator.
	//
	// +optional
	Status HostedControlPlaneStatus `json:"status,omitzero"`
}

// HostedControlPlaneList is a list of HostedControlPlanes.
//
// +kubebuilder:object:root=true
type HostedControlPlaneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HostedControlPlane `json:"items"`
}

// Condition types and reasons written by the routers controller.
const (
	// RoutersReadyCondition is the HostedControlPlane condition this controller
	// writes: True when every router Service the cluster needs exists and the
	// cloud has given it a load balancer.
	RoutersReadyCondition = "RoutersReady"

	// WaitingForLoadBalancerReason: a router Service has no load-balancer
	// address in its status yet.
	WaitingForLoadBalancerReason = "WaitingForLoadBalancer"

	// WaitingForServiceReason: a router Service does not exist yet, or an
	// earlier one of the same name is still being deleted.
	WaitingForServiceReason = "WaitingForService"
)
