package aws

import (
	"context"
	"strings"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// The destroy steps for EC2, each finding its resources by the cluster tag
// alone: the control-plane operator's endpoint and security group carry it
// as the CLI's resources do.

func (r *run) owned() []ec2types.Filter { return []ec2types.Filter{ownedFilter(r.opts.InfraID)} }

func nameOf(tags []ec2types.Tag) string { return awscloud.TagMap(tags)[nameTagKey] }

// deleteEndpoints deletes the VPC endpoints (the S3 gateway endpoint, the
// operator's interface endpoints) and waits until they are gone: their
// network interfaces hold subnets and security groups until then.
func (r *run) deleteEndpoints(ctx context.Context) ([]string, error) {
	eps := awscloud.VPCEndpoints{EC2: r.c.EC2}
	found, err := eps.List(ctx, r.owned())
	if err != nil || len(found) == 0 {
		return nil, err
	}
	var ids, left []string
	for _, ep := range found {
		id := awssdk.ToString(ep.VpcEndpointId)
		left = append(left, "VPC endpoint "+id)
		if !awscloud.EndpointGone(ep.State) {
			ids = append(ids, id)
		}
	}
	if err := eps.Delete(ctx, ids...); err != nil {
		return left, err
	}
	for _, ep := range found {
		if !awscloud.EndpointGone(ep.State) {
			r.say.Done("deleting", "VPC endpoint", awssdk.ToString(ep.VpcEndpointId), nameOf(ep.Tags))
		}
	}
	return left, r.waitGone(ctx, "VPC endpoints", func(ctx context.Context) ([]string, error) {
		now, err := eps.List(ctx, r.owned())
		var still []string
		for _, ep := range now {
			still = append(still, awssdk.ToString(ep.VpcEndpointId))
		}
		return still, err
	})
}

// deleteSecurityGroups revokes the rules of every tagged group and
// deletes it (the shared provider does both).
func (r *run) deleteSecurityGroups(ctx context.Context) ([]string, error) {
	sgs := awscloud.SecurityGroups{EC2: r.c.EC2}
	found, err := sgs.List(ctx, r.owned())
	if err != nil {
		return nil, err
	}
	var left []string
	for _, sg := range found {
		id := awssdk.ToString(sg.GroupId)
		left = append(left, "security group "+id)
		if err := sgs.Delete(ctx, sg); err != nil {
			return left, err
		}
		r.say.Done("deleted", "security group", id, awssdk.ToString(sg.GroupName))
	}
	return left, nil
}

// startDeletingNATGateways asks for every gateway's deletion (a failed
// one too, so that it goes at once rather than in an hour) without
// waiting: gateways take a minute to go, and the endpoints' deletion can
// run meanwhile. deleteNATGateways, later in the pass, waits and reports.
func (r *run) startDeletingNATGateways(ctx context.Context) ([]string, error) {
	found, err := r.liveNATGateways(ctx)
	if err != nil {
		return nil, err
	}
	return nil, r.requestNATDeletions(ctx, found)
}

// requestNATDeletions asks for the deletion of each gateway not deleting.
func (r *run) requestNATDeletions(ctx context.Context, gateways []ec2types.NatGateway) error {
	for _, g := range gateways {
		id := awssdk.ToString(g.NatGatewayId)
		if g.State == ec2types.NatGatewayStateDeleting {
			continue
		}
		if _, err := r.c.EC2.DeleteNatGateway(ctx, &ec2.DeleteNatGatewayInput{NatGatewayId: awssdk.String(id)}); !gone(err) {
			return awscloud.Wrap("deleting NAT gateway "+id, err)
		}
		r.say.Done("deleting", "NAT gateway", id, nameOf(g.Tags))
	}
	return nil
}

// deleteNATGateways waits until the gateways are deleted (until then they
// hold their subnet and Elastic IP), asking again for any deletion the
// first step could not start.
func (r *run) deleteNATGateways(ctx context.Context) ([]string, error) {
	found, err := r.liveNATGateways(ctx)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	var left []string
	for _, g := range found {
		left = append(left, "NAT gateway "+awssdk.ToString(g.NatGatewayId))
	}
	if err := r.requestNATDeletions(ctx, found); err != nil {
		return left, err
	}
	return left, r.waitGone(ctx, "NAT gateways", func(ctx context.Context) ([]string, error) {
		now, err := r.liveNATGateways(ctx)
		var still []string
		for _, g := range now {
			still = append(still, awssdk.ToString(g.NatGatewayId))
		}
		return still, err
	})
}

// liveNATGateways are the tagged gateways not yet deleted.
func (r *run) liveNATGateways(ctx context.Context) ([]ec2types.NatGateway, error) {
	out, err := r.c.EC2.DescribeNatGateways(ctx, &ec2.DescribeNatGatewaysInput{Filter: r.owned()})
	if err != nil {
		return nil, awscloud.Wrap("listing NAT gateways", err)
	}
	var live []ec2types.NatGateway
	for _, g := range out.NatGateways {
		if g.State != ec2types.NatGatewayStateDeleted {
			live = append(live, g)
		}
	}
	return live, nil
}

// deleteRouteTables removes each tagged table's subnet associations and
// the table; the VPC's main table goes with the VPC.
func (r *run) deleteRouteTables(ctx context.Context) ([]string, error) {
	out, err := r.c.EC2.DescribeRouteTables(ctx, &ec2.DescribeRouteTablesInput{Filters: r.owned()})
	if err != nil {
		return nil, awscloud.Wrap("listing route tables", err)
	}
	var left []string
	for _, rt := range out.RouteTables {
		id, main := awssdk.ToString(rt.RouteTableId), false
		for _, a := range rt.Associations {
			if awssdk.ToBool(a.Main) {
				main = true
				continue
			}
			if _, err := r.c.EC2.DisassociateRouteTable(ctx, &ec2.DisassociateRouteTableInput{AssociationId: a.RouteTableAssociationId}); !gone(err) {
				return append(left, "route table "+id), awscloud.Wrap("disassociating route table "+id, err)
			}
		}
		if main {
			continue
		}
		left = append(left, "route table "+id)
		if _, err := r.c.EC2.DeleteRouteTable(ctx, &ec2.DeleteRouteTableInput{RouteTableId: awssdk.String(id)}); !gone(err) {
			return left, awscloud.Wrap("deleting route table "+id, err)
		}
		r.say.Done("deleted", "route table", id, nameOf(rt.Tags))
	}
	return left, nil
}

func (r *run) deleteSubnets(ctx context.Context) ([]string, error) {
	out, err := r.c.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: r.owned()})
	if err != nil {
		return nil, awscloud.Wrap("listing subnets", err)
	}
	var targets []target
	for _, s := range out.Subnets {
		targets = append(targets, target{awssdk.ToString(s.SubnetId), nameOf(s.Tags)})
	}
	return r.deleteTargets(ctx, "subnet", targets, func(ctx context.Context, id string) error {
		_, err := r.c.EC2.DeleteSubnet(ctx, &ec2.DeleteSubnetInput{SubnetId: awssdk.String(id)})
		return err
	})
}

