package aws

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
)

// The consumer's side of PrivateLink: VPC endpoints in the caller's VPCs,
// to AWS services or to endpoint services of any account that allows it.

func init() {
	registerQuery("ec2", "CreateVpcEndpoint", createVpcEndpoint)
	registerQuery("ec2", "DescribeVpcEndpoints", describeVpcEndpoints)
	registerQuery("ec2", "ModifyVpcEndpoint", modifyVpcEndpoint)
	registerQuery("ec2", "DeleteVpcEndpoints", deleteVpcEndpoints)
}

// AWS's default quotas.
const (
	interfaceEndpointsPerVPC  = 50
	gatewayEndpointsPerRegion = 20
)

type plGroupXML struct {
	GroupID   string `xml:"groupId"`
	GroupName string `xml:"groupName"`
}

type plDNSOptionsXML struct {
	DNSRecordIPType string `xml:"dnsRecordIpType"`
}

type plEndpointXML struct {
	VpcEndpointID       string           `xml:"vpcEndpointId"`
	VpcEndpointType     string           `xml:"vpcEndpointType"`
	VpcID               string           `xml:"vpcId"`
	ServiceName         string           `xml:"serviceName"`
	State               string           `xml:"state"`
	PolicyDocument      string           `xml:"policyDocument,omitempty"`
	RouteTableIDs       []string         `xml:"routeTableIdSet>item"`
	SubnetIDs           []string         `xml:"subnetIdSet>item"`
	Groups              []plGroupXML     `xml:"groupSet>item"`
	IPAddressType       string           `xml:"ipAddressType,omitempty"`
	DNSOptions          *plDNSOptionsXML `xml:"dnsOptions,omitempty"`
	PrivateDNSEnabled   bool             `xml:"privateDnsEnabled"`
	RequesterManaged    bool             `xml:"requesterManaged"`
	NetworkInterfaceIDs []string         `xml:"networkInterfaceIdSet>item"`
	DNSEntries          []plDNSEntryXML  `xml:"dnsEntrySet>item"`
	CreationTimestamp   string           `xml:"creationTimestamp"`
	Tags                []plTagXML       `xml:"tagSet>item"`
	OwnerID             string           `xml:"ownerId"`
}

// endpointDNSEntries are an interface endpoint's names, as AWS lists them:
// the regional name first, then one per zone (named with the consumer's
// zone names), then the private DNS name when enabled.
func endpointDNSEntries(r *Region, ep *VPCEndpoint) []plDNSEntryXML {
	if ep.Type != "Interface" {
		return nil
	}
	base := ep.ServiceID
	if base == "" {
		base = strings.TrimPrefix(ep.ServiceName, "com.amazonaws."+r.Name+".")
	}
	base += "." + r.Name + ".vpce.amazonaws.com"
	zoneID := regionalHostedZoneID(plVpceHostedZoneIDs, r.Name)
	prefix := ep.ID + "-" + ep.DNSLabel
	entries := []plDNSEntryXML{{DNSName: prefix + "." + base, HostedZoneID: zoneID}}
	var zones []string
	for _, id := range ep.SubnetIDs {
		if s := r.EC2.Subnets[id]; s != nil {
			zones = append(zones, s.AvailabilityZone)
		}
	}
	sort.Strings(zones)
	for _, z := range zones {
		entries = append(entries, plDNSEntryXML{DNSName: prefix + "-" + z + "." + base, HostedZoneID: zoneID})
	}
	if ep.PrivateDNSEnabled && ep.PrivateDNSName != "" {
		entries = append(entries, plDNSEntryXML{DNSName: ep.PrivateDNSName, HostedZoneID: privateZoneIDFor(ep)})
	}
	return entries
}

// privateZoneIDFor is the ID of the AWS-managed private zone behind an
// endpoint's private DNS name.
func privateZoneIDFor(ep *VPCEndpoint) string {
	h := fnv.New64a()
	h.Write([]byte(ep.ID))
	return fmt.Sprintf("Z%016X", h.Sum64())[:14]
}

