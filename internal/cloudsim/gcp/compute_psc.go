package gcp

import (
	"slices"
	"sort"
	"strings"

	"google.golang.org/api/compute/v1"
)

// Private Service Connect connections: each consumer endpoint (a forwarding
// rule whose target is a service attachment) has a pscConnectionStatus the
// producer's settings decide:
//   - CLOSED when the attachment is gone;
//   - REJECTED when the consumer's project or network is on the reject list;
//   - ACCEPTED when the preference is ACCEPT_AUTOMATIC, or the consumer is on
//     the accept list and its entry's connectionLimit is not yet reached;
//   - NEEDS_ATTENTION when accepted but the NAT subnetworks have no address
//     left: every connected endpoint takes one NAT address
//     (https://cloud.google.com/vpc/docs/about-vpc-hosted-services#nat-subnet-sizing);
//   - PENDING otherwise.
// Changes to the lists affect new and pending connections only: ACCEPTED
// and REJECTED ones keep their status. An attachment with
// reconcileConnections decides them again as well, as a new connection
// would be: one whose consumer was put on the reject list is REJECTED, one
// whose consumer was taken off the reject list and is on the accept list
// is ACCEPTED, and one whose consumer left the accept list goes back to
// PENDING (it no longer carries traffic; the producer may then reject it).
// Google's definition of the field
// (https://cloud.google.com/compute/docs/reference/rest/v1/serviceAttachments)
// states the reject-list case only ("an ACCEPTED PSC endpoint will be
// moved to REJECTED if its project is added to the reject list") and says
// the update "will affect both PENDING and ACCEPTED/REJECTED PSC
// endpoints"; PENDING for a consumer taken off the accept list is this
// model's reading of that, not a documented statement (the section of
// https://cloud.google.com/vpc/docs/manage-private-service-connect-services
// on reconciliation could not be read). hcplink does not depend on it: it
// puts a foreign project on the reject list, which is documented.

// Limits are Private Service Connect's limits a fleet meets. A limit of 0
// is not enforced.
type Limits struct {
	// AcceptListEntries caps consumerAcceptLists. Google's quota page gives
	// the figure per project in the console only, so it is not set by default.
	AcceptListEntries int `json:"acceptListEntries"`
}

// A PSC endpoint is a forwarding rule that also needs the PSC permissions:
// compute.forwardingRules.pscCreate to create one and pscDelete to delete
// it, beside create and delete (both pairs are among
// roles/compute.networkAdmin's permissions,
// https://cloud.google.com/iam/docs/roles-permissions/compute; the PSC ones
// are what a consumer's custom role must add).
const (
	permissionPSCCreate = "compute.forwardingRules.pscCreate"
	permissionPSCDelete = "compute.forwardingRules.pscDelete"
)

func (x *call) preparePSCEndpoint(fr *compute.ForwardingRule, region string) (string, *Error) {
	if err := x.require(permissionPSCCreate, x.regionalKey("forwardingRules", fr.Name)); err != nil {
		return "", err
	}
	if fr.LoadBalancingScheme != "" {
		return "", errInvalid("Invalid value for field 'resource.loadBalancingScheme': '%s'. A Private Service Connect endpoint has none.", fr.LoadBalancingScheme)
	}
	if fr.Network == "" {
		return "", errRequired("resource.network")
	}
	networkKey := x.ref(fr.Network, "", "networks")
	network := x.c.network(networkKey)
	if network == nil {
		return "", errNotFound(networkKey)
	}
	if err := x.require("compute.networks.use", networkKey); err != nil {
		return "", err
	}
	if fr.IPAddress == "" {
		return "", errRequired("resource.IPAddress")
	}
	addressKey, ip, err := x.ruleAddress(fr.IPAddress, region, "")
	if err != nil {
		return "", err
	}
	if addressKey == "" {
		return "", errInvalid("Invalid value for field 'resource.IPAddress': '%s'. A Private Service Connect endpoint needs a reserved internal address.", fr.IPAddress)
	}
	if s := x.c.st.subnetworks[rel(x.c.st.addresses[addressKey].Subnetwork)]; s == nil || rel(s.Network) != networkKey {
		return "", errInvalid("Invalid value for field 'resource.IPAddress': '%s'. The address is not in network '%s'.", fr.IPAddress, network.Name)
	}
	targetKey := x.ref(fr.Target, region, "serviceAttachments")
	target := x.c.attachment(targetKey)
	if target == nil {
		return "", errNotFound(targetKey)
	}
	if lastSegment(target.Region) != region {
		return "", errInvalid("Invalid value for field 'resource.target': '%s'. The service attachment is in another region.", fr.Target)
	}
	x.c.st.nextConnection++
	fr.Target, fr.Network, fr.IPAddress, fr.Subnetwork = target.SelfLink, network.SelfLink, ip, ""
	fr.PscConnectionId, fr.PscConnectionStatus = x.c.st.nextConnection, "PENDING"
	return addressKey, nil
}

