package devenv

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// AzureGuestAddressSpace is the guest VNet's first address range, the
// machine network of clusters made in it.
func (e *Env) AzureGuestAddressSpace(ctx context.Context) (string, error) {
	guest := e.AzureGuest
	network, err := armnetwork.NewClientFactory(guest.SubscriptionID, e.AzureAdmin, e.AzureClientOptions)
	if err != nil {
		return "", err
	}
	vnet, err := network.NewVirtualNetworksClient().Get(ctx, guest.ResourceGroup, azurecloud.NameOf(guest.VNetID), nil)
	if err != nil {
		return "", fmt.Errorf("reading the guest VNet: %w", err)
	}
	if p := vnet.Properties; p != nil && p.AddressSpace != nil && len(p.AddressSpace.AddressPrefixes) > 0 && p.AddressSpace.AddressPrefixes[0] != nil {
		return *p.AddressSpace.AddressPrefixes[0], nil
	}
	return "", fmt.Errorf("the guest VNet has no address space")
}
