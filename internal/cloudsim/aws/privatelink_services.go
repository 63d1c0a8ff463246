package aws

import (
	"sort"
)

// The service owner's side of PrivateLink: endpoint service configurations,
// their allowed principals, and the connections consumers' endpoints make.

func init() {
	registerQuery("ec2", "CreateVpcEndpointServiceConfiguration", createVpcEndpointServiceConfiguration)
	registerQuery("ec2", "DescribeVpcEndpointServiceConfigurations", describeVpcEndpointServiceConfigurations)
	registerQuery("ec2", "DeleteVpcEndpointServiceConfigurations", deleteVpcEndpointServiceConfigurations)
	registerQuery("ec2", "DescribeVpcEndpointServicePermissions", describeVpcEndpointServicePermissions)
	registerQuery("ec2", "ModifyVpcEndpointServicePermissions", modifyVpcEndpointServicePermissions)
	registerQuery("ec2", "DescribeVpcEndpointConnections", describeVpcEndpointConnections)
	registerQuery("ec2", "AcceptVpcEndpointConnections", acceptVpcEndpointConnections)
	registerQuery("ec2", "RejectVpcEndpointConnections", rejectVpcEndpointConnections)
}

type plServiceConfigurationXML struct {
	ServiceType             []plServiceTypeXML `xml:"serviceType>item"`
	ServiceID               string             `xml:"serviceId"`
	ServiceName             string             `xml:"serviceName"`
	ServiceState            string             `xml:"serviceState"`
	AvailabilityZones       []string           `xml:"availabilityZoneSet>item"`
	AvailabilityZoneIDs     []string           `xml:"availabilityZoneIdSet>item"`
	AcceptanceRequired      bool               `xml:"acceptanceRequired"`
	ManagesVpcEndpoints     bool               `xml:"managesVpcEndpoints"`
	NetworkLoadBalancerArns []string           `xml:"networkLoadBalancerArnSet>item"`
	SupportedIPAddressTypes []string           `xml:"supportedIpAddressTypeSet>item"`
	BaseEndpointDNSNames    []string           `xml:"baseEndpointDnsNameSet>item"`
	PrivateDNSName          string             `xml:"privateDnsName,omitempty"`
	PayerResponsibility     string             `xml:"payerResponsibility"`
	Tags                    []plTagXML         `xml:"tagSet>item"`
}

func serviceConfigurationXML(r *Region, svc *EndpointService) plServiceConfigurationXML {
	names, ids := zoneNamesFor(r, r.endpointServiceZoneIDs(svc))
	return plServiceConfigurationXML{
		ServiceType:             []plServiceTypeXML{{ServiceType: "Interface"}},
		ServiceID:               svc.ID,
		ServiceName:             svc.Name,
		ServiceState:            svc.State,
		AvailabilityZones:       names,
		AvailabilityZoneIDs:     ids,
		AcceptanceRequired:      svc.AcceptanceRequired,
		NetworkLoadBalancerArns: svc.LoadBalancerARNs,
		SupportedIPAddressTypes: []string{"ipv4"},
		BaseEndpointDNSNames:    []string{svc.ID + "." + r.Name + ".vpce.amazonaws.com"},
		PrivateDNSName:          svc.PrivateDNSName,
		PayerResponsibility:     "ServiceOwner",
		Tags:                    plTags(r, svc.ID),
	}
}

// --- CreateVpcEndpointServiceConfiguration ---

type createServiceConfigurationResult struct {
	ServiceConfiguration plServiceConfigurationXML `xml:"serviceConfiguration"`
	ClientToken          string                    `xml:"clientToken,omitempty"`
}

