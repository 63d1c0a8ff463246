package azure

import (
	"fmt"
	"net/netip"
	"strings"
)

// The address rules of Microsoft.Network, as plain functions over plain
// values, so the handlers stay thin and the rules are table-tested alone.
// Codes and message shapes are the ones the real service answers (see the
// report of issue 10 for where each was checked).

// networkRuleError is a refusal by a Microsoft.Network rule: a 400 with an
// ARM error code and message. Handlers turn it into the framework's ARM error.
type networkRuleError struct {
	Code    string
	Message string
}

func (e *networkRuleError) Error() string { return e.Code + ": " + e.Message }

func ruleErr(code, format string, args ...any) *networkRuleError {
	return &networkRuleError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// parseAddressPrefix reads an IPv4 CIDR prefix the way NRP does: it must
// parse, and its host bits must be zero (InvalidCIDRNotation names the
// canonical form). resourceID names the resource in the message.
func parseAddressPrefix(s, resourceID string) (netip.Prefix, *networkRuleError) {
	p, err := netip.ParsePrefix(strings.TrimSpace(s))
	if err != nil || !p.Addr().Is4() {
		return netip.Prefix{}, ruleErr("InvalidAddressPrefixFormat",
			"Address prefix %s of resource %s is not formatted correctly. It should follow CIDR notation, for example 10.0.0.0/24.", s, resourceID)
	}
	if p.Masked() != p {
		return netip.Prefix{}, ruleErr("InvalidCIDRNotation",
			"The address prefix %s in resource %s has an invalid CIDR notation. For the given prefix length, the address prefix should be %s.", s, resourceID, p.Masked())
	}
	return p, nil
}

// prefixContains reports whether inner lies wholly inside outer.
func prefixContains(outer, inner netip.Prefix) bool {
	return outer.Bits() <= inner.Bits() && outer.Contains(inner.Addr())
}

// prefixesOverlap reports whether two prefixes share any address.
func prefixesOverlap(a, b netip.Prefix) bool { return a.Overlaps(b) }

// insideAnySpace reports whether p lies inside one of a VNet's address spaces.
func insideAnySpace(p netip.Prefix, spaces []netip.Prefix) bool {
	for _, s := range spaces {
		if prefixContains(s, p) {
			return true
		}
	}
	return false
}

// namedPrefix is a sibling subnet's prefix, by subnet name.
type namedPrefix struct {
	Name   string
	Prefix netip.Prefix
}

// checkSubnetPlacement is NRP's placement rule for a subnet's prefix: inside
// the VNet's address space (NetcfgSubnetRangeOutsideVnet) and clear of every
// other subnet of the VNet (NetcfgSubnetRangesOverlap).
func checkSubnetPlacement(subnet, vnet string, p netip.Prefix, spaces []netip.Prefix, siblings []namedPrefix) *networkRuleError {
	if !insideAnySpace(p, spaces) {
		return ruleErr("NetcfgSubnetRangeOutsideVnet",
			"Subnet '%s' is not valid because its IP address range is outside the IP address range of virtual network '%s'.", subnet, vnet)
	}
	for _, s := range siblings {
		if !strings.EqualFold(s.Name, subnet) && prefixesOverlap(s.Prefix, p) {
			return ruleErr("NetcfgSubnetRangesOverlap",
				"Subnet '%s' is not valid because its IP address range overlaps with that of an existing subnet '%s' in virtual network '%s'.", subnet, s.Name, vnet)
		}
	}
	return nil
}

// Azure keeps five addresses of every subnet: the network address, the
// default gateway (.1), two for Azure DNS (.2, .3) and the broadcast address.
const reservedLeadingAddresses = 4

// isReservedAddress reports whether a is one of the five addresses Azure
// keeps in subnet p.
func isReservedAddress(p netip.Prefix, a netip.Addr) bool {
	first := p.Masked().Addr()
	for i := 0; i < reservedLeadingAddresses; i++ {
		if a == first {
			return true
		}
		first = first.Next()
	}
	return a == lastAddress(p)
}

// lastAddress is the broadcast address of p.
func lastAddress(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().As4()
	host := 32 - p.Bits()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v |= (uint32(1) << host) - 1
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// allocateDynamicIP hands out the lowest free address of subnet p, as Azure
// does for Dynamic allocation; used maps each taken address to its holder.
func allocateDynamicIP(subnetID string, p netip.Prefix, used map[netip.Addr]string) (netip.Addr, *networkRuleError) {
	last := lastAddress(p)
	for a := p.Masked().Addr(); a.IsValid() && a.Less(last); a = a.Next() {
		if isReservedAddress(p, a) {
			continue
		}
		if _, taken := used[a]; !taken {
			return a, nil
		}
	}
	return netip.Addr{}, ruleErr("SubnetIsFull", "Subnet %s with address prefix %s is already full.", subnetID, p)
}

// checkStaticIP is the rule for a Static private IP: a parseable address in
// the subnet, outside its reserved addresses, and held by no one else.
// ipConfigID names the IP configuration asking for it.
func checkStaticIP(ipConfigID, subnetID string, p netip.Prefix, s string, used map[netip.Addr]string) (netip.Addr, *networkRuleError) {
	a, err := netip.ParseAddr(strings.TrimSpace(s))
	if err != nil || !a.Is4() {
		return netip.Addr{}, ruleErr("InvalidPrivateIPAddressFormat",
			"Static IP address value '%s' of IP configuration %s is invalid.", s, ipConfigID)
	}
	if !p.Contains(a) {
		return netip.Addr{}, ruleErr("PrivateIPAddressNotInSubnet",
			"IP configuration %s is using the private IP address %s which is not in the range of subnet %s (%s).", ipConfigID, a, subnetID, p)
	}
	if isReservedAddress(p, a) {
		return netip.Addr{}, ruleErr("PrivateIPAddressInReservedRange",
			"IP configuration %s is using the private IP address %s which is in the reserved range of subnet %s (%s).", ipConfigID, a, subnetID, p)
	}
	if holder, taken := used[a]; taken && !strings.EqualFold(holder, ipConfigID) {
		return netip.Addr{}, ruleErr("PrivateIPAddressIsAllocated",
			"IP configuration %s is using the private IP address %s which is already allocated to resource %s.", ipConfigID, a, holder)
	}
	return a, nil
}
