package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of a HostedCluster. The private-link types are folded
// from the AWSEndpointService, AzurePrivateLinkService and
// GCPPrivateServiceConnect objects of the cluster's control-plane namespace and carry the same names as the
// conditions they summarise. Public clusters carry none of them.
const (
	// ValidConfigurationCondition is True when the operator accepts the
	// cluster's configuration beyond what the API server already checks
	// (for example the control-plane namespace name fits in 63 characters,
	// and a private cluster's region matches the operator's private platform).
	ValidConfigurationCondition = "ValidConfiguration"

	// AvailableCondition is True when the hosted control plane is available.
	AvailableCondition = "Available"

	// The aggregated private-link conditions are AWSEndpointServiceAvailableCondition,
	// AWSEndpointAvailableCondition (AWS, see awsendpointservice_types.go),
	// AzurePrivateLinkServiceAvailableCondition (Azure, see
	// azureprivatelinkservice_types.go) and
	// GCPPrivateServiceConnectAvailableCondition (GCP, see
	// gcpprivateserviceconnect_types.go).
)

// Reasons of HostedCluster conditions. The aggregated private-link
// conditions may also carry the reason of the object that failed.
const (
	// InvalidConfigurationReason: the operator refused the configuration;
	// the message says what to change.
	InvalidConfigurationReason = "InvalidConfiguration"

	// PlatformRegionMismatchReason: a private cluster's region differs from
	// the region the operator's private platform serves.
	PlatformRegionMismatchReason = "PlatformRegionMismatch"

	// WaitingForControlPlaneReason: the hosted control plane is not
	// available yet.
	WaitingForControlPlaneReason = "WaitingForControlPlane"

	// PrivateLinkStatusUnknownReason: no private-link object of the cluster
	// reports the condition yet.
	PrivateLinkStatusUnknownReason = "StatusUnknown"

	// PrivateLinkUnavailableReason: at least one private-link object of the
	// cluster reports the condition False; the message joins theirs.
	PrivateLinkUnavailableReason = "PrivateLinkUnavailable"
)

// HostedClusterSpec is the desired state of a hosted cluster's private
// connectivity.
//
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.clusterID) || (has(self.clusterID) && self.clusterID == oldSelf.clusterID)",message="clusterID is immutable once set",fieldPath=".clusterID"
// +kubebuilder:validation:XValidation:rule="self.platform.type != 'AWS' || !has(self.platform.aws) || !has(self.platform.aws.endpointAccess) || self.platform.aws.endpointAccess == 'Public' || !self.services.exists(s, s.service == 'APIServer' && s.servicePublishingStrategy.type == 'NodePort')",message="services: the APIServer of an AWS cluster whose endpointAccess is PublicAndPrivate or Private must be published by Route or LoadBalancer; NodePort has no private path",fieldPath=".services"
// +kubebuilder:validation:XValidation:rule="self.platform.type != 'Azure' || !has(self.platform.azure) || !has(self.platform.azure.topology) || self.platform.azure.topology == 'Public' || self.services.all(s, s.servicePublishingStrategy.type == 'Route')",message="services: every service of an Azure cluster whose topology is PublicAndPrivate or Private must be published by Route, so that one router and one Private Link Service serve them all",fieldPath=".services"
// +kubebuilder:validation:XValidation:rule="self.platform.type != 'GCP' || !has(self.platform.gcp) || !has(self.platform.gcp.endpointAccess) || self.platform.gcp.endpointAccess == 'Public' || self.services.all(s, s.servicePublishingStrategy.type == 'Route')",message="services: every service of a GCP cluster whose endpointAccess is PublicAndPrivate or Private must be published by Route, so that one router and one service attachment serve them all",fieldPath=".services"
type HostedClusterSpec struct {
	// infraID names the cluster's cloud resources and tags them
	// (kubernetes.io/cluster/<infraID>). 1 to 63 lowercase letters, digits
	// and hyphens, starting and ending with a letter or digit. It cannot
	// change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="infraID must consist of lowercase letters, digits and hyphens, and start and end with a letter or digit"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="infraID is immutable"
	InfraID string `json:"infraID"`

	// clusterID is a UUID that identifies the cluster, for example in the
	// name of its Azure Private Link Service. Optional; once set it cannot
	// change or be removed.
	//
	// +optional
	// +kubebuilder:validation:MinLength=36
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')",message="clusterID must be a UUID such as 550e8400-e29b-41d4-a716-446655440000"
	ClusterID string `json:"clusterID,omitempty"`

	// pausedUntil pauses reconciliation of the cluster: "true" pauses until
	// the field is removed, an RFC3339 timestamp (2026-01-02T15:04:05Z) until
	// that time.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=35
	// +kubebuilder:validation:XValidation:rule="self == 'true' || self.matches('^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)([.][0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$')",message="pausedUntil must be 'true' or an RFC3339 timestamp such as 2026-01-02T15:04:05Z"
	PausedUntil *string `json:"pausedUntil,omitempty"`

	// dns is the cluster's DNS configuration.
	//
	// +required
	DNS DNSSpec `json:"dns"`

	// networking is the cluster's network configuration.
	//
	// +required
	Networking ClusterNetworking `json:"networking"`

	// services says how each control-plane service is published. APIServer
	// must be listed; a service that is not listed is published by Route.
	// Konnectivity, OAuthServer and Ignition can only be published by Route,
	// and an APIServer published by Route needs route.hostname.
	//
	// +required
	// +listType=map
	// +listMapKey=service
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:XValidation:rule="self.exists(s, s.service == 'APIServer')",message="services must include an entry for APIServer"
	Services []ServicePublishingStrategyMapping `json:"services"`

	// platform is the cloud configuration.
	//
	// +required
	Platform PlatformSpec `json:"platform"`
}

