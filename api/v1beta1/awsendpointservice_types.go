package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of an AWSEndpointService. Each has one writer.
const (
	// AWSEndpointServiceAvailableCondition is True when the VPC endpoint
	// service exists on the network load balancer and allows the right
	// principals. Written by the operator.
	AWSEndpointServiceAvailableCondition = "AWSEndpointServiceAvailable"

	// AWSEndpointAvailableCondition is True when the VPC endpoint in the
	// customer's VPC is available and its DNS records exist. Written by the
	// control-plane operator.
	AWSEndpointAvailableCondition = "AWSEndpointAvailable"
)

// Reasons of AWSEndpointService conditions, besides the shared ones in
// conditions.go (Throttled, AccessDenied, InvalidParameter,
// ReconciliationPaused, Deleting, InternalError).
const (
	// AWSSuccessReason: the condition holds.
	AWSSuccessReason = "AWSSuccess"

	// LoadBalancerNotFoundReason: the network load balancer named in
	// spec.networkLoadBalancerName does not exist (yet, or any more).
	LoadBalancerNotFoundReason = "LoadBalancerNotFound"

	// LoadBalancerNotActiveReason: the network load balancer is still
	// provisioning.
	LoadBalancerNotActiveReason = "LoadBalancerNotActive"

	// ControlPlaneOperatorRoleMissingReason: the cluster names no
	// rolesRef.controlPlaneOperatorARN to allow on the endpoint service.
	ControlPlaneOperatorRoleMissingReason = "ControlPlaneOperatorRoleMissing"

	// TooManySubnetsReason: the cluster's NodePools use more availability
	// zones than spec.subnetIDs can hold.
	TooManySubnetsReason = "TooManySubnets"

	// EndpointServiceNotFoundReason: the endpoint service recorded in
	// status.endpointServiceName no longer exists; it will be recreated.
	EndpointServiceNotFoundReason = "EndpointServiceNotFound"

	// EndpointServiceFailedReason: AWS reports the endpoint service Failed.
	EndpointServiceFailedReason = "EndpointServiceFailed"

	// WaitingForEndpointServiceReason: the control-plane operator waits for
	// the operator to publish status.endpointServiceName.
	WaitingForEndpointServiceReason = "WaitingForEndpointService"

	// EndpointPendingReason: the VPC endpoint is being created.
	EndpointPendingReason = "EndpointPending"

	// EndpointPendingAcceptanceReason: the VPC endpoint waits for the
	// endpoint service to accept it.
	EndpointPendingAcceptanceReason = "EndpointPendingAcceptance"

	// EndpointRejectedReason: the endpoint service rejected the VPC endpoint.
	EndpointRejectedReason = "EndpointRejected"

	// EndpointFailedReason: AWS reports the VPC endpoint failed.
	EndpointFailedReason = "EndpointFailed"

	// ZoneMismatchReason: the customer subnets lie in availability zones
	// (compared by zone ID) that the load balancer does not serve.
	ZoneMismatchReason = "ZoneMismatch"

	// SubnetNotFoundReason: subnets the cluster's NodePools name no longer
	// exist in the customer account; the endpoint uses the others and its
	// records are kept.
	SubnetNotFoundReason = "SubnetNotFound"

	// SubnetNotInVPCReason: subnets the cluster's NodePools name are in
	// another VPC than the cluster's; the endpoint uses the others and its
	// records are kept.
	SubnetNotInVPCReason = "SubnetNotInVPC"

	// DNSZoneNotFoundReason: the private hosted zone <name>.hypershift.local
	// does not exist in the cluster's VPC.
	DNSZoneNotFoundReason = "DNSZoneNotFound"

	// DNSRecordsPendingReason: the VPC endpoint is available but its DNS
	// records are not written yet.
	DNSRecordsPendingReason = "DNSRecordsPending"

	// WaitingForSubnetsReason: spec.subnetIDs is still empty (no NodePool
	// names a subnet yet).
	WaitingForSubnetsReason = "WaitingForSubnets"
)

// AWSEndpointServiceSpec is the desired state of one private path over AWS
// PrivateLink: a network load balancer of the control plane, published as a
// VPC endpoint service, reached from the customer's VPC.
type AWSEndpointServiceSpec struct {
	// networkLoadBalancerName is the name of the control plane's internal
	// network load balancer. Written by the control-plane operator.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z0-9-]+$')",message="networkLoadBalancerName may contain only letters, digits and hyphens"
	NetworkLoadBalancerName string `json:"networkLoadBalancerName"`

	// subnetIDs are the customer subnets, at most one per availability
	// zone, that the VPC endpoint gets network interfaces in. Written by the
	// operator from the cluster's NodePools; at most 10.
	//
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:XValidation:rule="self.matches('^subnet-([0-9a-f]{8}|[0-9a-f]{17})$')",message="subnetIDs entries must be subnet IDs: subnet- followed by 8 or 17 lowercase hexadecimal digits"
	SubnetIDs []string `json:"subnetIDs,omitempty"`

	// resourceTags are the cluster's spec.platform.aws.resourceTags, put on
	// every AWS resource made for this object. Written by the control-plane
	// operator.
	//
	// +optional
	// +listType=map
	// +listMapKey=key
	// +kubebuilder:validation:MaxItems=25
	ResourceTags []AWSResourceTag `json:"resourceTags,omitempty"`
}

