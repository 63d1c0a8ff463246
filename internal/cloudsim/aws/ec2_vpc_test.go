package aws_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

func TestVpcComesWithMainRouteTableAndDefaultSecurityGroup(t *testing.T) {
	e := newEC2Env(t)
	out, err := e.ec2.CreateVpc(e.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16"),
		TagSpecifications: ec2TagSpec(ec2types.ResourceTypeVpc, "Name", "infra-vpc")})
	e.ok("CreateVpc", err)
	vpc := out.Vpc
	id := aws.ToString(vpc.VpcId)
	if vpc.State != ec2types.VpcStatePending || aws.ToString(vpc.CidrBlock) != "10.0.0.0/16" ||
		aws.ToString(vpc.OwnerId) != cloudsimtest.ManagementAccount || aws.ToString(vpc.DhcpOptionsId) != "default" {
		t.Errorf("CreateVpc answered %+v", vpc)
	}
	if name, _ := ec2TagValue(vpc.Tags, "Name"); name != "infra-vpc" {
		t.Errorf("CreateVpc tags = %v, want Name=infra-vpc", vpc.Tags)
	}

	described, err := e.ec2.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{VpcIds: []string{id}})
	e.ok("DescribeVpcs", err)
	if len(described.Vpcs) != 1 || described.Vpcs[0].State != ec2types.VpcStateAvailable {
		t.Fatalf("DescribeVpcs = %+v, want one available VPC", described.Vpcs)
	}
	assocs := described.Vpcs[0].CidrBlockAssociationSet
	if len(assocs) != 1 || aws.ToString(assocs[0].CidrBlock) != "10.0.0.0/16" ||
		assocs[0].CidrBlockState.State != ec2types.VpcCidrBlockStateCodeAssociated {
		t.Errorf("CIDR associations = %+v", assocs)
	}

	main := e.mainRouteTable(id)
	if len(main.Routes) != 1 || aws.ToString(main.Routes[0].GatewayId) != "local" ||
		aws.ToString(main.Routes[0].DestinationCidrBlock) != "10.0.0.0/16" || main.Routes[0].State != ec2types.RouteStateActive {
		t.Errorf("main route table routes = %+v, want only the active local route", main.Routes)
	}

	groups, err := e.ec2.DescribeSecurityGroups(e.ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{
		ec2Filter("vpc-id", id)}})
	e.ok("DescribeSecurityGroups", err)
	if len(groups.SecurityGroups) != 1 || aws.ToString(groups.SecurityGroups[0].GroupName) != "default" {
		t.Fatalf("VPC security groups = %+v, want the default group", groups.SecurityGroups)
	}
	def := groups.SecurityGroups[0]
	if len(def.IpPermissions) != 1 || len(def.IpPermissions[0].UserIdGroupPairs) != 1 ||
		aws.ToString(def.IpPermissions[0].UserIdGroupPairs[0].GroupId) != aws.ToString(def.GroupId) {
		t.Errorf("default group ingress = %+v, want all traffic from itself", def.IpPermissions)
	}
	if len(def.IpPermissionsEgress) != 1 || aws.ToString(def.IpPermissionsEgress[0].IpProtocol) != "-1" ||
		aws.ToString(def.IpPermissionsEgress[0].IpRanges[0].CidrIp) != "0.0.0.0/0" {
		t.Errorf("default group egress = %+v, want all traffic to 0.0.0.0/0", def.IpPermissionsEgress)
	}

	_, err = e.ec2.DeleteVpc(e.ctx, &ec2.DeleteVpcInput{VpcId: &id})
	e.ok("DeleteVpc", err)
	_, err = e.ec2.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{VpcIds: []string{id}})
	e.wantErr("DescribeVpcs after delete", err, "InvalidVpcID.NotFound")
	_, err = e.ec2.DeleteVpc(e.ctx, &ec2.DeleteVpcInput{VpcId: &id})
	e.wantErr("DeleteVpc twice", err, "InvalidVpcID.NotFound")
	_, err = e.ec2.DescribeRouteTables(e.ctx, &ec2.DescribeRouteTablesInput{RouteTableIds: []string{aws.ToString(main.RouteTableId)}})
	e.wantErr("main route table after DeleteVpc", err, "InvalidRouteTableID.NotFound")
	_, err = e.ec2.DescribeSecurityGroups(e.ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{aws.ToString(def.GroupId)}})
	e.wantErr("default group after DeleteVpc", err, "InvalidGroup.NotFound")
	tags, err := e.ec2.DescribeTags(e.ctx, &ec2.DescribeTagsInput{})
	e.ok("DescribeTags", err)
	if len(tags.Tags) != 0 {
		t.Errorf("tags left after DeleteVpc: %+v", tags.Tags)
	}
}

