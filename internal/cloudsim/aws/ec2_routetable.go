package aws

import (
	"fmt"
	"hash/fnv"
	"strings"
)

func init() {
	registerEC2("CreateRouteTable", createRouteTable)
	registerEC2("DescribeRouteTables", describeRouteTables)
	registerEC2("DeleteRouteTable", deleteRouteTable)
	registerEC2("CreateRoute", createRoute)
	registerEC2("ReplaceRoute", replaceRoute)
	registerEC2("DeleteRoute", deleteRoute)
	registerEC2("AssociateRouteTable", associateRouteTable)
	registerEC2("DisassociateRouteTable", disassociateRouteTable)
	registerEC2("ReplaceRouteTableAssociation", replaceRouteTableAssociation)
}

func (rt *RouteTable) mainAssociation() *RouteTableAssociation {
	for _, a := range rt.Associations {
		if a.Main {
			return a
		}
	}
	return nil
}

func (rt *RouteTable) dropAssociations(drop func(*RouteTableAssociation) bool) {
	kept := rt.Associations[:0]
	for _, a := range rt.Associations {
		if !drop(a) {
			kept = append(kept, a)
		}
	}
	rt.Associations = kept
}

func (rt *RouteTable) route(destination string) *Route {
	for _, rr := range rt.Routes {
		if rr.DestinationCidrBlock == destination {
			return rr
		}
	}
	return nil
}

func (r *Region) findAssociation(id string) (*RouteTable, *RouteTableAssociation, *APIError) {
	for _, rt := range r.EC2.RouteTables {
		for _, a := range rt.Associations {
			if a.ID == id {
				return rt, a, nil
			}
		}
	}
	return nil, nil, errNotFound("InvalidAssociationID.NotFound", "The association ID '%s' does not exist", id)
}

type routeXML struct {
	DestinationCidrBlock    string `xml:"destinationCidrBlock,omitempty"`
	DestinationPrefixListID string `xml:"destinationPrefixListId,omitempty"`
	GatewayID               string `xml:"gatewayId,omitempty"`
	NatGatewayID            string `xml:"natGatewayId,omitempty"`
	State                   string `xml:"state"`
	Origin                  string `xml:"origin"`
}

type associationStateXML struct {
	State string `xml:"state"`
}

type routeTableAssociationXML struct {
	ID           string              `xml:"routeTableAssociationId"`
	RouteTableID string              `xml:"routeTableId"`
	SubnetID     string              `xml:"subnetId,omitempty"`
	GatewayID    string              `xml:"gatewayId,omitempty"`
	Main         bool                `xml:"main"`
	State        associationStateXML `xml:"associationState"`
}

type routeTableXML struct {
	ID           string                     `xml:"routeTableId"`
	VpcID        string                     `xml:"vpcId"`
	OwnerID      string                     `xml:"ownerId"`
	Routes       []routeXML                 `xml:"routeSet>item"`
	Associations []routeTableAssociationXML `xml:"associationSet>item"`
	Tags         []ec2Tag                   `xml:"tagSet>item"`
}

// routeState is "active" while the target can carry traffic and
// "blackhole" once it is gone (a deleted NAT gateway, a detached IGW).
func (r *Region) routeState(rt *RouteTable, rr *Route) string {
	switch {
	case rr.GatewayID == "local":
		return "active"
	case rr.GatewayID != "":
		if g := r.EC2.InternetGateways[rr.GatewayID]; g != nil && g.VpcID == rt.VpcID {
			return "active"
		}
	case rr.NatGatewayID != "":
		if g := r.EC2.NatGateways[rr.NatGatewayID]; g != nil && g.holdsAddress() {
			return "active"
		}
	}
	return "blackhole"
}

// endpointPrefixList names the AWS-managed prefix list of a gateway
// endpoint's service, stable per service name.
func endpointPrefixList(serviceName string) string {
	h := fnv.New32a()
	h.Write([]byte(serviceName))
	return fmt.Sprintf("pl-%08x", h.Sum32())
}

