package diagnose

import (
	"context"
	"slices"
	"strconv"
	"strings"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// AWSAccount is one account's read clients; Missing says why there are
// none (the hops of that account are then "?").
type AWSAccount struct {
	EC2     awscloud.EC2API
	ELB     awscloud.ELBV2API
	Route53 awscloud.Route53API
	// Label names the account in the output (its ID, or a profile).
	Label   string
	Missing string
}

func (a AWSAccount) usable() bool { return a.Missing == "" && a.EC2 != nil }

// awsWalk carries what one AWS walk has seen so far.
type awsWalk struct {
	k kubeSeen
	// name is the endpoint's: its Service's and its AWSEndpointService's.
	name       string
	cr         *hcplinkv1beta1.AWSEndpointService
	mgmt, cust AWSAccount
	region     string
	nlbZoneIDs []string
	nlbARN     string
	endpoint   *endpointFacts
}

type endpointFacts struct {
	groups  []string
	dnsName string
}

// walkAWS walks the cloud hops of one private endpoint (named like its
// Service) after its Service's hop.
func walkAWS(ctx context.Context, k kubeSeen, name string, mgmt, cust AWSAccount) []Hop {
	w := &awsWalk{k: k, name: name, mgmt: mgmt, cust: cust, region: k.hc.Spec.Platform.AWS.Region}
	cr := &hcplinkv1beta1.AWSEndpointService{}
	if err := k.reader.Get(ctx, k.key(name), cr); err == nil {
		w.cr = cr
		if cr.Status.Region != "" {
			w.region = cr.Status.Region
		}
	}
	hops := []Hop{
		w.loadBalancer(ctx), w.endpointService(ctx), w.endpointHop(ctx), w.securityGroup(ctx),
		w.privateZone(ctx), w.records(ctx),
	}
	// Only the router's endpoint writes the ExternalName Services.
	if name == hcplinkv1beta1.PrivateRouterServiceName {
		hops = append(hops, w.externalNames(ctx))
	}
	return hops
}

func (w *awsWalk) missingCR(hop string, side Side) (Hop, bool) {
	if w.cr != nil {
		return Hop{}, false
	}
	key := w.k.hcpNS + "/" + w.name
	return fail(hop, side, "no AWSEndpointService "+key, "Check that the control-plane operator runs: it creates AWSEndpointService "+key+" once Service "+w.name+" has its load balancer."), true
}

// blocked is the hop to show instead of reading acct: without the
// AWSEndpointService, or without the account's credentials.
func (w *awsWalk) blocked(hop string, side Side, acct AWSAccount) (Hop, bool) {
	if h, missing := w.missingCR(hop, side); missing {
		return h, true
	}
	if !acct.usable() {
		return unknown(hop, side, acct.Missing), true
	}
	return Hop{}, false
}

func awsUnknown(hop string, side Side, err error) Hop {
	return unknown(hop, side, "reading it failed: "+awscloud.ErrorMessage(err))
}

func (w *awsWalk) loadBalancer(ctx context.Context) Hop {
	if h, stop := w.blocked(HopLoadBalancer, SideManagement, w.mgmt); stop {
		return h
	}
	p := awscloud.NewEndpointServiceProvider(w.mgmt.EC2, w.mgmt.ELB)
	name := w.cr.Spec.NetworkLoadBalancerName
	lb, err := p.LoadBalancerByName(ctx, name)
	if err != nil {
		return awsUnknown(HopLoadBalancer, SideManagement, err)
	}
	seen := LoadBalancerSeen{Name: name, Found: lb != nil, Service: w.k.hcpNS + "/" + w.name}
	if lb == nil {
		return LoadBalancerHop(seen)
	}
	seen.State = string(lb.State.Code)
	byName, err := awscloud.VPCEndpoints{EC2: w.mgmt.EC2, Region: w.region}.ZoneIDsByName(ctx)
	if err != nil {
		return awsUnknown(HopLoadBalancer, SideManagement, err)
	}
	for _, z := range lb.AvailabilityZones {
		seen.ZoneIDs = append(seen.ZoneIDs, byName[awssdk.ToString(z.ZoneName)])
	}
	slices.Sort(seen.ZoneIDs)
	w.nlbZoneIDs, w.nlbARN = seen.ZoneIDs, awssdk.ToString(lb.LoadBalancerArn)
	seen.CrossZone = crossZone(ctx, w.mgmt, awssdk.ToString(lb.LoadBalancerArn))
	return LoadBalancerHop(seen)
}

func (w *awsWalk) endpointService(ctx context.Context) Hop {
	if h, stop := w.blocked(HopEndpointService, SideManagement, w.mgmt); stop {
		return h
	}
	seen := EndpointServiceSeen{Name: w.cr.Status.EndpointServiceName}
	if rolesRef := w.k.hc.Spec.Platform.AWS.RolesRef; rolesRef != nil {
		seen.WantPrincipal = awscloud.PrincipalWithoutPath(rolesRef.ControlPlaneOperatorARN)
	}
	if seen.Name == "" {
		return EndpointServiceHop(seen)
	}
	p := awscloud.NewEndpointServiceProvider(w.mgmt.EC2, w.mgmt.ELB)
	svc, err := p.ServiceByName(ctx, seen.Name)
	if err != nil {
		return awsUnknown(HopEndpointService, SideManagement, err)
	}
	if svc == nil {
		return EndpointServiceHop(seen)
	}
	seen.Found, seen.ID, seen.State = true, awssdk.ToString(svc.ServiceId), string(svc.ServiceState)
	seen.AcceptanceRequired = awssdk.ToBool(svc.AcceptanceRequired)
	// Without the NLB (its own hop says so) the service is not judged on it.
	seen.OnLoadBalancer = w.nlbARN == "" || awscloud.ServiceOnLoadBalancer(svc, w.nlbARN)
	if seen.Principals, err = p.AllowedPrincipals(ctx, seen.ID); err != nil {
		return awsUnknown(HopEndpointService, SideManagement, err)
	}
	slices.Sort(seen.Principals)
	return EndpointServiceHop(seen)
}

func (w *awsWalk) endpointHop(ctx context.Context) Hop {
	if h, stop := w.blocked(HopEndpoint, SideCustomer, w.cust); stop {
		return h
	}
	seen := EndpointSeen{ID: w.cr.Status.EndpointID, ServedZoneIDs: w.nlbZoneIDs}
	if seen.ID == "" {
		return EndpointHop(seen)
	}
	p := awscloud.VPCEndpoints{EC2: w.cust.EC2, Region: w.region}
	ep, err := p.Get(ctx, seen.ID)
	if err != nil {
		return awsUnknown(HopEndpoint, SideCustomer, err)
	}
	if ep == nil || awscloud.EndpointGone(ep.State) {
		return EndpointHop(seen)
	}
	seen.Found, seen.State = true, string(ep.State)
	w.endpoint = &endpointFacts{dnsName: strings.ToLower(awscloud.EndpointDNSName(ep))}
	for _, g := range ep.Groups {
		w.endpoint.groups = append(w.endpoint.groups, awssdk.ToString(g.GroupId))
	}
	subnets, _, err := p.Subnets(ctx, ep.SubnetIds)
	if err != nil {
		return awsUnknown(HopEndpoint, SideCustomer, err)
	}
	seen.SubnetZones = map[string]string{}
	for _, s := range subnets {
		seen.SubnetZones[awssdk.ToString(s.SubnetId)] = awssdk.ToString(s.AvailabilityZoneId)
	}
	if seen.ServedZoneIDs == nil && w.cr.Status.EndpointServiceName != "" {
		if zones, byName, visible, err := p.ServiceZones(ctx, w.cr.Status.EndpointServiceName); err == nil && visible && !byName {
			seen.ServedZoneIDs = zones
		}
	}
	return EndpointHop(seen)
}

func (w *awsWalk) securityGroup(ctx context.Context) Hop {
	if h, stop := w.blocked(HopSecurityGroup, SideCustomer, w.cust); stop {
		return h
	}
	seen := SecurityGroupSeen{ID: w.cr.Status.SecurityGroupID, Port: routerPort(w.cr.Name)}
	for _, m := range w.k.hc.Spec.Networking.MachineNetwork {
		seen.MachineCIDRs = append(seen.MachineCIDRs, m.CIDR)
	}
	if seen.ID == "" {
		return SecurityGroupHop(seen)
	}
	if w.endpoint == nil {
		return unknown(HopSecurityGroup, SideCustomer, "the VPC endpoint could not be read, so which groups it uses is not known")
	}
	sg, err := awscloud.SecurityGroups{EC2: w.cust.EC2, Region: w.region}.Get(ctx, seen.ID)
	if err != nil {
		return awsUnknown(HopSecurityGroup, SideCustomer, err)
	}
	if sg == nil {
		return SecurityGroupHop(seen)
	}
	seen.Found, seen.Attached = true, slices.Contains(w.endpoint.groups, seen.ID)
	for _, r := range awscloud.ActualIngress(sg.IpPermissions) {
		if strings.EqualFold(r.Protocol, "tcp") && r.From <= seen.Port && seen.Port <= r.To && !slices.Contains(seen.Admitted, r.CIDR) {
			seen.Admitted = append(seen.Admitted, r.CIDR)
		}
	}
	slices.Sort(seen.Admitted)
	return SecurityGroupHop(seen)
}

// routerPort is the port the endpoint's security group must admit.
func routerPort(crName string) int32 {
	if crName == hcplinkv1beta1.KubeAPIServerPrivateServiceName {
		return 6443
	}
	return 443
}

func (w *awsWalk) zoneName() string { return awscloud.PrivateZoneName(w.k.hc.Name) }

func (w *awsWalk) zoneID(ctx context.Context) (string, error) {
	if w.cr.Status.DNSZoneID != "" {
		return w.cr.Status.DNSZoneID, nil
	}
	return awscloud.Records{Route53: w.cust.Route53}.FindPrivateZone(ctx, w.zoneName(), w.vpc())
}

func (w *awsWalk) vpc() string {
	if w.cr.Status.VPCID != "" {
		return w.cr.Status.VPCID
	}
	if c := w.k.hc.Spec.Platform.AWS.CloudProviderConfig; c != nil {
		return c.VPC
	}
	return ""
}

func (w *awsWalk) privateZone(ctx context.Context) Hop {
	if h, stop := w.blocked(HopPrivateZone, SideCustomer, w.cust); stop {
		return h
	}
	seen := PrivateZoneSeen{Name: w.zoneName(), VPC: w.vpc()}
	id, err := w.zoneID(ctx)
	if err != nil {
		return awsUnknown(HopPrivateZone, SideCustomer, err)
	}
	seen.ID = id
	if id == "" {
		return PrivateZoneHop(seen)
	}
	z, err := w.cust.Route53.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: awssdk.String(id)})
	if awscloud.IsNoSuchHostedZone(err) {
		return PrivateZoneHop(seen)
	}
	if err != nil {
		return awsUnknown(HopPrivateZone, SideCustomer, err)
	}
	seen.Found = true
	for _, v := range z.VPCs {
		seen.VPCs = append(seen.VPCs, awssdk.ToString(v.VPCId))
	}
	seen.NegativeTTL = negativeTTL(ctx, w.cust.Route53, id, seen.Name)
	return PrivateZoneHop(seen)
}

