package aws

import (
	"context"
	"fmt"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

const defaultRoute = "0.0.0.0/0"

// ensureRouting sets up the public route table (the VPC's main table, to
// the internet gateway), the NAT gateways and one private route table per
// zone (to its zone's NAT gateway, or the single one). It returns every
// route table, for the S3 endpoint.
func (r *run) ensureRouting(ctx context.Context, vpcID, igwID string, net subnets) ([]string, error) {
	public, err := r.ensurePublicTable(ctx, vpcID, igwID, net.public)
	if err != nil {
		return nil, err
	}
	tables := []string{public}
	if r.opts.PublicOnly {
		return tables, nil
	}
	nats, err := r.ensureNATGateways(ctx, net.public)
	if err != nil {
		return nil, err
	}
	for i, zone := range r.opts.Zones {
		nat := nats[0]
		if i < len(nats) {
			nat = nats[i]
		}
		id, err := r.ensurePrivateTable(ctx, vpcID, zone, nat, net.private[i])
		if err != nil {
			return nil, err
		}
		tables = append(tables, id)
	}
	return tables, nil
}

// ensurePublicTable takes the VPC's main route table as the public one:
// tagged and named, routed to the internet gateway, and associated with
// the public subnets. Using the main table (rather than a new one made
// main) leaves no untagged table behind that would block deleting the VPC.
func (r *run) ensurePublicTable(ctx context.Context, vpcID, igwID string, subnetIDs []string) (string, error) {
	out, err := r.c.EC2.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{
		awscloud.Filter("vpc-id", vpcID), awscloud.Filter("association.main", "true")}})
	if err != nil {
		return "", awscloud.Wrap("reading the main route table of VPC "+vpcID, err)
	}
	if len(out.RouteTables) == 0 {
		return "", fmt.Errorf("VPC %s has no main route table: it was changed outside hcplink; delete the VPC with `hcplink destroy infra aws` and create it again", vpcID)
	}
	rt := out.RouteTables[0]
	id, name := awssdk.ToString(rt.RouteTableId), r.opts.publicTableName()
	set, _ := awscloud.TagDiff(r.opts.tags(name, nil), awscloud.TagMap(rt.Tags), func(string) bool { return false })
	if err := awscloud.UpdateTags(ctx, r.c.EC2, "", id, set, nil); err != nil {
		return "", err
	}
	verb := "found"
	if len(set) > 0 {
		verb = "tagged"
	}
	r.say.Done(verb, "route table", id, name)
	if err := r.ensureRoute(ctx, rt, &ec2.CreateRouteInput{GatewayId: awssdk.String(igwID)}); err != nil {
		return "", err
	}
	return id, r.ensureAssociations(ctx, rt, subnetIDs)
}

// ensurePrivateTable finds or creates a zone's private route table, routed
// to natID and associated with the zone's private subnet.
func (r *run) ensurePrivateTable(ctx context.Context, vpcID, zone, natID, subnetID string) (string, error) {
	name := r.opts.privateTableName(zone)
	rt, err := findOrCreate(ctx, r, "route table", name, func(t ec2types.RouteTable) string { return awssdk.ToString(t.RouteTableId) },
		func(ctx context.Context) ([]ec2types.RouteTable, error) {
			out, err := r.c.EC2.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{Filters: r.opts.namedFilters(name)})
			if err != nil {
				return nil, awscloud.Wrap("looking up route table "+name, err)
			}
			return out.RouteTables, nil
		},
		func(ctx context.Context) (ec2types.RouteTable, error) {
			out, err := r.c.EC2.CreateRouteTable(ctx, &ec2.CreateRouteTableInput{VpcId: awssdk.String(vpcID),
				TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeRouteTable, r.opts.tags(name, nil))})
			if err != nil {
				return ec2types.RouteTable{}, awscloud.Wrap("creating route table "+name, err)
			}
			return *out.RouteTable, nil
		})
	if err != nil {
		return "", err
	}
	if err := r.ensureRoute(ctx, rt, &ec2.CreateRouteInput{NatGatewayId: awssdk.String(natID)}); err != nil {
		return "", err
	}
	return awssdk.ToString(rt.RouteTableId), r.ensureAssociations(ctx, rt, []string{subnetID})
}

// ensureRoute adds the default route with route's target unless the table
// has a default route already.
func (r *run) ensureRoute(ctx context.Context, rt ec2types.RouteTable, route *ec2.CreateRouteInput) error {
	for _, rr := range rt.Routes {
		if awssdk.ToString(rr.DestinationCidrBlock) == defaultRoute {
			return nil
		}
	}
	id := awssdk.ToString(rt.RouteTableId)
	route.RouteTableId, route.DestinationCidrBlock = awssdk.String(id), awssdk.String(defaultRoute)
	_, err := r.c.EC2.CreateRoute(ctx, route)
	return awscloud.Wrap("adding the default route to route table "+id, err)
}

// ensureAssociations associates the subnets the table does not have yet.
func (r *run) ensureAssociations(ctx context.Context, rt ec2types.RouteTable, subnetIDs []string) error {
	var have []string
	for _, a := range rt.Associations {
		have = append(have, awssdk.ToString(a.SubnetId))
	}
	id := awssdk.ToString(rt.RouteTableId)
	for _, s := range missing(subnetIDs, have) {
		if _, err := r.c.EC2.AssociateRouteTable(ctx, &ec2.AssociateRouteTableInput{RouteTableId: awssdk.String(id), SubnetId: awssdk.String(s)}); err != nil {
			return awscloud.Wrap("associating subnet "+s+" with route table "+id, err)
		}
	}
	return nil
}

// ensureS3Endpoint finds or creates the S3 gateway endpoint on every route
// table, so that nodes reach S3 without the NAT gateways.
func (r *run) ensureS3Endpoint(ctx context.Context, vpcID string, tables []string) error {
	name := r.opts.s3EndpointName()
	eps := awscloud.VPCEndpoints{EC2: r.c.EC2}
	found, err := eps.List(ctx, append(r.opts.namedFilters(name), awscloud.Filter("vpc-id", vpcID)))
	if err != nil {
		return err
	}
	if len(found) == 0 {
		out, err := r.c.EC2.CreateVpcEndpoint(ctx, &ec2.CreateVpcEndpointInput{VpcId: awssdk.String(vpcID),
			VpcEndpointType: ec2types.VpcEndpointTypeGateway, ServiceName: awssdk.String("com.amazonaws." + r.opts.Region + ".s3"),
			RouteTableIds: tables, ClientToken: awssdk.String(awscloud.ClientToken("s3-endpoint", vpcID, 0)),
			TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeVpcEndpoint, r.opts.tags(name, nil))})
		if err != nil {
			return awscloud.Wrap("creating S3 gateway endpoint "+name, err)
		}
		r.say.Done("created", "S3 gateway endpoint", awssdk.ToString(out.VpcEndpoint.VpcEndpointId), name)
		return nil
	}
	ep := found[0]
	id := awssdk.ToString(ep.VpcEndpointId)
	r.say.Done("found", "S3 gateway endpoint", id, name)
	add := missing(tables, ep.RouteTableIds)
	if len(add) == 0 {
		return nil
	}
	_, err = r.c.EC2.ModifyVpcEndpoint(ctx, &ec2.ModifyVpcEndpointInput{VpcEndpointId: awssdk.String(id), AddRouteTableIds: add})
	return awscloud.Wrap("adding route tables to S3 gateway endpoint "+id, err)
}
