package aws

import (
	"context"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// ensureVPC finds or creates the VPC, then turns on DNS support and DNS
// hostnames (private zones and endpoint names need both).
func (r *run) ensureVPC(ctx context.Context) (string, error) {
	name := r.opts.vpcName()
	vpc, err := findOrCreate(ctx, r, "VPC", name, func(v ec2types.Vpc) string { return awssdk.ToString(v.VpcId) },
		func(ctx context.Context) ([]ec2types.Vpc, error) {
			out, err := r.c.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{Filters: r.opts.namedFilters(name)})
			if err != nil {
				return nil, awscloud.Wrap("looking up VPC "+name, err)
			}
			return out.Vpcs, nil
		},
		func(ctx context.Context) (ec2types.Vpc, error) {
			out, err := r.c.EC2.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: awssdk.String(r.opts.VPCCIDR),
				TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeVpc, r.opts.tags(name, nil))})
			if err != nil {
				return ec2types.Vpc{}, awscloud.Wrap("creating VPC "+name, err)
			}
			return *out.Vpc, nil
		})
	if err != nil {
		return "", err
	}
	id := awssdk.ToString(vpc.VpcId)
	for _, attr := range []ec2types.VpcAttributeName{ec2types.VpcAttributeNameEnableDnsSupport, ec2types.VpcAttributeNameEnableDnsHostnames} {
		if err := r.enableVPCAttribute(ctx, id, attr); err != nil {
			return "", err
		}
	}
	return id, nil
}

// enableVPCAttribute turns on one DNS attribute unless it is on already
// (AWS takes one attribute per call).
func (r *run) enableVPCAttribute(ctx context.Context, vpcID string, attr ec2types.VpcAttributeName) error {
	cur, err := r.c.EC2.DescribeVpcAttribute(ctx, &ec2.DescribeVpcAttributeInput{VpcId: awssdk.String(vpcID), Attribute: attr})
	if err != nil {
		return awscloud.Wrap("reading "+string(attr)+" of VPC "+vpcID, err)
	}
	on := &ec2types.AttributeBooleanValue{Value: awssdk.Bool(true)}
	in := &ec2.ModifyVpcAttributeInput{VpcId: awssdk.String(vpcID)}
	switch attr {
	case ec2types.VpcAttributeNameEnableDnsSupport:
		if cur.EnableDnsSupport != nil && awssdk.ToBool(cur.EnableDnsSupport.Value) {
			return nil
		}
		in.EnableDnsSupport = on
	default:
		if cur.EnableDnsHostnames != nil && awssdk.ToBool(cur.EnableDnsHostnames.Value) {
			return nil
		}
		in.EnableDnsHostnames = on
	}
	_, err = r.c.EC2.ModifyVpcAttribute(ctx, in)
	return awscloud.Wrap("enabling "+string(attr)+" on VPC "+vpcID, err)
}

// dhcpDomainName is the domain AWS gives instances by default: us-east-1
// has its own historical name.
func dhcpDomainName(region string) string {
	if region == "us-east-1" {
		return "ec2.internal"
	}
	return region + ".compute.internal"
}

// ensureDHCPOptions finds or creates the DHCP options and associates them
// with the VPC.
func (r *run) ensureDHCPOptions(ctx context.Context, vpcID string) error {
	name := r.opts.dhcpName()
	opts, err := findOrCreate(ctx, r, "DHCP options", name, func(d ec2types.DhcpOptions) string { return awssdk.ToString(d.DhcpOptionsId) },
		func(ctx context.Context) ([]ec2types.DhcpOptions, error) {
			out, err := r.c.EC2.DescribeDhcpOptions(ctx, &ec2.DescribeDhcpOptionsInput{Filters: r.opts.namedFilters(name)})
			if err != nil {
				return nil, awscloud.Wrap("looking up DHCP options "+name, err)
			}
			return out.DhcpOptions, nil
		},
		func(ctx context.Context) (ec2types.DhcpOptions, error) {
			out, err := r.c.EC2.CreateDhcpOptions(ctx, &ec2.CreateDhcpOptionsInput{
				DhcpConfigurations: []ec2types.NewDhcpConfiguration{
					{Key: awssdk.String("domain-name"), Values: []string{dhcpDomainName(r.opts.Region)}},
					{Key: awssdk.String("domain-name-servers"), Values: []string{"AmazonProvidedDNS"}},
				},
				TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeDhcpOptions, r.opts.tags(name, nil))})
			if err != nil {
				return ec2types.DhcpOptions{}, awscloud.Wrap("creating DHCP options "+name, err)
			}
			return *out.DhcpOptions, nil
		})
	if err != nil {
		return err
	}
	id := awssdk.ToString(opts.DhcpOptionsId)
	vpc, err := r.c.EC2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{vpcID}})
	if err != nil {
		return awscloud.Wrap("reading VPC "+vpcID, err)
	}
	if len(vpc.Vpcs) == 1 && awssdk.ToString(vpc.Vpcs[0].DhcpOptionsId) == id {
		return nil
	}
	_, err = r.c.EC2.AssociateDhcpOptions(ctx, &ec2.AssociateDhcpOptionsInput{DhcpOptionsId: awssdk.String(id), VpcId: awssdk.String(vpcID)})
	return awscloud.Wrap("associating DHCP options "+id+" with VPC "+vpcID, err)
}

// ensureInternetGateway finds or creates the internet gateway and attaches
// it to the VPC.
func (r *run) ensureInternetGateway(ctx context.Context, vpcID string) (string, error) {
	name := r.opts.igwName()
	igw, err := findOrCreate(ctx, r, "internet gateway", name, func(g ec2types.InternetGateway) string { return awssdk.ToString(g.InternetGatewayId) },
		func(ctx context.Context) ([]ec2types.InternetGateway, error) {
			out, err := r.c.EC2.DescribeInternetGateways(ctx, &ec2.DescribeInternetGatewaysInput{Filters: r.opts.namedFilters(name)})
			if err != nil {
				return nil, awscloud.Wrap("looking up internet gateway "+name, err)
			}
			return out.InternetGateways, nil
		},
		func(ctx context.Context) (ec2types.InternetGateway, error) {
			out, err := r.c.EC2.CreateInternetGateway(ctx, &ec2.CreateInternetGatewayInput{
				TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeInternetGateway, r.opts.tags(name, nil))})
			if err != nil {
				return ec2types.InternetGateway{}, awscloud.Wrap("creating internet gateway "+name, err)
			}
			return *out.InternetGateway, nil
		})
	if err != nil {
		return "", err
	}
	id := awssdk.ToString(igw.InternetGatewayId)
	for _, a := range igw.Attachments {
		if awssdk.ToString(a.VpcId) == vpcID {
			return id, nil
		}
	}
	_, err = r.c.EC2.AttachInternetGateway(ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: awssdk.String(id), VpcId: awssdk.String(vpcID)})
	return id, awscloud.Wrap("attaching internet gateway "+id+" to VPC "+vpcID, err)
}