func createVpcEndpointServiceConfiguration(call *Call) (any, *APIError) {
	r := call.Region
	token := call.Str("ClientToken")
	fingerprint := call.Fingerprint("DryRun")
	if id, found, err := r.IdempotentLookup("CreateVpcEndpointServiceConfiguration", token, fingerprint); err != nil {
		return nil, err
	} else if found {
		if svc := r.PrivateLink.Services[id]; svc != nil {
			return createServiceConfigurationResult{ServiceConfiguration: serviceConfigurationXML(r, svc), ClientToken: token}, nil
		}
	}
	if len(call.List("GatewayLoadBalancerArn")) > 0 {
		return nil, errBadRequest("InvalidParameter", "Gateway Load Balancer endpoint services are not modelled by cloudsim")
	}
	arns := call.List("NetworkLoadBalancerArn")
	if len(arns) == 0 {
		return nil, errBadRequest("InvalidParameter", "At least one Network Load Balancer ARN must be specified")
	}
	for _, arn := range arns {
		if r.LoadBalancer(arn) == nil {
			return nil, errBadRequest("InvalidParameter", "Load balancer %s does not exist or does not belong to account %s", arn, r.AccountID)
		}
		// An NLB backs at most one service. HyperShift adopts the existing
		// service when it sees this InvalidParameter.
		for _, other := range r.PrivateLink.Services {
			if contains(other.LoadBalancerARNs, arn) {
				return nil, errBadRequest("InvalidParameter",
					"Load balancer %s is already associated with another VPC Endpoint Service Configuration (%s)", arn, other.ID)
			}
		}
	}
	acceptance, err := call.Bool("AcceptanceRequired", true)
	if err != nil {
		return nil, err
	}
	for _, t := range call.List("SupportedIpAddressType") {
		if t != "ipv4" {
			return nil, errBadRequest("InvalidParameter", "Supported IP address type %s is not modelled by cloudsim (ipv4 only)", t)
		}
	}
	tags, err := createTags(call, "vpc-endpoint-service")
	if err != nil {
		return nil, err
	}
	if err := plDryRun(call); err != nil {
		return nil, err
	}
	id := NewID("vpce-svc")
	svc := &EndpointService{
		ID:                 id,
		Name:               endpointServiceName(r.Name, id),
		State:              "Pending",
		AcceptanceRequired: acceptance,
		LoadBalancerARNs:   arns,
		AllowedPrincipals:  []string{},
		OwnerID:            r.AccountID,
		PrivateDNSName:     call.Str("PrivateDnsName"),
		PermissionIDs:      map[string]string{},
		CreatedAt:          call.Now,
		AvailableAt:        call.Now.Add(call.Cloud.Delays().EndpointServicePending.D()),
	}
	r.PrivateLink.Services[id] = svc
	call.noteCreated(id)
	r.SetTags(id, tags)
	r.RememberToken("CreateVpcEndpointServiceConfiguration", token, fingerprint, id)
	advancePrivateLink(r, call.Now)
	return createServiceConfigurationResult{ServiceConfiguration: serviceConfigurationXML(r, svc), ClientToken: token}, nil
}

// --- DescribeVpcEndpointServiceConfigurations ---

type describeServiceConfigurationsResult struct {
	ServiceConfigurations []plServiceConfigurationXML `xml:"serviceConfigurationSet>item"`
	NextToken             string                      `xml:"nextToken,omitempty"`
}

func describeVpcEndpointServiceConfigurations(call *Call) (any, *APIError) {
	r := call.Region
	ids, filters := call.List("ServiceId"), call.Filters()
	maxResults, err := plMaxResults(call)
	if err != nil {
		return nil, err
	}
	services := readView(call, r.PrivateLink.Services)
	if _, err := lookupAll(services, kindEndpointService, ids); err != nil {
		return nil, err
	}
	var matched []*EndpointService
	for _, svc := range services {
		if len(ids) > 0 && !contains(ids, svc.ID) {
			continue
		}
		ok, err := MatchFilters(filters, r.readTags(svc.ID), func(name string) ([]string, bool) {
			switch name {
			case "service-name":
				return []string{svc.Name}, true
			case "service-id":
				return []string{svc.ID}, true
			case "service-state":
				return []string{svc.State}, true
			case "supported-ip-address-types":
				return []string{"ipv4"}, true
			}
			return nil, false
		})
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, svc)
		}
	}
	page, next, err := Paginate(matched, func(s *EndpointService) string { return s.ID }, call.Str("NextToken"), maxResults, 1000)
	if err != nil {
		return nil, err
	}
	out := describeServiceConfigurationsResult{NextToken: next}
	for _, svc := range page {
		out.ServiceConfigurations = append(out.ServiceConfigurations, serviceConfigurationXML(r, svc))
	}
	return out, nil
}