func endpointXML(r *Region, ep *VPCEndpoint) plEndpointXML {
	out := plEndpointXML{
		VpcEndpointID: ep.ID, VpcEndpointType: ep.Type, VpcID: ep.VpcID, ServiceName: ep.ServiceName,
		State: ep.State, PolicyDocument: ep.PolicyDocument, RouteTableIDs: ep.RouteTableIDs,
		SubnetIDs: ep.SubnetIDs, PrivateDNSEnabled: ep.PrivateDNSEnabled,
		DNSEntries: endpointDNSEntries(r, ep), CreationTimestamp: plTime(ep.CreatedAt),
		Tags: plTags(r, ep.ID), OwnerID: ep.OwnerID,
	}
	if ep.Type == "Interface" {
		out.IPAddressType = "ipv4"
		out.DNSOptions = &plDNSOptionsXML{DNSRecordIPType: "ipv4"}
	}
	for _, id := range ep.SecurityGroupIDs {
		g := plGroupXML{GroupID: id}
		if sg := r.EC2.SecurityGroups[id]; sg != nil {
			g.GroupName = sg.Name
		}
		out.Groups = append(out.Groups, g)
	}
	for _, id := range ep.SubnetIDs {
		out.NetworkInterfaceIDs = append(out.NetworkInterfaceIDs, ep.NetworkInterfaces[id])
	}
	return out
}

// plTarget is what an endpoint connects to: an AWS service or an endpoint
// service in its owner's region.
type plTarget struct {
	name           string
	awsService     *plAWSService
	owner          *Region
	service        *EndpointService
	privateDNSName string
}

// zoneIDs are the zones the target serves; nil means every zone.
func (t plTarget) zoneIDs() []string {
	if t.service == nil {
		return nil
	}
	return t.owner.endpointServiceZoneIDs(t.service)
}

// crossZone reports whether an NLB behind the service balances across
// zones. hcplink's model (issue 3, spec Part 2 #8) lets such a service take
// endpoints in zones its NLB does not serve. AWS's own guidance says
// endpoint zones must be zones the NLB is enabled in, cross-zone or not; the
// product decision is recorded here so the rule is easy to find and flip.
func (t plTarget) crossZone() bool {
	if t.service == nil {
		return false
	}
	for _, arn := range t.service.LoadBalancerARNs {
		if lb := t.owner.ELB.LoadBalancers[arn]; lb != nil && lb.CrossZone {
			return true
		}
	}
	return false
}

// resolveTarget finds the service an endpoint of type typ may connect to.
// A service the caller is not allowed to use answers exactly like one that
// does not exist.
func resolveTarget(call *Call, name, typ string) (plTarget, *APIError) {
	if types := awsServiceTypes(call.RegionID, name); len(types) > 0 {
		s, ok := findAWSService(call.RegionID, name, typ)
		if !ok {
			return plTarget{}, errBadRequest("InvalidParameter",
				"The Vpc Endpoint Service '%s' does not support endpoint type %s (supported: %s)", name, typ, strings.Join(types, ", "))
		}
		return plTarget{name: name, awsService: &s, privateDNSName: s.privateDNSName(call.RegionID)}, nil
	}
	owner, svc := findEndpointService(call, name)
	if svc == nil || !serviceVisibleTo(svc, call.Principal) {
		return plTarget{}, errInvalidServiceName(name)
	}
	if typ != "Interface" {
		return plTarget{}, errBadRequest("InvalidParameter",
			"The Vpc Endpoint Service '%s' does not support endpoint type %s (supported: Interface)", name, typ)
	}
	return plTarget{name: name, owner: owner, service: svc, privateDNSName: svc.PrivateDNSName}, nil
}

// targetOf finds an existing endpoint's target again (its service may
// have been deleted since: then every zone is allowed).
func targetOf(call *Call, ep *VPCEndpoint) plTarget {
	t := plTarget{name: ep.ServiceName, privateDNSName: ep.PrivateDNSName}
	if ep.ServiceID == "" {
		if s, ok := findAWSService(call.RegionID, ep.ServiceName, ep.Type); ok {
			t.awsService = &s
		}
		return t
	}
	if owner := regionOf(call, ep.ServiceOwnerID, call.RegionID); owner != nil {
		if svc := owner.PrivateLink.Services[ep.ServiceID]; svc != nil {
			t.owner, t.service = owner, svc
		}
	}
	return t
}

