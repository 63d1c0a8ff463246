package azure

import "time"

// The Microsoft.Network types cloudsim models.
const (
	typeVirtualNetwork     = "Microsoft.Network/virtualNetworks"
	typeSubnet             = "Microsoft.Network/virtualNetworks/subnets"
	typeLoadBalancer       = "Microsoft.Network/loadBalancers"
	typeNetworkInterface   = "Microsoft.Network/networkInterfaces"
	typePrivateLinkService = "Microsoft.Network/privateLinkServices"
	typePLSConnection      = "Microsoft.Network/privateLinkServices/privateEndpointConnections"
	typePrivateEndpoint    = "Microsoft.Network/privateEndpoints"
	typePublicIPAddress    = "Microsoft.Network/publicIPAddresses"
)

// networkAPIVersions are the Microsoft.Network versions the modelled types
// accept: every stable version from 2022-01-01 on, as the folders of
// specification/network/resource-manager/Microsoft.Network/Network/stable
// in github.com/Azure/azure-rest-api-specs list them (checked 2026-11:
// there is no 2025-11-01 nor 2026-05-01). armnetwork/v7 sends 2025-01-01,
// newer SDKs and az CLIs 2025-03-01 and later; the az CLI of Debian
// bookworm (2.45) sends 2022-01-01 (and 2022-05-01 for load balancers).
// Their bodies for these types are the same.
var networkAPIVersions = []string{
	"2022-01-01", "2022-05-01", "2022-07-01", "2022-09-01", "2022-11-01",
	"2023-02-01", "2023-04-01", "2023-05-01", "2023-06-01", "2023-09-01", "2023-11-01",
	"2024-01-01", "2024-03-01", "2024-05-01", "2024-07-01", "2024-10-01",
	"2025-01-01", "2025-03-01", "2025-05-01", "2025-07-01", "2025-09-01",
	"2026-01-01", "2026-03-01", "2026-07-01",
}

// Names of the network delays (the control API can change each).
const (
	delayVirtualNetworkUpdating     = "virtualNetworkUpdating"
	delaySubnetUpdating             = "subnetUpdating"
	delayLoadBalancerUpdating       = "loadBalancerUpdating"
	delayNetworkInterfaceUpdating   = "networkInterfaceUpdating"
	delayPrivateLinkServiceUpdating = "privateLinkServiceUpdating"
	delayPrivateEndpointUpdating    = "privateEndpointUpdating"
	delayNetworkDeleting            = "networkDeleting"
)

func init() {
	// Fast presets keep every Updating/Deleting state observable once;
	// realistic ones are what these operations take on Azure.
	RegisterDelay(delayVirtualNetworkUpdating, 50*time.Millisecond, 5*time.Second)
	RegisterDelay(delaySubnetUpdating, 50*time.Millisecond, 5*time.Second)
	RegisterDelay(delayLoadBalancerUpdating, 50*time.Millisecond, 10*time.Second)
	RegisterDelay(delayNetworkInterfaceUpdating, 50*time.Millisecond, 5*time.Second)
	RegisterDelay(delayPrivateLinkServiceUpdating, 100*time.Millisecond, 30*time.Second)
	RegisterDelay(delayPrivateEndpointUpdating, 100*time.Millisecond, 60*time.Second)
	RegisterDelay(delayNetworkDeleting, 50*time.Millisecond, 20*time.Second)
}