func (r *Region) routeTableXML(rt *RouteTable) routeTableXML {
	out := routeTableXML{ID: rt.ID, VpcID: rt.VpcID, OwnerID: rt.OwnerID, Tags: r.tagSet(rt.ID)}
	for _, rr := range rt.Routes {
		out.Routes = append(out.Routes, routeXML{DestinationCidrBlock: rr.DestinationCidrBlock, GatewayID: rr.GatewayID,
			NatGatewayID: rr.NatGatewayID, State: r.routeState(rt, rr), Origin: rr.Origin})
	}
	// Gateway endpoints (S3, DynamoDB) add a prefix-list route to each of their tables.
	for _, ep := range sortedByKey(r.gatewayEndpointsOf(rt.ID), func(ep *VPCEndpoint) string { return ep.ID }) {
		out.Routes = append(out.Routes, routeXML{DestinationPrefixListID: endpointPrefixList(ep.ServiceName),
			GatewayID: ep.ID, State: "active", Origin: "CreateRoute"})
	}
	for _, a := range rt.Associations {
		out.Associations = append(out.Associations, routeTableAssociationXML{ID: a.ID, RouteTableID: rt.ID,
			SubnetID: a.SubnetID, GatewayID: a.GatewayID, Main: a.Main, State: associationStateXML{"associated"}})
	}
	return out
}

func (r *Region) gatewayEndpointsOf(routeTableID string) []*VPCEndpoint {
	var eps []*VPCEndpoint
	for _, ep := range r.PrivateLink.Endpoints {
		if strings.EqualFold(ep.Type, "Gateway") && ep.State != "deleted" && contains(ep.RouteTableIDs, routeTableID) {
			eps = append(eps, ep)
		}
	}
	return eps
}

type createRouteTableResult struct {
	ClientToken string        `xml:"clientToken,omitempty"`
	RouteTable  routeTableXML `xml:"routeTable"`
}

func createRouteTable(call *Call) (any, *APIError) {
	r := call.Region
	token, fingerprint := call.Str("ClientToken"), call.Fingerprint()
	if id, found, err := r.IdempotentLookup("CreateRouteTable", token, fingerprint); err != nil {
		return nil, err
	} else if rt := r.EC2.RouteTables[id]; found && rt != nil {
		return createRouteTableResult{ClientToken: token, RouteTable: r.routeTableXML(rt)}, nil
	}
	vpcID, err := call.Required("VpcId")
	if err != nil {
		return nil, err
	}
	v, err := lookup(r.EC2.VPCs, kindVPC, vpcID)
	if err != nil {
		return nil, err
	}
	tags, err := createTags(call, "route-table")
	if err != nil {
		return nil, err
	}
	inVPC := 0
	for _, rt := range r.EC2.RouteTables {
		if rt.VpcID == v.ID {
			inVPC++
		}
	}
	if inVPC >= quota(r.EC2.Quotas.RouteTablesPerVPC, 200) {
		return nil, errLimit("RouteTableLimitExceeded", "route tables")
	}
	rt := &RouteTable{ID: r.newEC2ID(kindRouteTable), VpcID: v.ID, OwnerID: r.AccountID,
		Routes: []*Route{{DestinationCidrBlock: v.CidrBlock, GatewayID: "local", Origin: "CreateRouteTable"}}}
	r.EC2.RouteTables[rt.ID] = rt
	r.SetTags(rt.ID, tags)
	r.RememberToken("CreateRouteTable", token, fingerprint, rt.ID)
	return createRouteTableResult{ClientToken: token, RouteTable: r.routeTableXML(rt)}, nil
}

type describeRouteTablesResult struct {
	RouteTables []routeTableXML `xml:"routeTableSet>item"`
	NextToken   string          `xml:"nextToken,omitempty"`
}