func TestCreateVpcChecksTheCidr(t *testing.T) {
	e := newEC2Env(t)
	for _, tc := range []struct{ cidr, code string }{
		{"10.0.0.0/15", "InvalidVpc.Range"},
		{"10.0.0.0/29", "InvalidVpc.Range"},
		{"10.0.0.1/16", "InvalidParameterValue"},
		{"banana", "InvalidParameterValue"},
		{"", "MissingParameter"},
	} {
		in := &ec2.CreateVpcInput{}
		if tc.cidr != "" {
			in.CidrBlock = aws.String(tc.cidr)
		}
		_, err := e.ec2.CreateVpc(e.ctx, in)
		e.wantErr("CreateVpc "+tc.cidr, err, tc.code)
	}
	for _, cidr := range []string{"10.0.0.0/16", "192.168.0.0/28"} {
		e.vpc(cidr)
	}
}

func TestDescribeVpcsFilters(t *testing.T) {
	e := newEC2Env(t)
	a := e.vpc("10.0.0.0/16", "Name", "infra-a", "kubernetes.io/cluster/infra-a", "owned")
	b := e.vpc("10.1.0.0/16", "Name", "infra-b")
	c := e.vpc("172.16.0.0/20")
	for _, tc := range []struct {
		name    string
		filters []ec2types.Filter
		want    []string
	}{
		{"no filter", nil, []string{a, b, c}},
		{"vpc-id", []ec2types.Filter{ec2Filter("vpc-id", b)}, []string{b}},
		{"tag:Name", []ec2types.Filter{ec2Filter("tag:Name", "infra-a")}, []string{a}},
		{"tag:Name wildcard", []ec2types.Filter{ec2Filter("tag:Name", "infra-*")}, []string{a, b}},
		{"tag-key", []ec2types.Filter{ec2Filter("tag-key", "kubernetes.io/cluster/infra-a")}, []string{a}},
		{"cidr", []ec2types.Filter{ec2Filter("cidr", "172.16.0.0/20")}, []string{c}},
		{"cidr-block-association.cidr-block", []ec2types.Filter{ec2Filter("cidr-block-association.cidr-block", "10.1.0.0/16", "10.0.0.0/16")}, []string{a, b}},
		{"state", []ec2types.Filter{ec2Filter("state", "available")}, []string{a, b, c}},
		{"is-default", []ec2types.Filter{ec2Filter("is-default", "true")}, nil},
		{"two filters AND", []ec2types.Filter{ec2Filter("tag:Name", "infra-*"), ec2Filter("cidr", "10.1.0.0/16")}, []string{b}},
	} {
		out, err := e.ec2.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{Filters: tc.filters})
		e.ok("DescribeVpcs "+tc.name, err)
		var got []string
		for _, v := range out.Vpcs {
			got = append(got, aws.ToString(v.VpcId))
		}
		if !sameIDs(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	_, err := e.ec2.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{ec2Filter("colour", "blue")}})
	e.wantErr("unknown filter", err, "InvalidParameterValue")
	_, err = e.ec2.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{VpcIds: []string{"vpc-nothex"}})
	e.wantErr("malformed ID", err, "InvalidVpcID.Malformed")
	_, err = e.ec2.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{VpcIds: []string{a, "vpc-0123456789abcdef0"}})
	e.wantErr("one unknown ID among known ones", err, "InvalidVpcID.NotFound")
}

// sameIDs compares two ID lists as sets (each ID at most once in got).
func sameIDs(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	for _, id := range want {
		if seen[id] != 1 {
			return false
		}
	}
	return true
}