// --- DeleteVpcEndpointServiceConfigurations ---

func deleteVpcEndpointServiceConfigurations(call *Call) (any, *APIError) {
	r := call.Region
	ids := call.List("ServiceId")
	if len(ids) == 0 {
		return nil, errMissingParameter("ServiceId")
	}
	if err := plDryRun(call); err != nil {
		return nil, err
	}
	var out plUnsuccessfulResult
	for _, id := range ids {
		svc := r.PrivateLink.Services[id]
		if svc == nil {
			out.Unsuccessful = append(out.Unsuccessful, plUnsuccessful(id, "InvalidVpcEndpointService.NotFound",
				"The VpcEndpointService Id '"+id+"' does not exist"))
			continue
		}
		if hasActiveConnections(call, svc) {
			out.Unsuccessful = append(out.Unsuccessful, plUnsuccessful(id, "ExistingVpcEndpointConnections",
				"Service has existing active VPC Endpoint connections!"))
			continue
		}
		call.noteDeleted(id, svc)
		delete(r.PrivateLink.Services, id)
		r.ForgetTags(id)
	}
	return out, nil
}

// hasActiveConnections reports whether any consumer endpoint, in any
// account, is still connected (pendingAcceptance, pending or available).
func hasActiveConnections(call *Call, svc *EndpointService) bool {
	for _, c := range serviceConnections(call, svc) {
		switch c.endpoint.State {
		case EndpointPendingAcceptance, EndpointPending, EndpointAvailable:
			return true
		}
	}
	return false
}

// plConnection is a consumer endpoint seen from the service's side.
type plConnection struct {
	service  *EndpointService
	endpoint *VPCEndpoint
	consumer *Region
}

// serviceConnections lists the endpoints of every account attached to svc.
func serviceConnections(call *Call, svc *EndpointService) []plConnection {
	var out []plConnection
	for _, a := range call.Cloud.accounts {
		r := a.Regions[call.RegionID]
		if r == nil {
			continue
		}
		for _, ep := range r.PrivateLink.Endpoints {
			if ep.ServiceID == svc.ID && ep.ServiceOwnerID == svc.OwnerID {
				out = append(out, plConnection{service: svc, endpoint: ep, consumer: r})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].endpoint.ID < out[j].endpoint.ID })
	return out
}

// --- Permissions ---

type plAllowedPrincipalXML struct {
	PrincipalType       string `xml:"principalType"`
	Principal           string `xml:"principal"`
	ServicePermissionID string `xml:"servicePermissionId"`
	ServiceID           string `xml:"serviceId"`
}

type describeServicePermissionsResult struct {
	AllowedPrincipals []plAllowedPrincipalXML `xml:"allowedPrincipals>item"`
	NextToken         string                  `xml:"nextToken,omitempty"`
}

func allowedPrincipalXML(svc *EndpointService, p string) plAllowedPrincipalXML {
	return plAllowedPrincipalXML{PrincipalType: principalType(p), Principal: p,
		ServicePermissionID: svc.PermissionIDs[p], ServiceID: svc.ID}
}

