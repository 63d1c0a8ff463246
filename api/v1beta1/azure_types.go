package v1beta1

// AzureTopology says from where a cluster's control plane is reachable.
//
// +kubebuilder:validation:Enum=Public;PublicAndPrivate;Private
type AzureTopology string

const (
	// AzureTopologyPublic serves the control plane from the internet only;
	// hcplink builds no private path.
	AzureTopologyPublic AzureTopology = "Public"
	// AzureTopologyPublicAndPrivate serves the control plane from the
	// internet and, for workers, through Azure Private Link.
	AzureTopologyPublicAndPrivate AzureTopology = "PublicAndPrivate"
	// AzureTopologyPrivate serves the control plane through Azure Private
	// Link only.
	AzureTopologyPrivate AzureTopology = "Private"
)

// AzurePrivateType is the mechanism of a private Azure cluster.
//
// +kubebuilder:validation:Enum=PrivateLink
type AzurePrivateType string

const (
	// AzurePrivateTypePrivateLink connects workers through a Private Link
	// Service in front of the control plane's internal load balancer and a
	// Private Endpoint in the cluster's VNet.
	AzurePrivateTypePrivateLink AzurePrivateType = "PrivateLink"
)

// AzurePlatformSpec is the Azure configuration of a cluster.
//
// +kubebuilder:validation:XValidation:rule="!has(self.topology) || self.topology == 'Public' || has(self.private)",message="private is required when topology is PublicAndPrivate or Private",fieldPath=".private"
// +kubebuilder:validation:XValidation:rule="(has(self.topology) && self.topology != 'Public') || !has(self.private)",message="private must not be set when topology is Public",fieldPath=".private"
// +kubebuilder:validation:XValidation:rule="has(self.private) == has(oldSelf.private)",message="private cannot be added or removed after the cluster is created",fieldPath=".private"
// +kubebuilder:validation:XValidation:rule="self.subnetID.lowerAscii().startsWith(self.vnetID.lowerAscii() + '/subnets/')",message="subnetID must be a subnet of the VNet named by vnetID",fieldPath=".subnetID"
// +kubebuilder:validation:XValidation:rule="self.vnetID.lowerAscii().startsWith('/subscriptions/' + self.subscriptionID.lowerAscii() + '/')",message="vnetID must be in the cluster's subscription: its /subscriptions/<id>/ segment must equal subscriptionID",fieldPath=".vnetID"
// +kubebuilder:validation:XValidation:rule="self.subnetID.lowerAscii().startsWith('/subscriptions/' + self.subscriptionID.lowerAscii() + '/')",message="subnetID must be in the cluster's subscription: its /subscriptions/<id>/ segment must equal subscriptionID",fieldPath=".subnetID"
// +kubebuilder:validation:XValidation:rule="!has(self.topology) || self.topology == 'Public' || has(self.tenantID)",message="tenantID is required when topology is PublicAndPrivate or Private: the control-plane operator signs in to this Entra ID tenant",fieldPath=".tenantID"
// +kubebuilder:validation:XValidation:rule="!has(self.topology) || self.topology == 'Public' || (has(self.azureAuthenticationConfig) && has(self.azureAuthenticationConfig.workloadIdentities))",message="azureAuthenticationConfig.workloadIdentities.controlPlaneOperator.clientID is required when topology is PublicAndPrivate or Private: it is the identity the control-plane operator creates the Private Endpoint and private DNS with (hcplink create iam azure makes one)",fieldPath=".azureAuthenticationConfig"
type AzurePlatformSpec struct {
	// subscriptionID is the Azure subscription of the cluster's workers, a
	// UUID such as 550e8400-e29b-41d4-a716-446655440000. It cannot change
	// after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=36
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')",message="subscriptionID must be a UUID such as 550e8400-e29b-41d4-a716-446655440000"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="subscriptionID is immutable"
	SubscriptionID string `json:"subscriptionID"`

	// resourceGroup is the resource group of the cluster's Azure resources:
	// 1 to 90 letters, digits and _ . ( ) -, not ending in a period. It
	// cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=90
	// +kubebuilder:validation:XValidation:rule="self.matches('^[-A-Za-z0-9_.()]+$') && !self.endsWith('.')",message="resourceGroup may contain only letters, digits and _ . ( ) - and must not end with a period"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="resourceGroup is immutable"
	ResourceGroupName string `json:"resourceGroup"`

	// location is the Azure region, for example eastus. It cannot change
	// after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]+$')",message="location must be an Azure region name of lowercase letters and digits, such as eastus"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="location is immutable"
	Location string `json:"location"`

	// vnetID is the resource ID of the workers' virtual network (names as
	// Azure allows them: https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules#microsoftnetwork):
	// /subscriptions/<uuid>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<name>.
	// The Private DNS zone is linked to it. It cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=266
	// +kubebuilder:validation:XValidation:rule="self.matches('^/(?i:subscriptions)/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/(?i:resourceGroups)/[-A-Za-z0-9_.()]+/(?i:providers/Microsoft[.]Network/virtualNetworks)/[^/]+$')",message="vnetID must be a virtual network resource ID: /subscriptions/<uuid>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<name>"
	// +kubebuilder:validation:XValidation:rule="self.matches('^.*/(?i:virtualNetworks)/[A-Za-z0-9][-A-Za-z0-9_.]{0,62}[A-Za-z0-9_]$')",message="vnetID names a VNet Azure would refuse: virtual network names are 2 to 64 letters, digits, _ . and -, starting with a letter or digit and ending with a letter, digit or _"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="vnetID is immutable"
	VnetID string `json:"vnetID"`

	// subnetID is the resource ID of the workers' subnet, a subnet of vnetID:
	// /subscriptions/<uuid>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<name>/subnets/<subnet>.
	// The Private Endpoint is created in it unless a NodePool names another.
	// It cannot change after creation.
	//
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=355
	// +kubebuilder:validation:XValidation:rule="self.matches('^/(?i:subscriptions)/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/(?i:resourceGroups)/[-A-Za-z0-9_.()]+/(?i:providers/Microsoft[.]Network/virtualNetworks)/[^/]+/(?i:subnets)/[^/]+$')",message="subnetID must be a subnet resource ID: /subscriptions/<uuid>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<name>/subnets/<subnet>"
	// +kubebuilder:validation:XValidation:rule="self.matches('^.*/(?i:virtualNetworks)/[A-Za-z0-9][-A-Za-z0-9_.]{0,62}[A-Za-z0-9_]/(?i:subnets)/[A-Za-z0-9]([-A-Za-z0-9_.]{0,78}[A-Za-z0-9_])?$')",message="subnetID names a subnet Azure would refuse: subnet names are 1 to 80 letters, digits, _ . and - (virtual network names 2 to 64), starting with a letter or digit and ending with a letter, digit or _"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="subnetID is immutable"
	SubnetID string `json:"subnetID"`

	// topology says from where the control plane is reachable: Public
	// (internet only, the default), PublicAndPrivate (internet, and Private
	// Link for workers) or Private (Private Link only). It can move between
	// PublicAndPrivate and Private; it cannot move between Public and either
	// of the others. Unless it is Public, private must be set and every
	// service must be published by Route.
	//
	// +optional
	// +kubebuilder:default=Public
	// +kubebuilder:validation:XValidation:rule="self == oldSelf || (self != 'Public' && oldSelf != 'Public')",message="topology can change only between PublicAndPrivate and Private; changing between Public and PublicAndPrivate or Private is not supported"
	Topology AzureTopology `json:"topology,omitempty"`

	// private configures the private path. Required unless topology is
	// Public, refused when it is, and it cannot be added or removed after
	// creation. hcplink's Azure private-link controllers act only on clusters
	// that set it.
	//
	// +optional
	Private *AzurePrivateSpec `json:"private,omitempty"`

	// tenantID is the Entra ID tenant of the cluster's identities, a UUID
	// such as 72f988bf-86f1-41af-91ab-2d7cd011db47. Required unless
	// topology is Public. Once set it cannot change: the subscription, and
	// so its tenant, cannot change either.
	//
	// +optional
	// +kubebuilder:validation:MinLength=36
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')",message="tenantID must be a UUID such as 72f988bf-86f1-41af-91ab-2d7cd011db47"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="tenantID is immutable"
	TenantID string `json:"tenantID,omitempty"`

	// azureAuthenticationConfig names the Azure identities of the
	// cluster's components. Required unless topology is Public.
	//
	// +optional
	AzureAuthenticationConfig *AzureAuthenticationConfiguration `json:"azureAuthenticationConfig,omitempty"`
}