func describeRouteTables(call *Call) (any, *APIError) {
	r := call.Region
	var tables []*RouteTable
	if ids := call.List("RouteTableId"); len(ids) > 0 {
		var err *APIError
		if tables, err = lookupAll(r.EC2.RouteTables, kindRouteTable, ids); err != nil {
			return nil, err
		}
	} else {
		for _, rt := range r.EC2.RouteTables {
			tables = append(tables, rt)
		}
	}
	filters := call.Filters()
	var matched []*RouteTable
	for _, rt := range tables {
		fields := map[string][]string{
			"vpc-id": {rt.VpcID}, "route-table-id": {rt.ID}, "owner-id": {rt.OwnerID},
			"association.main": nil, "association.subnet-id": nil, "association.gateway-id": nil,
			"association.route-table-association-id": nil, "association.route-table-id": nil,
			"association.association-state": nil,
			"route.destination-cidr-block":  nil, "route.gateway-id": nil, "route.nat-gateway-id": nil,
			"route.state": nil, "route.origin": nil, "route.destination-prefix-list-id": nil,
		}
		x := r.routeTableXML(rt)
		for _, a := range x.Associations {
			fields["association.main"] = append(fields["association.main"], boolString(a.Main))
			fields["association.route-table-association-id"] = append(fields["association.route-table-association-id"], a.ID)
			fields["association.route-table-id"] = append(fields["association.route-table-id"], rt.ID)
			fields["association.association-state"] = append(fields["association.association-state"], a.State.State)
			fields["association.subnet-id"] = append(fields["association.subnet-id"], nonEmpty(a.SubnetID)...)
			fields["association.gateway-id"] = append(fields["association.gateway-id"], nonEmpty(a.GatewayID)...)
		}
		for _, rr := range x.Routes {
			fields["route.destination-cidr-block"] = append(fields["route.destination-cidr-block"], nonEmpty(rr.DestinationCidrBlock)...)
			fields["route.destination-prefix-list-id"] = append(fields["route.destination-prefix-list-id"], nonEmpty(rr.DestinationPrefixListID)...)
			fields["route.gateway-id"] = append(fields["route.gateway-id"], nonEmpty(rr.GatewayID)...)
			fields["route.nat-gateway-id"] = append(fields["route.nat-gateway-id"], nonEmpty(rr.NatGatewayID)...)
			fields["route.state"] = append(fields["route.state"], rr.State)
			fields["route.origin"] = append(fields["route.origin"], rr.Origin)
		}
		ok, err := matchFields(filters, r.TagsOf(rt.ID), fields)
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, rt)
		}
	}
	page, next, err := ec2Page(call, matched, func(rt *RouteTable) string { return rt.ID }, 5, 100)
	if err != nil {
		return nil, err
	}
	out := describeRouteTablesResult{NextToken: next}
	for _, rt := range page {
		out.RouteTables = append(out.RouteTables, r.routeTableXML(rt))
	}
	return out, nil
}

// deleteRouteTable refuses while the table has any association (the main
// table always has one) or a gateway endpoint routes through it.
func deleteRouteTable(call *Call) (any, *APIError) {
	r := call.Region
	id, err := call.Required("RouteTableId")
	if err != nil {
		return nil, err
	}
	rt, err := lookup(r.EC2.RouteTables, kindRouteTable, id)
	if err != nil {
		return nil, err
	}
	if len(rt.Associations) > 0 || len(r.EndpointsUsing(id)) > 0 {
		return nil, errDependency("routeTable", id)
	}
	delete(r.EC2.RouteTables, id)
	r.ForgetTags(id)
	return ec2True, nil
}

// unsupportedRouteTargets are CreateRoute targets cloudsim does not model.
var unsupportedRouteTargets = []string{"InstanceId", "NetworkInterfaceId", "VpcPeeringConnectionId", "TransitGatewayId",
	"LocalGatewayId", "CarrierGatewayId", "EgressOnlyInternetGatewayId", "VpcEndpointId", "CoreNetworkArn", "OdbNetworkArn"}