// checkEndpointSubnets applies the subnet rules: each subnet exists in the
// endpoint's VPC, at most one per zone, in a zone the service serves unless
// its NLB balances across zones.
func checkEndpointSubnets(r *Region, vpcID string, subnetIDs []string, t plTarget) *APIError {
	allowed := t.zoneIDs()
	firstInZone := map[string]string{}
	for _, id := range subnetIDs {
		s, err := lookup(r.EC2.Subnets, kindSubnet, id)
		if err != nil {
			return err
		}
		if s.VpcID != vpcID {
			return errBadRequest("InvalidParameter", "The subnet %s does not belong to VPC %s", id, vpcID)
		}
		if prev, dup := firstInZone[s.AvailabilityZoneID]; dup {
			return errBadRequest("DuplicateSubnetsInSameZone", "Found another VPC endpoint subnet in the availability zone of %s", prev)
		}
		firstInZone[s.AvailabilityZoneID] = id
		if allowed != nil && !contains(allowed, s.AvailabilityZoneID) && !t.crossZone() {
			return errBadRequest("InvalidParameter", "The VPC endpoint service %s does not support the availability zone of the subnet: %s.", t.name, id)
		}
	}
	return nil
}

func checkEndpointSecurityGroups(r *Region, vpcID string, groupIDs []string) *APIError {
	for _, id := range groupIDs {
		sg, err := lookup(r.EC2.SecurityGroups, kindSecurityGroup, id)
		if err != nil {
			return err
		}
		if sg.VpcID != vpcID {
			return errBadRequest("InvalidParameter", "The security group %s does not belong to VPC %s", id, vpcID)
		}
	}
	return nil
}

func checkEndpointRouteTables(r *Region, vpcID string, ids []string) *APIError {
	for _, id := range ids {
		rt, err := lookup(r.EC2.RouteTables, kindRouteTable, id)
		if err != nil {
			return err
		}
		if rt.VpcID != vpcID {
			return errBadRequest("InvalidParameter", "The route table %s does not belong to VPC %s", id, vpcID)
		}
	}
	return nil
}

// checkPrivateDNS: private DNS needs a name to take over, and a VPC that
// resolves and hands out DNS names.
func checkPrivateDNS(enabled bool, t plTarget, vpc *VPC) *APIError {
	if !enabled {
		return nil
	}
	if t.privateDNSName == "" {
		return errBadRequest("InvalidParameter",
			"Private DNS can't be enabled because the service %s does not provide a private DNS name.", t.name)
	}
	if !vpc.EnableDNSSupport || !vpc.EnableDNSHostnames {
		return errBadRequest("InvalidParameter",
			"Enabling private DNS requires both enableDnsSupport and enableDnsHostnames VPC attributes set to true for %s", vpc.ID)
	}
	return nil
}

func defaultSecurityGroup(r *Region, vpcID string) string {
	if v := r.EC2.VPCs[vpcID]; v != nil && r.EC2.SecurityGroups[v.DefaultSecurityGroupID] != nil {
		return v.DefaultSecurityGroupID
	}
	for _, sg := range r.EC2.SecurityGroups {
		if sg.VpcID == vpcID && sg.Name == "default" {
			return sg.ID
		}
	}
	return ""
}