// AzureAuthenticationType is how the cluster's components sign in to Azure.
//
// +kubebuilder:validation:Enum=WorkloadIdentities
type AzureAuthenticationType string

const (
	// AzureAuthenticationWorkloadIdentities: each component exchanges its
	// ServiceAccount token for an Entra ID token of a user-assigned managed
	// identity (or app registration) that trusts the management cluster's
	// issuer for that ServiceAccount.
	AzureAuthenticationWorkloadIdentities AzureAuthenticationType = "WorkloadIdentities"
)

// AzureAuthenticationConfiguration names the Azure identities of a
// cluster's components.
//
// +kubebuilder:validation:XValidation:rule="self.azureAuthenticationConfigType != 'WorkloadIdentities' || has(self.workloadIdentities)",message="workloadIdentities is required when azureAuthenticationConfigType is WorkloadIdentities",fieldPath=".workloadIdentities"
type AzureAuthenticationConfiguration struct {
	// azureAuthenticationConfigType is how the components sign in;
	// WorkloadIdentities is the only way.
	//
	// +optional
	// +kubebuilder:default=WorkloadIdentities
	AzureAuthenticationConfigType AzureAuthenticationType `json:"azureAuthenticationConfigType,omitempty"`

	// workloadIdentities are the components' workload identities.
	//
	// +optional
	WorkloadIdentities *AzureWorkloadIdentities `json:"workloadIdentities,omitempty"`
}

