// Package azurecloud is hcplink's Azure surface: small providers over the
// real azure-sdk-for-go clients (armnetwork, armprivatedns), the
// classification of Azure errors into the shared cloud classes, names and
// tags, credentials with configurable endpoints, and the permissions each
// operator needs.
package azure

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
)

// The interfaces below list exactly the SDK methods hcplink calls, with the
// SDK's own signatures, so that the real clients satisfy them and a reader
// sees the whole Azure surface of the operators in one place. The
// permissions table (permissions.go) maps each method to its RBAC action.

// LoadBalancersAPI reads the management cluster's internal load balancers.
type LoadBalancersAPI interface {
	NewListPager(resourceGroupName string, options *armnetwork.LoadBalancersClientListOptions) *runtime.Pager[armnetwork.LoadBalancersClientListResponse]
}

// VirtualNetworksAPI reads a VNet's address space and subnets.
type VirtualNetworksAPI interface {
	Get(ctx context.Context, resourceGroupName string, virtualNetworkName string, options *armnetwork.VirtualNetworksClientGetOptions) (armnetwork.VirtualNetworksClientGetResponse, error)
}

// ResourceGroupsAPI reads the guest resource group (it must exist before
// anything is created in it).
type ResourceGroupsAPI interface {
	Get(ctx context.Context, resourceGroupName string, options *armresources.ResourceGroupsClientGetOptions) (armresources.ResourceGroupsClientGetResponse, error)
}

// SubnetsAPI reads, creates and deletes the NAT subnet.
type SubnetsAPI interface {
	Get(ctx context.Context, resourceGroupName string, virtualNetworkName string, subnetName string, options *armnetwork.SubnetsClientGetOptions) (armnetwork.SubnetsClientGetResponse, error)
	BeginCreateOrUpdate(ctx context.Context, resourceGroupName string, virtualNetworkName string, subnetName string, subnetParameters armnetwork.Subnet, options *armnetwork.SubnetsClientBeginCreateOrUpdateOptions) (*runtime.Poller[armnetwork.SubnetsClientCreateOrUpdateResponse], error)
	BeginDelete(ctx context.Context, resourceGroupName string, virtualNetworkName string, subnetName string, options *armnetwork.SubnetsClientBeginDeleteOptions) (*runtime.Poller[armnetwork.SubnetsClientDeleteResponse], error)
}

// PrivateLinkServicesAPI is the Private Link Service and its connections.
type PrivateLinkServicesAPI interface {
	Get(ctx context.Context, resourceGroupName string, serviceName string, options *armnetwork.PrivateLinkServicesClientGetOptions) (armnetwork.PrivateLinkServicesClientGetResponse, error)
	NewListPager(resourceGroupName string, options *armnetwork.PrivateLinkServicesClientListOptions) *runtime.Pager[armnetwork.PrivateLinkServicesClientListResponse]
	BeginCreateOrUpdate(ctx context.Context, resourceGroupName string, serviceName string, parameters armnetwork.PrivateLinkService, options *armnetwork.PrivateLinkServicesClientBeginCreateOrUpdateOptions) (*runtime.Poller[armnetwork.PrivateLinkServicesClientCreateOrUpdateResponse], error)
	BeginDelete(ctx context.Context, resourceGroupName string, serviceName string, options *armnetwork.PrivateLinkServicesClientBeginDeleteOptions) (*runtime.Poller[armnetwork.PrivateLinkServicesClientDeleteResponse], error)
	UpdatePrivateEndpointConnection(ctx context.Context, resourceGroupName string, serviceName string, peConnectionName string, parameters armnetwork.PrivateEndpointConnection, options *armnetwork.PrivateLinkServicesClientUpdatePrivateEndpointConnectionOptions) (armnetwork.PrivateLinkServicesClientUpdatePrivateEndpointConnectionResponse, error)
	BeginDeletePrivateEndpointConnection(ctx context.Context, resourceGroupName string, serviceName string, peConnectionName string, options *armnetwork.PrivateLinkServicesClientBeginDeletePrivateEndpointConnectionOptions) (*runtime.Poller[armnetwork.PrivateLinkServicesClientDeletePrivateEndpointConnectionResponse], error)
}

// PrivateEndpointsAPI is the customer's Private Endpoint.
type PrivateEndpointsAPI interface {
	Get(ctx context.Context, resourceGroupName string, privateEndpointName string, options *armnetwork.PrivateEndpointsClientGetOptions) (armnetwork.PrivateEndpointsClientGetResponse, error)
	BeginCreateOrUpdate(ctx context.Context, resourceGroupName string, privateEndpointName string, parameters armnetwork.PrivateEndpoint, options *armnetwork.PrivateEndpointsClientBeginCreateOrUpdateOptions) (*runtime.Poller[armnetwork.PrivateEndpointsClientCreateOrUpdateResponse], error)
	BeginDelete(ctx context.Context, resourceGroupName string, privateEndpointName string, options *armnetwork.PrivateEndpointsClientBeginDeleteOptions) (*runtime.Poller[armnetwork.PrivateEndpointsClientDeleteResponse], error)
}