// HostedClusterStatus is the observed state of a hosted cluster's private
// connectivity.
type HostedClusterStatus struct {
	// conditions: ValidConfiguration, Available and, for clusters that are
	// not public, the aggregated private-link conditions
	// (AWSEndpointServiceAvailable and AWSEndpointAvailable on AWS,
	// AzurePrivateLinkServiceAvailable on Azure,
	// GCPPrivateServiceConnectAvailable on GCP).
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// controlPlaneNamespace is the namespace that holds the cluster's hosted
	// control plane, written by the operator.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	ControlPlaneNamespace string `json:"controlPlaneNamespace,omitempty"`

	// controlPlaneOperatorCreationTime is when the operator went to create
	// the cluster's control-plane operator: written before its Deployment
	// can exist, and never cleared. Deletion waits for the control-plane
	// operator's cleanup of the customer's account only once it is set (or
	// the Deployment exists): a control-plane operator that was never
	// created never ran, so it made nothing there to wait for.
	//
	// +optional
	ControlPlaneOperatorCreationTime *metav1.Time `json:"controlPlaneOperatorCreationTime,omitempty"`

	// azureLoadBalancerConfiguration is the Azure cloud provider's
	// load-balancer configuration (cloud-provider-azure's
	// multipleStandardLoadBalancerConfigurations) the operator placed the
	// cluster's router Services on: chosen once, among the operator's
	// --azure-load-balancer-configurations, before the routers exist, and
	// kept for the cluster's life, so that a restart never moves a
	// cluster. Empty when the operator places nothing (the cloud provider's
	// own placement).
	//
	// +optional
	// +kubebuilder:validation:MaxLength=80
	AzureLoadBalancerConfiguration string `json:"azureLoadBalancerConfiguration,omitempty"`
}

