package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Names of the AWS hops, in the order of the path.
const (
	HopHostedCluster      = "HostedCluster"
	HopHostedControlPlane = "HostedControlPlane"
	HopRouterService      = "router Service"
	// HopAPIServerService is the kube-apiserver-private Service, which
	// starts the API server's own private path (when it is published by
	// LoadBalancer).
	HopAPIServerService = "API server Service"
	HopLoadBalancer     = "network load balancer"
	HopEndpointService  = "endpoint service"
	HopEndpoint         = "VPC endpoint"
	HopSecurityGroup    = "security group"
	HopPrivateZone      = "private zone"
	HopRecords          = "DNS records"
	HopExternalNames    = "ExternalName Services"
)

// recommendedNegativeTTL is the SOA negative-cache TTL that keeps nodes
// from caching a missing name for long (hcplink create infra sets it).
const recommendedNegativeTTL = 60

// LoadBalancerSeen is an endpoint's NLB (its Service's) as the management account shows it.
type LoadBalancerSeen struct {
	Name      string
	Found     bool
	State     string
	ZoneIDs   []string
	CrossZone *bool
	Service   string // namespace/name of the endpoint's load-balancer Service
}

// LoadBalancerHop judges the NLB: it exists and is active.
func LoadBalancerHop(s LoadBalancerSeen) Hop {
	if !s.Found {
		return fail(HopLoadBalancer, SideManagement, "no load balancer named "+s.Name,
			"Delete Service "+s.Service+" so that it is recreated with a new load balancer; the endpoint service follows it.")
	}
	seen := fmt.Sprintf("%s %s, zones %s, cross-zone %s", s.Name, s.State, list(s.ZoneIDs), onOff(s.CrossZone))
	if s.State != "active" {
		return fail(HopLoadBalancer, SideManagement, seen,
			"Wait for load balancer "+s.Name+" to become active; if it stays "+s.State+", delete Service "+s.Service+" to get a new one.")
	}
	return pass(HopLoadBalancer, SideManagement, seen)
}

// EndpointServiceSeen is the VPC endpoint service on the NLB.
type EndpointServiceSeen struct {
	Name               string // from the AWSEndpointService status; "" while unpublished
	ID                 string
	Found              bool
	State              string
	AcceptanceRequired bool
	OnLoadBalancer     bool // its NLB is the router's
	Principals         []string
	WantPrincipal      string // the control-plane operator's role, IAM path removed
}

// EndpointServiceHop judges the endpoint service: published, Available,
// no manual acceptance, on its Service's NLB, allowing the CPO's role.
func EndpointServiceHop(s EndpointServiceSeen) Hop {
	const name = HopEndpointService
	if s.Name == "" {
		return fail(name, SideManagement, "no endpoint service published in the AWSEndpointService status",
			"Read the AWSEndpointService's AWSEndpointServiceAvailable condition: the management operator says there why it has not published one.")
	}
	if !s.Found {
		return fail(name, SideManagement, s.Name+" does not exist",
			"Start the management operator (or wait for its next pass): it recreates the endpoint service and the endpoint follows.")
	}
	seen := fmt.Sprintf("%s %s, acceptance %s, principals %s", s.ID, s.State, required(s.AcceptanceRequired), list(s.Principals))
	switch {
	case !strings.EqualFold(s.State, "available"):
		return fail(name, SideManagement, seen, "Endpoint service "+s.ID+" is "+s.State+": delete it and let the management operator create it again.")
	case !s.OnLoadBalancer:
		return fail(name, SideManagement, seen, "Endpoint service "+s.ID+" is not on its Service's load balancer: let the management operator replace it.")
	case s.WantPrincipal != "" && !slices.Contains(s.Principals, s.WantPrincipal):
		return fail(name, SideManagement, seen, "Allow principal "+s.WantPrincipal+" on endpoint service "+s.ID+" (the management operator does it at its next pass).")
	case s.AcceptanceRequired:
		return fail(name, SideManagement, seen, "Turn acceptance off on endpoint service "+s.ID+", or accept the cluster's endpoint yourself.")
	}
	return pass(name, SideManagement, seen)
}

