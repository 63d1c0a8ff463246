package demo

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	cloudazure "github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/devenv"
)

// azureCloud is what the Azure tour needs of an Azure devenv: the
// administrator's ARM access, the two subscriptions and the management
// network, and the endpoints to print for --keep.
type azureCloud struct {
	cred    azcore.TokenCredential
	options *arm.ClientOptions

	managementSubscription, guestSubscription string
	managementResourceGroup, managementVNetID string

	kubeconfig, cloudURL, caFile, azConfigDir  string
	tenantID, adminClientID, adminClientSecret string
}

// azureFixture is what a HostedCluster spec needs of the guest side.
type azureFixture struct {
	subscription, resourceGroup, location, vnetID, cidr string
	subnetIDs                                           [2]string
	// tenantID and cpoClientID are the control-plane operator's workload
	// identity, which the HostedCluster names.
	tenantID, cpoClientID string
}

func devenvPlatform(platform string) devenv.Platform {
	switch platform {
	case PlatformAzure:
		return devenv.PlatformAzure
	case PlatformGCP:
		return devenv.PlatformGCP
	}
	return devenv.PlatformAWS
}

// azureCloudOf reads the Azure half of a running devenv.
func azureCloudOf(env *devenv.Env) (azureCloud, error) {
	if env.AzureAdmin == nil {
		return azureCloud{}, fmt.Errorf("the local environment runs %s, not Azure", env.Platform)
	}
	return azureCloud{
		cred: env.AzureAdmin, options: env.AzureClientOptions,
		managementSubscription: devenv.AzureManagementSubscription, guestSubscription: devenv.AzureGuestSubscription,
		managementResourceGroup: env.AzureManagement.ResourceGroup, managementVNetID: env.AzureManagement.VNetID,
		kubeconfig: env.KubeconfigPath, cloudURL: env.CloudURL, caFile: env.AzureCABundle,
		azConfigDir: filepath.Join(filepath.Dir(env.KubeconfigPath), "az"),
		tenantID:    env.AzureTenantID, adminClientID: cloudazure.AdminClientID, adminClientSecret: cloudazure.AdminClientSecret,
	}, nil
}

// prepareAzureCluster makes the guest side of a cluster (devenv's
// fixture) and reads the VNet's address space for the machine network.
func prepareAzureCluster(ctx context.Context, env *devenv.Env, namespace, name, infraID string) (azureFixture, error) {
	f, err := env.PrepareAzureCluster(ctx, namespace, name, infraID)
	if err != nil {
		return azureFixture{}, err
	}
	network, err := armnetwork.NewClientFactory(f.SubscriptionID, env.AzureAdmin, env.AzureClientOptions)
	if err != nil {
		return azureFixture{}, err
	}
	vnet, err := network.NewVirtualNetworksClient().Get(ctx, f.ResourceGroup, azurecloud.NameOf(f.VNetID), nil)
	if err != nil {
		return azureFixture{}, fmt.Errorf("reading the guest VNet: %w", err)
	}
	var cidr string
	if p := vnet.Properties; p != nil && p.AddressSpace != nil && len(p.AddressSpace.AddressPrefixes) > 0 {
		cidr = deref(p.AddressSpace.AddressPrefixes[0])
	}
	return azureFixture{subscription: f.SubscriptionID, resourceGroup: f.ResourceGroup, location: f.Location,
		vnetID: f.VNetID, cidr: cidr, subnetIDs: [2]string{f.SubnetID, f.SecondSubnetID},
		tenantID: f.TenantID, cpoClientID: f.ControlPlaneOperatorClientID}, nil
}