// reconcileConnections decides the status of every endpoint of an
// attachment, oldest connection first.
func (c *Cloud) reconcileConnections(attachmentKey string) {
	var endpoints []*compute.ForwardingRule
	for k, fr := range c.st.forwardingRules {
		if fr.Target != "" && rel(fr.Target) == attachmentKey && !c.st.pending[k] {
			endpoints = append(endpoints, fr)
		}
	}
	sort.Slice(endpoints, func(i, j int) bool { return endpoints[i].PscConnectionId < endpoints[j].PscConnectionId })
	sa := c.st.attachments[attachmentKey]
	if sa == nil {
		for _, fr := range endpoints {
			fr.PscConnectionStatus = "CLOSED"
		}
		return
	}
	natLeft := c.natCapacity(sa)
	perEntry := map[int]int64{}
	decided := map[*compute.ForwardingRule]bool{}
	for _, fr := range endpoints { // established connections keep their status
		if sa.ReconcileConnections {
			break
		}
		switch fr.PscConnectionStatus {
		case "ACCEPTED":
			if i := c.acceptEntry(sa, fr); i >= 0 {
				perEntry[i]++
			}
			natLeft--
			decided[fr] = true
		case "REJECTED":
			decided[fr] = true
		}
	}
	for _, fr := range endpoints {
		if decided[fr] {
			continue
		}
		entry := c.acceptEntry(sa, fr)
		switch {
		case c.rejected(sa, fr):
			fr.PscConnectionStatus = "REJECTED"
		case sa.ConnectionPreference == acceptAutomatic || entry >= 0 && perEntry[entry] < sa.ConsumerAcceptLists[entry].ConnectionLimit:
			if natLeft <= 0 {
				fr.PscConnectionStatus = "NEEDS_ATTENTION"
				continue
			}
			fr.PscConnectionStatus = "ACCEPTED"
			natLeft--
			if entry >= 0 {
				perEntry[entry]++
			}
		default:
			fr.PscConnectionStatus = "PENDING"
		}
	}
}

// acceptEntry is the index of the accept-list entry naming the endpoint's
// project (by ID or number) or network, or -1.
func (c *Cloud) acceptEntry(sa *compute.ServiceAttachment, fr *compute.ForwardingRule) int {
	for i, e := range sa.ConsumerAcceptLists {
		if c.namesConsumer(e.ProjectIdOrNum, e.NetworkUrl, fr) {
			return i
		}
	}
	return -1
}

func (c *Cloud) rejected(sa *compute.ServiceAttachment, fr *compute.ForwardingRule) bool {
	return slices.ContainsFunc(sa.ConsumerRejectLists, func(v string) bool {
		if strings.Contains(v, "/") { // a network URL; otherwise a project ID or number
			return c.namesConsumer("", v, fr)
		}
		return c.namesConsumer(v, "", fr)
	})
}

func (c *Cloud) namesConsumer(projectIDOrNumber, networkURL string, fr *compute.ForwardingRule) bool {
	if networkURL != "" {
		return rel(networkURL) == rel(fr.Network)
	}
	p := c.project(projectIDOrNumber)
	return p != nil && p.ID == projectOf(rel(fr.SelfLink))
}

// natCapacity is how many connections the NAT subnetworks can serve.
func (c *Cloud) natCapacity(sa *compute.ServiceAttachment) int64 {
	var n int64
	for _, nat := range sa.NatSubnets {
		if s := c.st.subnetworks[rel(nat)]; s != nil {
			if p, ok := parseRange(s.IpCidrRange); ok {
				n += usableAddresses(p)
			}
		}
	}
	return n
}

// attachmentUsesNAT tells whether the attachment has connections holding NAT addresses.
func (c *Cloud) attachmentUsesNAT(key string) bool {
	for _, fr := range c.st.forwardingRules {
		if fr.Target != "" && rel(fr.Target) == key && fr.PscConnectionStatus == "ACCEPTED" {
			return true
		}
	}
	return false
}

// renderAttachment adds connectedEndpoints, with a NAT address each for
// the accepted ones.
func (c *Cloud) renderAttachment(sa *compute.ServiceAttachment) *compute.ServiceAttachment {
	out := *sa
	out.ConnectedEndpoints = nil
	key := rel(sa.SelfLink)
	var endpoints []*compute.ForwardingRule
	for k, fr := range c.st.forwardingRules {
		if fr.Target != "" && rel(fr.Target) == key && !c.st.pending[k] {
			endpoints = append(endpoints, fr)
		}
	}
	sort.Slice(endpoints, func(i, j int) bool { return endpoints[i].PscConnectionId < endpoints[j].PscConnectionId })
	nat := c.natAddresses(sa)
	for _, fr := range endpoints {
		ce := &compute.ServiceAttachmentConnectedEndpoint{Endpoint: fr.SelfLink, PscConnectionId: fr.PscConnectionId,
			Status: fr.PscConnectionStatus, ConsumerNetwork: fr.Network}
		if fr.PscConnectionStatus == "ACCEPTED" && len(nat) > 0 {
			ce.NatIps, nat = []string{nat[0]}, nat[1:]
		}
		out.ConnectedEndpoints = append(out.ConnectedEndpoints, ce)
	}
	return &out
}

// natAddresses lists the NAT subnetworks' assignable addresses, enough for
// the attachment's connections.
func (c *Cloud) natAddresses(sa *compute.ServiceAttachment) []string {
	var out []string
	for _, n := range sa.NatSubnets {
		s := c.st.subnetworks[rel(n)]
		if s == nil {
			continue
		}
		p, _ := parseRange(s.IpCidrRange)
		for ip := gateway(p).Next(); assignable(p, ip) && len(out) < 1024; ip = ip.Next() {
			out = append(out, ip.String())
		}
	}
	return out
}

// SetLimits replaces the Private Service Connect limits in force.
func (c *Cloud) SetLimits(l Limits) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limits = l
}

// Limits returns the limits in force.
func (c *Cloud) Limits() Limits {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limits
}
