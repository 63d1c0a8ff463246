package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of an AzurePrivateLinkService. Each has one writer.
const (
	// AzureInternalLoadBalancerAvailableCondition is True when the operator
	// found the internal load balancer frontend whose address is
	// spec.loadBalancerIP. Written by the operator.
	AzureInternalLoadBalancerAvailableCondition = "AzureInternalLoadBalancerAvailable"

	// AzurePLSCreatedCondition is True when the Private Link Service exists
	// with the wanted frontend, NAT subnet and allowed subscriptions.
	// Written by the operator.
	AzurePLSCreatedCondition = "AzurePLSCreated"

	// AzurePrivateEndpointAvailableCondition is True when the Private
	// Endpoint in the customer's subnet is approved and has an address.
	// Written by the control-plane operator.
	AzurePrivateEndpointAvailableCondition = "AzurePrivateEndpointAvailable"

	// AzurePrivateDNSAvailableCondition is True when the Private DNS zone,
	// its VNet link and the api and *.apps records exist. Written by the
	// control-plane operator.
	AzurePrivateDNSAvailableCondition = "AzurePrivateDNSAvailable"

	// AzurePrivateLinkServiceAvailableCondition is True when the whole
	// private path works: endpoint approved and DNS in place. Written by the
	// control-plane operator; the operator folds it into the HostedCluster.
	AzurePrivateLinkServiceAvailableCondition = "AzurePrivateLinkServiceAvailable"
)

// AzureConfigurationValidCondition (on a HostedControlPlane, by the
// control-plane operator): True when the cluster's guest credentials see its
// resource group, VNet and subnet and spec.location is the VNet's location.
// Checked once per generation, before anything is created: until it is True
// the private router gets no load balancer, so no Private Link Service, NAT
// subnet or Private Endpoint is made for invalid settings.
const AzureConfigurationValidCondition = "AzureConfigurationValid"

// Reasons of AzureConfigurationValid=False: each names the field to fix.
const (
	// AzureResourceGroupNotFoundReason: spec.platform.azure.resourceGroupName
	// does not exist in the subscription (or the identity cannot see it).
	AzureResourceGroupNotFoundReason = "AzureResourceGroupNotFound"
	// AzureVNetNotFoundReason: the VNet of spec.platform.azure.vnetID does not
	// exist.
	AzureVNetNotFoundReason = "AzureVNetNotFound"
	// AzureSubnetNotFoundReason: spec.platform.azure.subnetID is not a subnet
	// of that VNet.
	AzureSubnetNotFoundReason = "AzureSubnetNotFound"
	// AzureLocationMismatchReason: spec.platform.azure.location is not the
	// VNet's location (an unknown location is caught here too).
	AzureLocationMismatchReason = "AzureLocationMismatch"
)

