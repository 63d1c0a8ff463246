package azure

import (
	"fmt"
	"net/netip"
)

// NATSubnetPrefixLength is the size of a NAT subnet the operator creates:
// a /28 leaves 11 usable addresses after Azure's five reserved ones, more
// than the one NAT IP configuration a Private Link Service uses.
const NATSubnetPrefixLength = 28

// SharedNATSubnetPrefixLength is the size of the NAT subnet the Private
// Link Services of one management cluster share in a VNet. Azure lets
// many services take their NAT addresses from one subnet (the cloud
// provider for Kubernetes puts every service's in one subnet by default:
// https://kubernetes-sigs.github.io/cloud-provider-azure/topics/pls-integration,
// azure-pls-ip-configuration-subnet), each service's NAT IP configuration
// taking one address (up to 8 per service:
// https://learn.microsoft.com/azure/azure-resource-manager/management/azure-subscription-service-limits#private-link-limits).
// A /25 holds 123 services — fifteen full load balancers — and a second
// subnet is made when it is full.
const SharedNATSubnetPrefixLength = 25

// azureReservedAddresses are the addresses Azure keeps in every subnet
// (the first four and the last:
// https://learn.microsoft.com/azure/virtual-network/virtual-networks-faq#are-there-any-restrictions-on-using-ip-addresses-within-these-subnets).
const azureReservedAddresses = 5

// SubnetCapacity is how many addresses a subnet of bits gives out: each
// Private Link Service's one NAT IP configuration takes one.
func SubnetCapacity(bits int) int {
	if bits < 0 || bits > 29 {
		return 0
	}
	return 1<<(32-bits) - azureReservedAddresses
}

// FreePrefix returns the first IPv4 prefix of length bits inside one of
// the VNet's address prefixes that overlaps none of the used prefixes (its
// subnets'). It fails when the address space has no room, so that a NAT
// subnet is never placed outside the VNet or on top of another subnet.
func FreePrefix(addressSpace, used []string, bits int) (string, error) {
	var taken []netip.Prefix
	for _, u := range used {
		p, err := netip.ParsePrefix(u)
		if err != nil {
			return "", fmt.Errorf("subnet prefix %q: %w", u, err)
		}
		taken = append(taken, p.Masked())
	}
	for _, s := range addressSpace {
		space, err := netip.ParsePrefix(s)
		if err != nil {
			return "", fmt.Errorf("address prefix %q: %w", s, err)
		}
		space = space.Masked()
		if !space.Addr().Is4() || space.Bits() > bits {
			continue
		}
		for p := netip.PrefixFrom(space.Addr(), bits); space.Contains(p.Addr()); {
			if !overlapsAny(p, taken) {
				return p.String(), nil
			}
			next, ok := nextPrefix(p)
			if !ok {
				break
			}
			p = next
		}
	}
	return "", fmt.Errorf("no free /%d left in the VNet's address space", bits)
}

func overlapsAny(p netip.Prefix, taken []netip.Prefix) bool {
	for _, t := range taken {
		if p.Overlaps(t) {
			return true
		}
	}
	return false
}

// nextPrefix is the prefix of the same length right after p.
func nextPrefix(p netip.Prefix) (netip.Prefix, bool) {
	a := p.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	step := uint32(1) << (32 - p.Bits())
	if v+step < v {
		return netip.Prefix{}, false
	}
	v += step
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), p.Bits()), true
}
