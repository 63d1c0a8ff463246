package aws

import (
	"net/netip"
	"strings"
)

func init() {
	registerEC2("CreateSubnet", createSubnet)
	registerEC2("DescribeSubnets", describeSubnets)
	registerEC2("DeleteSubnet", deleteSubnet)
	registerEC2("ModifySubnetAttribute", modifySubnetAttribute)
}

type subnetXML struct {
	SubnetID                string   `xml:"subnetId"`
	SubnetArn               string   `xml:"subnetArn"`
	VpcID                   string   `xml:"vpcId"`
	OwnerID                 string   `xml:"ownerId"`
	State                   string   `xml:"state"`
	CidrBlock               string   `xml:"cidrBlock"`
	AvailableIPAddressCount int      `xml:"availableIpAddressCount"`
	AvailabilityZone        string   `xml:"availabilityZone"`
	AvailabilityZoneID      string   `xml:"availabilityZoneId"`
	DefaultForAz            bool     `xml:"defaultForAz"`
	MapPublicIPOnLaunch     bool     `xml:"mapPublicIpOnLaunch"`
	AssignIpv6OnCreation    bool     `xml:"assignIpv6AddressOnCreation"`
	Ipv6Native              bool     `xml:"ipv6Native"`
	Tags                    []ec2Tag `xml:"tagSet>item"`
}

// availableAddresses is what AWS reports: the subnet's size less its five
// reserved addresses and those taken by NAT gateways, endpoint and load
// balancer interfaces.
func (r *Region) availableAddresses(s *Subnet) int {
	p, _ := netip.ParsePrefix(s.CidrBlock)
	n := 1<<(32-p.Bits()) - 5
	for _, g := range r.EC2.NatGateways {
		if g.SubnetID == s.ID && g.holdsAddress() {
			n--
		}
	}
	n -= len(r.EndpointsUsing(s.ID)) + len(r.LoadBalancersInSubnet(s.ID))
	return max(n, 0)
}

func (r *Region) subnetXML(s *Subnet) subnetXML {
	return subnetXML{
		SubnetID: s.ID, SubnetArn: r.ec2ARN("subnet", s.ID), VpcID: s.VpcID, OwnerID: s.OwnerID, State: s.State,
		CidrBlock: s.CidrBlock, AvailableIPAddressCount: r.availableAddresses(s),
		AvailabilityZone: s.AvailabilityZone, AvailabilityZoneID: s.AvailabilityZoneID,
		MapPublicIPOnLaunch: s.MapPublicIPOnLaunch, Tags: r.tagSet(s.ID),
	}
}

type createSubnetResult struct {
	Subnet subnetXML `xml:"subnet"`
}

func createSubnet(call *Call) (any, *APIError) {
	r := call.Region
	vpcID, err := call.Required("VpcId")
	if err != nil {
		return nil, err
	}
	cidr := call.Str("CidrBlock")
	if cidr == "" {
		return nil, errMissingParameter("CidrBlock")
	}
	v, err := lookup(r.EC2.VPCs, kindVPC, vpcID)
	if err != nil {
		return nil, err
	}
	zone, err := r.subnetZone(call.Str("AvailabilityZone"), call.Str("AvailabilityZoneId"))
	if err != nil {
		return nil, err
	}
	prefix, ok := parseIPv4CIDR(cidr)
	if !ok {
		return nil, errBadRequest("InvalidParameterValue", "Value (%s) for parameter cidrBlock is invalid. This is not a valid CIDR block.", cidr)
	}
	vpcPrefix, _ := parseIPv4CIDR(v.CidrBlock)
	if prefix.Bits() < 16 || prefix.Bits() > 28 || !cidrWithin(vpcPrefix, prefix) {
		return nil, errBadRequest("InvalidSubnet.Range", "The CIDR '%s' is invalid.", cidr)
	}
	inVPC := 0
	for _, s := range r.EC2.Subnets {
		if s.VpcID != v.ID {
			continue
		}
		inVPC++
		if other, _ := parseIPv4CIDR(s.CidrBlock); other.Overlaps(prefix) {
			return nil, errBadRequest("InvalidSubnet.Conflict", "The CIDR '%s' conflicts with another subnet", cidr)
		}
	}
	tags, err := createTags(call, "subnet")
	if err != nil {
		return nil, err
	}
	if inVPC >= quota(r.EC2.Quotas.SubnetsPerVPC, 200) {
		return nil, errLimit("SubnetLimitExceeded", "subnets")
	}
	s := &Subnet{
		ID: r.newEC2ID(kindSubnet), VpcID: v.ID, CidrBlock: cidr, AvailabilityZone: zone.Name,
		AvailabilityZoneID: zone.ID, OwnerID: r.AccountID, State: "available", CreatedAt: call.Now,
	}
	r.EC2.Subnets[s.ID] = s
	r.SetTags(s.ID, tags)
	return createSubnetResult{Subnet: r.subnetXML(s)}, nil
}