// deleteInternetGateways detaches each gateway from its VPCs and deletes it.
func (r *run) deleteInternetGateways(ctx context.Context) ([]string, error) {
	out, err := r.c.EC2.DescribeInternetGateways(ctx, &ec2.DescribeInternetGatewaysInput{Filters: r.owned()})
	if err != nil {
		return nil, awscloud.Wrap("listing internet gateways", err)
	}
	var targets []target
	attached := map[string][]ec2types.InternetGatewayAttachment{}
	for _, g := range out.InternetGateways {
		id := awssdk.ToString(g.InternetGatewayId)
		targets, attached[id] = append(targets, target{id, nameOf(g.Tags)}), g.Attachments
	}
	return r.deleteTargets(ctx, "internet gateway", targets, func(ctx context.Context, id string) error {
		for _, a := range attached[id] {
			if _, err := r.c.EC2.DetachInternetGateway(ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: awssdk.String(id), VpcId: a.VpcId}); !gone(err) {
				return err
			}
		}
		_, err := r.c.EC2.DeleteInternetGateway(ctx, &ec2.DeleteInternetGatewayInput{InternetGatewayId: awssdk.String(id)})
		return err
	})
}

func (r *run) deleteVPCs(ctx context.Context) ([]string, error) {
	out, err := r.c.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{Filters: r.owned()})
	if err != nil {
		return nil, awscloud.Wrap("listing VPCs", err)
	}
	var targets []target
	for _, v := range out.Vpcs {
		targets = append(targets, target{awssdk.ToString(v.VpcId), nameOf(v.Tags)})
	}
	return r.deleteTargets(ctx, "VPC", targets, func(ctx context.Context, id string) error {
		_, err := r.c.EC2.DeleteVpc(ctx, &ec2.DeleteVpcInput{VpcId: awssdk.String(id)})
		return err
	})
}