// HostedCluster is a hosted Kubernetes control plane whose workers reach it
// privately over AWS PrivateLink, Azure Private Link or GCP Private Service
// Connect.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=hostedclusters,scope=Namespaced,shortName=hc
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Platform",type=string,JSONPath=".spec.platform.type",description="Cloud platform"
// +kubebuilder:printcolumn:name="Access",type=string,JSONPath=".spec.platform['aws','azure','gcp']['endpointAccess','topology']",description="AWS or GCP endpointAccess, or Azure topology"
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=".status.conditions[?(@.type==\"Available\")].status",description="Status of the Available condition"
// +kubebuilder:printcolumn:name="AWS Endpoint",type=string,JSONPath=".status.conditions[?(@.type==\"AWSEndpointAvailable\")].status",description="Status of the aggregated AWSEndpointAvailable condition"
// +kubebuilder:printcolumn:name="Azure PLS",type=string,JSONPath=".status.conditions[?(@.type==\"AzurePrivateLinkServiceAvailable\")].status",description="Status of the aggregated AzurePrivateLinkServiceAvailable condition"
// +kubebuilder:printcolumn:name="GCP PSC",type=string,JSONPath=".status.conditions[?(@.type==\"GCPPrivateServiceConnectAvailable\")].status",description="Status of the aggregated GCPPrivateServiceConnectAvailable condition"
// +kubebuilder:printcolumn:name="Endpoint Service",type=string,priority=1,JSONPath=".status.conditions[?(@.type==\"AWSEndpointServiceAvailable\")].status",description="Status of the aggregated AWSEndpointServiceAvailable condition"
// +kubebuilder:printcolumn:name="Namespace",type=string,priority=1,JSONPath=".status.controlPlaneNamespace",description="Control-plane namespace"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type HostedCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state.
	//
	// +required
	Spec HostedClusterSpec `json:"spec"`

	// status is the observed state, written by the operator.
	//
	// +optional
	Status HostedClusterStatus `json:"status,omitzero"`
}

// HostedClusterList is a list of HostedClusters.
//
// +kubebuilder:object:root=true
type HostedClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HostedCluster `json:"items"`
}

// Condition types and reasons written by the hostedcluster controller.
const (
	// UnsupportedPrivatePlatformReason: the cluster asks for private
	// connectivity on a cloud the operator does not serve privately.
	UnsupportedPrivatePlatformReason = "UnsupportedPrivatePlatform"

	// NamespaceNameTooLongReason: "<namespace>-<name>" is longer than the 63
	// characters a namespace name allows.
	NamespaceNameTooLongReason = "NamespaceNameTooLong"

	// InvalidRoleARNReason: spec.platform.aws.rolesRef.controlPlaneOperatorARN
	// is not an IAM role ARN, or is in another partition than the
	// cluster's region (aws, aws-cn, aws-us-gov): STS would refuse it, and
	// everything made for the cluster would be stuck at deletion.
	InvalidRoleARNReason = "InvalidRoleARN"

	// NamespaceConflictReason: the control-plane namespace exists and
	// belongs to something else (another HostedCluster whose name maps to
	// the same namespace, or an object hcplink did not create).
	NamespaceConflictReason = "NamespaceConflict"
)

// Condition types and reasons written by the hostedcluster controller.
const (
	// DeletingCondition is True while the cluster is being deleted; its
	// reason says which step it waits for and its message what is left.
	DeletingCondition = "Deleting"

	// CloudResourcesMayHaveLeakedCondition is True when the operator gave up
	// on a component's cleanup (its credentials invalid, or never checked,
	// for longer than the grace period): it removed that component's
	// finalizers from the private-link objects, or stopped waiting for the
	// final sweep. Its message names the cloud resources that may remain.
	CloudResourcesMayHaveLeakedCondition = "CloudResourcesMayHaveLeaked"

	// WaitingForPrivateLinkCleanupReason: the AWSEndpointService or
	// AzurePrivateLinkService objects are still there; their finalizers
	// remove the cloud resources.
	WaitingForPrivateLinkCleanupReason = "WaitingForPrivateLinkCleanup"

	// WaitingForControlPlaneDeletionReason: the HostedControlPlane and the
	// control-plane operator's objects are being deleted.
	WaitingForControlPlaneDeletionReason = "WaitingForControlPlaneDeletion"

	// WaitingForCloudCleanupReason: the private-link objects are gone and
	// the control-plane operator's final sweep of the customer's account
	// (HostedControlPlane CloudCleanupComplete) is awaited.
	WaitingForCloudCleanupReason = "WaitingForCloudCleanup"

	// CleanupAbandonedReason: a component's cleanup was abandoned after the
	// grace period with its cloud credentials invalid (or never checked).
	CleanupAbandonedReason = "CleanupAbandoned"

	// WaitingForNamespaceReason: the control-plane namespace of an earlier
	// cluster of the same name is still terminating.
	WaitingForNamespaceReason = "WaitingForNamespace"
)
