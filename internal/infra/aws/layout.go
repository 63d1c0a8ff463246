package aws

import (
	"fmt"
	"net/netip"
)

// The VPC's address space is split in two halves: public subnets in the
// lower half, private ones in the upper half, and each half into eight
// equal slots, one per zone. For the default 10.0.0.0/16 that gives the
// familiar 10.0.0.0/20, 10.0.16.0/20… (public) and 10.0.128.0/20,
// 10.0.144.0/20… (private). A zone's subnets never move when zones are
// added later, because the slot size depends only on the VPC's size.
const (
	// slotBits: 1 bit for the half, 3 bits for eight zones per half (no
	// region has more than six).
	slotBits = 4
	// minVPCPrefix and maxVPCPrefix are AWS's VPC size limits (/16) and
	// the smallest VPC whose slots are still a valid subnet (/24 → /28,
	// AWS's smallest subnet).
	minVPCPrefix = 16
	maxVPCPrefix = 28 - slotBits
	zonesPerHalf = 1 << (slotBits - 1)
)

// Layout is where each zone's subnets go.
type Layout struct {
	VPC     netip.Prefix
	Public  []netip.Prefix // by zone index
	Private []netip.Prefix // by zone index
}

// ComputeLayout places zones public and private subnets in vpc, for a
// region with regionZones zones. It refuses a layout AWS would refuse, so
// that nothing is created for a request that cannot finish.
func ComputeLayout(vpc netip.Prefix, zones, regionZones int) (Layout, error) {
	switch {
	case !vpc.Addr().Is4():
		return Layout{}, fmt.Errorf("--vpc-cidr %s: only IPv4 VPC CIDR blocks are supported", vpc)
	case vpc.Bits() < minVPCPrefix || vpc.Bits() > maxVPCPrefix:
		return Layout{}, fmt.Errorf("--vpc-cidr %s: the prefix must be between /%d and /%d (AWS allows /16 to /28 for a VPC, and each zone needs two subnets of at least /28)", vpc, minVPCPrefix, maxVPCPrefix)
	case vpc.Masked() != vpc:
		return Layout{}, fmt.Errorf("--vpc-cidr %s has host bits set: use %s", vpc, vpc.Masked())
	case zones < 1:
		return Layout{}, fmt.Errorf("at least one zone is needed")
	case zones > zonesPerHalf:
		return Layout{}, fmt.Errorf("%d zones asked for, but a VPC is laid out for at most %d", zones, zonesPerHalf)
	case regionZones > 0 && zones > regionZones:
		return Layout{}, fmt.Errorf("%d zones asked for, but the region has %d", zones, regionZones)
	}
	l := Layout{VPC: vpc}
	slot := vpc.Bits() + slotBits
	for i := 0; i < zones; i++ {
		l.Public = append(l.Public, nthSubnet(vpc, slot, i))
		l.Private = append(l.Private, nthSubnet(vpc, slot, zonesPerHalf+i))
	}
	return l, nil
}

// nthSubnet is the n-th block of size /bits inside vpc.
func nthSubnet(vpc netip.Prefix, bits, n int) netip.Prefix {
	a := vpc.Addr().As4()
	base := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	base += uint32(n) << (32 - bits)
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(base >> 24), byte(base >> 16), byte(base >> 8), byte(base)}), bits)
}