func describeVpcEndpointServicePermissions(call *Call) (any, *APIError) {
	id, err := call.Required("ServiceId")
	if err != nil {
		return nil, err
	}
	svc, err := lookup(call.Region.PrivateLink.Services, kindEndpointService, id)
	if err != nil {
		return nil, err
	}
	maxResults, err := plMaxResults(call)
	if err != nil {
		return nil, err
	}
	filters := call.Filters()
	var matched []string
	for _, p := range svc.AllowedPrincipals {
		ok, err := MatchFilters(filters, nil, func(name string) ([]string, bool) {
			switch name {
			case "principal":
				return []string{p}, true
			case "principal-type":
				return []string{principalType(p)}, true
			}
			return nil, false
		})
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, p)
		}
	}
	page, next, err := Paginate(matched, func(p string) string { return p }, call.Str("NextToken"), maxResults, 1000)
	if err != nil {
		return nil, err
	}
	out := describeServicePermissionsResult{NextToken: next}
	for _, p := range page {
		out.AllowedPrincipals = append(out.AllowedPrincipals, allowedPrincipalXML(svc, p))
	}
	return out, nil
}

type modifyServicePermissionsResult struct {
	AddedPrincipals []plAllowedPrincipalXML `xml:"addedPrincipalSet>item"`
	ReturnValue     bool                    `xml:"return"`
}

func modifyVpcEndpointServicePermissions(call *Call) (any, *APIError) {
	id, err := call.Required("ServiceId")
	if err != nil {
		return nil, err
	}
	svc, err := lookup(call.Region.PrivateLink.Services, kindEndpointService, id)
	if err != nil {
		return nil, err
	}
	add, remove := call.List("AddAllowedPrincipals"), call.List("RemoveAllowedPrincipals")
	if len(add) == 0 && len(remove) == 0 {
		return nil, errBadRequest("InvalidParameter", "AddAllowedPrincipals or RemoveAllowedPrincipals must be specified")
	}
	for _, p := range add {
		if principalType(p) == "" {
			return nil, errBadRequest("InvalidPrincipal", "Invalid Principal: '%s'", p)
		}
	}
	if err := plDryRun(call); err != nil {
		return nil, err
	}
	out := modifyServicePermissionsResult{ReturnValue: true}
	for _, p := range add {
		if !contains(svc.AllowedPrincipals, p) {
			svc.AllowedPrincipals = append(svc.AllowedPrincipals, p)
			svc.PermissionIDs[p] = NewID("vpce-svc-perm")
		}
		out.AddedPrincipals = append(out.AddedPrincipals, allowedPrincipalXML(svc, p))
	}
	for _, p := range remove {
		for i, have := range svc.AllowedPrincipals {
			if have == p {
				svc.AllowedPrincipals = append(svc.AllowedPrincipals[:i], svc.AllowedPrincipals[i+1:]...)
				delete(svc.PermissionIDs, p)
				break
			}
		}
	}
	return out, nil
}

// --- Connections ---

type plConnectionXML struct {
	ServiceID               string          `xml:"serviceId"`
	VpcEndpointID           string          `xml:"vpcEndpointId"`
	VpcEndpointOwner        string          `xml:"vpcEndpointOwner"`
	VpcEndpointState        string          `xml:"vpcEndpointState"`
	CreationTimestamp       string          `xml:"creationTimestamp"`
	DNSEntries              []plDNSEntryXML `xml:"dnsEntrySet>item"`
	NetworkLoadBalancerArns []string        `xml:"networkLoadBalancerArnSet>item"`
	IPAddressType           string          `xml:"ipAddressType"`
	VpcEndpointConnectionID string          `xml:"vpcEndpointConnectionId"`
	VpcEndpointRegion       string          `xml:"vpcEndpointRegion"`
}

type describeConnectionsResult struct {
	Connections []plConnectionXML `xml:"vpcEndpointConnectionSet>item"`
	NextToken   string            `xml:"nextToken,omitempty"`
}