// subnetZone resolves AvailabilityZone / AvailabilityZoneId in the caller's
// own name→ID mapping; with neither AWS picks a zone (here the first).
func (r *Region) subnetZone(name, id string) (AvailabilityZone, *APIError) {
	var names []string
	for _, z := range r.Zones {
		names = append(names, z.Name)
	}
	invalid := func(param, value string) *APIError {
		return errBadRequest("InvalidParameterValue",
			"Value (%s) for parameter %s is invalid. Subnets can currently only be created in the following availability zones: %s.",
			value, param, strings.Join(names, ", "))
	}
	var byName, byID AvailabilityZone
	var ok bool
	if name != "" {
		if byName, ok = r.ZoneByName(name); !ok {
			return AvailabilityZone{}, invalid("availabilityZone", name)
		}
	}
	if id != "" {
		if byID, ok = r.ZoneByID(id); !ok {
			return AvailabilityZone{}, invalid("availabilityZoneId", id)
		}
	}
	switch {
	case name != "" && id != "":
		if byName != byID {
			return AvailabilityZone{}, errBadRequest("InvalidParameterCombination",
				"Availability zone %s and availability zone ID %s do not name the same zone", name, id)
		}
		return byName, nil
	case name != "":
		return byName, nil
	case id != "":
		return byID, nil
	}
	return r.Zones[0], nil
}

type describeSubnetsResult struct {
	Subnets   []subnetXML `xml:"subnetSet>item"`
	NextToken string      `xml:"nextToken,omitempty"`
}

func describeSubnets(call *Call) (any, *APIError) {
	r := call.Region
	var subnets []*Subnet
	if ids := call.List("SubnetId"); len(ids) > 0 {
		var err *APIError
		if subnets, err = lookupAll(r.EC2.Subnets, kindSubnet, ids); err != nil {
			return nil, err
		}
	} else {
		for _, s := range r.EC2.Subnets {
			subnets = append(subnets, s)
		}
	}
	filters := call.Filters()
	var matched []*Subnet
	for _, s := range subnets {
		ok, err := matchFields(filters, r.TagsOf(s.ID), map[string][]string{
			"vpc-id":                            {s.VpcID},
			"subnet-id":                         {s.ID},
			"subnet-arn":                        {r.ec2ARN("subnet", s.ID)},
			"availability-zone":                 {s.AvailabilityZone},
			"availabilityZone":                  {s.AvailabilityZone},
			"availability-zone-id":              {s.AvailabilityZoneID},
			"availabilityZoneId":                {s.AvailabilityZoneID},
			"cidr-block":                        {s.CidrBlock},
			"cidr":                              {s.CidrBlock},
			"cidrBlock":                         {s.CidrBlock},
			"state":                             {s.State},
			"owner-id":                          {s.OwnerID},
			"default-for-az":                    {"false"},
			"defaultForAz":                      {"false"},
			"map-public-ip-on-launch":           {boolString(s.MapPublicIPOnLaunch)},
			"available-ip-address-count":        {itoa(r.availableAddresses(s))},
			"ipv6-cidr-block-association.state": nil,
		})
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, s)
		}
	}
	page, next, err := ec2Page(call, matched, func(s *Subnet) string { return s.ID }, 5, 1000)
	if err != nil {
		return nil, err
	}
	out := describeSubnetsResult{NextToken: next}
	for _, s := range page {
		out.Subnets = append(out.Subnets, r.subnetXML(s))
	}
	return out, nil
}

// deleteSubnet refuses while NAT gateways, load balancers or VPC endpoints
// use the subnet; its route table association goes with it.
func deleteSubnet(call *Call) (any, *APIError) {
	r := call.Region
	id, err := call.Required("SubnetId")
	if err != nil {
		return nil, err
	}
	if _, err := lookup(r.EC2.Subnets, kindSubnet, id); err != nil {
		return nil, err
	}
	for _, g := range r.EC2.NatGateways {
		if g.SubnetID == id && g.State != "deleted" && g.State != "failed" {
			return nil, errDependency("subnet", id)
		}
	}
	if len(r.LoadBalancersInSubnet(id)) > 0 || len(r.EndpointsUsing(id)) > 0 {
		return nil, errDependency("subnet", id)
	}
	for _, rt := range r.EC2.RouteTables {
		rt.dropAssociations(func(a *RouteTableAssociation) bool { return a.SubnetID == id })
	}
	delete(r.EC2.Subnets, id)
	r.ForgetTags(id)
	return ec2True, nil
}

// modifySubnetAttribute supports MapPublicIpOnLaunch; the other attributes
// (IPv6, customer-owned IPs, DNS names) are accepted and ignored, since
// nothing in cloudsim launches instances.
func modifySubnetAttribute(call *Call) (any, *APIError) {
	id, err := call.Required("SubnetId")
	if err != nil {
		return nil, err
	}
	s, err := lookup(call.Region.EC2.Subnets, kindSubnet, id)
	if err != nil {
		return nil, err
	}
	if call.Str("MapPublicIpOnLaunch.Value") != "" {
		v, err := call.Bool("MapPublicIpOnLaunch.Value", false)
		if err != nil {
			return nil, err
		}
		s.MapPublicIPOnLaunch = v
	}
	return ec2True, nil
}