// releaseElasticIPs releases every tagged address, including one a failed
// NAT gateway left unused; one still held by a deleting gateway waits.
func (r *run) releaseElasticIPs(ctx context.Context) ([]string, error) {
	out, err := r.c.EC2.DescribeAddresses(ctx, &ec2.DescribeAddressesInput{Filters: r.owned()})
	if err != nil {
		return nil, awscloud.Wrap("listing Elastic IPs", err)
	}
	var left []string
	for _, a := range out.Addresses {
		id := awssdk.ToString(a.AllocationId)
		left = append(left, "Elastic IP "+id)
		if awssdk.ToString(a.AssociationId) != "" {
			continue
		}
		if _, err := r.c.EC2.ReleaseAddress(ctx, &ec2.ReleaseAddressInput{AllocationId: awssdk.String(id)}); !gone(err) {
			return left, awscloud.Wrap("releasing Elastic IP "+id, err)
		}
		r.say.Done("released", "Elastic IP", id, nameOf(a.Tags))
	}
	return left, nil
}

func (r *run) deleteDHCPOptions(ctx context.Context) ([]string, error) {
	out, err := r.c.EC2.DescribeDhcpOptions(ctx, &ec2.DescribeDhcpOptionsInput{Filters: r.owned()})
	if err != nil {
		return nil, awscloud.Wrap("listing DHCP options", err)
	}
	var targets []target
	for _, d := range out.DhcpOptions {
		targets = append(targets, target{awssdk.ToString(d.DhcpOptionsId), nameOf(d.Tags)})
	}
	return r.deleteTargets(ctx, "DHCP options", targets, func(ctx context.Context, id string) error {
		_, err := r.c.EC2.DeleteDhcpOptions(ctx, &ec2.DeleteDhcpOptionsInput{DhcpOptionsId: awssdk.String(id)})
		return err
	})
}

// target is one resource a destroy step deletes.
type target struct{ id, name string }

// deleteTargets deletes each target with del, one line each; a target
// already gone counts as deleted. It returns every target as still there
// (the next pass checks), and stops at the first error (often a
// dependency the next pass will not meet).
func (r *run) deleteTargets(ctx context.Context, kind string, targets []target, del func(context.Context, string) error) ([]string, error) {
	var left []string
	for _, t := range targets {
		left = append(left, kind+" "+t.id)
		if err := del(ctx, t.id); !gone(err) {
			return left, awscloud.Wrap("deleting "+kind+" "+t.id, err)
		}
		r.say.Done("deleted", kind, t.id, t.name)
	}
	return left, nil
}

// waitGone polls list until it returns nothing, saying what it waits on.
func (r *run) waitGone(ctx context.Context, what string, list func(context.Context) ([]string, error)) error {
	defer r.say.Waiting("")
	for {
		still, err := list(ctx)
		if err != nil || len(still) == 0 || time.Now().After(r.deadline) {
			return err // past the grace period, the pass loop reports what remains
		}
		r.say.Waiting(what + " " + strings.Join(still, ", ") + " to be deleted")
		if err := r.pause(ctx); err != nil {
			return err
		}
	}
}