func TestVpcQuotaIsPerAccountAndRegion(t *testing.T) {
	e := newEC2Env(t)
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, e.vpc("10.0.0.0/16"))
	}
	_, err := e.ec2.CreateVpc(e.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	e.wantErr("sixth VPC", err, "VpcLimitExceeded")

	other := e.clientFor(cloudsimtest.CustomerAccount)
	_, err = other.CreateVpc(e.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	e.ok("VPC in another account", err)

	_, err = e.ec2.DeleteVpc(e.ctx, &ec2.DeleteVpcInput{VpcId: &ids[0]})
	e.ok("DeleteVpc", err)
	e.vpc("10.0.0.0/16")

	// A quota increase, as Service Quotas would grant it.
	e.region(func(r *cloudaws.Region) { r.EC2.Quotas.VPCs = 6 })
	e.vpc("10.0.0.0/16")
	_, err = e.ec2.CreateVpc(e.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	e.wantErr("seventh VPC with a quota of 6", err, "VpcLimitExceeded")
}

func TestDeleteVpcWaitsForEverythingInIt(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	subnet := aws.ToString(e.subnet(vpc, "10.0.1.0/24", "us-east-1a").SubnetId)
	igw := e.attachedIGW(vpc)
	sg := e.securityGroup(vpc, "workers")
	rtOut, err := e.ec2.CreateRouteTable(e.ctx, &ec2.CreateRouteTableInput{VpcId: &vpc})
	e.ok("CreateRouteTable", err)
	rt := aws.ToString(rtOut.RouteTable.RouteTableId)

	// Each dependency blocks on its own; remove them one at a time.
	removals := []struct {
		what   string
		remove func() error
	}{
		{"subnet", func() error {
			_, err := e.ec2.DeleteSubnet(e.ctx, &ec2.DeleteSubnetInput{SubnetId: &subnet})
			return err
		}},
		{"attached internet gateway", func() error {
			_, err := e.ec2.DetachInternetGateway(e.ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: &igw, VpcId: &vpc})
			return err
		}},
		{"security group", func() error {
			_, err := e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &sg})
			return err
		}},
		{"route table", func() error {
			_, err := e.ec2.DeleteRouteTable(e.ctx, &ec2.DeleteRouteTableInput{RouteTableId: &rt})
			return err
		}},
	}
	for _, rm := range removals {
		_, err := e.ec2.DeleteVpc(e.ctx, &ec2.DeleteVpcInput{VpcId: &vpc})
		e.wantErr("DeleteVpc with a "+rm.what+" left", err, "DependencyViolation")
		e.ok("removing the "+rm.what, rm.remove())
	}
	_, err = e.ec2.DeleteVpc(e.ctx, &ec2.DeleteVpcInput{VpcId: &vpc})
	e.ok("DeleteVpc once empty", err)
	// The detached gateway outlives the VPC.
	_, err = e.ec2.DeleteInternetGateway(e.ctx, &ec2.DeleteInternetGatewayInput{InternetGatewayId: &igw})
	e.ok("DeleteInternetGateway", err)
}

func TestVpcAttributes(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	attr := func(a ec2types.VpcAttributeName) bool {
		t.Helper()
		out, err := e.ec2.DescribeVpcAttribute(e.ctx, &ec2.DescribeVpcAttributeInput{VpcId: &vpc, Attribute: a})
		e.ok("DescribeVpcAttribute "+string(a), err)
		if aws.ToString(out.VpcId) != vpc {
			t.Errorf("DescribeVpcAttribute answered for %s", aws.ToString(out.VpcId))
		}
		switch a {
		case ec2types.VpcAttributeNameEnableDnsSupport:
			return aws.ToBool(out.EnableDnsSupport.Value)
		default:
			return aws.ToBool(out.EnableDnsHostnames.Value)
		}
	}
	if !attr(ec2types.VpcAttributeNameEnableDnsSupport) || attr(ec2types.VpcAttributeNameEnableDnsHostnames) {
		t.Errorf("new VPC: want DNS support on and DNS hostnames off, as on AWS")
	}
	_, err := e.ec2.ModifyVpcAttribute(e.ctx, &ec2.ModifyVpcAttributeInput{VpcId: &vpc,
		EnableDnsHostnames: &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}})
	e.ok("ModifyVpcAttribute", err)
	if !attr(ec2types.VpcAttributeNameEnableDnsHostnames) {
		t.Errorf("enableDnsHostnames still off after ModifyVpcAttribute")
	}
	_, err = e.ec2.ModifyVpcAttribute(e.ctx, &ec2.ModifyVpcAttributeInput{VpcId: &vpc,
		EnableDnsHostnames: &ec2types.AttributeBooleanValue{Value: aws.Bool(false)},
		EnableDnsSupport:   &ec2types.AttributeBooleanValue{Value: aws.Bool(false)}})
	e.wantErr("two attributes at once", err, "InvalidParameterCombination")
	_, err = e.ec2.DescribeVpcAttribute(e.ctx, &ec2.DescribeVpcAttributeInput{VpcId: &vpc, Attribute: "colour"})
	e.wantErr("unknown attribute", err, "InvalidParameterValue")
	_, err = e.ec2.ModifyVpcAttribute(e.ctx, &ec2.ModifyVpcAttributeInput{VpcId: aws.String("vpc-0123456789abcdef0"),
		EnableDnsSupport: &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}})
	e.wantErr("unknown VPC", err, "InvalidVpcID.NotFound")
}