func dedupe(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func without(list, remove []string) []string {
	var out []string
	for _, v := range list {
		if !contains(remove, v) {
			out = append(out, v)
		}
	}
	return out
}

// --- CreateVpcEndpoint ---

type createVpcEndpointResult struct {
	VpcEndpoint plEndpointXML `xml:"vpcEndpoint"`
	ClientToken string        `xml:"clientToken,omitempty"`
}

func createVpcEndpoint(call *Call) (any, *APIError) {
	r := call.Region
	token := call.Str("ClientToken")
	fingerprint := call.Fingerprint("DryRun")
	if id, found, err := r.IdempotentLookup("CreateVpcEndpoint", token, fingerprint); err != nil {
		return nil, err
	} else if found {
		if ep := r.PrivateLink.Endpoints[id]; ep != nil {
			return createVpcEndpointResult{VpcEndpoint: endpointXML(r, ep), ClientToken: token}, nil
		}
	}
	vpcID, err := call.Required("VpcId")
	if err != nil {
		return nil, err
	}
	name, err := call.Required("ServiceName")
	if err != nil {
		return nil, err
	}
	typ := call.Str("VpcEndpointType")
	if typ == "" {
		typ = "Gateway" // AWS's default
	}
	switch typ {
	case "Interface", "Gateway":
	case "GatewayLoadBalancer":
		return nil, errBadRequest("InvalidParameter", "Gateway Load Balancer endpoints are not modelled by cloudsim")
	default:
		return nil, errBadRequest("InvalidParameterValue", "Value (%s) for parameter VpcEndpointType is invalid.", typ)
	}
	vpc, err := lookup(r.EC2.VPCs, kindVPC, vpcID)
	if err != nil {
		return nil, err
	}
	target, err := resolveTarget(call, name, typ)
	if err != nil {
		return nil, err
	}
	subnets, groups, tables := dedupe(call.List("SubnetId")), dedupe(call.List("SecurityGroupId")), dedupe(call.List("RouteTableId"))
	privateDNS := false
	if typ == "Interface" {
		if len(tables) > 0 {
			return nil, errBadRequest("InvalidParameter", "Route table IDs are only supported for Gateway type VPC Endpoint.")
		}
		if err := checkEndpointSubnets(r, vpcID, subnets, target); err != nil {
			return nil, err
		}
		if len(groups) == 0 {
			if sg := defaultSecurityGroup(r, vpcID); sg != "" {
				groups = []string{sg}
			}
		}
		if err := checkEndpointSecurityGroups(r, vpcID, groups); err != nil {
			return nil, err
		}
		// AWS enables private DNS by default where the service has a name.
		if privateDNS, err = call.Bool("PrivateDnsEnabled", target.privateDNSName != ""); err != nil {
			return nil, err
		}
		if err := checkPrivateDNS(privateDNS, target, vpc); err != nil {
			return nil, err
		}
	} else {
		if len(subnets) > 0 {
			return nil, errBadRequest("InvalidParameter", "Subnet IDs are only supported for Interface and GatewayLoadBalancer type VPC Endpoints.")
		}
		if len(groups) > 0 {
			return nil, errBadRequest("InvalidParameter", "Security group IDs are only supported for Interface and GatewayLoadBalancer type VPC Endpoints.")
		}
		if err := checkEndpointRouteTables(r, vpcID, tables); err != nil {
			return nil, err
		}
		if err := checkGatewayRoutes(r, "", name, tables); err != nil {
			return nil, err
		}
	}
	if call.Str("PolicyDocument") != "" && target.service != nil {
		return nil, errBadRequest("InvalidParameter", "The service %s does not support VPC endpoint policies.", name)
	}
	if err := checkEndpointQuota(r, vpcID, typ); err != nil {
		return nil, err
	}
	tags, err := createTags(call, "vpc-endpoint")
	if err != nil {
		return nil, err
	}
	if err := plDryRun(call); err != nil {
		return nil, err
	}

	ep := &VPCEndpoint{
		ID:                NewID("vpce"),
		Type:              typ,
		VpcID:             vpcID,
		ServiceName:       name,
		SubnetIDs:         subnets,
		SecurityGroupIDs:  groups,
		RouteTableIDs:     tables,
		OwnerID:           r.AccountID,
		PrivateDNSEnabled: privateDNS,
		PrivateDNSName:    target.privateDNSName,
		NetworkInterfaces: map[string]string{},
		CreatedAt:         call.Now,
	}
	if target.service != nil {
		ep.ServiceID, ep.ServiceOwnerID = target.service.ID, target.service.OwnerID
		ep.ConnectionID = NewID("vpce-con")
	} else {
		ep.PolicyDocument = plDefaultPolicy
	}
	if p := call.Str("PolicyDocument"); p != "" {
		ep.PolicyDocument = p
	}
	if typ == "Interface" {
		ep.DNSLabel = plDNSLabel()
		for _, s := range subnets {
			ep.NetworkInterfaces[s] = NewID("eni")
		}
	}
	switch {
	case typ == "Gateway":
		ep.State = EndpointAvailable
	case target.service != nil && target.service.AcceptanceRequired:
		ep.State = EndpointPendingAcceptance
	default:
		ep.State = EndpointPending
		ep.StateUntil = call.Now.Add(call.Cloud.Delays().EndpointPending.D())
	}
	r.PrivateLink.Endpoints[ep.ID] = ep
	call.noteCreated(ep.ID)
	r.SetTags(ep.ID, tags)
	r.RememberToken("CreateVpcEndpoint", token, fingerprint, ep.ID)
	advancePrivateLink(r, call.Now)
	return createVpcEndpointResult{VpcEndpoint: endpointXML(r, ep), ClientToken: token}, nil
}

func checkEndpointQuota(r *Region, vpcID, typ string) *APIError {
	n := 0
	for _, ep := range r.PrivateLink.Endpoints {
		if ep.Type != typ {
			continue
		}
		if typ == "Gateway" || ep.VpcID == vpcID {
			n++
		}
	}
	q := r.PrivateLink.Quotas
	if limit := orDefault(q.InterfaceEndpointsPerVPC, interfaceEndpointsPerVPC); typ == "Interface" && n >= limit {
		return errBadRequest("VpcEndpointLimitExceeded",
			"The maximum number of interface VPC endpoints (%d) has been reached for VPC %s.", limit, vpcID)
	}
	if limit := orDefault(q.GatewayEndpointsPerRegion, gatewayEndpointsPerRegion); typ == "Gateway" && n >= limit {
		return errBadRequest("VpcEndpointLimitExceeded",
			"The maximum number of gateway VPC endpoints (%d) has been reached in this region.", limit)
	}
	return nil
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// checkGatewayRoutes: a route table can route to only one gateway endpoint
// of a service (the endpoint's route to the service's prefix list).
func checkGatewayRoutes(r *Region, self, serviceName string, tables []string) *APIError {
	for _, ep := range r.PrivateLink.Endpoints {
		if ep.ID == self || ep.Type != "Gateway" || ep.ServiceName != serviceName {
			continue
		}
		for _, t := range tables {
			if contains(ep.RouteTableIDs, t) {
				return errBadRequest("RouteAlreadyExists",
					"route table %s already has a route to the service %s (through %s)", t, serviceName, ep.ID)
			}
		}
	}
	return nil
}

// --- DescribeVpcEndpoints ---

type describeVpcEndpointsResult struct {
	Endpoints []plEndpointXML `xml:"vpcEndpointSet>item"`
	NextToken string          `xml:"nextToken,omitempty"`
}

func describeVpcEndpoints(call *Call) (any, *APIError) {
	r := call.Region
	ids, filters := call.List("VpcEndpointId"), call.Filters()
	maxResults, err := plMaxResults(call)
	if err != nil {
		return nil, err
	}
	endpoints := readView(call, r.PrivateLink.Endpoints)
	if _, err := lookupAll(endpoints, kindEndpoint, ids); err != nil {
		return nil, err
	}
	var matched []*VPCEndpoint
	for _, ep := range endpoints {
		if len(ids) > 0 && !contains(ids, ep.ID) {
			continue
		}
		ok, err := MatchFilters(filters, r.readTags(ep.ID), func(name string) ([]string, bool) {
			switch name {
			case "vpc-id":
				return []string{ep.VpcID}, true
			case "service-name":
				return []string{ep.ServiceName}, true
			case "vpc-endpoint-id":
				return []string{ep.ID}, true
			case "vpc-endpoint-state":
				return []string{ep.State}, true
			case "vpc-endpoint-type":
				return []string{ep.Type}, true
			case "ip-address-type":
				return []string{"ipv4"}, true
			}
			return nil, false
		})
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, ep)
		}
	}
	page, next, err := Paginate(matched, func(ep *VPCEndpoint) string { return ep.ID }, call.Str("NextToken"), maxResults, 1000)
	if err != nil {
		return nil, err
	}
	out := describeVpcEndpointsResult{NextToken: next}
	for _, ep := range page {
		out.Endpoints = append(out.Endpoints, endpointXML(r, ep))
	}
	return out, nil
}

