package aws

import (
	"context"
	"net/netip"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// ensureSubnets finds or creates each zone's public subnet and, unless
// PublicOnly, its private one, with the tags load-balancer controllers
// pick subnets by.
func (r *run) ensureSubnets(ctx context.Context, vpcID string, layout Layout) (subnets, error) {
	existing, err := r.existingSubnets(ctx, vpcID)
	if err != nil {
		return subnets{}, err
	}
	var out subnets
	for i, zone := range r.opts.Zones {
		id, err := r.ensureSubnet(ctx, existing, vpcID, zone, r.opts.publicSubnetName(zone), layout.Public[i], publicELBTagKey)
		if err != nil {
			return subnets{}, err
		}
		out.public = append(out.public, id)
		if r.opts.PublicOnly {
			continue
		}
		id, err = r.ensureSubnet(ctx, existing, vpcID, zone, r.opts.privateSubnetName(zone), layout.Private[i], internalELBTagKey)
		if err != nil {
			return subnets{}, err
		}
		out.private = append(out.private, id)
	}
	return out, nil
}

// existingSubnets are the CLI's subnets in the VPC by Name, in one read.
func (r *run) existingSubnets(ctx context.Context, vpcID string) (map[string]string, error) {
	filters := []ec2types.Filter{ownedFilter(r.opts.InfraID), awscloud.TagFilter(InfraIDTagKey, r.opts.InfraID), awscloud.Filter("vpc-id", vpcID)}
	byName := map[string]string{}
	pages := ec2.NewDescribeSubnetsPaginator(r.c.EC2, &ec2.DescribeSubnetsInput{Filters: filters})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, awscloud.Wrap("listing the subnets of VPC "+vpcID, err)
		}
		for _, s := range page.Subnets {
			byName[awscloud.TagMap(s.Tags)[nameTagKey]] = awssdk.ToString(s.SubnetId)
		}
	}
	return byName, nil
}

func (r *run) ensureSubnet(ctx context.Context, existing map[string]string, vpcID, zone, name string, block netip.Prefix, roleTag string) (string, error) {
	if id := existing[name]; id != "" {
		r.say.Done("found", "subnet", id, name)
		return id, nil
	}
	out, err := r.c.EC2.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: awssdk.String(vpcID), AvailabilityZone: awssdk.String(zone), CidrBlock: cidr(block),
		TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeSubnet, r.opts.tags(name, map[string]string{roleTag: "1"}))})
	if err != nil {
		return "", awscloud.Wrap("creating subnet "+name+" ("+block.String()+" in "+zone+")", err)
	}
	id := awssdk.ToString(out.Subnet.SubnetId)
	r.say.Done("created", "subnet", id, name+", "+block.String())
	return id, nil
}
