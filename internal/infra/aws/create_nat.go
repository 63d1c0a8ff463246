package aws

import (
	"context"
	"fmt"
	"strings"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// ensureNATGateways finds or creates an Elastic IP and a NAT gateway in
// each zone's public subnet (only the first zone's with
// SingleNATGateway), then waits until all are available. It returns the
// gateways by zone index.
func (r *run) ensureNATGateways(ctx context.Context, publicSubnets []string) ([]string, error) {
	zones := r.opts.Zones
	if r.opts.SingleNATGateway {
		zones = zones[:1]
	}
	var ids []string
	for i, zone := range zones {
		id, err := r.ensureNATGateway(ctx, zone, publicSubnets[i])
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, r.waitNATGatewaysAvailable(ctx, ids)
}

func (r *run) ensureNATGateway(ctx context.Context, zone, subnetID string) (string, error) {
	name := r.opts.natName(zone)
	out, err := r.c.EC2.DescribeNatGateways(ctx, &ec2.DescribeNatGatewaysInput{Filter: r.opts.namedFilters(name)})
	if err != nil {
		return "", awscloud.Wrap("looking up NAT gateway "+name, err)
	}
	failed := 0
	for _, g := range out.NatGateways {
		switch g.State {
		case ec2types.NatGatewayStatePending, ec2types.NatGatewayStateAvailable:
			r.say.Done("found", "NAT gateway", awssdk.ToString(g.NatGatewayId), name)
			return awssdk.ToString(g.NatGatewayId), nil
		case ec2types.NatGatewayStateFailed:
			failed++
		}
	}
	allocationID, err := r.ensureElasticIP(ctx, zone)
	if err != nil {
		return "", err
	}
	// The token makes a create retried after a lost answer the same
	// create; a failed gateway's successor needs a new one.
	token := awscloud.ClientToken("nat-gateway", r.opts.InfraID+"/"+zone+"/"+allocationID, int64(failed))
	created, err := r.c.EC2.CreateNatGateway(ctx, &ec2.CreateNatGatewayInput{SubnetId: awssdk.String(subnetID), AllocationId: awssdk.String(allocationID),
		ClientToken: awssdk.String(token), TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeNatgateway, r.opts.tags(name, nil))})
	if err != nil {
		return "", awscloud.Wrap("creating NAT gateway "+name, err)
	}
	id := awssdk.ToString(created.NatGateway.NatGatewayId)
	r.say.Done("created", "NAT gateway", id, name)
	return id, nil
}

// ensureElasticIP finds or allocates the zone's Elastic IP. A gateway that
// failed releases its address, so its successor takes the same one: a
// failed gateway never leaves an extra address behind.
func (r *run) ensureElasticIP(ctx context.Context, zone string) (string, error) {
	name := r.opts.eipName(zone)
	out, err := r.c.EC2.DescribeAddresses(ctx, &ec2.DescribeAddressesInput{Filters: r.opts.namedFilters(name)})
	if err != nil {
		return "", awscloud.Wrap("looking up Elastic IP "+name, err)
	}
	if len(out.Addresses) > 0 {
		id := awssdk.ToString(out.Addresses[0].AllocationId)
		r.say.Done("found", "Elastic IP", id, name)
		return id, nil
	}
	eip, err := r.c.EC2.AllocateAddress(ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc,
		TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeElasticIp, r.opts.tags(name, nil))})
	if err != nil {
		return "", awscloud.Wrap("allocating Elastic IP "+name, err)
	}
	id := awssdk.ToString(eip.AllocationId)
	r.say.Done("created", "Elastic IP", id, name+", "+awssdk.ToString(eip.PublicIp))
	return id, nil
}

// waitNATGatewaysAvailable polls until every gateway is available; a
// failed one ends the wait with what AWS said and how to resume.
func (r *run) waitNATGatewaysAvailable(ctx context.Context, ids []string) error {
	defer r.say.Waiting("")
	deadline := time.Now().Add(r.createWait())
	for {
		out, err := r.c.EC2.DescribeNatGateways(ctx, &ec2.DescribeNatGatewaysInput{NatGatewayIds: ids})
		if err != nil {
			return awscloud.Wrap("reading NAT gateways "+strings.Join(ids, ", "), err)
		}
		var pending []string
		for _, g := range out.NatGateways {
			id := awssdk.ToString(g.NatGatewayId)
			switch g.State {
			case ec2types.NatGatewayStateAvailable:
			case ec2types.NatGatewayStateFailed:
				return fmt.Errorf("NAT gateway %s failed (%s: %s); re-run the same command: it creates a new gateway with the same Elastic IP",
					id, awssdk.ToString(g.FailureCode), awssdk.ToString(g.FailureMessage))
			default:
				pending = append(pending, id)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		r.say.Waiting("NAT gateway " + strings.Join(pending, ", ") + " to become available")
		if time.Now().After(deadline) {
			return fmt.Errorf("NAT gateway %s still not available after %s; re-run the same command to keep waiting", strings.Join(pending, ", "), r.createWait())
		}
		if err := r.pause(ctx); err != nil {
			return err
		}
	}
}