// AWSEndpointServiceStatus is the observed state of one private path. The
// operator writes endpointServiceName and AWSEndpointServiceAvailable; the
// control-plane operator writes everything else.
type AWSEndpointServiceStatus struct {
	// conditions: AWSEndpointServiceAvailable and AWSEndpointAvailable.
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=10
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// endpointServiceName is the service name of the VPC endpoint service,
	// for example com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=255
	EndpointServiceName string `json:"endpointServiceName,omitempty"`

	// endpointID is the ID of the VPC endpoint in the customer's VPC.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=64
	EndpointID string `json:"endpointID,omitempty"`

	// dnsNames are the DNS records written for the endpoint, so that they
	// are deleted even when they are no longer wanted.
	//
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MaxLength=253
	DNSNames []string `json:"dnsNames,omitempty"`

	// dnsZoneID is the ID of the private hosted zone the records are in.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=128
	DNSZoneID string `json:"dnsZoneID,omitempty"`

	// securityGroupID is the ID of the security group of the VPC endpoint.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=64
	SecurityGroupID string `json:"securityGroupID,omitempty"`

	// region is the AWS region of the endpoint, kept so that cleanup works
	// when the HostedControlPlane is gone.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=32
	Region string `json:"region,omitempty"`

	// infraID is the cluster's infraID, kept so that cleanup can find the
	// resources tagged for the cluster when the HostedControlPlane is gone.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	InfraID string `json:"infraID,omitempty"`

	// vpcID is the customer VPC of the endpoint, kept so that cleanup works
	// when the HostedControlPlane is gone.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=21
	VPCID string `json:"vpcID,omitempty"`

	// subnetZoneIDs maps each subnet of the cluster's NodePools to its
	// availability-zone ID, as the customer account reports it. Written by
	// the control-plane operator (which can read the customer's subnets),
	// read by the operator so that when it caps spec.subnetIDs it keeps one
	// subnet per zone instead of dropping whole zones.
	//
	// +optional
	// +kubebuilder:validation:MaxProperties=100
	SubnetZoneIDs map[string]string `json:"subnetZoneIDs,omitempty"`
}

// AWSEndpointService is one private path of a hosted cluster over AWS
// PrivateLink: the operator publishes the control plane's network load
// balancer as a VPC endpoint service; the control-plane operator creates
// the VPC endpoint, its security group and DNS records in the customer's
// VPC. It lives in the cluster's control-plane namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=awsendpointservices,scope=Namespaced,shortName=awsep
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="NLB",type=string,JSONPath=".spec.networkLoadBalancerName",description="Network load balancer name"
// +kubebuilder:printcolumn:name="Service Name",type=string,JSONPath=".status.endpointServiceName",description="VPC endpoint service name"
// +kubebuilder:printcolumn:name="Endpoint ID",type=string,JSONPath=".status.endpointID",description="VPC endpoint ID"
// +kubebuilder:printcolumn:name="Service Available",type=string,JSONPath=".status.conditions[?(@.type==\"AWSEndpointServiceAvailable\")].status",description="Status of AWSEndpointServiceAvailable (operator side)"
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=".status.conditions[?(@.type==\"AWSEndpointAvailable\")].status",description="Status of AWSEndpointAvailable (customer side)"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type AWSEndpointService struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state.
	//
	// +required
	Spec AWSEndpointServiceSpec `json:"spec"`

	// status is the observed state.
	//
	// +optional
	Status AWSEndpointServiceStatus `json:"status,omitzero"`
}

// AWSEndpointServiceList is a list of AWSEndpointServices.
//
// +kubebuilder:object:root=true
type AWSEndpointServiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AWSEndpointService `json:"items"`
}

// Condition types and reasons written by the awsendpointservice controller.
const (
	// WaitingForControlPlaneCleanupReason: deletion waits for the
	// control-plane operator to remove the VPC endpoint (its finalizer).
	WaitingForControlPlaneCleanupReason = "WaitingForControlPlaneCleanup"

	// EndpointServicePendingReason: the endpoint service was just created
	// and AWS reports it Pending.
	EndpointServicePendingReason = "EndpointServicePending"

	// EndpointServiceDeletedReason: AWS reports the endpoint service
	// Deleting or Deleted; it will be recreated.
	EndpointServiceDeletedReason = "EndpointServiceDeleted"

	// ConnectionsPendingReason: deleting a service waits for consumer
	// endpoints to be rejected or go away.
	ConnectionsPendingReason = "ConnectionsPending"

	// OwnedByAnotherManagementClusterReason: the endpoint service in status,
	// or the one already on the load balancer, is tagged for another
	// management cluster; this one never changes or deletes it.
	OwnedByAnotherManagementClusterReason = "OwnedByAnotherManagementCluster"
)
