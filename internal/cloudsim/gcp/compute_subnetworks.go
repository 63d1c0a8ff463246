package gcp

import (
	"net/http"
	"net/netip"
	"strings"

	"google.golang.org/api/compute/v1"
)

// Subnetworks (https://cloud.google.com/compute/docs/reference/rest/v1/subnetworks):
// a range inside a network and region that overlaps no other subnetwork of
// the network; purpose PRIVATE (the default, for addresses and forwarding
// rules) or PRIVATE_SERVICE_CONNECT (a service attachment's NAT subnet,
// which nothing else may use). A subnetwork in use cannot be deleted.

const (
	purposePrivate = "PRIVATE"
	purposePSC     = "PRIVATE_SERVICE_CONNECT"
)

func (c *Cloud) registerSubnetworks(mux *http.ServeMux) {
	const path = "/compute/v1/projects/{project}/regions/{region}/subnetworks"
	c.handle(mux, "POST "+path, computeAPI("subnetworks.insert", "compute.subnetworks.create"), insertSubnetwork)
	c.handle(mux, "GET "+path, computeAPI("subnetworks.list", "compute.subnetworks.list"), listSubnetworks)
	c.handle(mux, "GET "+path+"/{name}", computeAPI("subnetworks.get", "compute.subnetworks.get"), getSubnetwork)
	c.handle(mux, "DELETE "+path+"/{name}", computeAPI("subnetworks.delete", "compute.subnetworks.delete"), deleteSubnetwork)
}

func (x *call) regionalKey(collection, name string) string {
	return "projects/" + x.project.ID + "/regions/" + x.r.PathValue("region") + "/" + collection + "/" + name
}

func (c *Cloud) subnetwork(key string) *compute.Subnetwork {
	if c.st.pending[key] {
		return nil
	}
	return c.st.subnetworks[key]
}

func insertSubnetwork(x *call) (any, *Error) {
	if err := x.checkRegion(); err != nil {
		return nil, err
	}
	var s compute.Subnetwork
	if err := x.decode(&s); err != nil {
		return nil, err
	}
	if err := x.checkName(s.Name); err != nil {
		return nil, err
	}
	region := x.r.PathValue("region")
	key := x.regionalKey("subnetworks", s.Name)
	if x.c.st.subnetworks[key] != nil {
		return nil, errAlreadyExists(key)
	}
	if s.Network == "" {
		return nil, errRequired("resource.network")
	}
	networkKey := x.ref(s.Network, "", "networks")
	if x.c.network(networkKey) == nil {
		return nil, errNotFound(networkKey)
	}
	if s.Purpose == "" {
		s.Purpose = purposePrivate
	}
	if s.Purpose != purposePrivate && s.Purpose != purposePSC {
		return nil, errInvalid("Invalid value for field 'resource.purpose': '%s'. cloudsim models PRIVATE and PRIVATE_SERVICE_CONNECT subnetworks.", s.Purpose)
	}
	prefix, ok := parseRange(s.IpCidrRange)
	if !ok {
		return nil, errInvalid("Invalid value for field 'resource.ipCidrRange': '%s'. Invalid IPCidrRange: a network address with a prefix length from /8 to /29 is required.", s.IpCidrRange)
	}
	for _, k := range sortedKeys(x.c.st.subnetworks) {
		other := x.c.st.subnetworks[k]
		if rel(other.Network) != networkKey {
			continue
		}
		if p, _ := parseRange(other.IpCidrRange); overlaps(p, prefix) {
			return nil, errInvalid("Invalid IPCidrRange: %s conflicts with existing subnetwork '%s' in region '%s'.", s.IpCidrRange, other.Name, lastSegment(other.Region))
		}
	}
	s.Kind, s.Id, s.CreationTimestamp = "compute#subnetwork", x.c.newID(), timestamp(x.now)
	s.SelfLink, s.Network = x.computeLink(key), x.computeLink(networkKey)
	s.Region = x.computeLink("projects/" + x.project.ID + "/regions/" + region)
	s.Fingerprint, s.StackType, s.State = x.c.fingerprint(), "IPV4_ONLY", "READY"
	if s.Purpose == purposePrivate {
		s.GatewayAddress = gateway(prefix).String()
	}
	s.ForceSendFields, s.NullFields = nil, nil
	x.c.st.subnetworks[key] = &s
	return x.startOperation(region, mutation{kind: "insert", target: key, id: s.Id}), nil
}