// EndpointSeen is the VPC endpoint in the customer's VPC.
type EndpointSeen struct {
	ID    string // from the AWSEndpointService status
	Found bool
	State string
	// SubnetZones maps each of the endpoint's subnets to its zone ID.
	SubnetZones map[string]string
	// ServedZoneIDs are the zones the NLB serves; nil when unknown.
	ServedZoneIDs []string
}

// EndpointHop judges the endpoint: available, one subnet per zone, every
// zone served by the NLB.
func EndpointHop(s EndpointSeen) Hop {
	const name = HopEndpoint
	if h, absent := customerAbsent(name, "endpoint", s.ID, s.Found); absent {
		return h
	}
	subnets := make([]string, 0, len(s.SubnetZones))
	for id, zone := range s.SubnetZones {
		subnets = append(subnets, id+"@"+zone)
	}
	sort.Strings(subnets)
	seen := fmt.Sprintf("%s %s, subnets %s", s.ID, s.State, list(subnets))
	if s.ServedZoneIDs != nil {
		seen += ", NLB zones " + list(s.ServedZoneIDs)
	}
	switch strings.ToLower(s.State) {
	case "available":
	case "rejected", "failed":
		return fail(name, SideCustomer, seen, "Delete VPC endpoint "+s.ID+"; the control-plane operator creates a new one that the service accepts.")
	case "pendingacceptance":
		return fail(name, SideCustomer, seen, "Accept VPC endpoint "+s.ID+" on the endpoint service, or turn the service's acceptance off.")
	default:
		return fail(name, SideCustomer, seen, "Wait for VPC endpoint "+s.ID+" to become available, then run diagnose again.")
	}
	if z := repeatedZone(s.SubnetZones); z != "" {
		return fail(name, SideCustomer, seen, "Remove all but one of VPC endpoint "+s.ID+"'s subnets in zone "+z+".")
	}
	if s.ServedZoneIDs != nil {
		for _, sub := range subnets {
			id, zone, _ := strings.Cut(sub, "@")
			if !slices.Contains(s.ServedZoneIDs, zone) {
				return fail(name, SideCustomer, seen, "Subnet "+id+" is in zone "+zone+", which the load balancer does not serve: use a NodePool subnet in one of "+list(s.ServedZoneIDs)+".")
			}
		}
	}
	return pass(name, SideCustomer, seen)
}

// customerAbsent is the verdict on a customer resource the status does not
// name yet (id "") or that is gone; absent is false when it exists.
func customerAbsent(hop, what, id string, found bool) (h Hop, absent bool) {
	switch {
	case id == "":
		return fail(hop, SideCustomer, "no "+what+" recorded in the AWSEndpointService status",
			"Read the AWSEndpointService's AWSEndpointAvailable condition: the control-plane operator says there why it has none."), true
	case !found:
		return fail(hop, SideCustomer, id+" does not exist",
			"Let the control-plane operator run: it creates the "+what+" again at its next drift check."), true
	}
	return Hop{}, false
}

func repeatedZone(subnetZones map[string]string) string {
	seen := map[string]bool{}
	ids := make([]string, 0, len(subnetZones))
	for id := range subnetZones {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		z := subnetZones[id]
		if seen[z] {
			return z
		}
		seen[z] = true
	}
	return ""
}

// SecurityGroupSeen is the endpoint's security group and what it admits.
type SecurityGroupSeen struct {
	ID       string
	Found    bool
	Attached bool // the endpoint uses it
	Port     int32
	// Admitted are the CIDRs allowed on Port over TCP.
	Admitted []string
	// MachineCIDRs are the cluster's machine networks.
	MachineCIDRs []string
}

// SecurityGroupHop judges the group: it exists, the endpoint uses it, and
// it admits the port from every machine CIDR.
func SecurityGroupHop(s SecurityGroupSeen) Hop {
	const name = HopSecurityGroup
	if h, absent := customerAbsent(name, "security group", s.ID, s.Found); absent {
		return h
	}
	seen := fmt.Sprintf("%s admits tcp %d from %s", s.ID, s.Port, list(s.Admitted))
	if !s.Attached {
		return fail(name, SideCustomer, seen+", not on the endpoint", "Add security group "+s.ID+" back to the VPC endpoint.")
	}
	for _, cidr := range s.MachineCIDRs {
		if !slices.Contains(s.Admitted, cidr) {
			return fail(name, SideCustomer, seen, fmt.Sprintf("Allow tcp %d from %s in security group %s (the control-plane operator restores it at its next drift check).", s.Port, cidr, s.ID))
		}
	}
	return pass(name, SideCustomer, seen)
}

