package azure

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
)

// GuestNetwork reads what a cluster's Azure settings name in the
// customer's subscription (its resource group and VNet, whose subnets come
// inline), so that invalid settings are refused before anything is
// created. Every error it returns is a classified *cloud.Error.
type GuestNetwork struct {
	Groups   ResourceGroupsAPI
	VNets    VirtualNetworksAPI
	Timeouts Timeouts
}

// NewGuestNetwork returns the provider on one subscription's clients.
func NewGuestNetwork(groups *armresources.ResourceGroupsClient, network *armnetwork.ClientFactory) *GuestNetwork {
	return &GuestNetwork{Groups: groups, VNets: network.NewVirtualNetworksClient()}
}

// ResourceGroup reads a resource group; nil when it does not exist.
func (g *GuestNetwork) ResourceGroup(ctx context.Context, name string) (*armresources.ResourceGroup, error) {
	ctx, cancel := g.Timeouts.call(ctx)
	defer cancel()
	resp, err := g.Groups.Get(ctx, name, nil)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("reading the resource group", err)
	}
	return &resp.ResourceGroup, nil
}

// VNet reads a virtual network with its subnets; nil when it does not
// exist.
func (g *GuestNetwork) VNet(ctx context.Context, resourceGroup, name string) (*armnetwork.VirtualNetwork, error) {
	ctx, cancel := g.Timeouts.call(ctx)
	defer cancel()
	resp, err := g.VNets.Get(ctx, resourceGroup, name, nil)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("reading the VNet", err)
	}
	return &resp.VirtualNetwork, nil
}
