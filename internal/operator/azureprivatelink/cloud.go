package azureprivatelink

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// Frontend is the internal load balancer frontend a Private Link Service
// is put in front of.
type Frontend = azurecloud.Frontend

// Cloud is every management-side Azure call the controller makes, on the
// provider (internal/cloud/azure). Reads return nil for what does not
// exist. Writes start a long-running operation and take one look at it
// within the provider's per-call timeout; they never wait for it. The NAT
// subnet's creation is resumed from its token (kept in memory: its body
// never changes); the service's PUT is followed by reading its
// provisioningState on the next pass, since a token kept across passes
// could resume an old PUT after the desired state changed (and polling
// the operation would cost its final read too). Names are deterministic,
// so a restart loses nothing.
type Cloud struct {
	Provider *azurecloud.PrivateLinkServices
	// Subscription is the management subscription the provider's clients
	// work in.
	Subscription string
	// LoadBalancers is where this management cluster's internal load
	// balancers are: its resource group (required) and, when known, its
	// VNet. The subscription is never scanned: another management cluster
	// may hold the same address.
	LoadBalancers azurecloud.LoadBalancerScope
}

// InternalFrontends lists every internal load balancer frontend of this
// management cluster.
func (c *Cloud) InternalFrontends(ctx context.Context) ([]Frontend, error) {
	return c.Provider.InternalFrontends(ctx, c.LoadBalancers)
}

// Subnet reads a subnet by ID.
func (c *Cloud) Subnet(ctx context.Context, id string) (*armnetwork.Subnet, error) {
	return c.Provider.Subnet(ctx, id)
}

// NATSubnetVNet reads the VNet of frontendSubnetID, its subnets inline
// (whether a subnet of the NAT subnet's name exists, and the free address
// space to place one in); its absence is an error.
func (c *Cloud) NATSubnetVNet(ctx context.Context, frontendSubnetID string) (*armnetwork.VirtualNetwork, error) {
	ref, err := azurecloud.ParseSubnetID(frontendSubnetID)
	if err != nil {
		return nil, err
	}
	return c.Provider.NATSubnetVNet(ctx, ref.VNetID())
}

// EnsureNATSubnet gets the subnet name in the VNet of frontendSubnetID, or
// starts creating it (a /bits) in that VNet's free address space (placed
// from vnet without reading again when the caller just read it and found
// no such subnet; nil: look first); while it is being created the answer
// is the subnet as Azure shows it (Updating) and the token to resume
// with, so that the next pass polls only the operation.
func (c *Cloud) EnsureNATSubnet(ctx context.Context, frontendSubnetID, name string, bits int, token string, vnet *armnetwork.VirtualNetwork) (*armnetwork.Subnet, string, error) {
	ref, err := azurecloud.ParseSubnetID(frontendSubnetID)
	if err != nil {
		return nil, "", err
	}
	var subnet *armnetwork.Subnet
	var next string
	if vnet != nil {
		subnet, next, err = c.Provider.CreateNATSubnetIn(ctx, vnet, name, bits, token)
	} else {
		subnet, next, err = c.Provider.EnsureNATSubnetOfSize(ctx, ref.VNetID(), name, bits, token)
	}
	if err != nil || subnet != nil {
		return subnet, "", err
	}
	id := azurecloud.SubnetRef{SubscriptionID: ref.SubscriptionID, ResourceGroup: ref.ResourceGroup, VNet: ref.VNet, Name: name}.ID()
	updating := armnetwork.ProvisioningStateUpdating
	return &armnetwork.Subnet{ID: &id, Name: &name, Properties: &armnetwork.SubnetPropertiesFormat{ProvisioningState: &updating}}, next, nil
}

// DeleteSubnet starts deleting a subnet; gone when it no longer exists.
func (c *Cloud) DeleteSubnet(ctx context.Context, id string) (bool, error) {
	token, err := c.Provider.DeleteSubnet(ctx, id, "")
	return err == nil && token == "", err
}

// PrivateLinkService reads a service.
func (c *Cloud) PrivateLinkService(ctx context.Context, rg, name string) (*armnetwork.PrivateLinkService, error) {
	return c.Provider.Get(ctx, rg, name)
}

// PutPrivateLinkService starts creating or updating a service and returns
// it: as Azure finished it, or (still running) as a GET shows it.
func (c *Cloud) PutPrivateLinkService(ctx context.Context, rg, name string, body armnetwork.PrivateLinkService) (*armnetwork.PrivateLinkService, error) {
	pls, token, err := c.Provider.CreateOrUpdate(ctx, rg, name, body, "")
	if err != nil || pls != nil {
		return pls, err
	}
	_ = token // see Cloud
	id := fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/privateLinkServices/%s", c.Subscription, rg, name)
	updating := armnetwork.ProvisioningStateUpdating
	return &armnetwork.PrivateLinkService{ID: &id, Name: &name, Properties: &armnetwork.PrivateLinkServiceProperties{ProvisioningState: &updating}}, nil
}

// DeletePrivateLinkService starts deleting a service; gone when it no
// longer exists.
func (c *Cloud) DeletePrivateLinkService(ctx context.Context, rg, name string) (bool, error) {
	token, err := c.Provider.Delete(ctx, rg, name, "")
	return err == nil && token == "", err
}

// RejectConnection sets a connection Rejected, saying why.
func (c *Cloud) RejectConnection(ctx context.Context, rg, service string, conn *armnetwork.PrivateEndpointConnection, why string) error {
	return c.Provider.RejectConnection(ctx, rg, service, conn, why)
}

// ApproveConnection sets a pending connection Approved.
func (c *Cloud) ApproveConnection(ctx context.Context, rg, service string, conn *armnetwork.PrivateEndpointConnection) error {
	return c.Provider.ApproveConnection(ctx, rg, service, conn)
}

// DeleteConnection starts removing a connection (Azure refuses to delete a
// service that has any, rejected ones included).
func (c *Cloud) DeleteConnection(ctx context.Context, rg, service, conn string) error {
	_, err := c.Provider.DeleteConnection(ctx, rg, service, conn, "")
	return err
}
