package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of a GCPPrivateServiceConnect. Each has one writer.
const (
	// GCPServiceAttachmentAvailableCondition is True when the service
	// attachment exists in front of the router's internal forwarding rule,
	// with its NAT subnets and the wanted consumer accept list. Written by
	// the operator.
	GCPServiceAttachmentAvailableCondition = "GCPServiceAttachmentAvailable"

	// GCPEndpointAvailableCondition is True when the Private Service
	// Connect endpoint (an internal address and a forwarding rule whose
	// target is the service attachment) exists in the customer's subnet and
	// its connection is accepted. Written by the control-plane operator.
	GCPEndpointAvailableCondition = "GCPEndpointAvailable"

	// GCPDNSAvailableCondition is True when the private Cloud DNS zone
	// <name>.hypershift.local., visible to the customer's network, holds
	// the api and *.apps records pointing at the endpoint's address.
	// Written by the control-plane operator.
	GCPDNSAvailableCondition = "GCPDNSAvailable"

	// GCPPrivateServiceConnectAvailableCondition is True when the whole
	// private path works: endpoint accepted and DNS in place. Written by the
	// control-plane operator; the operator folds it into the HostedCluster.
	GCPPrivateServiceConnectAvailableCondition = "GCPPrivateServiceConnectAvailable"
)

// GCPConfigurationValidCondition (on a HostedControlPlane, by the
// control-plane operator): True when the cluster's subnet
// (spec.platform.gcp.subnet) exists in its project and region, in its
// network (spec.platform.gcp.network), as the control-plane operator's
// service account sees it. Checked once per generation, before anything is
// created: until it is True the private router gets no load balancer, so
// no forwarding rule, service attachment, address or endpoint is made for
// invalid settings.
const GCPConfigurationValidCondition = "GCPConfigurationValid"

// Reasons of GCPConfigurationValid=False: each names the field to fix.
const (
	// GCPSubnetNotFoundReason: spec.platform.gcp.subnet does not exist in
	// the cluster's project and region.
	GCPSubnetNotFoundReason = "GCPSubnetNotFound"
	// GCPSubnetNotInNetworkReason: spec.platform.gcp.subnet belongs to
	// another network than spec.platform.gcp.network.
	GCPSubnetNotInNetworkReason = "GCPSubnetNotInNetwork"
)

// Reasons of GCPPrivateServiceConnect conditions, besides the shared ones
// in conditions.go (Throttled, AccessDenied, InvalidParameter, CloudError,
// Dependency, ReconciliationPaused, Deleting, InternalError) and those other
// kinds define with the same meaning (WaitingForLoadBalancerIP,
// NATSubnetNotFound, ConnectionsPending, ConnectionNotAllowed,
// OwnedByAnotherManagementCluster).
const (
	// GCPSuccessReason: the condition holds.
	GCPSuccessReason = "GCPSuccess"

	// ForwardingRuleNotFoundReason: no internal forwarding rule of the
	// management cluster's network has the address spec.loadBalancerIP.
	ForwardingRuleNotFoundReason = "ForwardingRuleNotFound"

	// NATSubnetsExhaustedReason: every Private Service Connect subnet of
	// the management cluster's network already serves a service attachment
	// (GCP lets a NAT subnet serve only one); the message says to add a
	// subnet with purpose PRIVATE_SERVICE_CONNECT.
	NATSubnetsExhaustedReason = "NATSubnetsExhausted"

	// ServiceAttachmentNotFoundReason: the service attachment recorded in
	// status.serviceAttachmentName no longer exists; it will be recreated.
	ServiceAttachmentNotFoundReason = "ServiceAttachmentNotFound"

	// WaitingForServiceAttachmentReason: the control-plane operator waits
	// for the operator to publish status.serviceAttachmentURI.
	WaitingForServiceAttachmentReason = "WaitingForServiceAttachment"

	// ServiceAttachmentReplacedReason: the service attachment was recreated
	// (new URI), so the endpoint is being pointed at the new one.
	ServiceAttachmentReplacedReason = "ServiceAttachmentReplaced"

	// PSCConnectionPendingReason: the endpoint's connection waits for the
	// service attachment to accept it.
	PSCConnectionPendingReason = "PSCConnectionPending"

	// PSCConnectionRejectedReason: the service attachment rejected the
	// endpoint's connection (its project is not on the accept list).
	PSCConnectionRejectedReason = "PSCConnectionRejected"

	// PSCConnectionClosedReason: the endpoint's connection was closed (the
	// service attachment it targets is gone).
	PSCConnectionClosedReason = "PSCConnectionClosed"

	// DNSZoneConflictReason: a Cloud DNS zone for the cluster's zone name,
	// visible to the customer's network, exists and was not created by
	// hcplink for this cluster; hcplink neither writes to it nor deletes it.
	DNSZoneConflictReason = "DNSZoneConflict"
)

