package gcp

import (
	"math/big"
	"net/netip"
)

// Subnet ranges and addresses. Google reserves four addresses of every
// primary IPv4 range — the network, the gateway, the second-to-last and the
// broadcast address (https://cloud.google.com/vpc/docs/subnets#unusable-ip-addresses-in-every-subnet) —
// and accepts ranges from /8 to /29.

func parseRange(cidr string) (netip.Prefix, bool) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() || p.Masked() != p || p.Bits() < 8 || p.Bits() > 29 {
		return netip.Prefix{}, false
	}
	return p, true
}

func overlaps(a, b netip.Prefix) bool { return a.Overlaps(b) }

// usableAddresses is how many addresses of a range can be assigned.
func usableAddresses(p netip.Prefix) int64 {
	return new(big.Int).Lsh(big.NewInt(1), uint(32-p.Bits())).Int64() - 4
}

// gateway is the range's second address.
func gateway(p netip.Prefix) netip.Addr { return p.Addr().Next() }

// assignable tells whether ip is in p and not one of its reserved addresses.
func assignable(p netip.Prefix, ip netip.Addr) bool {
	if !p.Contains(ip) || ip == p.Addr() || ip == gateway(p) {
		return false
	}
	last := lastAddr(p)
	return ip != last && ip != last.Prev()
}

func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	n := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	n |= 1<<(32-p.Bits()) - 1
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)})
}

// firstFree returns the lowest assignable address of p not in used.
func firstFree(p netip.Prefix, used map[string]bool) (netip.Addr, bool) {
	for ip := gateway(p).Next(); assignable(p, ip); ip = ip.Next() {
		if !used[ip.String()] {
			return ip, true
		}
	}
	return netip.Addr{}, false
}
