package azureprivatelink

import (
	"slices"
	"sort"
	"strings"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// PrivateConfigured reports whether hcp is an Azure cluster with the
// private configuration: the private controllers act on its presence, not
// on the topology alone (clusters without it are someone else's).
func PrivateConfigured(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	return hcp != nil && hcp.Spec.Platform.Type == hcplinkv1beta1.AzurePlatform &&
		hcp.Spec.Platform.Azure != nil && hcp.Spec.Platform.Azure.Private != nil &&
		hcp.Spec.Platform.Azure.Private.Type == hcplinkv1beta1.AzurePrivateTypePrivateLink
}

// GuestSubnetID is the subnet the Private Endpoint goes in: the subnet of
// the first NodePool (by name) that names one inside the cluster's VNet,
// else the cluster's own subnet.
func GuestSubnetID(hcp *hcplinkv1beta1.HostedControlPlane) string {
	az := hcp.Spec.Platform.Azure
	pools := slices.Clone(hcp.Spec.NodePools)
	sort.Slice(pools, func(i, j int) bool { return pools[i].Name < pools[j].Name })
	prefix := strings.ToLower(az.VnetID + "/subnets/")
	for _, np := range pools {
		if strings.HasPrefix(strings.ToLower(np.SubnetID), prefix) {
			return np.SubnetID
		}
	}
	return az.SubnetID
}

// DesiredSpec is the AzurePrivateLinkService spec for hcp whose private
// router has the internal address lbIP.
func DesiredSpec(hcp *hcplinkv1beta1.HostedControlPlane, lbIP string) hcplinkv1beta1.AzurePrivateLinkServiceSpec {
	az := hcp.Spec.Platform.Azure
	spec := hcplinkv1beta1.AzurePrivateLinkServiceSpec{
		LoadBalancerIP:    lbIP,
		SubscriptionID:    az.SubscriptionID,
		ResourceGroupName: az.ResourceGroupName,
		Location:          az.Location,
		GuestSubnetID:     GuestSubnetID(hcp),
		GuestVNetID:       az.VnetID,
		BaseDomain:        hcp.Spec.DNS.BaseDomain,
	}
	if pl := az.Private.PrivateLink; pl != nil {
		spec.NATSubnetID = pl.NATSubnetID
		if len(pl.AdditionalAllowedSubscriptions) > 0 {
			spec.AdditionalAllowedSubscriptions = slices.Clone(pl.AdditionalAllowedSubscriptions)
		}
	}
	return spec
}