// routeRequest reads and checks what CreateRoute and ReplaceRoute share:
// the table, the IPv4 destination and exactly one internet or NAT gateway target.
func routeRequest(call *Call) (*RouteTable, *Route, *APIError) {
	r := call.Region
	tableID, err := call.Required("RouteTableId")
	if err != nil {
		return nil, nil, err
	}
	rt, err := lookup(r.EC2.RouteTables, kindRouteTable, tableID)
	if err != nil {
		return nil, nil, err
	}
	dest := call.Str("DestinationCidrBlock")
	if dest == "" {
		if call.Str("DestinationIpv6CidrBlock") != "" || call.Str("DestinationPrefixListId") != "" {
			return nil, nil, errBadRequest("UnsupportedOperation", "cloudsim models IPv4 destination CIDR blocks only")
		}
		return nil, nil, errMissingParameter("DestinationCidrBlock")
	}
	if _, ok := parseIPv4CIDR(dest); !ok {
		return nil, nil, errBadRequest("InvalidParameterValue",
			"Value (%s) for parameter destinationCidrBlock is invalid. This is not a valid CIDR block.", dest)
	}
	var targets []string
	for _, p := range append([]string{"GatewayId", "NatGatewayId"}, unsupportedRouteTargets...) {
		if call.Str(p) != "" {
			targets = append(targets, p)
		}
	}
	switch {
	case len(targets) == 0:
		return nil, nil, errBadRequest("MissingParameter", "The request must contain exactly one of gatewayId, natGatewayId, "+
			"instanceId, networkInterfaceId, vpcPeeringConnectionId, transitGatewayId or another route target")
	case len(targets) > 1:
		return nil, nil, errBadRequest("InvalidParameterCombination", "The parameter %s cannot be used with the parameter %s",
			targets[0], targets[1])
	case contains(unsupportedRouteTargets, targets[0]):
		return nil, nil, errBadRequest("UnsupportedOperation", "cloudsim models routes to internet and NAT gateways only, not %s", targets[0])
	}
	route := &Route{DestinationCidrBlock: dest, Origin: "CreateRoute"}
	if id := call.Str("GatewayId"); id != "" {
		g := r.EC2.InternetGateways[id]
		if g == nil {
			return nil, nil, errNotFound("InvalidGatewayID.NotFound", "The gateway ID '%s' does not exist", id)
		}
		if g.VpcID != rt.VpcID {
			return nil, nil, errBadRequest("InvalidParameterValue", "route table %s and network gateway %s belong to different networks", rt.ID, id)
		}
		route.GatewayID = id
	}
	if id := call.Str("NatGatewayId"); id != "" {
		g := r.EC2.NatGateways[id]
		if g == nil || g.State == "deleted" || g.State == "failed" {
			return nil, nil, errNotFound("InvalidNatGatewayID.NotFound", "The natGateway ID '%s' does not exist", id)
		}
		if g.VpcID != rt.VpcID {
			return nil, nil, errBadRequest("InvalidParameterValue", "route table %s and NAT gateway %s belong to different networks", rt.ID, id)
		}
		route.NatGatewayID = id
	}
	return rt, route, nil
}

func createRoute(call *Call) (any, *APIError) {
	rt, route, err := routeRequest(call)
	if err != nil {
		return nil, err
	}
	if rt.route(route.DestinationCidrBlock) != nil {
		return nil, errBadRequest("RouteAlreadyExists", "The route identified by %s already exists.", route.DestinationCidrBlock)
	}
	if len(rt.Routes)-1 >= quota(call.Region.EC2.Quotas.RoutesPerRouteTable, 50) {
		return nil, errLimit("RouteLimitExceeded", "routes")
	}
	rt.Routes = append(rt.Routes, route)
	return ec2True, nil
}

func replaceRoute(call *Call) (any, *APIError) {
	rt, route, err := routeRequest(call)
	if err != nil {
		return nil, err
	}
	existing := rt.route(route.DestinationCidrBlock)
	if existing == nil {
		return nil, errBadRequest("InvalidParameterValue",
			"There is no route defined for '%s' in the route table. Use CreateRoute instead.", route.DestinationCidrBlock)
	}
	if existing.GatewayID == "local" {
		return nil, errBadRequest("InvalidParameterValue", "cannot replace local route %s in route table %s", existing.DestinationCidrBlock, rt.ID)
	}
	existing.GatewayID, existing.NatGatewayID = route.GatewayID, route.NatGatewayID
	return ec2True, nil
}

func deleteRoute(call *Call) (any, *APIError) {
	tableID, err := call.Required("RouteTableId")
	if err != nil {
		return nil, err
	}
	rt, err := lookup(call.Region.EC2.RouteTables, kindRouteTable, tableID)
	if err != nil {
		return nil, err
	}
	dest := call.Str("DestinationCidrBlock")
	if dest == "" {
		if other := call.Str("DestinationPrefixListId") + call.Str("DestinationIpv6CidrBlock"); other != "" {
			return nil, errNotFound("InvalidRoute.NotFound", "no route with destination %s in route table %s", other, rt.ID)
		}
		return nil, errMissingParameter("DestinationCidrBlock")
	}
	existing := rt.route(dest)
	if existing == nil {
		return nil, errNotFound("InvalidRoute.NotFound", "no route with destination-cidr-block %s in route table %s", dest, rt.ID)
	}
	if existing.GatewayID == "local" {
		return nil, errBadRequest("InvalidParameterValue", "cannot remove local route %s in route table %s", dest, rt.ID)
	}
	kept := rt.Routes[:0]
	for _, rr := range rt.Routes {
		if rr != existing {
			kept = append(kept, rr)
		}
	}
	rt.Routes = kept
	return ec2True, nil
}

