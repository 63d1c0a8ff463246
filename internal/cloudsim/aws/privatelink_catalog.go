package aws

import (
	"fmt"
	"hash/fnv"
	"sort"
)

// The consumer's view of what it can connect to: AWS's own services plus the
// endpoint services (of any account) that admit the caller.

func init() {
	registerQuery("ec2", "DescribeVpcEndpointServices", describeVpcEndpointServices)
}

// plAWSService is one of AWS's own endpoint services, named
// com.amazonaws.<region>.<short>.
type plAWSService struct {
	short      string
	typ        string // Interface | Gateway
	privateDNS bool   // Interface endpoints can take over <short>.<region>.amazonaws.com
}

// plAWSServices are the AWS services offered in every region: the S3 and
// DynamoDB gateways, and the interface endpoints clusters typically use.
var plAWSServices = []plAWSService{
	{"s3", "Gateway", false},
	{"s3", "Interface", false},
	{"dynamodb", "Gateway", false},
	{"ec2", "Interface", true},
	{"ecr.api", "Interface", true},
	{"ecr.dkr", "Interface", true},
	{"elasticloadbalancing", "Interface", true},
	{"kms", "Interface", true},
	{"logs", "Interface", true},
	{"secretsmanager", "Interface", true},
	{"ssm", "Interface", true},
	{"sts", "Interface", true},
}

func (s plAWSService) name(region string) string { return "com.amazonaws." + region + "." + s.short }

// id is a stable service ID in AWS's format for the service in a region.
func (s plAWSService) id(region string) string {
	h := fnv.New64a()
	h.Write([]byte(s.name(region) + "/" + s.typ))
	return fmt.Sprintf("vpce-svc-%017x", h.Sum64())
}

func (s plAWSService) privateDNSName(region string) string {
	if !s.privateDNS {
		return ""
	}
	return s.short + "." + region + ".amazonaws.com"
}

// findAWSService returns the AWS service with that name and endpoint type.
func findAWSService(region, name, typ string) (plAWSService, bool) {
	for _, s := range plAWSServices {
		if s.name(region) == name && s.typ == typ {
			return s, true
		}
	}
	return plAWSService{}, false
}

// awsServiceTypes lists the endpoint types AWS offers a service name with
// (none: not an AWS service).
func awsServiceTypes(region, name string) []string {
	var types []string
	for _, s := range plAWSServices {
		if s.name(region) == name {
			types = append(types, s.typ)
		}
	}
	return types
}

// plDefaultPolicy is the policy AWS gives endpoints to its own services.
const plDefaultPolicy = `{"Version":"2008-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"}]}`

type plServiceDetailXML struct {
	ServiceName                string             `xml:"serviceName"`
	ServiceID                  string             `xml:"serviceId"`
	ServiceType                []plServiceTypeXML `xml:"serviceType>item"`
	ServiceRegion              string             `xml:"serviceRegion"`
	AvailabilityZones          []string           `xml:"availabilityZoneSet>item"`
	AvailabilityZoneIDs        []string           `xml:"availabilityZoneIdSet>item"`
	Owner                      string             `xml:"owner"`
	BaseEndpointDNSNames       []string           `xml:"baseEndpointDnsNameSet>item"`
	PrivateDNSName             string             `xml:"privateDnsName,omitempty"`
	VpcEndpointPolicySupported bool               `xml:"vpcEndpointPolicySupported"`
	AcceptanceRequired         bool               `xml:"acceptanceRequired"`
	ManagesVpcEndpoints        bool               `xml:"managesVpcEndpoints"`
	SupportedIPAddressTypes    []string           `xml:"supportedIpAddressTypeSet>item"`
	Tags                       []plTagXML         `xml:"tagSet>item"`
}

// plServiceView is one entry of the catalog with what filters look at.
type plServiceView struct {
	detail plServiceDetailXML
	tags   map[string]string
}

func awsServiceDetail(viewer *Region, s plAWSService) plServiceDetailXML {
	var zoneIDs []string
	for _, z := range viewer.Zones {
		zoneIDs = append(zoneIDs, z.ID)
	}
	names, ids := zoneNamesFor(viewer, zoneIDs)
	base := s.short + "." + viewer.Name + ".vpce.amazonaws.com"
	if s.typ == "Gateway" {
		base = s.short + "." + viewer.Name + ".amazonaws.com"
	}
	return plServiceDetailXML{
		ServiceName: s.name(viewer.Name), ServiceID: s.id(viewer.Name),
		ServiceType: []plServiceTypeXML{{ServiceType: s.typ}}, ServiceRegion: viewer.Name,
		AvailabilityZones: names, AvailabilityZoneIDs: ids, Owner: "amazon",
		BaseEndpointDNSNames: []string{base}, PrivateDNSName: s.privateDNSName(viewer.Name),
		VpcEndpointPolicySupported: true, SupportedIPAddressTypes: []string{"ipv4"},
	}
}