// InterfacesAPI reads the Private Endpoint's network interface (its IP when
// the endpoint carries no custom DNS configs).
type InterfacesAPI interface {
	Get(ctx context.Context, resourceGroupName string, networkInterfaceName string, options *armnetwork.InterfacesClientGetOptions) (armnetwork.InterfacesClientGetResponse, error)
}

// PrivateZonesAPI is the cluster's Private DNS zone.
type PrivateZonesAPI interface {
	Get(ctx context.Context, resourceGroupName string, privateZoneName string, options *armprivatedns.PrivateZonesClientGetOptions) (armprivatedns.PrivateZonesClientGetResponse, error)
	BeginCreateOrUpdate(ctx context.Context, resourceGroupName string, privateZoneName string, parameters armprivatedns.PrivateZone, options *armprivatedns.PrivateZonesClientBeginCreateOrUpdateOptions) (*runtime.Poller[armprivatedns.PrivateZonesClientCreateOrUpdateResponse], error)
	BeginDelete(ctx context.Context, resourceGroupName string, privateZoneName string, options *armprivatedns.PrivateZonesClientBeginDeleteOptions) (*runtime.Poller[armprivatedns.PrivateZonesClientDeleteResponse], error)
}

// VirtualNetworkLinksAPI links the zone to the guest VNet.
type VirtualNetworkLinksAPI interface {
	Get(ctx context.Context, resourceGroupName string, privateZoneName string, virtualNetworkLinkName string, options *armprivatedns.VirtualNetworkLinksClientGetOptions) (armprivatedns.VirtualNetworkLinksClientGetResponse, error)
	BeginCreateOrUpdate(ctx context.Context, resourceGroupName string, privateZoneName string, virtualNetworkLinkName string, parameters armprivatedns.VirtualNetworkLink, options *armprivatedns.VirtualNetworkLinksClientBeginCreateOrUpdateOptions) (*runtime.Poller[armprivatedns.VirtualNetworkLinksClientCreateOrUpdateResponse], error)
	BeginDelete(ctx context.Context, resourceGroupName string, privateZoneName string, virtualNetworkLinkName string, options *armprivatedns.VirtualNetworkLinksClientBeginDeleteOptions) (*runtime.Poller[armprivatedns.VirtualNetworkLinksClientDeleteResponse], error)
}

// RecordSetsAPI is the zone's A records and its SOA.
type RecordSetsAPI interface {
	Get(ctx context.Context, resourceGroupName string, privateZoneName string, recordType armprivatedns.RecordType, relativeRecordSetName string, options *armprivatedns.RecordSetsClientGetOptions) (armprivatedns.RecordSetsClientGetResponse, error)
	CreateOrUpdate(ctx context.Context, resourceGroupName string, privateZoneName string, recordType armprivatedns.RecordType, relativeRecordSetName string, parameters armprivatedns.RecordSet, options *armprivatedns.RecordSetsClientCreateOrUpdateOptions) (armprivatedns.RecordSetsClientCreateOrUpdateResponse, error)
	Delete(ctx context.Context, resourceGroupName string, privateZoneName string, recordType armprivatedns.RecordType, relativeRecordSetName string, options *armprivatedns.RecordSetsClientDeleteOptions) (armprivatedns.RecordSetsClientDeleteResponse, error)
	NewListPager(resourceGroupName string, privateZoneName string, options *armprivatedns.RecordSetsClientListOptions) *runtime.Pager[armprivatedns.RecordSetsClientListResponse]
}

// The SDK clients are the implementations.
var (
	_ LoadBalancersAPI       = (*armnetwork.LoadBalancersClient)(nil)
	_ VirtualNetworksAPI     = (*armnetwork.VirtualNetworksClient)(nil)
	_ SubnetsAPI             = (*armnetwork.SubnetsClient)(nil)
	_ PrivateLinkServicesAPI = (*armnetwork.PrivateLinkServicesClient)(nil)
	_ PrivateEndpointsAPI    = (*armnetwork.PrivateEndpointsClient)(nil)
	_ InterfacesAPI          = (*armnetwork.InterfacesClient)(nil)
	_ PrivateZonesAPI        = (*armprivatedns.PrivateZonesClient)(nil)
	_ VirtualNetworkLinksAPI = (*armprivatedns.VirtualNetworkLinksClient)(nil)
	_ RecordSetsAPI          = (*armprivatedns.RecordSetsClient)(nil)
	_ ResourceGroupsAPI      = (*armresources.ResourceGroupsClient)(nil)
)