func TestDhcpOptions(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	out, err := e.ec2.CreateDhcpOptions(e.ctx, &ec2.CreateDhcpOptionsInput{
		DhcpConfigurations: []ec2types.NewDhcpConfiguration{
			{Key: aws.String("domain-name"), Values: []string{"ec2.internal"}},
			{Key: aws.String("domain-name-servers"), Values: []string{"AmazonProvidedDNS"}},
		},
		TagSpecifications: ec2TagSpec(ec2types.ResourceTypeDhcpOptions, "Name", "infra-dhcp"),
	})
	e.ok("CreateDhcpOptions", err)
	dopt := aws.ToString(out.DhcpOptions.DhcpOptionsId)
	if len(out.DhcpOptions.DhcpConfigurations) != 2 ||
		aws.ToString(out.DhcpOptions.DhcpConfigurations[0].Values[0].Value) != "ec2.internal" {
		t.Errorf("CreateDhcpOptions configurations = %+v", out.DhcpOptions.DhcpConfigurations)
	}
	_, err = e.ec2.AssociateDhcpOptions(e.ctx, &ec2.AssociateDhcpOptionsInput{DhcpOptionsId: &dopt, VpcId: &vpc})
	e.ok("AssociateDhcpOptions", err)
	vpcs, err := e.ec2.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{ec2Filter("dhcp-options-id", dopt)}})
	e.ok("DescribeVpcs by dhcp-options-id", err)
	if len(vpcs.Vpcs) != 1 || aws.ToString(vpcs.Vpcs[0].DhcpOptionsId) != dopt {
		t.Errorf("VPCs with the options = %+v", vpcs.Vpcs)
	}
	found, err := e.ec2.DescribeDhcpOptions(e.ctx, &ec2.DescribeDhcpOptionsInput{Filters: []ec2types.Filter{
		ec2Filter("key", "domain-name"), ec2Filter("value", "ec2.internal"), ec2Filter("tag:Name", "infra-dhcp")}})
	e.ok("DescribeDhcpOptions", err)
	if len(found.DhcpOptions) != 1 || aws.ToString(found.DhcpOptions[0].DhcpOptionsId) != dopt {
		t.Errorf("DescribeDhcpOptions by key/value/tag = %+v", found.DhcpOptions)
	}
	_, err = e.ec2.DeleteDhcpOptions(e.ctx, &ec2.DeleteDhcpOptionsInput{DhcpOptionsId: &dopt})
	e.wantErr("DeleteDhcpOptions while associated", err, "DependencyViolation")
	_, err = e.ec2.AssociateDhcpOptions(e.ctx, &ec2.AssociateDhcpOptionsInput{DhcpOptionsId: aws.String("default"), VpcId: &vpc})
	e.ok("AssociateDhcpOptions default", err)
	_, err = e.ec2.DeleteDhcpOptions(e.ctx, &ec2.DeleteDhcpOptionsInput{DhcpOptionsId: &dopt})
	e.ok("DeleteDhcpOptions", err)
	_, err = e.ec2.DescribeDhcpOptions(e.ctx, &ec2.DescribeDhcpOptionsInput{DhcpOptionsIds: []string{dopt}})
	e.wantErr("DescribeDhcpOptions after delete", err, "InvalidDhcpOptionID.NotFound")
	_, err = e.ec2.CreateDhcpOptions(e.ctx, &ec2.CreateDhcpOptionsInput{DhcpConfigurations: []ec2types.NewDhcpConfiguration{
		{Key: aws.String("favourite-colour"), Values: []string{"blue"}}}})
	e.wantErr("unknown DHCP option", err, "InvalidParameterValue")
}

