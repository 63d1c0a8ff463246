package diagnose

import (
	"fmt"
	"slices"
	"strings"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// Names of the GCP hops after the router Service (the A records and the
// ExternalName Services are named as on the other clouds).
const (
	HopForwardingRule    = "forwarding rule"
	HopServiceAttachment = "service attachment"
	HopPSCEndpoint       = "PSC endpoint"
	HopCloudDNSZone      = "Cloud DNS zone"
)

// ForwardingRuleSeen is the router's internal forwarding rule in the
// management project: what the service attachment publishes.
type ForwardingRuleSeen struct {
	Name    string // from the GCPPrivateServiceConnect's status; "" when the operator found none yet
	Project string
	Found   bool
	Scheme  string // loadBalancingScheme
	IP      string
	// WantIP is the router Service's address; Service its namespace/name;
	// Object the GCPPrivateServiceConnect's.
	WantIP, Service, Object string
}

// ForwardingRuleHop judges the router's rule: the operator found it, it
// exists, is internal and holds the router Service's address.
func ForwardingRuleHop(s ForwardingRuleSeen) Hop {
	const name = HopForwardingRule
	switch {
	case s.WantIP == "":
		return fail(name, SideManagement, "Service "+s.Service+" has no address", "Wait for Service "+s.Service+" to get its internal load balancer address.")
	case s.Name == "":
		return fail(name, SideManagement, "no forwarding rule recorded for "+s.WantIP,
			"Read condition GCPServiceAttachmentAvailable of GCPPrivateServiceConnect "+s.Object+": the management operator says there why it found no internal forwarding rule with address "+s.WantIP+".")
	case !s.Found:
		return fail(name, SideManagement, "no forwarding rule "+s.Name+" in project "+s.Project,
			"Delete Service "+s.Service+" so that the cloud provider makes its internal load balancer again; the management operator follows the new forwarding rule.")
	}
	seen := fmt.Sprintf("%s %s at %s", s.Name, orNone(s.Scheme), orNone(s.IP))
	switch {
	case s.Scheme != "INTERNAL":
		return fail(name, SideManagement, seen, "Forwarding rule "+s.Name+" is not internal: delete Service "+s.Service+" so that the cloud provider makes an internal load balancer for it.")
	case s.IP != s.WantIP:
		return fail(name, SideManagement, seen, "Forwarding rule "+s.Name+" holds "+orNone(s.IP)+", not the router's "+s.WantIP+": the management operator finds the router's rule again at its next pass (see GCPServiceAttachmentAvailable).")
	}
	return pass(name, SideManagement, seen)
}

// ServiceAttachmentSeen is the service attachment in the management
// project.
type ServiceAttachmentSeen struct {
	Name    string // from the status; "" when the operator has not made it yet
	Project string
	Found   bool
	Object  string // the GCPPrivateServiceConnect's namespace/name
	// Target is the forwarding rule it publishes (its name); WantTarget the
	// router's, "" when not known.
	Target, WantTarget string
	Preference         string // connectionPreference
	Accepts            []string
	Rejects            []string
	// Want is the accept list the cluster asks for: its project and its
	// additionalAllowedProjects.
	Want        []string
	Connections []gcpcloud.Connection
}

// ServiceAttachmentHop judges the attachment: it exists, publishes the
// router's rule, accepts manually and its accept list holds every project
// the cluster wants.
func ServiceAttachmentHop(s ServiceAttachmentSeen) Hop {
	const name = HopServiceAttachment
	switch {
	case s.Name == "":
		return fail(name, SideManagement, "no service attachment published yet",
			"Read condition GCPServiceAttachmentAvailable of GCPPrivateServiceConnect "+s.Object+": the management operator says there why it has not made the service attachment.")
	case !s.Found:
		return fail(name, SideManagement, "no service attachment "+s.Name+" in project "+s.Project,
			"Let the management operator run: it makes service attachment "+s.Name+" again at its next drift check, and the control-plane operator then makes a new endpoint.")
	}
	seen := fmt.Sprintf("%s → rule %s, accepts %s", s.Name, orNone(s.Target), list(s.Accepts))
	if len(s.Rejects) > 0 {
		seen += ", rejects " + list(s.Rejects)
	}
	h := pass(name, SideManagement, seen+", connections "+connections(s.Connections)+", "+orNone(s.Preference))
	if s.WantTarget != "" && s.Target != s.WantTarget {
		return fail(name, SideManagement, h.Seen, "Service attachment "+s.Name+" publishes forwarding rule "+orNone(s.Target)+", not the router's "+s.WantTarget+
			": delete it and let the management operator make it again.")
	}
	if missing := missingFrom(s.Want, s.Accepts); len(missing) > 0 {
		return fail(name, SideManagement, h.Seen, "Add project "+strings.Join(missing, " and ")+" to the accept list of service attachment "+s.Name+
			" (the management operator restores the list at its next drift check).")
	}
	if s.Preference != gcpcloud.ConnectionPreferenceManual {
		h.Note = "It accepts " + orNone(s.Preference) + ", not only the projects of its accept list; the management operator creates it " + gcpcloud.ConnectionPreferenceManual + "."
	}
	return h
}

func connections(cs []gcpcloud.Connection) string {
	if len(cs) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, orNone(c.Project)+" "+c.Status)
	}
	return strings.Join(parts, ", ")
}