// PrivateZoneSeen is the private hosted zone <name>.hypershift.local.
type PrivateZoneSeen struct {
	ID          string
	Name        string
	Found       bool
	VPCs        []string
	VPC         string // the cluster's VPC
	NegativeTTL int64  // 0 when unknown
}

// PrivateZoneHop judges the zone: it exists and is associated with the
// cluster's VPC; a long negative TTL is advice, not a failure.
func PrivateZoneHop(s PrivateZoneSeen) Hop {
	const name = HopPrivateZone
	if s.ID == "" || !s.Found {
		return fail(name, SideCustomer, "no private zone "+s.Name+" "+s.ID, "Create the private zone "+s.Name+" on VPC "+s.VPC+".")
	}
	seen := fmt.Sprintf("%s %s on %s", s.ID, s.Name, list(s.VPCs))
	if s.NegativeTTL > 0 {
		seen += fmt.Sprintf(", negative TTL %d s", s.NegativeTTL)
	}
	if !slices.Contains(s.VPCs, s.VPC) {
		return fail(name, SideCustomer, seen, "Associate private zone "+s.ID+" with VPC "+s.VPC+".")
	}
	h := pass(name, SideCustomer, seen)
	if s.NegativeTTL > recommendedNegativeTTL {
		h.Note = fmt.Sprintf("Nodes cache a missing name for %d s; set the zone's SOA negative TTL to %d s.", s.NegativeTTL, recommendedNegativeTTL)
	}
	return h
}

// RecordsSeen are the CNAMEs the endpoint serves.
type RecordsSeen struct {
	Zone   string
	Target string            // the endpoint's DNS name
	Want   []string          // record names
	Have   map[string]string // name → CNAME value, for the names found
}

// RecordsHop judges the records: every wanted name is a CNAME to the
// endpoint's DNS name.
func RecordsHop(s RecordsSeen) Hop {
	const name = HopRecords
	var parts []string
	for _, n := range s.Want {
		parts = append(parts, n+" → "+orNone(s.Have[n]))
	}
	seen := strings.Join(parts, ", ")
	if len(s.Want) == 0 {
		return fail(name, SideCustomer, "no record names recorded in the AWSEndpointService status",
			"Read the AWSEndpointService's AWSEndpointAvailable condition: the control-plane operator says there why it wrote none.")
	}
	for _, n := range s.Want {
		if !strings.EqualFold(s.Have[n], s.Target) {
			return fail(name, SideCustomer, seen, "Point "+n+" at "+s.Target+" (a CNAME in zone "+s.Zone+"); the control-plane operator does it at its next drift check.")
		}
	}
	return pass(name, SideCustomer, seen)
}

// ExternalNamesSeen are the ExternalName Services for external-dns.
type ExternalNamesSeen struct {
	Namespace string
	Target    string
	Want      []string          // Service names wanted
	Have      map[string]string // Service name → its externalName
}

// ExternalNamesHop judges the ExternalName Services: each wanted one
// exists and points at the target. None wanted is a pass.
func ExternalNamesHop(s ExternalNamesSeen) Hop {
	const name = HopExternalNames
	if len(s.Want) == 0 {
		return pass(name, SideKubernetes, "none wanted (no Route hostnames, or a public cluster)")
	}
	var parts []string
	for _, n := range s.Want {
		parts = append(parts, n+" → "+orNone(s.Have[n]))
	}
	seen := strings.Join(parts, ", ")
	for _, n := range s.Want {
		if !strings.EqualFold(s.Have[n], s.Target) {
			return fail(name, SideKubernetes, seen, "Delete Service "+s.Namespace+"/"+n+"; the control-plane operator writes it again pointing at "+s.Target+".")
		}
	}
	return pass(name, SideKubernetes, seen)
}

func list(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, " ")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func onOff(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "on"
	}
	return "off"
}

func required(b bool) string {
	if b {
		return "required"
	}
	return "off"
}