func endpointServiceDetail(viewer, owner *Region, svc *EndpointService) plServiceDetailXML {
	names, ids := zoneNamesFor(viewer, owner.endpointServiceZoneIDs(svc))
	d := plServiceDetailXML{
		ServiceName: svc.Name, ServiceID: svc.ID,
		ServiceType: []plServiceTypeXML{{ServiceType: "Interface"}}, ServiceRegion: owner.Name,
		AvailabilityZones: names, AvailabilityZoneIDs: ids, Owner: svc.OwnerID,
		BaseEndpointDNSNames:    []string{svc.ID + "." + owner.Name + ".vpce.amazonaws.com"},
		PrivateDNSName:          svc.PrivateDNSName,
		AcceptanceRequired:      svc.AcceptanceRequired,
		SupportedIPAddressTypes: []string{"ipv4"},
	}
	if owner.AccountID == viewer.AccountID {
		d.Tags = plTags(owner, svc.ID)
	}
	return d
}

// visibleServices is the caller's catalog, sorted by name then type.
func visibleServices(call *Call) []plServiceView {
	var out []plServiceView
	for _, s := range plAWSServices {
		out = append(out, plServiceView{detail: awsServiceDetail(call.Region, s)})
	}
	for _, a := range call.Cloud.accounts {
		owner := a.Regions[call.RegionID]
		if owner == nil {
			continue
		}
		for _, svc := range owner.PrivateLink.Services {
			if !serviceVisibleTo(svc, call.Principal) {
				continue
			}
			view := plServiceView{detail: endpointServiceDetail(call.Region, owner, svc)}
			if owner.AccountID == call.Account.ID {
				view.tags = owner.TagsOf(svc.ID)
			}
			out = append(out, view)
		}
	}
	sort.Slice(out, func(i, j int) bool { return catalogKey(out[i]) < catalogKey(out[j]) })
	return out
}

func catalogKey(v plServiceView) string {
	return v.detail.ServiceName + "/" + v.detail.ServiceType[0].ServiceType
}

type describeVpcEndpointServicesResult struct {
	ServiceNames   []string             `xml:"serviceNameSet>item"`
	ServiceDetails []plServiceDetailXML `xml:"serviceDetailSet>item"`
	NextToken      string               `xml:"nextToken,omitempty"`
}

func describeVpcEndpointServices(call *Call) (any, *APIError) {
	names, filters := call.List("ServiceName"), call.Filters()
	maxResults, err := plMaxResults(call)
	if err != nil {
		return nil, err
	}
	catalog := visibleServices(call)
	known := map[string]bool{}
	for _, v := range catalog {
		known[v.detail.ServiceName] = true
	}
	for _, n := range names {
		// Services the caller may not use are indistinguishable from
		// services that do not exist.
		if !known[n] {
			return nil, errInvalidServiceName(n)
		}
	}
	var matched []plServiceView
	for _, v := range catalog {
		if len(names) > 0 && !contains(names, v.detail.ServiceName) {
			continue
		}
		ok, err := MatchFilters(filters, v.tags, func(name string) ([]string, bool) {
			switch name {
			case "service-name":
				return []string{v.detail.ServiceName}, true
			case "service-type":
				return []string{v.detail.ServiceType[0].ServiceType}, true
			case "owner":
				return []string{v.detail.Owner}, true
			case "service-region":
				return []string{v.detail.ServiceRegion}, true
			case "supported-ip-address-types":
				return v.detail.SupportedIPAddressTypes, true
			}
			return nil, false
		})
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, v)
		}
	}
	page, next, err := Paginate(matched, catalogKey, call.Str("NextToken"), maxResults, 1000)
	if err != nil {
		return nil, err
	}
	out := describeVpcEndpointServicesResult{NextToken: next}
	for _, v := range page {
		if !contains(out.ServiceNames, v.detail.ServiceName) {
			out.ServiceNames = append(out.ServiceNames, v.detail.ServiceName)
		}
		out.ServiceDetails = append(out.ServiceDetails, v.detail)
	}
	return out, nil
}
