package azure

import (
	"fmt"
	"net/netip"
)

// NATSubnetPrefixLength is the size of a NAT subnet the operator creates:
// a /28 leaves 11 usable addresses after Azure's five reserved ones, more
// than the one NAT IP configuration a Private Link Service uses.
const NATSubnetPrefixLength = 28

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