type associateRouteTableResult struct {
	AssociationID string              `xml:"associationId"`
	State         associationStateXML `xml:"associationState"`
}

// associateRouteTable associates a table with a subnet, or with an internet
// gateway (an edge association). A subnet has at most one explicit table.
func associateRouteTable(call *Call) (any, *APIError) {
	r := call.Region
	tableID, err := call.Required("RouteTableId")
	if err != nil {
		return nil, err
	}
	rt, err := lookup(r.EC2.RouteTables, kindRouteTable, tableID)
	if err != nil {
		return nil, err
	}
	subnetID, gatewayID := call.Str("SubnetId"), call.Str("GatewayId")
	switch {
	case subnetID == "" && gatewayID == "":
		return nil, errBadRequest("MissingParameter", "Either subnetId or gatewayId must be specified")
	case subnetID != "" && gatewayID != "":
		return nil, errBadRequest("InvalidParameterCombination", "The parameter subnetId cannot be used with the parameter gatewayId")
	}
	assoc := &RouteTableAssociation{ID: NewID("rtbassoc"), SubnetID: subnetID, GatewayID: gatewayID}
	if subnetID != "" {
		s, err := lookup(r.EC2.Subnets, kindSubnet, subnetID)
		if err != nil {
			return nil, err
		}
		if s.VpcID != rt.VpcID {
			return nil, errBadRequest("InvalidParameterValue", "Route table %s and subnet %s belong to different networks", rt.ID, s.ID)
		}
	} else {
		g, err := lookup(r.EC2.InternetGateways, kindIGW, gatewayID)
		if err != nil {
			return nil, err
		}
		if g.VpcID != rt.VpcID {
			return nil, errBadRequest("InvalidParameterValue", "Route table %s and gateway %s belong to different networks", rt.ID, g.ID)
		}
	}
	for _, other := range r.EC2.RouteTables {
		for _, a := range other.Associations {
			if (subnetID != "" && a.SubnetID == subnetID) || (gatewayID != "" && a.GatewayID == gatewayID) {
				return nil, errBadRequest("Resource.AlreadyAssociated",
					"the specified association for route table %s conflicts with an existing association", rt.ID)
			}
		}
	}
	rt.Associations = append(rt.Associations, assoc)
	return associateRouteTableResult{AssociationID: assoc.ID, State: associationStateXML{"associated"}}, nil
}

func disassociateRouteTable(call *Call) (any, *APIError) {
	id, err := call.Required("AssociationId")
	if err != nil {
		return nil, err
	}
	rt, a, err := call.Region.findAssociation(id)
	if err != nil {
		return nil, err
	}
	if a.Main {
		return nil, errBadRequest("InvalidParameterValue", "cannot disassociate the main route table association %s", id)
	}
	rt.dropAssociations(func(x *RouteTableAssociation) bool { return x == a })
	return ec2True, nil
}

type replaceRouteTableAssociationResult struct {
	NewAssociationID string              `xml:"newAssociationId"`
	State            associationStateXML `xml:"associationState"`
}

// replaceRouteTableAssociation moves an association to another table of
// the same VPC; moving the main association makes that table the main one.
func replaceRouteTableAssociation(call *Call) (any, *APIError) {
	r := call.Region
	id, err := call.Required("AssociationId")
	if err != nil {
		return nil, err
	}
	tableID, err := call.Required("RouteTableId")
	if err != nil {
		return nil, err
	}
	oldTable, a, err := r.findAssociation(id)
	if err != nil {
		return nil, err
	}
	newTable, err := lookup(r.EC2.RouteTables, kindRouteTable, tableID)
	if err != nil {
		return nil, err
	}
	if newTable.VpcID != oldTable.VpcID {
		return nil, errBadRequest("InvalidParameterValue", "Route table %s and association %s belong to different networks", newTable.ID, id)
	}
	oldTable.dropAssociations(func(x *RouteTableAssociation) bool { return x == a })
	moved := &RouteTableAssociation{ID: NewID("rtbassoc"), Main: a.Main, SubnetID: a.SubnetID, GatewayID: a.GatewayID}
	newTable.Associations = append(newTable.Associations, moved)
	return replaceRouteTableAssociationResult{NewAssociationID: moved.ID, State: associationStateXML{"associated"}}, nil
}