func TestInternetGateways(t *testing.T) {
	e := newEC2Env(t)
	vpc, other := e.vpc("10.0.0.0/16"), e.vpc("10.1.0.0/16")
	out, err := e.ec2.CreateInternetGateway(e.ctx, &ec2.CreateInternetGatewayInput{
		TagSpecifications: ec2TagSpec(ec2types.ResourceTypeInternetGateway, "Name", "infra-igw")})
	e.ok("CreateInternetGateway", err)
	igw := aws.ToString(out.InternetGateway.InternetGatewayId)
	if len(out.InternetGateway.Attachments) != 0 {
		t.Errorf("new gateway is attached: %+v", out.InternetGateway.Attachments)
	}
	_, err = e.ec2.AttachInternetGateway(e.ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: &igw, VpcId: &vpc})
	e.ok("AttachInternetGateway", err)
	_, err = e.ec2.AttachInternetGateway(e.ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: &igw, VpcId: &other})
	e.wantErr("attaching an attached gateway", err, "Resource.AlreadyAssociated")
	second := e.attachedIGW(other)
	_, err = e.ec2.AttachInternetGateway(e.ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: &second, VpcId: &vpc})
	e.wantErr("attaching a second gateway", err, "Resource.AlreadyAssociated")

	byVpc, err := e.ec2.DescribeInternetGateways(e.ctx, &ec2.DescribeInternetGatewaysInput{Filters: []ec2types.Filter{
		ec2Filter("attachment.vpc-id", vpc)}})
	e.ok("DescribeInternetGateways by attachment.vpc-id", err)
	if len(byVpc.InternetGateways) != 1 || aws.ToString(byVpc.InternetGateways[0].InternetGatewayId) != igw ||
		byVpc.InternetGateways[0].Attachments[0].State != ec2types.AttachmentStatus("available") {
		t.Errorf("gateways attached to %s = %+v", vpc, byVpc.InternetGateways)
	}
	byTag, err := e.ec2.DescribeInternetGateways(e.ctx, &ec2.DescribeInternetGatewaysInput{Filters: []ec2types.Filter{
		ec2Filter("tag:Name", "infra-igw")}})
	e.ok("DescribeInternetGateways by tag", err)
	if len(byTag.InternetGateways) != 1 || aws.ToString(byTag.InternetGateways[0].InternetGatewayId) != igw {
		t.Errorf("gateways tagged infra-igw = %+v", byTag.InternetGateways)
	}

	_, err = e.ec2.DeleteInternetGateway(e.ctx, &ec2.DeleteInternetGatewayInput{InternetGatewayId: &igw})
	e.wantErr("DeleteInternetGateway while attached", err, "DependencyViolation")
	_, err = e.ec2.DetachInternetGateway(e.ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: &igw, VpcId: &other})
	e.wantErr("detaching from the wrong VPC", err, "Gateway.NotAttached")
	_, err = e.ec2.DetachInternetGateway(e.ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: &igw, VpcId: &vpc})
	e.ok("DetachInternetGateway", err)
	_, err = e.ec2.DeleteInternetGateway(e.ctx, &ec2.DeleteInternetGatewayInput{InternetGatewayId: &igw})
	e.ok("DeleteInternetGateway", err)
	_, err = e.ec2.DescribeInternetGateways(e.ctx, &ec2.DescribeInternetGatewaysInput{InternetGatewayIds: []string{igw}})
	e.wantErr("DescribeInternetGateways after delete", err, "InvalidInternetGatewayID.NotFound")

	// Quota: five per region; one (second) exists.
	for i := 0; i < 4; i++ {
		_, err := e.ec2.CreateInternetGateway(e.ctx, &ec2.CreateInternetGatewayInput{})
		e.ok("CreateInternetGateway", err)
	}
	_, err = e.ec2.CreateInternetGateway(e.ctx, &ec2.CreateInternetGatewayInput{})
	e.wantErr("sixth internet gateway", err, "InternetGatewayLimitExceeded")
}

func TestDryRunChangesNothing(t *testing.T) {
	e := newEC2Env(t)
	_, err := e.ec2.CreateVpc(e.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16"), DryRun: aws.Bool(true)})
	e.wantErr("CreateVpc DryRun", err, "DryRunOperation")
	out, err := e.ec2.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{})
	e.ok("DescribeVpcs", err)
	if len(out.Vpcs) != 0 {
		t.Errorf("DryRun created %d VPCs", len(out.Vpcs))
	}
}