// missingFrom lists the items of want not in have, in want's order.
func missingFrom(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

// PSCEndpointSeen is the Private Service Connect endpoint in the
// customer's project: a forwarding rule targeting the attachment, on a
// reserved internal address.
type PSCEndpointSeen struct {
	Name, Project string
	Found         bool
	// Target is the attachment it targets; WantTarget the published one's
	// relative name, "" when not known.
	Target, WantTarget string
	Status             string // pscConnectionStatus
	IP                 string
	// Address is the reserved address's name and AddressStatus its status
	// (RESERVED, IN_USE; "" when it is gone or was not read).
	Address, AddressStatus string
	// What the attachment says, when it was read (AttachmentRead).
	AttachmentRead   bool
	Attachment       string
	Accepts, Rejects []string
	WantedByCluster  []string // the cluster's project and additionalAllowedProjects
}

// PSCEndpointHop judges the endpoint: it exists, targets the published
// attachment, its connection is ACCEPTED and it has an address. A connection
// that is not is explained from the attachment's accept and reject lists.
func PSCEndpointHop(s PSCEndpointSeen) Hop {
	const name = HopPSCEndpoint
	if !s.Found {
		return fail(name, SideCustomer, "no endpoint "+s.Name+" in project "+s.Project,
			"Let the control-plane operator run: it makes endpoint "+s.Name+" again at its next drift check (see GCPEndpointAvailable).")
	}
	seen := fmt.Sprintf("%s → %s, %s, IP %s", s.Name, orNone(lastPart(s.Target)), orNone(s.Status), orNone(s.IP))
	if s.Address != "" {
		seen += ", address " + s.Address + " " + orNone(s.AddressStatus)
	}
	if s.WantTarget != "" && gcpcloud.RelativeName(s.Target) != s.WantTarget {
		return fail(name, SideCustomer, seen, "Endpoint "+s.Name+" targets "+orNone(lastPart(s.Target))+", not the published service attachment "+lastPart(s.WantTarget)+
			": the control-plane operator makes it again toward the new one at its next pass (see GCPEndpointAvailable).")
	}
	if fix := connectionFix(s); fix != "" {
		return fail(name, SideCustomer, seen, fix)
	}
	if s.IP == "" {
		return fail(name, SideCustomer, seen, "Wait for endpoint "+s.Name+" to get its address, then run diagnose again.")
	}
	return pass(name, SideCustomer, seen)
}

// connectionFix is what to do about a connection that is not ACCEPTED, ""
// when it is.
func connectionFix(s PSCEndpointSeen) string {
	ep, project, att := "Endpoint "+s.Name, s.Project, orNone(s.Attachment)
	switch s.Status {
	case gcpcloud.PSCAccepted:
		return ""
	case gcpcloud.PSCPending:
		switch {
		case !s.AttachmentRead:
			return ep + " is PENDING: the service attachment could not be read to say why; read its accept list and condition GCPServiceAttachmentAvailable."
		case !slices.Contains(s.Accepts, project) && slices.Contains(s.WantedByCluster, project):
			return ep + " is PENDING: project " + project + " is not on the accept list of service attachment " + att + "; the management operator restores the list at its next drift check (see GCPServiceAttachmentAvailable)."
		case !slices.Contains(s.Accepts, project):
			return ep + " is PENDING: project " + project + " is not on the accept list of service attachment " + att + "; add it to spec.platform.gcp.private.additionalAllowedProjects."
		}
		return ep + " is PENDING though project " + project + " is on the accept list of service attachment " + att + ": check the project's connection limit there, and the NAT subnets' free addresses."
	case gcpcloud.PSCRejected:
		if slices.Contains(s.Rejects, project) {
			return ep + " is REJECTED: remove project " + project + " from the reject list of service attachment " + att + ", then delete the endpoint so that the control-plane operator makes it again."
		}
		return ep + " is REJECTED: delete it so that the control-plane operator makes it again, once project " + project + " is on the accept list of service attachment " + att + "."
	case gcpcloud.PSCClosed:
		return ep + " is CLOSED: its service attachment was deleted; the control-plane operator makes a new endpoint once the management operator has made the attachment again."
	case gcpcloud.PSCNeedsAttention:
		return ep + " NEEDS_ATTENTION: the NAT subnets of service attachment " + att + " are full; add a subnet with purpose PRIVATE_SERVICE_CONNECT to the management network."
	}
	return ep + " has connection status " + orNone(s.Status) + ": wait for it to be ACCEPTED, then run diagnose again."
}

// lastPart is the last segment of a Google resource link or relative name.
func lastPart(link string) string { return link[strings.LastIndex(link, "/")+1:] }

// CloudDNSZoneSeen is the cluster's private Cloud DNS zone.
type CloudDNSZoneSeen struct {
	Name, Project string
	Found         bool
	DNSName       string
	WantDNSName   string
	Networks      []string // the networks it is visible to, by name
	WantNetwork   string
	// Ours: hcplink made it for this cluster (its labels).
	Ours bool
}

// CloudDNSZoneHop judges the zone: it exists, hcplink made it for this
// cluster, it serves <name>.hypershift.local. and is visible to the
// customer's network.
func CloudDNSZoneHop(s CloudDNSZoneSeen) Hop {
	const name = HopCloudDNSZone
	if !s.Found {
		return fail(name, SideCustomer, "no zone "+s.Name+" in project "+s.Project,
			"Let the control-plane operator run: it makes zone "+s.Name+" again at its next drift check (see GCPDNSAvailable).")
	}
	seen := fmt.Sprintf("%s %s, visible to %s", s.Name, s.DNSName, list(s.Networks))
	switch {
	case !s.Ours:
		return fail(name, SideCustomer, seen, "Zone "+s.Name+" was not made by hcplink for this cluster, so hcplink leaves it: remove or rename it, and the control-plane operator makes its own.")
	case !strings.EqualFold(s.DNSName, s.WantDNSName):
		return fail(name, SideCustomer, seen, "Zone "+s.Name+" serves "+s.DNSName+", not "+s.WantDNSName+": delete it so that the control-plane operator makes it again.")
	case !slices.Contains(s.Networks, s.WantNetwork):
		return fail(name, SideCustomer, seen, "Let the control-plane operator run: it makes zone "+s.Name+" visible to network "+s.WantNetwork+" again at its next drift check (see GCPDNSAvailable).")
	}
	return pass(name, SideCustomer, seen)
}

// gcpDenied is the reason a read was refused, naming the permission: the
// one Google named, else the one diagnose's table gives the read.
func gcpDenied(permission, project string, err error) string {
	if p := gcpcloud.MissingPermission(err); p != "" {
		permission = p
	}
	return "the credentials lack " + permission + " in project " + project +
		": grant it there (hcplink permissions gcp diagnose prints the role that holds it)"
}