func getSubnetwork(x *call) (any, *Error) {
	key := x.regionalKey("subnetworks", x.r.PathValue("name"))
	s := x.c.subnetwork(key)
	if s == nil {
		return nil, errNotFound(key)
	}
	return s, nil
}

func listSubnetworks(x *call) (any, *Error) {
	prefix := x.regionalKey("subnetworks", "")
	var items []any
	for _, k := range sortedKeys(x.c.st.subnetworks) {
		if s := x.c.subnetwork(k); s != nil && strings.HasPrefix(k, prefix) {
			items = append(items, s)
		}
	}
	return x.page("compute#subnetworkList", items)
}

func deleteSubnetwork(x *call) (any, *Error) {
	key := x.regionalKey("subnetworks", x.r.PathValue("name"))
	s := x.c.subnetwork(key)
	if s == nil {
		return nil, errNotFound(key)
	}
	if user := x.c.subnetworkUser(key); user != "" {
		return nil, errInUse(key, user)
	}
	return x.startOperation(x.r.PathValue("region"), mutation{kind: "delete", target: key, id: s.Id, apply: func() *Error {
		delete(x.c.st.subnetworks, key)
		return nil
	}}), nil
}

// subnetworkUser names a resource that uses the subnetwork, or "".
func (c *Cloud) subnetworkUser(key string) string {
	for _, k := range sortedKeys(c.st.addresses) {
		if rel(c.st.addresses[k].Subnetwork) == key {
			return k
		}
	}
	for _, k := range sortedKeys(c.st.forwardingRules) {
		if rel(c.st.forwardingRules[k].Subnetwork) == key {
			return k
		}
	}
	for _, k := range sortedKeys(c.st.attachments) {
		for _, nat := range c.st.attachments[k].NatSubnets {
			if rel(nat) == key {
				return k
			}
		}
	}
	return ""
}

// usedIPs are the addresses taken in a subnetwork.
func (c *Cloud) usedIPs(subnetKey string) map[string]bool {
	used := map[string]bool{}
	for _, a := range c.st.addresses {
		if rel(a.Subnetwork) == subnetKey {
			used[a.Address] = true
		}
	}
	for k, fr := range c.st.forwardingRules {
		if rel(fr.Subnetwork) == subnetKey && c.st.ruleAddress[k] == "" {
			used[fr.IPAddress] = true
		}
	}
	return used
}

// takeIP reserves ip (or, empty, the lowest free address) in a PRIVATE subnetwork.
func (x *call) takeIP(s *compute.Subnetwork, ip, field string) (string, *Error) {
	if s.Purpose == purposePSC {
		return "", errInvalid("Invalid value for field '%s': '%s'. A PRIVATE_SERVICE_CONNECT subnetwork serves NAT for service attachments only.", field, s.SelfLink)
	}
	prefix, _ := parseRange(s.IpCidrRange)
	used := x.c.usedIPs(rel(s.SelfLink))
	if ip == "" {
		free, ok := firstFree(prefix, used)
		if !ok {
			return "", errInvalid("IP_SPACE_EXHAUSTED: no free address is left in subnetwork '%s'.", s.Name)
		}
		return free.String(), nil
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil || !assignable(prefix, addr) {
		return "", errInvalid("Invalid value for field '%s': '%s'. The address is not an assignable address of subnetwork '%s' (%s).", field, ip, s.Name, s.IpCidrRange)
	}
	if used[addr.String()] {
		return "", errInvalid("IP_IN_USE_BY_ANOTHER_RESOURCE: IP '%s' is already being used by another resource.", ip)
	}
	return addr.String(), nil
}