// Reasons of AzurePrivateLinkService conditions, besides the shared ones in
// conditions.go (Throttled, AccessDenied, InvalidParameter,
// ReconciliationPaused, Deleting, InternalError).
const (
	// AzureSuccessReason: the condition holds.
	AzureSuccessReason = "AzureSuccess"

	// AzureErrorReason: an Azure call failed for a reason no other reason
	// covers; the message has the error code and what to do.
	AzureErrorReason = "AzureError"

	// WaitingForLoadBalancerIPReason: spec.loadBalancerIP is not set yet.
	WaitingForLoadBalancerIPReason = "WaitingForLoadBalancerIP"

	// InternalLoadBalancerNotFoundReason: no internal load balancer frontend
	// has the address spec.loadBalancerIP.
	InternalLoadBalancerNotFoundReason = "InternalLoadBalancerNotFound"

	// InternalLoadBalancerAmbiguousReason: frontends of load balancers in
	// more than one VNet of the management cluster's resource group have
	// the address spec.loadBalancerIP; the operator needs the management
	// cluster's VNet (--azure-vnet-id) to tell which is its own.
	InternalLoadBalancerAmbiguousReason = "InternalLoadBalancerAmbiguous"

	// NATSubnetNotFoundReason: the subnet named by spec.natSubnetID does not
	// exist.
	NATSubnetNotFoundReason = "NATSubnetNotFound"

	// LoadBalancerPrivateLinkServiceLimitReason: the private router's
	// internal load balancer already has Azure's limit of Private Link
	// Services (8); the router must be placed on another load balancer.
	LoadBalancerPrivateLinkServiceLimitReason = "LoadBalancerPrivateLinkServiceLimit"

	// NATSubnetNameTakenReason: a subnet with the name of the NAT subnet
	// the operator would create exists, and the operator did not create
	// it (no record in status, not used by the cluster's service).
	NATSubnetNameTakenReason = "NATSubnetNameTaken"

	// NATAddressSpaceExhaustedReason: the management VNet has no free
	// range left for another shared NAT subnet, and the ones it has are
	// full.
	NATAddressSpaceExhaustedReason = "NATAddressSpaceExhausted"

	// WaitingForPrivateLinkServiceReason: the control-plane operator waits
	// for the operator to publish status.privateLinkServiceAlias.
	WaitingForPrivateLinkServiceReason = "WaitingForPrivateLinkService"

	// PrivateEndpointPendingReason: the Private Endpoint's connection waits
	// for approval.
	PrivateEndpointPendingReason = "PrivateEndpointPending"

	// PrivateEndpointRejectedReason: the Private Link Service rejected the
	// Private Endpoint's connection.
	PrivateEndpointRejectedReason = "PrivateEndpointRejected"

	// PrivateEndpointFailedReason: Azure reports the Private Endpoint failed.
	PrivateEndpointFailedReason = "PrivateEndpointFailed"

	// PrivateLinkServiceReplacedReason: the Private Link Service was
	// recreated (new alias), so the Private Endpoint is being replaced.
	PrivateLinkServiceReplacedReason = "PrivateLinkServiceReplaced"

	// PrivateDNSZoneNameConflictReason: a private zone with the cluster's
	// zone name exists in the resource group and was not created by hcplink
	// for this cluster (another cluster of the same name, or the customer's
	// own); hcplink neither writes to it nor deletes it.
	PrivateDNSZoneNameConflictReason = "PrivateDNSZoneNameConflict"

	// PrivateDNSZoneLinkConflictReason: the cluster's VNet is already linked
	// to another private zone of the same name (in another resource group),
	// so Azure refuses the link of the cluster's zone.
	PrivateDNSZoneLinkConflictReason = "PrivateDNSZoneLinkConflict"

	// ConnectionNotAllowedReason (an Event): a pending private endpoint
	// connection from a subscription the cluster does not allow was
	// rejected.
	ConnectionNotAllowedReason = "ConnectionNotAllowed"

	// ConflictReason: Azure reported a conflicting operation in progress;
	// the controller retries shortly.
	ConflictReason = "Conflict"
)