// AzureWorkloadIdentities are the workload identities of the components
// hcplink runs for a cluster.
type AzureWorkloadIdentities struct {
	// controlPlaneOperator is the identity of the control-plane operator
	// (ServiceAccount control-plane-operator in the control-plane
	// namespace): it creates the Private Endpoint, the private DNS zone,
	// its VNet link and records in the cluster's resource group.
	//
	// +required
	ControlPlaneOperator WorkloadIdentity `json:"controlPlaneOperator"`
}

// WorkloadIdentity is one component's workload identity.
type WorkloadIdentity struct {
	// clientID is the client ID of the user-assigned managed identity (or
	// app registration) whose federated credential trusts the management
	// cluster's issuer for the component's ServiceAccount. It may change,
	// to rotate the identity: the control-plane operator restarts with the
	// new one.
	//
	// +required
	ClientID AzureClientID `json:"clientID"`
}

// AzureClientID is the client (application) ID of an Entra ID identity.
//
// +kubebuilder:validation:MinLength=36
// +kubebuilder:validation:MaxLength=36
// +kubebuilder:validation:XValidation:rule="self.matches('^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')",message="clientID must be a UUID such as 3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"
type AzureClientID string

// AzurePrivateSpec configures the private path of an Azure cluster.
//
// +kubebuilder:validation:XValidation:rule="(has(self.privateLink) && has(self.privateLink.natSubnetID)) == (has(oldSelf.privateLink) && has(oldSelf.privateLink.natSubnetID)) && (!has(self.privateLink) || !has(self.privateLink.natSubnetID) || self.privateLink.natSubnetID == oldSelf.privateLink.natSubnetID)",message="privateLink.natSubnetID is immutable: it cannot be added, changed or removed after creation",fieldPath=".privateLink.natSubnetID"
type AzurePrivateSpec struct {
	// type is the mechanism; PrivateLink is the only one. It cannot change
	// after creation.
	//
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="type is immutable"
	Type AzurePrivateType `json:"type"`

	// privateLink holds the settings of the PrivateLink mechanism.
	//
	// +optional
	PrivateLink *AzurePrivateLinkSpec `json:"privateLink,omitempty"`
}

// AzurePrivateLinkSpec holds the settings of an Azure Private Link Service.
type AzurePrivateLinkSpec struct {
	// natSubnetID is the resource ID of the subnet the Private Link Service
	// takes its NAT addresses from; it must have
	// privateLinkServiceNetworkPolicies disabled. When it is not set the
	// operator creates one inside the load balancer's VNet and deletes it
	// with the cluster. It cannot be added, changed or removed after
	// creation.
	//
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=355
	// +kubebuilder:validation:XValidation:rule="self.matches('^/(?i:subscriptions)/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/(?i:resourceGroups)/[-A-Za-z0-9_.()]+/(?i:providers/Microsoft[.]Network/virtualNetworks)/[^/]+/(?i:subnets)/[^/]+$')",message="natSubnetID must be a subnet resource ID: /subscriptions/<uuid>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<name>/subnets/<subnet>"
	// +kubebuilder:validation:XValidation:rule="self.matches('^.*/(?i:virtualNetworks)/[A-Za-z0-9][-A-Za-z0-9_.]{0,62}[A-Za-z0-9_]/(?i:subnets)/[A-Za-z0-9]([-A-Za-z0-9_.]{0,78}[A-Za-z0-9_])?$')",message="natSubnetID names a subnet Azure would refuse: subnet names are 1 to 80 letters, digits, _ . and - (virtual network names 2 to 64), starting with a letter or digit and ending with a letter, digit or _"
	NATSubnetID string `json:"natSubnetID,omitempty"`

	// additionalAllowedSubscriptions are Azure subscriptions, besides the
	// cluster's own, allowed to see the Private Link Service and whose
	// Private Endpoints it approves automatically. A set of 1 to 50 UUIDs; it
	// may change at any time.
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
