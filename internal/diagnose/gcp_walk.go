package diagnose

import (
	"context"
	"sort"
	"strings"

	"google.golang.org/api/compute/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// GCPClients is the Google sign-in the GCP walk reads both projects with
// (one identity, granted the diagnose role in each).
type GCPClients struct {
	Clients *gcpcloud.Clients
	// Missing says why there is no sign-in (every GCP hop is then "?").
	Missing string
}

// The permission each read of the walk needs: the diagnose rows of
// gcpcloud.Permissions, named in a hop whose read was refused.
const (
	permForwardingRuleGet    = "compute.forwardingRules.get"
	permServiceAttachmentGet = "compute.serviceAttachments.get"
	permAddressGet           = "compute.addresses.get"
	permManagedZoneGet       = "dns.managedZones.get"
	permRecordSetsList       = "dns.resourceRecordSets.list"
)

// LoadGCPClients signs in as Application Default Credentials (or the file
// GOOGLE_APPLICATION_CREDENTIALS names) against the endpoints the
// HCPLINK_GCP_* environment names (getenv: os.Getenv).
func LoadGCPClients(ctx context.Context, getenv func(string) string) GCPClients {
	const missing = "no Google credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default login, or the metadata server)"
	c, err := gcpcloud.ConfigFromEnv(getenv)
	if err != nil {
		return GCPClients{Missing: missing + ": " + err.Error()}
	}
	c.Component = string(gcpcloud.Diagnose)
	clients, err := gcpcloud.NewClients(ctx, c)
	if err != nil {
		return GCPClients{Missing: missing + ": " + err.Error()}
	}
	return GCPClients{Clients: clients}
}

// gcpPath walks a GCP cluster's one private endpoint, the router's: the
// router Service, its forwarding rule and service attachment (management
// project), the PSC endpoint, zone and records (customer project), the
// ExternalName Services.
var gcpPath = cloudPath{
	access: func(hc *hcplinkv1beta1.HostedCluster) string {
		if hc.Spec.Platform.GCP == nil {
			return ""
		}
		return string(hc.Spec.Platform.GCP.EndpointAccess)
	},
	load: func(ctx context.Context, _ *hcplinkv1beta1.HostedCluster, c Credentials, opts *Options) {
		opts.GCP = LoadGCPClients(ctx, c.Getenv)
	},
	sides: func(ctx context.Context, k kubeSeen, _ Options) (string, string) {
		w := newGCPWalk(ctx, k, GCPClients{})
		return "project " + orNone(w.mgmtProject), "project " + orNone(w.custProject)
	},
	walk: func(ctx context.Context, k *kubeSeen, opts Options) ([]Hop, error) {
		svc, err := k.serviceHop(ctx, hcplinkv1beta1.PrivateRouterServiceName)
		if err != nil {
			return nil, err
		}
		w := newGCPWalk(ctx, *k, opts.GCP)
		hops := []Hop{svc, w.ruleHop(ctx), w.attachmentHop(ctx), w.endpointHop(ctx), w.zoneHop(ctx), w.recordsHop(ctx), w.externalNames(ctx)}
		return onEndpoint(hcplinkv1beta1.PrivateRouterServiceName, hops), nil
	},
}

// gcpWalk carries what one GCP walk has seen so far.
type gcpWalk struct {
	k       kubeSeen
	clients GCPClients
	cr      *hcplinkv1beta1.GCPPrivateServiceConnect
	owner   gcpcloud.Owner
	// mgmtProject and region come from the attachment's URI; custProject
	// from the object's spec (the cluster's project).
	mgmtProject, custProject, region string
	attachment                       *compute.ServiceAttachment // nil until read
	endpointIP                       string
	zoneDNSName                      string // set once the zone was read
}

func newGCPWalk(ctx context.Context, k kubeSeen, clients GCPClients) *gcpWalk {
	w := &gcpWalk{k: k, clients: clients}
	if k.hc != nil && k.hc.Spec.Platform.GCP != nil {
		w.custProject, w.region = k.hc.Spec.Platform.GCP.Project, k.hc.Spec.Platform.GCP.Region
		w.owner = gcpcloud.Owner{InfraID: k.hc.Spec.InfraID, Name: hcplinkv1beta1.GCPPrivateServiceConnectName}
	}
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{}
	if err := k.reader.Get(ctx, k.key(hcplinkv1beta1.GCPPrivateServiceConnectName), cr); err != nil {
		return w
	}
	w.cr = cr
	w.custProject, w.region = cr.Spec.Project, cr.Spec.Region
	if project, region, ok := attachmentLocation(cr.Status.ServiceAttachmentURI); ok {
		w.mgmtProject, w.region = project, region
	}
	return w
}

// attachmentLocation reads project and region from an attachment's URI
// (projects/P/regions/R/serviceAttachments/N, or its full link).
func attachmentLocation(uri string) (project, region string, ok bool) {
	parts := strings.Split(gcpcloud.RelativeName(uri), "/")
	if len(parts) != 6 || parts[0] != "projects" || parts[2] != "regions" || parts[4] != "serviceAttachments" {
		return "", "", false
	}
	return parts[1], parts[3], true
}

// blocked is the hop to show instead of reading a side: without the
// GCPPrivateServiceConnect, without a sign-in, or without the side's project.
func (w *gcpWalk) blocked(hop string, side Side) (Hop, bool) {
	key := w.k.hcpNS + "/" + hcplinkv1beta1.GCPPrivateServiceConnectName
	switch {
	case w.cr == nil:
		return fail(hop, side, "no GCPPrivateServiceConnect "+key, "Check that the control-plane operator runs: it creates GCPPrivateServiceConnect "+key+" once the router has its address."), true
	case w.clients.Missing != "":
		return unknown(hop, side, w.clients.Missing), true
	case w.clients.Clients == nil:
		return unknown(hop, side, "no Google sign-in was given"), true
	case side == SideManagement && w.mgmtProject == "":
		return unknown(hop, side, "the management project is not known yet (no service attachment in GCPPrivateServiceConnect "+key+"'s status)"), true
	}
	return Hop{}, false
}

// gcpUnknown is a hop whose read failed: a refusal names the permission.
func gcpUnknown(hop string, side Side, err error, permission, project string) Hop {
	if gcpcloud.Classify(err) == cloud.ClassAccessDenied {
		return unknown(hop, side, gcpDenied(permission, project, err))
	}
	return unknown(hop, side, "reading it failed: "+gcpcloud.ErrorMessage(err))
}

func (w *gcpWalk) location(project string) gcpcloud.Location {
	return gcpcloud.Location{Project: project, Region: w.region}
}

func (w *gcpWalk) object() string {
	return w.k.hcpNS + "/" + hcplinkv1beta1.GCPPrivateServiceConnectName
}

func (w *gcpWalk) routerIP() string {
	if w.k.router == nil {
		return ""
	}
	return ingressHost(w.k.router)
}

func (w *gcpWalk) ruleHop(ctx context.Context) Hop {
	if w.cr != nil && w.cr.Status.ForwardingRuleName == "" {
		// Before the operator found the rule its project is not known: say
		// why from Kubernetes alone.
		return ForwardingRuleHop(ForwardingRuleSeen{WantIP: w.routerIP(), Service: w.k.hcpNS + "/" + hcplinkv1beta1.PrivateRouterServiceName, Object: w.object()})
	}
	if h, stop := w.blocked(HopForwardingRule, SideManagement); stop {
		return h
	}
	seen := ForwardingRuleSeen{Name: w.cr.Status.ForwardingRuleName, Project: w.mgmtProject, WantIP: w.routerIP(),
		Service: w.k.hcpNS + "/" + hcplinkv1beta1.PrivateRouterServiceName, Object: w.object()}
	// The router's rule is a forwarding rule like the endpoint: one read.
	rule, err := (&gcpcloud.Endpoints{Compute: w.clients.Clients.Compute, Location: w.location(w.mgmtProject)}).Get(ctx, seen.Name)
	if err != nil {
		return gcpUnknown(HopForwardingRule, SideManagement, err, permForwardingRuleGet, w.mgmtProject)
	}
	if rule != nil {
		seen.Found, seen.Scheme, seen.IP = true, rule.LoadBalancingScheme, rule.IPAddress
	}
	return ForwardingRuleHop(seen)
}

func (w *gcpWalk) attachmentHop(ctx context.Context) Hop {
	if w.cr != nil && w.cr.Status.ServiceAttachmentName == "" {
		return ServiceAttachmentHop(ServiceAttachmentSeen{Object: w.object()})
	}
	if h, stop := w.blocked(HopServiceAttachment, SideManagement); stop {
		return h
	}
	seen := ServiceAttachmentSeen{Name: w.cr.Status.ServiceAttachmentName, Project: w.mgmtProject, Object: w.object(),
		WantTarget: w.cr.Status.ForwardingRuleName, Want: w.wantedProjects()}
	sa, err := (&gcpcloud.ServiceAttachments{Compute: w.clients.Clients.Compute, Location: w.location(w.mgmtProject)}).Get(ctx, seen.Name)
	if err != nil {
		return gcpUnknown(HopServiceAttachment, SideManagement, err, permServiceAttachmentGet, w.mgmtProject)
	}
	if sa == nil {
		return ServiceAttachmentHop(seen)
	}
	w.attachment = sa
	seen.Found, seen.Target, seen.Preference = true, lastPart(sa.TargetService), sa.ConnectionPreference
	seen.Accepts, seen.Rejects = acceptedProjects(sa), sorted(sa.ConsumerRejectLists)
	seen.Connections = gcpcloud.ConnectionsOf(sa)
	return ServiceAttachmentHop(seen)
}

// wantedProjects is the accept list the cluster asks for.
func (w *gcpWalk) wantedProjects() []string {
	if w.k.hc != nil && w.k.hc.Spec.Platform.GCP != nil {
		return w.k.hc.Spec.Platform.GCP.AcceptedProjects()
	}
	return w.cr.Spec.ConsumerAcceptList
}

func acceptedProjects(sa *compute.ServiceAttachment) []string {
	var out []string
	for _, c := range gcpcloud.ConsumersOf(sa) {
		out = append(out, c.Project)
	}
	return out
}

func sorted(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}

func (w *gcpWalk) endpointHop(ctx context.Context) Hop {
	if h, stop := w.blocked(HopPSCEndpoint, SideCustomer); stop {
		return h
	}
	seen := PSCEndpointSeen{Name: gcpcloud.EndpointName(w.owner), Project: w.custProject, WantedByCluster: w.wantedProjects(),
		Attachment: w.cr.Status.ServiceAttachmentName}
	if w.cr.Status.EndpointName != "" {
		seen.Name = w.cr.Status.EndpointName
	}
	if uri := w.cr.Status.ServiceAttachmentURI; uri != "" {
		seen.WantTarget = gcpcloud.RelativeName(uri)
	}
	if sa := w.attachment; sa != nil {
		seen.AttachmentRead, seen.Accepts, seen.Rejects = true, acceptedProjects(sa), sa.ConsumerRejectLists
	}
	rule, err := (&gcpcloud.Endpoints{Compute: w.clients.Clients.Compute, Location: w.location(w.custProject)}).Get(ctx, seen.Name)
	if err != nil {
		return gcpUnknown(HopPSCEndpoint, SideCustomer, err, permForwardingRuleGet, w.custProject)
	}
	if rule == nil {
		return PSCEndpointHop(seen)
	}
	seen.Found, seen.Target, seen.Status, seen.IP = true, rule.Target, rule.PscConnectionStatus, rule.IPAddress
	seen.Address = gcpcloud.EndpointAddressName(w.owner)
	addr, err := (&gcpcloud.Addresses{Compute: w.clients.Clients.Compute, Location: w.location(w.custProject)}).Get(ctx, seen.Address)
	if err != nil {
		return gcpUnknown(HopPSCEndpoint, SideCustomer, err, permAddressGet, w.custProject)
	}
	if addr != nil {
		seen.AddressStatus = addr.Status
	} else {
		seen.AddressStatus = "not reserved"
	}
	// The records are judged against the address even when the connection
	// is not accepted: they are right or wrong on their own.
	w.endpointIP = seen.IP
	return PSCEndpointHop(seen)
}

func (w *gcpWalk) zoneName() string {
	if w.cr != nil && w.cr.Status.DNSZoneName != "" {
		return w.cr.Status.DNSZoneName
	}
	return gcpcloud.ZoneName(w.owner.InfraID)
}

func (w *gcpWalk) zoneHop(ctx context.Context) Hop {
	if h, stop := w.blocked(HopCloudDNSZone, SideCustomer); stop {
		return h
	}
	seen := CloudDNSZoneSeen{Name: w.zoneName(), Project: w.custProject, WantNetwork: w.cr.Spec.Network}
	if w.k.hcp != nil {
		seen.WantDNSName = gcpcloud.ZoneDNSName(w.k.hcp.Name)
	}
	zone, err := (&gcpcloud.Zones{DNS: w.clients.Clients.DNS, Project: w.custProject}).Get(ctx, seen.Name)
	if err != nil {
		return gcpUnknown(HopCloudDNSZone, SideCustomer, err, permManagedZoneGet, w.custProject)
	}
	if zone == nil {
		return CloudDNSZoneHop(seen)
	}
	seen.Found, seen.DNSName = true, zone.DnsName
	if seen.WantDNSName == "" {
		seen.WantDNSName = zone.DnsName // without the HostedControlPlane the name is not judged
	}
	seen.Ours = gcpcloud.CreatedByHcplink(zone.Labels) && w.owner.OwnsLabels(zone.Labels)
	if v := zone.PrivateVisibilityConfig; v != nil {
		for _, n := range v.Networks {
			seen.Networks = append(seen.Networks, lastPart(n.NetworkUrl))
		}
	}
	w.zoneDNSName = zone.DnsName
	return CloudDNSZoneHop(seen)
}

func (w *gcpWalk) recordsHop(ctx context.Context) Hop {
	if h, stop := w.blocked(HopARecords, SideCustomer); stop {
		return h
	}
	if w.zoneDNSName == "" {
		return unknown(HopARecords, SideCustomer, "there is no zone to hold them")
	}
	if w.endpointIP == "" {
		return unknown(HopARecords, SideCustomer, "the endpoint's address, which they must hold, is not known (see the PSC endpoint)")
	}
	sets, err := (&gcpcloud.Records{DNS: w.clients.Clients.DNS, Project: w.custProject}).List(ctx, w.zoneName())
	if err != nil {
		return gcpUnknown(HopARecords, SideCustomer, err, permRecordSetsList, w.custProject)
	}
	seen := ARecordsSeen{Zone: w.zoneDNSName, IP: w.endpointIP, Want: gcpcloud.RecordNames, Have: map[string][]string{}}
	for _, n := range seen.Want {
		for _, rs := range sets {
			if rs.Type == "A" && strings.EqualFold(rs.Name, gcpcloud.RecordFQDN(n, w.zoneDNSName)) {
				seen.Have[n] = sorted(rs.Rrdatas)
			}
		}
	}
	return ARecordsHop(seen)
}

func (w *gcpWalk) externalNames(ctx context.Context) Hop {
	if w.k.hcp == nil {
		return unknown(HopExternalNames, SideKubernetes, "without a HostedControlPlane the wanted Services are not known")
	}
	return w.k.externalNamesHop(ctx, hcplinkv1beta1.GCPExternalNames(w.k.hcp), gcpcloud.ExternalNameTarget(w.k.hcp.Name))
}
