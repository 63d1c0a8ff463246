package aws

import "strings"

func init() {
	registerEC2("CreateVpc", createVpc)
	registerEC2("DescribeVpcs", describeVpcs)
	registerEC2("DeleteVpc", deleteVpc)
	registerEC2("ModifyVpcAttribute", modifyVpcAttribute)
	registerEC2("DescribeVpcAttribute", describeVpcAttribute)
}

type vpcCidrStateXML struct {
	State string `xml:"state"`
}

type vpcCidrAssociationXML struct {
	AssociationID string          `xml:"associationId"`
	CidrBlock     string          `xml:"cidrBlock"`
	State         vpcCidrStateXML `xml:"cidrBlockState"`
}

type vpcXML struct {
	VpcID           string                  `xml:"vpcId"`
	OwnerID         string                  `xml:"ownerId"`
	State           string                  `xml:"state"`
	CidrBlock       string                  `xml:"cidrBlock"`
	CidrAssocs      []vpcCidrAssociationXML `xml:"cidrBlockAssociationSet>item"`
	DhcpOptionsID   string                  `xml:"dhcpOptionsId"`
	InstanceTenancy string                  `xml:"instanceTenancy"`
	IsDefault       bool                    `xml:"isDefault"`
	Tags            []ec2Tag                `xml:"tagSet>item"`
}

func (r *Region) vpcXML(v *VPC) vpcXML {
	return vpcXML{
		VpcID: v.ID, OwnerID: v.OwnerID, State: v.State, CidrBlock: v.CidrBlock,
		CidrAssocs: []vpcCidrAssociationXML{{AssociationID: v.CidrAssociationID, CidrBlock: v.CidrBlock,
			State: vpcCidrStateXML{"associated"}}},
		DhcpOptionsID: v.DhcpOptionsID, InstanceTenancy: v.InstanceTenancy, IsDefault: v.IsDefault,
		Tags: r.tagSet(v.ID),
	}
}

type createVpcResult struct {
	Vpc vpcXML `xml:"vpc"`
}

// createVpc creates a VPC with what AWS creates alongside it: the main
// route table (with the local route), the default security group and the
// default network ACL.
func createVpc(call *Call) (any, *APIError) {
	r := call.Region
	cidr := call.Str("CidrBlock")
	if cidr == "" {
		if call.Str("Ipv4IpamPoolId") != "" {
			return nil, errBadRequest("UnsupportedOperation", "cloudsim does not model IPAM pools; pass CidrBlock")
		}
		return nil, errMissingParameter("CidrBlock")
	}
	prefix, ok := parseIPv4CIDR(cidr)
	if !ok {
		return nil, errBadRequest("InvalidParameterValue", "Value (%s) for parameter cidrBlock is invalid. This is not a valid CIDR block.", cidr)
	}
	if prefix.Bits() < 16 || prefix.Bits() > 28 {
		return nil, errBadRequest("InvalidVpc.Range", "The CIDR '%s' is invalid.", cidr)
	}
	tenancy := call.Str("InstanceTenancy")
	switch tenancy {
	case "":
		tenancy = "default"
	case "default", "dedicated":
	default:
		return nil, errBadRequest("InvalidParameterValue", "Value (%s) for parameter instanceTenancy is invalid.", tenancy)
	}
	tags, err := createTags(call, "vpc")
	if err != nil {
		return nil, err
	}
	if len(r.EC2.VPCs) >= quota(r.EC2.Quotas.VPCs, 5) {
		return nil, errLimit("VpcLimitExceeded", "VPCs")
	}

	v := &VPC{
		ID: r.newEC2ID(kindVPC), CidrBlock: cidr, OwnerID: r.AccountID, State: "available",
		InstanceTenancy: tenancy, CidrAssociationID: NewID("vpc-cidr-assoc"), DhcpOptionsID: "default",
		EnableDNSSupport: true, CreatedAt: call.Now,
	}
	v.DefaultNetworkACLID = r.newEC2ID(kindNetworkACL)
	r.EC2.VPCs[v.ID] = v

	main := &RouteTable{ID: r.newEC2ID(kindRouteTable), VpcID: v.ID, OwnerID: r.AccountID,
		Routes:       []*Route{{DestinationCidrBlock: cidr, GatewayID: "local", Origin: "CreateRouteTable"}},
		Associations: []*RouteTableAssociation{{ID: NewID("rtbassoc"), Main: true}}}
	r.EC2.RouteTables[main.ID] = main

	sg := &SecurityGroup{ID: r.newEC2ID(kindSecurityGroup), VpcID: v.ID, Name: "default",
		Description: "default VPC security group", OwnerID: r.AccountID, IsDefault: true}
	sg.Rules = []*SecurityGroupRule{
		{ID: r.newEC2ID(kindSGRule), GroupID: sg.ID, Protocol: "-1", FromPort: -1, ToPort: -1, ReferencedGroupID: sg.ID},
		{ID: r.newEC2ID(kindSGRule), GroupID: sg.ID, Egress: true, Protocol: "-1", FromPort: -1, ToPort: -1, CidrIPv4: "0.0.0.0/0"},
	}
	r.EC2.SecurityGroups[sg.ID] = sg
	v.DefaultSecurityGroupID = sg.ID

	r.SetTags(v.ID, tags)
	out := r.vpcXML(v)
	out.State = "pending" // as AWS answers CreateVpc; Describe sees it available
	return createVpcResult{Vpc: out}, nil
}