// AzurePrivateLinkServiceSpec is the desired state of the private path of an
// Azure cluster. The control-plane operator writes it from the cluster's
// configuration and the private router's internal load balancer.
//
// +kubebuilder:validation:XValidation:rule="has(self.natSubnetID) == has(oldSelf.natSubnetID) && (!has(self.natSubnetID) || self.natSubnetID == oldSelf.natSubnetID)",message="natSubnetID is immutable: it cannot be added, changed or removed after creation",fieldPath=".natSubnetID"
// +kubebuilder:validation:XValidation:rule="self.guestSubnetID.lowerAscii().startsWith(self.guestVNetID.lowerAscii() + '/subnets/')",message="guestSubnetID must be a subnet of the VNet named by guestVNetID",fieldPath=".guestSubnetID"
// +kubebuilder:validation:XValidation:rule="self.guestVNetID.lowerAscii().startsWith('/subscriptions/' + self.subscriptionID.lowerAscii() + '/')",message="guestVNetID must be in subscriptionID, where the Private Endpoint is created and which the Private Link Service lets in: its /subscriptions/<id>/ segment must equal subscriptionID",fieldPath=".guestVNetID"
// +kubebuilder:validation:XValidation:rule="self.guestSubnetID.lowerAscii().startsWith('/subscriptions/' + self.subscriptionID.lowerAscii() + '/')",message="guestSubnetID must be in subscriptionID, where the Private Endpoint is created and which the Private Link Service lets in: its /subscriptions/<id>/ segment must equal subscriptionID",fieldPath=".guestSubnetID"
type AzurePrivateLinkServiceSpec struct {
	// loadBalancerIP is the frontend address of the private router's
	// internal load balancer. It may change.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=39
	// +kubebuilder:validation:XValidation:rule="isIP(self)",message="loadBalancerIP must be an IPv4 or IPv6 address"
	LoadBalancerIP string `json:"loadBalancerIP,omitempty"`

	// subscriptionID is the cluster's Azure subscription
	// (spec.platform.azure.subscriptionID of the HostedCluster), a UUID. It
	// cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=36
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')",message="subscriptionID must be a UUID such as 550e8400-e29b-41d4-a716-446655440000"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="subscriptionID is immutable"
	SubscriptionID string `json:"subscriptionID"`

	// resourceGroupName is the cluster's resource group
	// (spec.platform.azure.resourceGroup of the HostedCluster). It cannot
	// change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=90
	// +kubebuilder:validation:XValidation:rule="self.matches('^[-A-Za-z0-9_.()]+$') && !self.endsWith('.')",message="resourceGroupName may contain only letters, digits and _ . ( ) - and must not end with a period"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="resourceGroupName is immutable"
	ResourceGroupName string `json:"resourceGroupName"`

	// location is the Azure region, for example eastus. It cannot change
	// after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]+$')",message="location must be an Azure region name of lowercase letters and digits, such as eastus"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="location is immutable"
	Location string `json:"location"`

	// natSubnetID is the subnet the Private Link Service takes its NAT
	// addresses from (the cluster's private.privateLink.natSubnetID). When it
	// is not set the operator creates one. It cannot be added, changed or
	// removed after creation.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=355
	// +kubebuilder:validation:XValidation:rule="self.matches('^/(?i:subscriptions)/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/(?i:resourceGroups)/[-A-Za-z0-9_.()]+/(?i:providers/Microsoft[.]Network/virtualNetworks)/[^/]+/(?i:subnets)/[^/]+$')",message="natSubnetID must be a subnet resource ID: /subscriptions/<uuid>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<name>/subnets/<subnet>"
	NATSubnetID string `json:"natSubnetID,omitempty"`

	// guestSubnetID is the customer subnet the Private Endpoint is created
	// in; its subscription is always allowed on the Private Link Service. It
	// cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=355
	// +kubebuilder:validation:XValidation:rule="self.matches('^/(?i:subscriptions)/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/(?i:resourceGroups)/[-A-Za-z0-9_.()]+/(?i:providers/Microsoft[.]Network/virtualNetworks)/[^/]+/(?i:subnets)/[^/]+$')",message="guestSubnetID must be a subnet resource ID: /subscriptions/<uuid>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<name>/subnets/<subnet>"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="guestSubnetID is immutable"
	GuestSubnetID string `json:"guestSubnetID"`

	// guestVNetID is the customer VNet the Private DNS zone is linked to. It
	// cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=266
	// +kubebuilder:validation:XValidation:rule="self.matches('^/(?i:subscriptions)/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/(?i:resourceGroups)/[-A-Za-z0-9_.()]+/(?i:providers/Microsoft[.]Network/virtualNetworks)/[^/]+$')",message="guestVNetID must be a virtual network resource ID: /subscriptions/<uuid>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<name>"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="guestVNetID is immutable"
	GuestVNetID string `json:"guestVNetID"`

	// baseDomain is the cluster's spec.dns.baseDomain, kept here so that
	// deletion does not need the HostedControlPlane. It cannot change after
	// creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?[.])*[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="baseDomain must be a lowercase DNS name such as example.com"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="baseDomain is immutable"
	BaseDomain string `json:"baseDomain"`

	// additionalAllowedSubscriptions are the cluster's
	// private.privateLink.additionalAllowedSubscriptions: subscriptions,
	// besides the guest subnet's, that may see the Private Link Service and
	// whose endpoints it approves. A set of 1 to 50 UUIDs; it may change.
	//
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=50
	// +kubebuilder:validation:items:MinLength=36
	// +kubebuilder:validation:items:MaxLength=36
	// +kubebuilder:validation:items:XValidation:rule="self.matches('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')",message="additionalAllowedSubscriptions entries must be subscription UUIDs such as 550e8400-e29b-41d4-a716-446655440000"
	AdditionalAllowedSubscriptions []string `json:"additionalAllowedSubscriptions,omitempty"`
}

