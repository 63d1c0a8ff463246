package aws

func init() {
	registerEC2("CreateInternetGateway", createInternetGateway)
	registerEC2("AttachInternetGateway", attachInternetGateway)
	registerEC2("DetachInternetGateway", detachInternetGateway)
	registerEC2("DescribeInternetGateways", describeInternetGateways)
	registerEC2("DeleteInternetGateway", deleteInternetGateway)
}

type igwAttachmentXML struct {
	State string `xml:"state"`
	VpcID string `xml:"vpcId"`
}

type internetGatewayXML struct {
	ID          string             `xml:"internetGatewayId"`
	OwnerID     string             `xml:"ownerId"`
	Attachments []igwAttachmentXML `xml:"attachmentSet>item"`
	Tags        []ec2Tag           `xml:"tagSet>item"`
}

func (r *Region) internetGatewayXML(g *InternetGateway) internetGatewayXML {
	out := internetGatewayXML{ID: g.ID, OwnerID: g.OwnerID, Tags: r.tagSet(g.ID)}
	if g.VpcID != "" {
		// An attached internet gateway's attachment state reads "available".
		out.Attachments = []igwAttachmentXML{{State: "available", VpcID: g.VpcID}}
	}
	return out
}

type createInternetGatewayResult struct {
	InternetGateway internetGatewayXML `xml:"internetGateway"`
}

func createInternetGateway(call *Call) (any, *APIError) {
	r := call.Region
	tags, err := createTags(call, "internet-gateway")
	if err != nil {
		return nil, err
	}
	if len(r.EC2.InternetGateways) >= quota(r.EC2.Quotas.InternetGateways, 5) {
		return nil, errLimit("InternetGatewayLimitExceeded", "internet gateways")
	}
	g := &InternetGateway{ID: r.newEC2ID(kindIGW), OwnerID: r.AccountID}
	r.EC2.InternetGateways[g.ID] = g
	r.SetTags(g.ID, tags)
	return createInternetGatewayResult{InternetGateway: r.internetGatewayXML(g)}, nil
}

// igwAndVpc resolves the InternetGatewayId and VpcId both attach and detach take.
func igwAndVpc(call *Call) (*InternetGateway, *VPC, *APIError) {
	igwID, err := call.Required("InternetGatewayId")
	if err != nil {
		return nil, nil, err
	}
	vpcID, err := call.Required("VpcId")
	if err != nil {
		return nil, nil, err
	}
	g, err := lookup(call.Region.EC2.InternetGateways, kindIGW, igwID)
	if err != nil {
		return nil, nil, err
	}
	v, err := lookup(call.Region.EC2.VPCs, kindVPC, vpcID)
	if err != nil {
		return nil, nil, err
	}
	return g, v, nil
}

func (r *Region) internetGatewayOf(vpcID string) *InternetGateway {
	for _, g := range r.EC2.InternetGateways {
		if g.VpcID == vpcID {
			return g
		}
	}
	return nil
}

func attachInternetGateway(call *Call) (any, *APIError) {
	g, v, err := igwAndVpc(call)
	if err != nil {
		return nil, err
	}
	if g.VpcID != "" {
		return nil, errBadRequest("Resource.AlreadyAssociated", "resource %s is already attached to network %s", g.ID, g.VpcID)
	}
	if other := call.Region.internetGatewayOf(v.ID); other != nil {
		return nil, errBadRequest("Resource.AlreadyAssociated", "Network %s already has an internet gateway attached", v.ID)
	}
	g.VpcID = v.ID
	return ec2True, nil
}

// detachInternetGateway refuses while public addresses are mapped in the
// VPC (NAT gateways holding Elastic IPs), as AWS does.
func detachInternetGateway(call *Call) (any, *APIError) {
	r := call.Region
	g, v, err := igwAndVpc(call)
	if err != nil {
		return nil, err
	}
	if g.VpcID != v.ID {
		return nil, errBadRequest("Gateway.NotAttached", "resource %s is not attached to network %s", g.ID, v.ID)
	}
	for _, n := range r.EC2.NatGateways {
		if n.VpcID == v.ID && n.AssociationID != "" {
			return nil, errBadRequest("DependencyViolation",
				"Network %s has some mapped public address(es). Please unmap those public address(es) before detaching the gateway.", v.ID)
		}
	}
	g.VpcID = ""
	return ec2True, nil
}

type describeInternetGatewaysResult struct {
	InternetGateways []internetGatewayXML `xml:"internetGatewaySet>item"`
	NextToken        string               `xml:"nextToken,omitempty"`
}

func describeInternetGateways(call *Call) (any, *APIError) {
	r := call.Region
	var gws []*InternetGateway
	if ids := call.List("InternetGatewayId"); len(ids) > 0 {
		var err *APIError
		if gws, err = lookupAll(r.EC2.InternetGateways, kindIGW, ids); err != nil {
			return nil, err
		}
	} else {
		for _, g := range r.EC2.InternetGateways {
			gws = append(gws, g)
		}
	}
	filters := call.Filters()
	var matched []*InternetGateway
	for _, g := range gws {
		var vpc, state []string
		if g.VpcID != "" {
			vpc, state = []string{g.VpcID}, []string{"available"}
		}
		ok, err := matchFields(filters, r.TagsOf(g.ID), map[string][]string{
			"internet-gateway-id": {g.ID}, "attachment.vpc-id": vpc, "attachment.state": state, "owner-id": {g.OwnerID},
		})
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, g)
		}
	}
	page, next, err := ec2Page(call, matched, func(g *InternetGateway) string { return g.ID }, 5, 1000)
	if err != nil {
		return nil, err
	}
	out := describeInternetGatewaysResult{NextToken: next}
	for _, g := range page {
		out.InternetGateways = append(out.InternetGateways, r.internetGatewayXML(g))
	}
	return out, nil
}

func deleteInternetGateway(call *Call) (any, *APIError) {
	r := call.Region
	id, err := call.Required("InternetGatewayId")
	if err != nil {
		return nil, err
	}
	g, err := lookup(r.EC2.InternetGateways, kindIGW, id)
	if err != nil {
		return nil, err
	}
	if g.VpcID != "" {
		return nil, errDependency("internetGateway", id)
	}
	// Edge associations go with the gateway; routes to it turn blackhole.
	for _, rt := range r.EC2.RouteTables {
		rt.dropAssociations(func(a *RouteTableAssociation) bool { return a.GatewayID == id })
	}
	delete(r.EC2.InternetGateways, id)
	r.ForgetTags(id)
	return ec2True, nil
}
