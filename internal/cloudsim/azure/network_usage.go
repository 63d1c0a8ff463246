package azure

import (
	"net/netip"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// Who uses a subnet, and which of its addresses are taken. Nothing is
// cached: every answer is a scan of the store (held under the Cloud's one
// mutex), so it can never disagree with the resources themselves.

// ipConfigRef is one IP configuration placed in a subnet: a NIC's IP
// configuration, a load balancer's frontend, or a Private Link Service's NAT
// IP configuration.
type ipConfigRef struct {
	ID       string // the IP configuration's own ID
	SubnetID string
	Address  string // "" while none is assigned
}

// ipConfigsOf lists the IP configurations a stored network resource places
// in subnets.
func ipConfigsOf(r *Resource) []ipConfigRef {
	var out []ipConfigRef
	add := func(id *string, subnet *armnetwork.Subnet, addr *string) {
		if id == nil || subnet == nil || subnet.ID == nil {
			return
		}
		out = append(out, ipConfigRef{ID: *id, SubnetID: *subnet.ID, Address: deref(addr)})
	}
	switch p := r.Properties.(type) {
	case *armnetwork.InterfacePropertiesFormat:
		for _, c := range p.IPConfigurations {
			if c != nil && c.Properties != nil {
				add(c.ID, c.Properties.Subnet, c.Properties.PrivateIPAddress)
			}
		}
	case *loadBalancerProps:
		for _, c := range p.FrontendIPConfigurations {
			if c != nil && c.Properties != nil {
				add(c.ID, c.Properties.Subnet, c.Properties.PrivateIPAddress)
			}
		}
	case *armnetwork.PrivateLinkServiceProperties:
		for _, c := range p.IPConfigurations {
			if c != nil && c.Properties != nil {
				add(c.ID, c.Properties.Subnet, c.Properties.PrivateIPAddress)
			}
		}
	}
	return out
}

// networkHolderTypes are the types whose IP configurations sit in subnets.
var networkHolderTypes = []string{typeNetworkInterface, typeLoadBalancer, typePrivateLinkService}

// subnetIPConfigs lists every IP configuration placed in the subnet, across
// all subscriptions (a subnet may be joined from another subscription).
func subnetIPConfigs(s *Store, subnetID string) []ipConfigRef {
	var out []ipConfigRef
	for _, typ := range networkHolderTypes {
		for _, r := range s.Find(typ, nil) {
			for _, c := range ipConfigsOf(r) {
				if strings.EqualFold(c.SubnetID, subnetID) {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// subnetPrivateEndpoints lists the IDs of the private endpoints in the subnet.
func subnetPrivateEndpoints(s *Store, subnetID string) []string {
	var out []string
	for _, r := range s.Find(typePrivateEndpoint, nil) {
		if p, ok := r.Properties.(*armnetwork.PrivateEndpointProperties); ok && p.Subnet != nil && strings.EqualFold(deref(p.Subnet.ID), subnetID) {
			out = append(out, r.ID.String())
		}
	}
	return out
}

// usedAddresses maps each address taken in the subnet to the IP
// configuration holding it, leaving out the configurations in skip (the
// resource being written, whose old addresses it may keep).
func usedAddresses(s *Store, subnetID string, skip func(ipConfigID string) bool) map[netip.Addr]string {
	used := map[netip.Addr]string{}
	for _, c := range subnetIPConfigs(s, subnetID) {
		if skip != nil && skip(c.ID) {
			continue
		}
		if a, err := netip.ParseAddr(c.Address); err == nil {
			used[a] = c.ID
		}
	}
	return used
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