type describeVpcsResult struct {
	Vpcs      []vpcXML `xml:"vpcSet>item"`
	NextToken string   `xml:"nextToken,omitempty"`
}

func describeVpcs(call *Call) (any, *APIError) {
	r := call.Region
	var vpcs []*VPC
	if ids := call.List("VpcId"); len(ids) > 0 {
		var err *APIError
		if vpcs, err = lookupAll(r.EC2.VPCs, kindVPC, ids); err != nil {
			return nil, err
		}
	} else {
		for _, v := range r.EC2.VPCs {
			vpcs = append(vpcs, v)
		}
	}
	filters := call.Filters()
	var matched []*VPC
	for _, v := range vpcs {
		ok, err := matchFields(filters, r.TagsOf(v.ID), map[string][]string{
			"vpc-id":                                {v.ID},
			"cidr":                                  {v.CidrBlock},
			"cidr-block":                            {v.CidrBlock},
			"cidrBlock":                             {v.CidrBlock},
			"cidr-block-association.cidr-block":     {v.CidrBlock},
			"cidr-block-association.association-id": {v.CidrAssociationID},
			"cidr-block-association.state":          {"associated"},
			"state":                                 {v.State},
			"is-default":                            {boolString(v.IsDefault)},
			"isDefault":                             {boolString(v.IsDefault)},
			"dhcp-options-id":                       {v.DhcpOptionsID},
			"owner-id":                              {v.OwnerID},
			"instance-tenancy":                      {v.InstanceTenancy},
			"ipv6-cidr-block-association.ipv6-cidr-block": nil,
		})
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, v)
		}
	}
	page, next, err := ec2Page(call, matched, func(v *VPC) string { return v.ID }, 5, 1000)
	if err != nil {
		return nil, err
	}
	out := describeVpcsResult{NextToken: next}
	for _, v := range page {
		out.Vpcs = append(out.Vpcs, r.vpcXML(v))
	}
	return out, nil
}

// mainRouteTable returns the table holding a VPC's main association.
func (r *Region) mainRouteTable(vpcID string) *RouteTable {
	for _, rt := range r.EC2.RouteTables {
		if rt.VpcID == vpcID && rt.mainAssociation() != nil {
			return rt
		}
	}
	return nil
}

