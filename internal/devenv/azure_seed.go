package devenv

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// The fixtures' names and address plans. The management VNet leaves room
// for the NAT subnets the operator carves out of its free space.
const (
	azureManagementGroup = "devenv-management"
	azureManagementVNet  = "devenv-management"
	azureManagementCIDR  = "10.0.0.0/16"
	azureLBSubnet        = "load-balancers"
	azureLBSubnetCIDR    = "10.0.0.0/24"

	azureGuestGroup = "devenv-guest"
	azureGuestVNet  = "devenv-guest"
	azureGuestCIDR  = "10.1.0.0/16"
)

// azureGuestSubnets are the guest VNet's workers' subnets, name → CIDR.
var azureGuestSubnets = [][2]string{{"workers", "10.1.0.0/24"}, {"workers-2", "10.1.1.0/24"}}

// seedAzureNetworks creates, as cloudsim's administrator, the management
// resource group and VNet (with the load balancers' subnet) and the guest
// resource group and VNet (with the workers' subnets).
func seedAzureNetworks(ctx context.Context, admin azcore.TokenCredential, opts *arm.ClientOptions) (AzureManagementNetwork, AzureGuestNetwork, error) {
	m := AzureManagementNetwork{SubscriptionID: AzureManagementSubscription, ResourceGroup: azureManagementGroup}
	g := AzureGuestNetwork{SubscriptionID: AzureGuestSubscription, ResourceGroup: azureGuestGroup}
	vnet, err := createAzureVNet(ctx, admin, opts, AzureManagementSubscription, azureManagementGroup, azureManagementVNet, azureManagementCIDR,
		[][2]string{{azureLBSubnet, azureLBSubnetCIDR}})
	if err != nil {
		return m, g, fmt.Errorf("management VNet: %w", err)
	}
	m.VNetID = vnet
	m.LoadBalancerSubnetID = vnet + "/subnets/" + azureLBSubnet

	vnet, err = createAzureVNet(ctx, admin, opts, AzureGuestSubscription, azureGuestGroup, azureGuestVNet, azureGuestCIDR, azureGuestSubnets)
	if err != nil {
		return m, g, fmt.Errorf("guest VNet: %w", err)
	}
	g.VNetID = vnet
	for _, s := range azureGuestSubnets {
		g.SubnetIDs = append(g.SubnetIDs, vnet+"/subnets/"+s[0])
	}
	return m, g, nil
}

// createAzureVNet creates a resource group and a VNet in it with the given
// subnets (name → CIDR) and returns the VNet's ID.
func createAzureVNet(ctx context.Context, admin azcore.TokenCredential, opts *arm.ClientOptions, sub, group, name, cidr string, subnets [][2]string) (string, error) {
	groups, err := armresources.NewResourceGroupsClient(sub, admin, opts)
	if err != nil {
		return "", err
	}
	if _, err := groups.CreateOrUpdate(ctx, group, armresources.ResourceGroup{Location: to.Ptr(AzureLocation)}, nil); err != nil {
		return "", fmt.Errorf("resource group %s: %w", group, err)
	}
	vnets, err := armnetwork.NewVirtualNetworksClient(sub, admin, opts)
	if err != nil {
		return "", err
	}
	var specs []*armnetwork.Subnet
	for _, s := range subnets {
		specs = append(specs, &armnetwork.Subnet{Name: to.Ptr(s[0]), Properties: &armnetwork.SubnetPropertiesFormat{AddressPrefix: to.Ptr(s[1])}})
	}
	poller, err := vnets.BeginCreateOrUpdate(ctx, group, name, armnetwork.VirtualNetwork{
		Location: to.Ptr(AzureLocation),
		Properties: &armnetwork.VirtualNetworkPropertiesFormat{
			AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: to.SliceOfPtrs(cidr)},
			Subnets:      specs,
		},
	}, nil)
	if err != nil {
		return "", fmt.Errorf("VNet %s: %w", name, err)
	}
	res, err := pollFast(ctx, poller)
	if err != nil {
		return "", fmt.Errorf("VNet %s: %w", name, err)
	}
	return *res.ID, nil
}

// pollFast waits for a long-running operation of cloudsim's (fast delays:
// well under a second). It polls by hand: PollUntilDone refuses a frequency
// under one second outside `go test`, and the SDK's default is 30 seconds.
func pollFast[T any](ctx context.Context, p *runtime.Poller[T]) (T, error) {
	for !p.Done() {
		if _, err := p.Poll(ctx); err != nil {
			var zero T
			return zero, err
		}
		if p.Done() {
			break
		}
		if !sim.SleepContext(ctx, azurePollInterval) {
			var zero T
			return zero, ctx.Err()
		}
	}
	return p.Result(ctx)
}