func describeVpcEndpointConnections(call *Call) (any, *APIError) {
	r := call.Region
	filters := call.Filters()
	maxResults, err := plMaxResults(call)
	if err != nil {
		return nil, err
	}
	var matched []plConnection
	for _, svc := range r.PrivateLink.Services {
		for _, c := range serviceConnections(call, svc) {
			ep := c.endpoint
			ok, err := MatchFilters(filters, nil, func(name string) ([]string, bool) {
				switch name {
				case "service-id":
					return []string{svc.ID}, true
				case "vpc-endpoint-id":
					return []string{ep.ID}, true
				case "vpc-endpoint-state":
					return []string{ep.State}, true
				case "vpc-endpoint-owner":
					return []string{ep.OwnerID}, true
				case "ip-address-type":
					return []string{"ipv4"}, true
				}
				return nil, false
			})
			if err != nil {
				return nil, err
			}
			if ok {
				matched = append(matched, c)
			}
		}
	}
	page, next, err := Paginate(matched, func(c plConnection) string { return c.endpoint.ID }, call.Str("NextToken"), maxResults, 1000)
	if err != nil {
		return nil, err
	}
	out := describeConnectionsResult{NextToken: next}
	for _, c := range page {
		out.Connections = append(out.Connections, plConnectionXML{
			ServiceID:               c.service.ID,
			VpcEndpointID:           c.endpoint.ID,
			VpcEndpointOwner:        c.endpoint.OwnerID,
			VpcEndpointState:        c.endpoint.State,
			CreationTimestamp:       plTime(c.endpoint.CreatedAt),
			DNSEntries:              endpointDNSEntries(c.consumer, c.endpoint),
			NetworkLoadBalancerArns: c.service.LoadBalancerARNs,
			IPAddressType:           "ipv4",
			VpcEndpointConnectionID: c.endpoint.ConnectionID,
			VpcEndpointRegion:       c.consumer.Name,
		})
	}
	return out, nil
}

func acceptVpcEndpointConnections(call *Call) (any, *APIError) {
	return decideConnections(call, true)
}

func rejectVpcEndpointConnections(call *Call) (any, *APIError) {
	return decideConnections(call, false)
}

// decideConnections accepts or rejects consumer endpoints of one of the
// caller's services. Accepting moves pendingAcceptance (or a rejected
// endpoint) to pending, which becomes available after EndpointPending;
// rejecting moves any live endpoint to rejected.
func decideConnections(call *Call, accept bool) (any, *APIError) {
	id, err := call.Required("ServiceId")
	if err != nil {
		return nil, err
	}
	svc, err := lookup(call.Region.PrivateLink.Services, kindEndpointService, id)
	if err != nil {
		return nil, err
	}
	endpointIDs := call.List("VpcEndpointId")
	if len(endpointIDs) == 0 {
		return nil, errMissingParameter("VpcEndpointId")
	}
	if err := plDryRun(call); err != nil {
		return nil, err
	}
	byID := map[string]*VPCEndpoint{}
	for _, c := range serviceConnections(call, svc) {
		byID[c.endpoint.ID] = c.endpoint
	}
	var out plUnsuccessfulResult
	for _, epID := range endpointIDs {
		ep := byID[epID]
		if ep == nil {
			out.Unsuccessful = append(out.Unsuccessful, plUnsuccessful(epID, "InvalidVpcEndpoint.NotFound",
				"The VpcEndpoint Id '"+epID+"' does not exist"))
			continue
		}
		switch {
		case accept && (ep.State == EndpointPendingAcceptance || ep.State == EndpointRejected):
			ep.State = EndpointPending
			ep.StateUntil = call.Now.Add(call.Cloud.Delays().EndpointPending.D())
		case !accept && (ep.State == EndpointPendingAcceptance || ep.State == EndpointPending || ep.State == EndpointAvailable):
			ep.State = EndpointRejected
		default:
			verb := "rejected"
			if accept {
				verb = "accepted"
			}
			out.Unsuccessful = append(out.Unsuccessful, plUnsuccessful(epID, "IncorrectState",
				"The VpcEndpoint '"+epID+"' is in state "+ep.State+" and cannot be "+verb))
		}
	}
	for _, a := range call.Cloud.accounts {
		if r := a.Regions[call.RegionID]; r != nil {
			advancePrivateLink(r, call.Now)
		}
	}
	return out, nil
}