// GCPPrivateServiceConnectSpec is the desired state of the private path of
// a GCP cluster. The control-plane operator writes it from the cluster's
// configuration and the private router's internal load balancer.
//
// The reference system also carried the router's forwarding rule name
// here, written from the control-plane side; only the management side can
// see the management network's forwarding rules, so the operator finds the
// rule by loadBalancerIP and records it in status.forwardingRuleName.
//
// +kubebuilder:validation:XValidation:rule="has(self.natSubnet) == has(oldSelf.natSubnet) && (!has(self.natSubnet) || self.natSubnet == oldSelf.natSubnet)",message="natSubnet is immutable: it cannot be added, changed or removed after creation",fieldPath=".natSubnet"
// +kubebuilder:validation:XValidation:rule="self.consumerAcceptList.exists(p, p == self.project)",message="consumerAcceptList must include project, the customer's project where the Private Service Connect endpoint is made",fieldPath=".consumerAcceptList"
type GCPPrivateServiceConnectSpec struct {
	// loadBalancerIP is the address of the private router's internal load
	// balancer (its forwarding rule in the management cluster's network).
	// It may change.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=39
	// +kubebuilder:validation:XValidation:rule="isIP(self)",message="loadBalancerIP must be an IPv4 or IPv6 address"
	LoadBalancerIP string `json:"loadBalancerIP,omitempty"`

	// consumerAcceptList are the projects whose endpoints the service
	// attachment accepts: the cluster's project and its
	// private.additionalAllowedProjects. A set of 1 to 50 project IDs or
	// numbers; it may change.
	//
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=30
	// +kubebuilder:validation:items:XValidation:rule="self.matches('^[a-z][-a-z0-9]{4,28}[a-z0-9]$') || self.matches('^[1-9][0-9]{0,18}$')",message="consumerAcceptList entries must be GCP project IDs (6 to 30 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen) or project numbers"
	ConsumerAcceptList []string `json:"consumerAcceptList"`

	// natSubnet is the cluster's private.natSubnet: the management-side
	// subnet the service attachment takes its NAT addresses from. When it
	// is not set the operator picks one. It cannot be added, changed or
	// removed after creation.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="natSubnet must be a subnet name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen"
	NATSubnet string `json:"natSubnet,omitempty"`

	// project is the cluster's project (spec.platform.gcp.project of the
	// HostedCluster), where the endpoint and the DNS zone are made. It
	// cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=6
	// +kubebuilder:validation:MaxLength=30
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z][-a-z0-9]{4,28}[a-z0-9]$')",message="project must be a GCP project ID: 6 to 30 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen, such as my-project-123"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="project is immutable"
	Project string `json:"project"`

	// region is the cluster's region. It cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]+-[a-z]+[0-9]+$')",message="region must be a GCP region name such as us-central1 or europe-west4"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="region is immutable"
	Region string `json:"region"`

	// network is the customer's VPC network the endpoint is made in and the
	// DNS zone is visible to. It cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="network must be a VPC network name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="network is immutable"
	Network string `json:"network"`

	// subnet is the customer's subnet the endpoint takes its address from.
	// It cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="subnet must be a subnet name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="subnet is immutable"
	Subnet string `json:"subnet"`
}