// deleteVpc refuses while anything the user created in the VPC remains; the
// main route table, default security group and network ACL go with it.
func deleteVpc(call *Call) (any, *APIError) {
	r := call.Region
	id, err := call.Required("VpcId")
	if err != nil {
		return nil, err
	}
	v, err := lookup(r.EC2.VPCs, kindVPC, id)
	if err != nil {
		return nil, err
	}
	var blockers []string
	for _, s := range r.EC2.Subnets {
		if s.VpcID == id {
			blockers = append(blockers, s.ID)
		}
	}
	for _, g := range r.EC2.InternetGateways {
		if g.VpcID == id {
			blockers = append(blockers, g.ID)
		}
	}
	for _, sg := range r.EC2.SecurityGroups {
		if sg.VpcID == id && !sg.IsDefault {
			blockers = append(blockers, sg.ID)
		}
	}
	main := r.mainRouteTable(id)
	for _, rt := range r.EC2.RouteTables {
		if rt.VpcID == id && rt != main {
			blockers = append(blockers, rt.ID)
		}
	}
	for _, lb := range r.ELB.LoadBalancers {
		if lb.VpcID == id {
			blockers = append(blockers, lb.ARN)
		}
	}
	blockers = append(blockers, r.EndpointsUsing(id)...)
	if len(blockers) > 0 {
		return nil, errDependency("vpc", id)
	}
	if main != nil {
		delete(r.EC2.RouteTables, main.ID)
		r.ForgetTags(main.ID)
	}
	if sg := r.EC2.SecurityGroups[v.DefaultSecurityGroupID]; sg != nil {
		r.forgetSecurityGroup(sg)
	}
	r.ForgetTags(v.DefaultNetworkACLID)
	delete(r.EC2.VPCs, id)
	r.ForgetTags(id)
	return ec2True, nil
}

var vpcAttributes = []string{"EnableDnsSupport", "EnableDnsHostnames", "EnableNetworkAddressUsageMetrics"}

// modifyVpcAttribute changes one attribute per call, as AWS requires.
func modifyVpcAttribute(call *Call) (any, *APIError) {
	id, err := call.Required("VpcId")
	if err != nil {
		return nil, err
	}
	v, err := lookup(call.Region.EC2.VPCs, kindVPC, id)
	if err != nil {
		return nil, err
	}
	var given []string
	for _, a := range vpcAttributes {
		if call.Str(a+".Value") != "" {
			given = append(given, a)
		}
	}
	if len(given) == 0 {
		return nil, errBadRequest("MissingParameter", "One of the attributes %s must be specified", strings.Join(vpcAttributes, ", "))
	}
	if len(given) > 1 {
		return nil, errBadRequest("InvalidParameterCombination", "Only one attribute can be modified at a time")
	}
	val, err := call.Bool(given[0]+".Value", false)
	if err != nil {
		return nil, err
	}
	switch given[0] {
	case "EnableDnsSupport":
		v.EnableDNSSupport = val
	case "EnableDnsHostnames":
		v.EnableDNSHostnames = val
	case "EnableNetworkAddressUsageMetrics":
		v.EnableNAUMetrics = val
	}
	return ec2True, nil
}

type attributeBoolXML struct {
	Value bool `xml:"value"`
}

type describeVpcAttributeResult struct {
	VpcID              string            `xml:"vpcId"`
	EnableDNSSupport   *attributeBoolXML `xml:"enableDnsSupport,omitempty"`
	EnableDNSHostnames *attributeBoolXML `xml:"enableDnsHostnames,omitempty"`
	EnableNAUMetrics   *attributeBoolXML `xml:"enableNetworkAddressUsageMetrics,omitempty"`
}

func describeVpcAttribute(call *Call) (any, *APIError) {
	id, err := call.Required("VpcId")
	if err != nil {
		return nil, err
	}
	attr, err := call.Required("Attribute")
	if err != nil {
		return nil, err
	}
	v, err := lookup(call.Region.EC2.VPCs, kindVPC, id)
	if err != nil {
		return nil, err
	}
	out := describeVpcAttributeResult{VpcID: v.ID}
	switch attr {
	case "enableDnsSupport":
		out.EnableDNSSupport = &attributeBoolXML{v.EnableDNSSupport}
	case "enableDnsHostnames":
		out.EnableDNSHostnames = &attributeBoolXML{v.EnableDNSHostnames}
	case "enableNetworkAddressUsageMetrics":
		out.EnableNAUMetrics = &attributeBoolXML{v.EnableNAUMetrics}
	default:
		return nil, errBadRequest("InvalidParameterValue", "Value (%s) for parameter attribute is invalid. Unknown attribute.", attr)
	}
	return out, nil
}