// --- ModifyVpcEndpoint ---

type modifyVpcEndpointResult struct {
	Return bool `xml:"return"`
}

func modifyVpcEndpoint(call *Call) (any, *APIError) {
	r := call.Region
	id, err := call.Required("VpcEndpointId")
	if err != nil {
		return nil, err
	}
	ep, err := lookup(r.PrivateLink.Endpoints, kindEndpoint, id)
	if err != nil {
		return nil, err
	}
	if ep.State == EndpointDeleting {
		return nil, errBadRequest("IncorrectState", "The VpcEndpoint '%s' is being deleted and cannot be modified", id)
	}
	addSubnets, removeSubnets := dedupe(call.List("AddSubnetId")), call.List("RemoveSubnetId")
	addGroups, removeGroups := dedupe(call.List("AddSecurityGroupId")), call.List("RemoveSecurityGroupId")
	addTables, removeTables := dedupe(call.List("AddRouteTableId")), call.List("RemoveRouteTableId")
	target := targetOf(call, ep)

	subnets := dedupe(append(without(ep.SubnetIDs, removeSubnets), addSubnets...))
	groups := dedupe(append(without(ep.SecurityGroupIDs, removeGroups), addGroups...))
	tables := dedupe(append(without(ep.RouteTableIDs, removeTables), addTables...))
	privateDNS := ep.PrivateDNSEnabled
	if ep.Type == "Interface" {
		if len(addTables)+len(removeTables) > 0 {
			return nil, errBadRequest("InvalidParameter", "Route table IDs are only supported for Gateway type VPC Endpoint.")
		}
		if err := checkEndpointSubnets(r, ep.VpcID, subnets, target); err != nil {
			return nil, err
		}
		if err := checkEndpointSecurityGroups(r, ep.VpcID, addGroups); err != nil {
			return nil, err
		}
		if privateDNS, err = call.Bool("PrivateDnsEnabled", ep.PrivateDNSEnabled); err != nil {
			return nil, err
		}
		if vpc := r.EC2.VPCs[ep.VpcID]; vpc != nil && privateDNS != ep.PrivateDNSEnabled {
			if err := checkPrivateDNS(privateDNS, target, vpc); err != nil {
				return nil, err
			}
		}
	} else {
		if len(addSubnets)+len(removeSubnets) > 0 {
			return nil, errBadRequest("InvalidParameter", "Subnet IDs are only supported for Interface and GatewayLoadBalancer type VPC Endpoints.")
		}
		if len(addGroups)+len(removeGroups) > 0 {
			return nil, errBadRequest("InvalidParameter", "Security group IDs are only supported for Interface and GatewayLoadBalancer type VPC Endpoints.")
		}
		if err := checkEndpointRouteTables(r, ep.VpcID, addTables); err != nil {
			return nil, err
		}
		if err := checkGatewayRoutes(r, ep.ID, ep.ServiceName, addTables); err != nil {
			return nil, err
		}
	}
	policy := ep.PolicyDocument
	if p := call.Str("PolicyDocument"); p != "" || call.Str("ResetPolicy") == "true" {
		if ep.ServiceID != "" {
			return nil, errBadRequest("InvalidParameter", "The service %s does not support VPC endpoint policies.", ep.ServiceName)
		}
		policy = p
		if p == "" {
			policy = plDefaultPolicy
		}
	}
	if err := plDryRun(call); err != nil {
		return nil, err
	}

	for _, s := range ep.SubnetIDs {
		if !contains(subnets, s) {
			delete(ep.NetworkInterfaces, s)
		}
	}
	if ep.Type == "Interface" {
		for _, s := range subnets {
			if ep.NetworkInterfaces[s] == "" {
				ep.NetworkInterfaces[s] = NewID("eni")
			}
		}
	}
	ep.SubnetIDs, ep.SecurityGroupIDs, ep.RouteTableIDs = subnets, groups, tables
	ep.PrivateDNSEnabled, ep.PolicyDocument = privateDNS, policy
	return modifyVpcEndpointResult{Return: true}, nil
}

// --- DeleteVpcEndpoints ---

// deleteVpcEndpoints starts deleting each endpoint: it shows "deleting" and
// keeps its security groups, subnets and route tables in use until
// EndpointDeleting has passed, the window in which DeleteSecurityGroup still
// answers DependencyViolation.
func deleteVpcEndpoints(call *Call) (any, *APIError) {
	r := call.Region
	ids := call.List("VpcEndpointId")
	if len(ids) == 0 {
		return nil, errMissingParameter("VpcEndpointId")
	}
	if err := plDryRun(call); err != nil {
		return nil, err
	}
	var out plUnsuccessfulResult
	for _, id := range ids {
		ep := r.PrivateLink.Endpoints[id]
		if ep == nil {
			out.Unsuccessful = append(out.Unsuccessful, plUnsuccessful(id, "InvalidVpcEndpoint.NotFound",
				"The VpcEndpoint Id '"+id+"' does not exist"))
			continue
		}
		if ep.State == EndpointDeleting {
			continue
		}
		ep.State = EndpointDeleting
		ep.StateUntil = call.Now.Add(call.Cloud.Delays().EndpointDeleting.D())
	}
	advancePrivateLink(r, call.Now)
	return out, nil
}
