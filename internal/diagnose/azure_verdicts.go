package diagnose

import (
	"fmt"
	"slices"
	"strings"
)

// Names of the Azure hops after the Kubernetes ones.
const (
	HopInternalLoadBalancer = "internal load balancer"
	HopPrivateLinkService   = "private link service"
	HopPrivateEndpoint      = "private endpoint"
	HopPrivateDNSZone       = "private DNS zone"
	HopVNetLink             = "VNet link"
	HopARecords             = "A records"
)

// FrontendSeen is the internal load balancer frontend holding the router
// Service's address.
type FrontendSeen struct {
	IP      string // the Service's ingress IP
	Found   bool
	ID      string
	Service string // namespace/name of the router Service
}

// InternalLoadBalancerHop judges the frontend: some internal load
// balancer of the management subscription has the Service's address.
func InternalLoadBalancerHop(s FrontendSeen) Hop {
	if s.IP == "" {
		return fail(HopInternalLoadBalancer, SideManagement, "Service "+s.Service+" has no address", "Wait for Service "+s.Service+" to get its internal load balancer address.")
	}
	if !s.Found {
		return fail(HopInternalLoadBalancer, SideManagement, "no internal frontend with address "+s.IP,
			"Delete Service "+s.Service+" so that the cloud provider gives it a new internal load balancer; the private link service follows it.")
	}
	return pass(HopInternalLoadBalancer, SideManagement, s.IP+" on "+nameOf(s.ID))
}

// PrivateLinkServiceSeen is the Private Link Service on the frontend.
type PrivateLinkServiceSeen struct {
	Name         string
	Found        bool
	State        string
	Alias        string
	Visibility   []string
	AutoApproval []string
	Guest        string // the guest subscription
	OnFrontend   bool   // it uses the router's frontend
}

// PrivateLinkServiceHop judges the PLS: it exists, succeeded, sits on the
// router's frontend, and lets the guest subscription see and auto-connect.
func PrivateLinkServiceHop(s PrivateLinkServiceSeen) Hop {
	const name = HopPrivateLinkService
	if s.Name == "" || !s.Found {
		return fail(name, SideManagement, "no private link service "+s.Name, "Start the management operator (or wait for its next pass): it creates the private link service again.")
	}
	seen := fmt.Sprintf("%s %s, visible to %s, auto-approved for %s, alias %s", s.Name, s.State, list(s.Visibility), list(s.AutoApproval), orNone(s.Alias))
	switch {
	case !strings.EqualFold(s.State, "Succeeded"):
		return fail(name, SideManagement, seen, "Private link service "+s.Name+" is "+s.State+": delete it and let the management operator create it again.")
	case !s.OnFrontend:
		return fail(name, SideManagement, seen, "Private link service "+s.Name+" is not on the router's frontend: delete it and let the management operator create it again.")
	case !containsFold(s.Visibility, s.Guest):
		return fail(name, SideManagement, seen, "Add the cluster's subscription to the visibility of private link service "+s.Name+" (the management operator does it at its next pass).")
	case !containsFold(s.AutoApproval, s.Guest):
		return fail(name, SideManagement, seen, "Add the cluster's subscription to the auto-approval of private link service "+s.Name+" (the management operator does it at its next pass).")
	}
	return pass(name, SideManagement, seen)
}

// PrivateEndpointSeen is the Private Endpoint in the guest VNet.
type PrivateEndpointSeen struct {
	Name   string
	Found  bool
	Status string // the connection's: Approved, Pending, Rejected...
	IP     string
}

// PrivateEndpointHop judges the endpoint: its connection is Approved and
// it has an address.
func PrivateEndpointHop(s PrivateEndpointSeen) Hop {
	const name = HopPrivateEndpoint
	if s.Name == "" || !s.Found {
		return fail(name, SideCustomer, "no private endpoint "+s.Name, "Let the control-plane operator run: it creates the private endpoint again at its next drift check.")
	}
	seen := fmt.Sprintf("%s connection %s, IP %s", s.Name, orNone(s.Status), orNone(s.IP))
	switch {
	case !strings.EqualFold(s.Status, "Approved"):
		return fail(name, SideCustomer, seen, "Delete private endpoint "+s.Name+"; the control-plane operator creates a new one that the service approves.")
	case s.IP == "":
		return fail(name, SideCustomer, seen, "Wait for private endpoint "+s.Name+" to get an address, then run diagnose again.")
	}
	return pass(name, SideCustomer, seen)
}

// PrivateDNSZoneHop judges the zone: it exists.
func PrivateDNSZoneHop(zone string, found bool) Hop {
	if !found {
		return fail(HopPrivateDNSZone, SideCustomer, "no private DNS zone "+zone, "Let the control-plane operator run: it creates zone "+zone+" again at its next drift check.")
	}
	return pass(HopPrivateDNSZone, SideCustomer, zone)
}

// VNetLinkSeen is the zone's link to the guest VNet.
type VNetLinkSeen struct {
	Zone, Name string
	Found      bool
	VNet       string
	WantVNet   string
	State      string
}

// VNetLinkHop judges the link: it exists, links the guest VNet, and is
// completed.
func VNetLinkHop(s VNetLinkSeen) Hop {
	if !s.Found {
		return fail(HopVNetLink, SideCustomer, "no link "+s.Name+" on zone "+s.Zone, "Link zone "+s.Zone+" to VNet "+nameOf(s.WantVNet)+" (the control-plane operator does it at its next drift check).")
	}
	seen := fmt.Sprintf("%s to %s, %s", s.Name, nameOf(s.VNet), orNone(s.State))
	if !strings.EqualFold(s.VNet, s.WantVNet) {
		return fail(HopVNetLink, SideCustomer, seen, "Link zone "+s.Zone+" to VNet "+nameOf(s.WantVNet)+", the cluster's, instead.")
	}
	if s.State != "" && !strings.EqualFold(s.State, "Completed") {
		return fail(HopVNetLink, SideCustomer, seen, "Wait for link "+s.Name+" to complete, then run diagnose again.")
	}
	return pass(HopVNetLink, SideCustomer, seen)
}

// ARecordsSeen are the zone's A records.
type ARecordsSeen struct {
	Zone string
	IP   string              // the endpoint's address
	Want []string            // record names
	Have map[string][]string // name → addresses, for the names found
}

// ARecordsHop judges the records: each wanted name has exactly the
// endpoint's address.
func ARecordsHop(s ARecordsSeen) Hop {
	var parts []string
	for _, n := range s.Want {
		parts = append(parts, n+" → "+list(s.Have[n]))
	}
	seen := strings.Join(parts, ", ")
	for _, n := range s.Want {
		if !slices.Equal(s.Have[n], []string{s.IP}) {
			return fail(HopARecords, SideCustomer, seen, "Set A record "+n+" of zone "+s.Zone+" to "+s.IP+" (the control-plane operator does it at its next drift check).")
		}
	}
	return pass(HopARecords, SideCustomer, seen)
}

func containsFold(items []string, want string) bool {
	return slices.ContainsFunc(items, func(s string) bool { return strings.EqualFold(s, want) })
}

// nameOf is the last segment of an Azure resource ID.
func nameOf(id string) string {
	return id[strings.LastIndex(id, "/")+1:]
}
