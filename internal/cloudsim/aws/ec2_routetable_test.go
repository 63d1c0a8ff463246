package aws_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// The reference infra layout: a public table made the VPC's main table with
// a default route to the IGW, a private table per zone routing to a NAT
// gateway and associated with the private subnet.
func TestRouteTablesForAPublicAndPrivateLayout(t *testing.T) {
	e := newEC2Env(t)
	vpc, igw, public := e.publicNetwork()
	private := aws.ToString(e.subnet(vpc, "10.0.128.0/20", "us-east-1a").SubnetId)
	nat := aws.ToString(e.natGateway(public, e.eip()).NatGatewayId)
	originalMain := aws.ToString(e.mainRouteTable(vpc).RouteTableId)
	mainAssoc := aws.ToString(e.mainRouteTable(vpc).Associations[0].RouteTableAssociationId)

	newTable := func(name string) string {
		out, err := e.ec2.CreateRouteTable(e.ctx, &ec2.CreateRouteTableInput{VpcId: &vpc,
			TagSpecifications: ec2TagSpec(ec2types.ResourceTypeRouteTable, "Name", name)})
		e.ok("CreateRouteTable "+name, err)
		rt := out.RouteTable
		if len(rt.Routes) != 1 || aws.ToString(rt.Routes[0].GatewayId) != "local" || len(rt.Associations) != 0 {
			t.Errorf("new table %s: routes %+v, associations %+v; want only the local route", name, rt.Routes, rt.Associations)
		}
		return aws.ToString(rt.RouteTableId)
	}
	publicRT, privateRT := newTable("infra-public"), newTable("infra-private-us-east-1a")

	_, err := e.ec2.CreateRoute(e.ctx, &ec2.CreateRouteInput{RouteTableId: &publicRT, DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: &igw})
	e.ok("CreateRoute to the IGW", err)
	_, err = e.ec2.CreateRoute(e.ctx, &ec2.CreateRouteInput{RouteTableId: &privateRT, DestinationCidrBlock: aws.String("0.0.0.0/0"), NatGatewayId: &nat})
	e.ok("CreateRoute to the NAT gateway", err)
	_, err = e.ec2.CreateRoute(e.ctx, &ec2.CreateRouteInput{RouteTableId: &publicRT, DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: &igw})
	e.wantErr("the same destination twice", err, "RouteAlreadyExists")
	_, err = e.ec2.CreateRoute(e.ctx, &ec2.CreateRouteInput{RouteTableId: &publicRT, DestinationCidrBlock: aws.String("10.0.0.0/16"), GatewayId: &igw})
	e.wantErr("over the local route", err, "RouteAlreadyExists")

	// Make the public table the main one, as the CLI does.
	repl, err := e.ec2.ReplaceRouteTableAssociation(e.ctx, &ec2.ReplaceRouteTableAssociationInput{AssociationId: &mainAssoc, RouteTableId: &publicRT})
	e.ok("ReplaceRouteTableAssociation", err)
	if aws.ToString(repl.NewAssociationId) == "" || aws.ToString(repl.NewAssociationId) == mainAssoc ||
		repl.AssociationState.State != ec2types.RouteTableAssociationStateCodeAssociated {
		t.Errorf("ReplaceRouteTableAssociation answered %+v", repl)
	}
	if got := aws.ToString(e.mainRouteTable(vpc).RouteTableId); got != publicRT {
		t.Errorf("main table is %s, want %s", got, publicRT)
	}
	assoc, err := e.ec2.AssociateRouteTable(e.ctx, &ec2.AssociateRouteTableInput{RouteTableId: &privateRT, SubnetId: &private})
	e.ok("AssociateRouteTable", err)
	_, err = e.ec2.AssociateRouteTable(e.ctx, &ec2.AssociateRouteTableInput{RouteTableId: &publicRT, SubnetId: &private})
	e.wantErr("a second table for the subnet", err, "Resource.AlreadyAssociated")

	for _, tc := range []struct {
		name    string
		filters []ec2types.Filter
		want    []string
	}{
		{"association.subnet-id", []ec2types.Filter{ec2Filter("association.subnet-id", private)}, []string{privateRT}},
		{"association.main=false", []ec2types.Filter{ec2Filter("association.main", "false")}, []string{privateRT}},
		{"association.route-table-association-id", []ec2types.Filter{ec2Filter("association.route-table-association-id", aws.ToString(assoc.AssociationId))}, []string{privateRT}},
		{"route.nat-gateway-id", []ec2types.Filter{ec2Filter("route.nat-gateway-id", nat)}, []string{privateRT}},
		{"route.gateway-id", []ec2types.Filter{ec2Filter("route.gateway-id", igw)}, []string{publicRT}},
		{"tag:Name", []ec2types.Filter{ec2Filter("tag:Name", "infra-*")}, []string{publicRT, privateRT}},
		{"vpc-id", []ec2types.Filter{ec2Filter("vpc-id", vpc)}, []string{originalMain, publicRT, privateRT}},
	} {
		out, err := e.ec2.DescribeRouteTables(e.ctx, &ec2.DescribeRouteTablesInput{Filters: tc.filters})
		e.ok("DescribeRouteTables "+tc.name, err)
		var got []string
		for _, rt := range out.RouteTables {
			got = append(got, aws.ToString(rt.RouteTableId))
		}
		if !sameIDs(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	route := e.routeTable(publicRT).Routes[1]
	if route.State != ec2types.RouteStateActive || route.Origin != ec2types.RouteOriginCreateRoute || aws.ToString(route.GatewayId) != igw {
		t.Errorf("IGW route = %+v", route)
	}

	_, err = e.ec2.DeleteRouteTable(e.ctx, &ec2.DeleteRouteTableInput{RouteTableId: &privateRT})
	e.wantErr("DeleteRouteTable while associated", err, "DependencyViolation")
	_, err = e.ec2.DeleteRouteTable(e.ctx, &ec2.DeleteRouteTableInput{RouteTableId: &publicRT})
	e.wantErr("DeleteRouteTable of the main table", err, "DependencyViolation")
	_, err = e.ec2.DisassociateRouteTable(e.ctx, &ec2.DisassociateRouteTableInput{AssociationId: repl.NewAssociationId})
	e.wantErr("DisassociateRouteTable of the main association", err, "InvalidParameterValue")
	_, err = e.ec2.DisassociateRouteTable(e.ctx, &ec2.DisassociateRouteTableInput{AssociationId: assoc.AssociationId})
	e.ok("DisassociateRouteTable", err)
	_, err = e.ec2.DisassociateRouteTable(e.ctx, &ec2.DisassociateRouteTableInput{AssociationId: assoc.AssociationId})
	e.wantErr("DisassociateRouteTable twice", err, "InvalidAssociationID.NotFound")
	_, err = e.ec2.DeleteRouteTable(e.ctx, &ec2.DeleteRouteTableInput{RouteTableId: &privateRT})
	e.ok("DeleteRouteTable", err)
	// The original main table lost its main association: it can go now.
	_, err = e.ec2.DeleteRouteTable(e.ctx, &ec2.DeleteRouteTableInput{RouteTableId: &originalMain})
	e.ok("DeleteRouteTable of the former main table", err)
}

func TestRoutesReplaceAndDelete(t *testing.T) {
	e := newEC2Env(t)
	vpc, igw, public := e.publicNetwork()
	other := e.vpc("10.1.0.0/16")
	otherIGW := e.attachedIGW(other)
	nat := aws.ToString(e.natGateway(public, e.eip()).NatGatewayId)
	rt := aws.ToString(e.mainRouteTable(vpc).RouteTableId)
	dst := aws.String("0.0.0.0/0")

	for _, tc := range []struct {
		name string
		in   *ec2.CreateRouteInput
		code string
	}{
		{"unknown gateway", &ec2.CreateRouteInput{RouteTableId: &rt, DestinationCidrBlock: dst, GatewayId: aws.String("igw-0123456789abcdef0")}, "InvalidGatewayID.NotFound"},
		{"another VPC's gateway", &ec2.CreateRouteInput{RouteTableId: &rt, DestinationCidrBlock: dst, GatewayId: &otherIGW}, "InvalidParameterValue"},
		{"unknown NAT gateway", &ec2.CreateRouteInput{RouteTableId: &rt, DestinationCidrBlock: dst, NatGatewayId: aws.String("nat-0123456789abcdef0")}, "InvalidNatGatewayID.NotFound"},
		{"two targets", &ec2.CreateRouteInput{RouteTableId: &rt, DestinationCidrBlock: dst, GatewayId: &igw, NatGatewayId: &nat}, "InvalidParameterCombination"},
		{"no target", &ec2.CreateRouteInput{RouteTableId: &rt, DestinationCidrBlock: dst}, "MissingParameter"},
		{"bad destination", &ec2.CreateRouteInput{RouteTableId: &rt, DestinationCidrBlock: aws.String("0.0.0.1/0"), GatewayId: &igw}, "InvalidParameterValue"},
		{"unknown table", &ec2.CreateRouteInput{RouteTableId: aws.String("rtb-0123456789abcdef0"), DestinationCidrBlock: dst, GatewayId: &igw}, "InvalidRouteTableID.NotFound"},
	} {
		_, err := e.ec2.CreateRoute(e.ctx, tc.in)
		e.wantErr(tc.name, err, tc.code)
	}

	_, err := e.ec2.ReplaceRoute(e.ctx, &ec2.ReplaceRouteInput{RouteTableId: &rt, DestinationCidrBlock: dst, GatewayId: &igw})
	e.wantErr("ReplaceRoute of a missing route", err, "InvalidParameterValue")
	_, err = e.ec2.CreateRoute(e.ctx, &ec2.CreateRouteInput{RouteTableId: &rt, DestinationCidrBlock: dst, GatewayId: &igw})
	e.ok("CreateRoute", err)
	_, err = e.ec2.ReplaceRoute(e.ctx, &ec2.ReplaceRouteInput{RouteTableId: &rt, DestinationCidrBlock: dst, NatGatewayId: &nat})
	e.ok("ReplaceRoute", err)
	if r := e.routeTable(rt).Routes[1]; aws.ToString(r.NatGatewayId) != nat || aws.ToString(r.GatewayId) != "" {
		t.Errorf("after ReplaceRoute: %+v, want the NAT gateway only", r)
	}
	_, err = e.ec2.DeleteRoute(e.ctx, &ec2.DeleteRouteInput{RouteTableId: &rt, DestinationCidrBlock: aws.String("10.0.0.0/16")})
	e.wantErr("DeleteRoute of the local route", err, "InvalidParameterValue")
	_, err = e.ec2.DeleteRoute(e.ctx, &ec2.DeleteRouteInput{RouteTableId: &rt, DestinationCidrBlock: aws.String("192.168.0.0/16")})
	e.wantErr("DeleteRoute of a missing route", err, "InvalidRoute.NotFound")
	_, err = e.ec2.DeleteRoute(e.ctx, &ec2.DeleteRouteInput{RouteTableId: &rt, DestinationCidrBlock: dst})
	e.ok("DeleteRoute", err)
	if routes := e.routeTable(rt).Routes; len(routes) != 1 {
		t.Errorf("routes after DeleteRoute: %+v", routes)
	}

	// A detached gateway leaves its routes blackholed.
	_, err = e.ec2.CreateRoute(e.ctx, &ec2.CreateRouteInput{RouteTableId: &rt, DestinationCidrBlock: aws.String("192.168.0.0/16"), GatewayId: &igw})
	e.ok("CreateRoute", err)
	_, err = e.ec2.DeleteNatGateway(e.ctx, &ec2.DeleteNatGatewayInput{NatGatewayId: &nat})
	e.ok("DeleteNatGateway", err)
	e.clk.Advance(natDeleting)
	_, err = e.ec2.DetachInternetGateway(e.ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: &igw, VpcId: &vpc})
	e.ok("DetachInternetGateway", err)
	if r := e.routeTable(rt).Routes[1]; r.State != ec2types.RouteStateBlackhole {
		t.Errorf("route through a detached gateway: %+v, want blackhole", r)
	}
}

func TestRouteTableClientTokenAndPages(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	in := &ec2.CreateRouteTableInput{VpcId: &vpc, ClientToken: aws.String("rt-token")}
	first, err := e.ec2.CreateRouteTable(e.ctx, in)
	e.ok("CreateRouteTable", err)
	again, err := e.ec2.CreateRouteTable(e.ctx, in)
	e.ok("CreateRouteTable retried", err)
	if aws.ToString(first.RouteTable.RouteTableId) != aws.ToString(again.RouteTable.RouteTableId) {
		t.Errorf("same token made two tables")
	}
	for i := 0; i < 5; i++ {
		_, err := e.ec2.CreateRouteTable(e.ctx, &ec2.CreateRouteTableInput{VpcId: &vpc, ClientToken: aws.String(fmt.Sprint("t", i))})
		e.ok("CreateRouteTable", err)
	}
	// Seven tables: the main one and six created.
	n, pages := 0, 0
	p := ec2.NewDescribeRouteTablesPaginator(e.ec2, &ec2.DescribeRouteTablesInput{MaxResults: aws.Int32(5)})
	for p.HasMorePages() {
		page, err := p.NextPage(e.ctx)
		e.ok("DescribeRouteTables page", err)
		n += len(page.RouteTables)
		pages++
	}
	if n != 7 || pages != 2 {
		t.Errorf("%d tables on %d pages, want 7 on 2", n, pages)
	}
	_, err = e.ec2.DescribeRouteTables(e.ctx, &ec2.DescribeRouteTablesInput{MaxResults: aws.Int32(101)})
	e.wantErr("MaxResults above 100", err, "InvalidParameterValue")
}

// A gateway endpoint (S3) shows up in its route tables as a prefix-list
// route and keeps them from being deleted.
func TestGatewayEndpointRoutes(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	out, err := e.ec2.CreateRouteTable(e.ctx, &ec2.CreateRouteTableInput{VpcId: &vpc})
	e.ok("CreateRouteTable", err)
	rt := aws.ToString(out.RouteTable.RouteTableId)
	ep, err := e.ec2.CreateVpcEndpoint(e.ctx, &ec2.CreateVpcEndpointInput{VpcId: &vpc, VpcEndpointType: ec2types.VpcEndpointTypeGateway,
		ServiceName: aws.String("com.amazonaws.us-east-1.s3"), RouteTableIds: []string{rt}})
	e.ok("CreateVpcEndpoint", err)
	routes := e.routeTable(rt).Routes
	if len(routes) != 2 || aws.ToString(routes[1].GatewayId) != aws.ToString(ep.VpcEndpoint.VpcEndpointId) ||
		aws.ToString(routes[1].DestinationPrefixListId) == "" {
		t.Errorf("routes of the endpoint's table = %+v", routes)
	}
	_, err = e.ec2.DeleteRouteTable(e.ctx, &ec2.DeleteRouteTableInput{RouteTableId: &rt})
	e.wantErr("DeleteRouteTable used by a gateway endpoint", err, "DependencyViolation")
}