// GCPPrivateServiceConnectStatus is the observed state of the private
// path. The operator writes forwardingRuleName, natSubnets,
// serviceAttachmentName, serviceAttachmentURI, endpointConnection and
// GCPServiceAttachmentAvailable; the control-plane operator writes the
// rest.
type GCPPrivateServiceConnectStatus struct {
	// conditions: GCPServiceAttachmentAvailable, GCPEndpointAvailable,
	// GCPDNSAvailable and GCPPrivateServiceConnectAvailable.
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=10
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// forwardingRuleName is the name of the router's internal forwarding
	// rule, found by spec.loadBalancerIP, that the service attachment
	// targets.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	ForwardingRuleName string `json:"forwardingRuleName,omitempty"`

	// natSubnets are the management-side subnets the service attachment
	// takes its NAT addresses from: spec.natSubnet, or those the operator
	// picked when that is empty.
	//
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MaxLength=63
	NATSubnets []string `json:"natSubnets,omitempty"`

	// serviceAttachmentName is the name of the service attachment in the
	// management project.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	ServiceAttachmentName string `json:"serviceAttachmentName,omitempty"`

	// serviceAttachmentURI is the service attachment's URI, the target of
	// the customer's endpoint:
	// projects/<project>/regions/<region>/serviceAttachments/<name>.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=512
	ServiceAttachmentURI string `json:"serviceAttachmentURI,omitempty"`

	// endpointName is the name of the endpoint's forwarding rule in the
	// customer's project.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	EndpointName string `json:"endpointName,omitempty"`

	// endpointIP is the endpoint's internal address in the customer's
	// subnet.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=39
	// +kubebuilder:validation:XValidation:rule="isIP(self)",message="endpointIP must be an IPv4 or IPv6 address"
	EndpointIP string `json:"endpointIP,omitempty"`

	// endpointConnection is the connection of the endpoint status.endpointName
	// names, as the service attachment reports it among its connected
	// endpoints; absent when the attachment shows no connection from it.
	// Written by the management operator from its listing of the
	// attachments, so that the control-plane operator need not read its
	// endpoint every drift pass.
	//
	// +optional
	EndpointConnection *GCPEndpointConnection `json:"endpointConnection,omitempty"`

	// dnsZoneName is the name of the private Cloud DNS managed zone, kept
	// so that deletion does not need the HostedControlPlane.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	DNSZoneName string `json:"dnsZoneName,omitempty"`

	// dnsRecords are the DNS names of the records written in the zone, so
	// that they are deleted even when they are no longer wanted.
	//
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MaxLength=253
	DNSRecords []string `json:"dnsRecords,omitempty"`
}

// GCPEndpointConnection is one connected endpoint of a service attachment
// (its connectedEndpoints[]), as Google reports it. The forwarding rule and
// the connection ID say which endpoint it is: an endpoint deleted and made
// again under the same name has a new connection ID.
type GCPEndpointConnection struct {
	// forwardingRule is the endpoint's forwarding rule, as a relative name:
	// projects/<project>/regions/<region>/forwardingRules/<name>.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ForwardingRule string `json:"forwardingRule"`

	// pscConnectionID is Google's ID of the connection (a 64-bit unsigned
	// number, in decimal).
	//
	// +optional
	// +kubebuilder:validation:MaxLength=20
	// +kubebuilder:validation:Pattern=`^[0-9]*$`
	PSCConnectionID string `json:"pscConnectionID,omitempty"`

	// status is the connection's status as Google spells it: ACCEPTED,
	// PENDING, REJECTED, CLOSED or NEEDS_ATTENTION.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=32
	Status string `json:"status"`
}

// GCPPrivateServiceConnect is the private path of a GCP hosted cluster:
// the operator puts a service attachment in front of the private router's
// internal forwarding rule; the control-plane operator creates the Private
// Service Connect endpoint (an internal address and a forwarding rule
// targeting the attachment), a private Cloud DNS zone and its records in
// the customer's project. It lives in the cluster's control-plane
// namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=gcpprivateserviceconnects,scope=Namespaced,shortName=gcppsc
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Attachment",type=string,JSONPath=".status.serviceAttachmentName",description="Service attachment name"
// +kubebuilder:printcolumn:name="Endpoint IP",type=string,JSONPath=".status.endpointIP",description="Address of the Private Service Connect endpoint"
// +kubebuilder:printcolumn:name="Attachment Available",type=string,JSONPath=".status.conditions[?(@.type==\"GCPServiceAttachmentAvailable\")].status",description="Status of GCPServiceAttachmentAvailable (operator side)"
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=".status.conditions[?(@.type==\"GCPPrivateServiceConnectAvailable\")].status",description="Status of GCPPrivateServiceConnectAvailable"
// +kubebuilder:printcolumn:name="LB IP",type=string,priority=1,JSONPath=".spec.loadBalancerIP",description="Address of the router's internal load balancer"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type GCPPrivateServiceConnect struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state.
	//
	// +required
	Spec GCPPrivateServiceConnectSpec `json:"spec"`

	// status is the observed state.
	//
	// +optional
	Status GCPPrivateServiceConnectStatus `json:"status,omitzero"`
}

// GCPPrivateServiceConnectList is a list of GCPPrivateServiceConnects.
//
// +kubebuilder:object:root=true
type GCPPrivateServiceConnectList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GCPPrivateServiceConnect `json:"items"`
}