// AzurePrivateLinkServiceStatus is the observed state of the private path.
// The operator writes internalLoadBalancerID, natSubnetID,
// privateLinkServiceID and privateLinkServiceAlias; the control-plane
// operator writes the rest.
type AzurePrivateLinkServiceStatus struct {
	// conditions: AzureInternalLoadBalancerAvailable, AzurePLSCreated,
	// AzurePrivateEndpointAvailable, AzurePrivateDNSAvailable and
	// AzurePrivateLinkServiceAvailable.
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=10
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// internalLoadBalancerID is the resource ID of the internal load
	// balancer whose frontend has spec.loadBalancerIP.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=512
	InternalLoadBalancerID string `json:"internalLoadBalancerID,omitempty"`

	// natSubnetID is the subnet the Private Link Service takes its NAT
	// addresses from: spec.natSubnetID, or the subnet the operator created
	// when that is empty (deleted with this object).
	//
	// +optional
	// +kubebuilder:validation:MaxLength=512
	NATSubnetID string `json:"natSubnetID,omitempty"`

	// privateLinkServiceID is the resource ID of the Private Link Service.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=512
	PrivateLinkServiceID string `json:"privateLinkServiceID,omitempty"`

	// privateLinkServiceAlias is the globally unique alias customers'
	// Private Endpoints connect to.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=256
	PrivateLinkServiceAlias string `json:"privateLinkServiceAlias,omitempty"`

	// privateEndpointID is the resource ID of the Private Endpoint.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=512
	PrivateEndpointID string `json:"privateEndpointID,omitempty"`

	// privateEndpointConnectionState is the state, as Azure spells it
	// (Approved, Pending, Rejected, Disconnected), of the Private Link
	// Service's connection from the Private Endpoint status.privateEndpointID
	// names; empty when the service has no connection from it. Written by
	// the management operator from its listing of the services, so that
	// the control-plane operator need not read the endpoint every pass.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=32
	PrivateEndpointConnectionState string `json:"privateEndpointConnectionState,omitempty"`

	// privateEndpointIP is the Private Endpoint's address in the customer's
	// subnet.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=39
	// +kubebuilder:validation:XValidation:rule="isIP(self)",message="privateEndpointIP must be an IPv4 or IPv6 address"
	PrivateEndpointIP string `json:"privateEndpointIP,omitempty"`

	// privateDNSZoneID is the resource ID of the Private DNS zone.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=512
	PrivateDNSZoneID string `json:"privateDNSZoneID,omitempty"`

	// dnsZoneName is the name of the Private DNS zone, kept so that deletion
	// does not need the HostedControlPlane.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=253
	DNSZoneName string `json:"dnsZoneName,omitempty"`
}

// AzurePrivateLinkService is the private path of an Azure hosted cluster:
// the operator puts a Private Link Service in front of the control plane's
// internal load balancer; the control-plane operator creates the Private
// Endpoint, Private DNS zone, VNet link and records in the customer's VNet.
// It lives in the cluster's control-plane namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=azureprivatelinkservices,scope=Namespaced,shortName=azpls
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Alias",type=string,JSONPath=".status.privateLinkServiceAlias",description="Private Link Service alias"
// +kubebuilder:printcolumn:name="Endpoint IP",type=string,JSONPath=".status.privateEndpointIP",description="Address of the Private Endpoint"
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=".status.conditions[?(@.type==\"AzurePrivateLinkServiceAvailable\")].status",description="Status of AzurePrivateLinkServiceAvailable"
// +kubebuilder:printcolumn:name="LB IP",type=string,priority=1,JSONPath=".spec.loadBalancerIP",description="Internal load balancer frontend address"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
type AzurePrivateLinkService struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state.
	//
	// +required
	Spec AzurePrivateLinkServiceSpec `json:"spec"`

	// status is the observed state.
	//
	// +optional
	Status AzurePrivateLinkServiceStatus `json:"status,omitzero"`
}

// AzurePrivateLinkServiceList is a list of AzurePrivateLinkServices.
//
// +kubebuilder:object:root=true
type AzurePrivateLinkServiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AzurePrivateLinkService `json:"items"`
}