// negativeTTL reads the zone's SOA: a resolver caches a missing name for
// the smaller of the SOA's TTL and its last field. 0 when unreadable.
func negativeTTL(ctx context.Context, api awscloud.Route53API, zoneID, zoneName string) int64 {
	out, err := api.ListResourceRecordSets(ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: awssdk.String(zoneID),
		StartRecordName: awssdk.String(zoneName), StartRecordType: r53types.RRTypeSoa, MaxItems: awssdk.Int32(1)})
	if err != nil {
		return 0
	}
	for _, rs := range out.ResourceRecordSets {
		if rs.Type != r53types.RRTypeSoa || len(rs.ResourceRecords) == 0 {
			continue
		}
		fields := strings.Fields(awssdk.ToString(rs.ResourceRecords[0].Value))
		if len(fields) != 7 {
			return 0
		}
		minimum, err := strconv.ParseInt(fields[6], 10, 64)
		if err != nil {
			return 0
		}
		return min(minimum, awssdk.ToInt64(rs.TTL))
	}
	return 0
}

func (w *awsWalk) records(ctx context.Context) Hop {
	if h, stop := w.blocked(HopRecords, SideCustomer, w.cust); stop {
		return h
	}
	if w.endpoint == nil || w.endpoint.dnsName == "" {
		return unknown(HopRecords, SideCustomer, "the VPC endpoint has no DNS name to compare the records with")
	}
	if w.k.hcp == nil {
		return unknown(HopRecords, SideCustomer, "without a HostedControlPlane the wanted record names are not known")
	}
	seen := RecordsSeen{Target: w.endpoint.dnsName, Want: awscloud.EndpointRecordNames(w.cr.Name, w.k.hcp), Have: map[string]string{}}
	id, err := w.zoneID(ctx)
	if err != nil {
		return awsUnknown(HopRecords, SideCustomer, err)
	}
	if id == "" {
		return unknown(HopRecords, SideCustomer, "there is no private zone to hold them")
	}
	seen.Zone = id
	cnames, err := awscloud.Records{Route53: w.cust.Route53}.CNAMEs(ctx, id)
	if awscloud.IsNoSuchHostedZone(err) {
		return unknown(HopRecords, SideCustomer, "there is no private zone to hold them")
	}
	if err != nil {
		return awsUnknown(HopRecords, SideCustomer, err)
	}
	for _, n := range seen.Want {
		if rs, ok := cnames[n]; ok {
			seen.Have[n] = awscloud.CNAMEValue(rs)
		}
	}
	return RecordsHop(seen)
}

func (w *awsWalk) externalNames(ctx context.Context) Hop {
	if w.k.hcp == nil {
		return unknown(HopExternalNames, SideKubernetes, "without a HostedControlPlane the wanted Services are not known")
	}
	if w.endpoint == nil || w.endpoint.dnsName == "" {
		return unknown(HopExternalNames, SideKubernetes, "the VPC endpoint's DNS name, which they must point at, is not known")
	}
	want := hcplinkv1beta1.AWSExternalNames(w.k.hcp)
	return w.k.externalNamesHop(ctx, want, w.endpoint.dnsName)
}
