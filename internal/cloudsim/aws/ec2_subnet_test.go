package aws_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

func TestCreateSubnetChecksCidrAndZone(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	e.subnet(vpc, "10.0.0.0/20", "us-east-1a")
	for _, tc := range []struct {
		name         string
		vpc, cidr    string
		zone, zoneID string
		code         string
	}{
		{"outside the VPC", vpc, "10.1.0.0/24", "", "", "InvalidSubnet.Range"},
		{"larger than the VPC", vpc, "10.0.0.0/15", "", "", "InvalidSubnet.Range"},
		{"smaller than /28", vpc, "10.0.200.0/29", "", "", "InvalidSubnet.Range"},
		{"overlapping another subnet", vpc, "10.0.8.0/24", "", "", "InvalidSubnet.Conflict"},
		{"containing another subnet", vpc, "10.0.0.0/19", "", "", "InvalidSubnet.Conflict"},
		{"host bits set", vpc, "10.0.16.1/24", "", "", "InvalidParameterValue"},
		{"not a CIDR", vpc, "ten/24", "", "", "InvalidParameterValue"},
		{"unknown VPC", "vpc-0123456789abcdef0", "10.0.16.0/24", "", "", "InvalidVpcID.NotFound"},
		{"unknown zone name", vpc, "10.0.16.0/24", "us-east-1z", "", "InvalidParameterValue"},
		{"unknown zone ID", vpc, "10.0.16.0/24", "", "use1-az9", "InvalidParameterValue"},
	} {
		in := &ec2.CreateSubnetInput{VpcId: aws.String(tc.vpc), CidrBlock: aws.String(tc.cidr)}
		if tc.zone != "" {
			in.AvailabilityZone = aws.String(tc.zone)
		}
		if tc.zoneID != "" {
			in.AvailabilityZoneId = aws.String(tc.zoneID)
		}
		_, err := e.ec2.CreateSubnet(e.ctx, in)
		e.wantErr(tc.name, err, tc.code)
	}

	zones := e.zoneIDs(e.ec2)
	var otherZoneID string
	for name, id := range zones {
		if name != "us-east-1a" {
			otherZoneID = id
		}
	}
	_, err := e.ec2.CreateSubnet(e.ctx, &ec2.CreateSubnetInput{VpcId: &vpc, CidrBlock: aws.String("10.0.16.0/24"),
		AvailabilityZone: aws.String("us-east-1a"), AvailabilityZoneId: aws.String(otherZoneID)})
	e.wantErr("zone name and a different zone's ID", err, "InvalidParameterCombination")

	// A /24 has 256 addresses, five of which AWS reserves.
	s := e.subnet(vpc, "10.0.16.0/24", "us-east-1b")
	if aws.ToInt32(s.AvailableIpAddressCount) != 251 || s.State != ec2types.SubnetStateAvailable ||
		aws.ToString(s.SubnetArn) != "arn:aws:ec2:us-east-1:"+cloudsimtest.ManagementAccount+":subnet/"+aws.ToString(s.SubnetId) {
		t.Errorf("CreateSubnet answered %+v", s)
	}
}

// Zone names are per-account aliases: a subnet reports the physical zone ID
// behind the caller's own name for it.
func TestSubnetZoneIDsFollowTheAccountMapping(t *testing.T) {
	e := newEC2Env(t)
	customer := e.clientFor(cloudsimtest.CustomerAccount)
	ids := map[string]map[string]string{} // account → zone name → zone ID of the subnet created there
	for _, acct := range []struct {
		id string
		c  *ec2.Client
	}{{cloudsimtest.ManagementAccount, e.ec2}, {cloudsimtest.CustomerAccount, customer}} {
		vpcOut, err := acct.c.CreateVpc(e.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
		e.ok("CreateVpc", err)
		mapping := e.zoneIDs(acct.c)
		ids[acct.id] = map[string]string{}
		i := 0
		for name, zoneID := range mapping {
			out, err := acct.c.CreateSubnet(e.ctx, &ec2.CreateSubnetInput{VpcId: vpcOut.Vpc.VpcId,
				CidrBlock: aws.String(fmt.Sprintf("10.0.%d.0/24", i)), AvailabilityZone: aws.String(name)})
			e.ok("CreateSubnet in "+name, err)
			i++
			if got := aws.ToString(out.Subnet.AvailabilityZoneId); got != zoneID {
				t.Errorf("account %s: subnet in %s has zone ID %s, DescribeAvailabilityZones says %s", acct.id, name, got, zoneID)
			}
			ids[acct.id][name] = aws.ToString(out.Subnet.AvailabilityZoneId)

			// The same zone chosen by its ID gets the same name back.
			byID, err := acct.c.CreateSubnet(e.ctx, &ec2.CreateSubnetInput{VpcId: vpcOut.Vpc.VpcId,
				CidrBlock: aws.String(fmt.Sprintf("10.0.%d.0/24", 100+i)), AvailabilityZoneId: aws.String(zoneID)})
			e.ok("CreateSubnet in "+zoneID, err)
			if got := aws.ToString(byID.Subnet.AvailabilityZone); got != name {
				t.Errorf("account %s: subnet in zone ID %s is in %s, want %s", acct.id, zoneID, got, name)
			}
		}
	}
	differ := false
	for name, id := range ids[cloudsimtest.ManagementAccount] {
		differ = differ || ids[cloudsimtest.CustomerAccount][name] != id
	}
	if !differ {
		t.Errorf("both accounts map every zone name to the same zone ID: %v", ids)
	}
}

func TestDescribeSubnetsPaginates(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	want := map[string]bool{}
	for i := 0; i < 7; i++ {
		want[aws.ToString(e.subnet(vpc, fmt.Sprintf("10.0.%d.0/24", i), "us-east-1a").SubnetId)] = true
	}
	first, err := e.ec2.DescribeSubnets(e.ctx, &ec2.DescribeSubnetsInput{MaxResults: aws.Int32(5)})
	e.ok("DescribeSubnets page 1", err)
	if len(first.Subnets) != 5 || first.NextToken == nil {
		t.Fatalf("page 1: %d subnets, next token %v; want 5 and a token", len(first.Subnets), first.NextToken)
	}
	second, err := e.ec2.DescribeSubnets(e.ctx, &ec2.DescribeSubnetsInput{MaxResults: aws.Int32(5), NextToken: first.NextToken})
	e.ok("DescribeSubnets page 2", err)
	if len(second.Subnets) != 2 || second.NextToken != nil {
		t.Fatalf("page 2: %d subnets, next token %v; want 2 and no token", len(second.Subnets), second.NextToken)
	}
	seen := map[string]bool{}
	for _, s := range append(first.Subnets, second.Subnets...) {
		id := aws.ToString(s.SubnetId)
		if seen[id] || !want[id] {
			t.Errorf("subnet %s repeated or unknown", id)
		}
		seen[id] = true
	}
	if len(seen) != 7 {
		t.Errorf("pages hold %d distinct subnets, want 7", len(seen))
	}

	// The SDK's paginator walks the same pages.
	n := 0
	pages := ec2.NewDescribeSubnetsPaginator(e.ec2, &ec2.DescribeSubnetsInput{MaxResults: aws.Int32(5)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(e.ctx)
		e.ok("paginator", err)
		n += len(page.Subnets)
	}
	if n != 7 {
		t.Errorf("paginator saw %d subnets, want 7", n)
	}

	_, err = e.ec2.DescribeSubnets(e.ctx, &ec2.DescribeSubnetsInput{MaxResults: aws.Int32(4)})
	e.wantErr("MaxResults below 5", err, "InvalidParameterValue")
	_, err = e.ec2.DescribeSubnets(e.ctx, &ec2.DescribeSubnetsInput{MaxResults: aws.Int32(5), NextToken: aws.String("!!")})
	e.wantErr("garbage NextToken", err, "InvalidNextToken")
}

func TestDescribeSubnetsFilters(t *testing.T) {
	e := newEC2Env(t)
	vpc, other := e.vpc("10.0.0.0/16"), e.vpc("10.1.0.0/16")
	zones := e.zoneIDs(e.ec2)
	privA := aws.ToString(e.subnet(vpc, "10.0.128.0/20", "us-east-1a", "kubernetes.io/role/internal-elb", "1", "Name", "infra-private-us-east-1a").SubnetId)
	privB := aws.ToString(e.subnet(vpc, "10.0.144.0/20", "us-east-1b", "kubernetes.io/role/internal-elb", "1", "Name", "infra-private-us-east-1b").SubnetId)
	pubA := aws.ToString(e.subnet(vpc, "10.0.0.0/20", "us-east-1a", "kubernetes.io/role/elb", "1", "Name", "infra-public-us-east-1a").SubnetId)
	elsewhere := aws.ToString(e.subnet(other, "10.1.0.0/24", "us-east-1b").SubnetId)
	for _, tc := range []struct {
		name    string
		filters []ec2types.Filter
		want    []string
	}{
		{"vpc-id", []ec2types.Filter{ec2Filter("vpc-id", vpc)}, []string{privA, privB, pubA}},
		{"subnet-id", []ec2types.Filter{ec2Filter("subnet-id", privB, elsewhere)}, []string{privB, elsewhere}},
		{"availability-zone", []ec2types.Filter{ec2Filter("availability-zone", "us-east-1a")}, []string{privA, pubA}},
		{"availability-zone-id", []ec2types.Filter{ec2Filter("availability-zone-id", zones["us-east-1b"])}, []string{privB, elsewhere}},
		{"cidr-block", []ec2types.Filter{ec2Filter("cidr-block", "10.0.0.0/20")}, []string{pubA}},
		{"state", []ec2types.Filter{ec2Filter("state", "available"), ec2Filter("vpc-id", other)}, []string{elsewhere}},
		{"tag-key", []ec2types.Filter{ec2Filter("tag-key", "kubernetes.io/role/internal-elb")}, []string{privA, privB}},
		{"tag:Name wildcard", []ec2types.Filter{ec2Filter("tag:Name", "infra-*-us-east-1a")}, []string{privA, pubA}},
		{"tag and zone", []ec2types.Filter{ec2Filter("tag:kubernetes.io/role/elb", "1"), ec2Filter("availability-zone", "us-east-1b")}, nil},
	} {
		out, err := e.ec2.DescribeSubnets(e.ctx, &ec2.DescribeSubnetsInput{Filters: tc.filters})
		e.ok("DescribeSubnets "+tc.name, err)
		var got []string
		for _, s := range out.Subnets {
			got = append(got, aws.ToString(s.SubnetId))
			if _, ok := ec2TagValue(s.Tags, "Name"); !ok && aws.ToString(s.SubnetId) != elsewhere {
				t.Errorf("%s: subnet %s came back without its tags", tc.name, aws.ToString(s.SubnetId))
			}
		}
		if !sameIDs(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestModifySubnetAttribute(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	s := aws.ToString(e.subnet(vpc, "10.0.0.0/24", "us-east-1a").SubnetId)
	_, err := e.ec2.ModifySubnetAttribute(e.ctx, &ec2.ModifySubnetAttributeInput{SubnetId: &s,
		MapPublicIpOnLaunch: &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}})
	e.ok("ModifySubnetAttribute", err)
	out, err := e.ec2.DescribeSubnets(e.ctx, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
		ec2Filter("map-public-ip-on-launch", "true")}})
	e.ok("DescribeSubnets", err)
	if len(out.Subnets) != 1 || !aws.ToBool(out.Subnets[0].MapPublicIpOnLaunch) {
		t.Errorf("subnets mapping public IPs = %+v", out.Subnets)
	}
	_, err = e.ec2.ModifySubnetAttribute(e.ctx, &ec2.ModifySubnetAttributeInput{SubnetId: aws.String("subnet-0123456789abcdef0"),
		MapPublicIpOnLaunch: &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}})
	e.wantErr("unknown subnet", err, "InvalidSubnetID.NotFound")
}

// Subnets and security groups stay busy while an NLB or a VPC endpoint uses
// them; endpoint deletion is asynchronous, so DeleteSecurityGroup keeps
// answering DependencyViolation until the endpoint is really gone.
func TestLoadBalancersAndEndpointsBlockSubnetAndGroupDeletion(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	lbSubnet := aws.ToString(e.subnet(vpc, "10.0.0.0/24", "us-east-1a").SubnetId)
	epSubnet := aws.ToString(e.subnet(vpc, "10.0.1.0/24", "us-east-1a").SubnetId)
	sg := e.securityGroup(vpc, "endpoint")
	lbGroup := e.securityGroup(vpc, "router")

	elb := elbv2.NewFromConfig(e.config(cloudsimtest.ManagementAccount))
	lb, err := elb.CreateLoadBalancer(e.ctx, &elbv2.CreateLoadBalancerInput{Name: aws.String("router"),
		Type: elbtypes.LoadBalancerTypeEnumNetwork, Scheme: elbtypes.LoadBalancerSchemeEnumInternal, Subnets: []string{lbSubnet},
		SecurityGroups: []string{lbGroup}})
	e.ok("CreateLoadBalancer", err)
	_, err = e.ec2.DeleteSubnet(e.ctx, &ec2.DeleteSubnetInput{SubnetId: &lbSubnet})
	e.wantErr("DeleteSubnet under an NLB", err, "DependencyViolation")
	_, err = e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &lbGroup})
	e.wantErr("DeleteSecurityGroup of an NLB's group", err, "DependencyViolation")
	if got := e.describeSubnet(lbSubnet).AvailableIpAddressCount; aws.ToInt32(got) != 250 {
		t.Errorf("available addresses with an NLB in a /24 = %d, want 250", aws.ToInt32(got))
	}
	_, err = elb.DeleteLoadBalancer(e.ctx, &elbv2.DeleteLoadBalancerInput{LoadBalancerArn: lb.LoadBalancers[0].LoadBalancerArn})
	e.ok("DeleteLoadBalancer", err)

	ep, err := e.ec2.CreateVpcEndpoint(e.ctx, &ec2.CreateVpcEndpointInput{VpcId: &vpc, VpcEndpointType: ec2types.VpcEndpointTypeInterface,
		ServiceName: aws.String("com.amazonaws.us-east-1.sts"), SubnetIds: []string{epSubnet}, SecurityGroupIds: []string{sg},
		PrivateDnsEnabled: aws.Bool(false)})
	e.ok("CreateVpcEndpoint", err)
	epID := aws.ToString(ep.VpcEndpoint.VpcEndpointId)
	_, err = e.ec2.DeleteSubnet(e.ctx, &ec2.DeleteSubnetInput{SubnetId: &epSubnet})
	e.wantErr("DeleteSubnet under an endpoint", err, "DependencyViolation")
	_, err = e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &sg})
	e.wantErr("DeleteSecurityGroup used by an endpoint", err, "DependencyViolation")
	_, err = e.ec2.DeleteVpc(e.ctx, &ec2.DeleteVpcInput{VpcId: &vpc})
	e.wantErr("DeleteVpc with an endpoint", err, "DependencyViolation")

	_, err = e.ec2.DeleteVpcEndpoints(e.ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{epID}})
	e.ok("DeleteVpcEndpoints", err)
	_, err = e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &sg})
	e.wantErr("DeleteSecurityGroup while the endpoint is deleting", err, "DependencyViolation")

	// Long enough for any delay in sim.FastDelays.
	e.clk.Advance(10 * time.Second)
	_, err = e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &sg})
	e.ok("DeleteSecurityGroup once the endpoint is gone", err)
	_, err = e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &lbGroup})
	e.ok("DeleteSecurityGroup once the NLB is gone", err)
	for _, s := range []string{lbSubnet, epSubnet} {
		_, err = e.ec2.DeleteSubnet(e.ctx, &ec2.DeleteSubnetInput{SubnetId: aws.String(s)})
		e.ok("DeleteSubnet "+s, err)
	}
	_, err = e.ec2.DeleteVpc(e.ctx, &ec2.DeleteVpcInput{VpcId: &vpc})
	e.ok("DeleteVpc", err)
}

func (e *ec2Env) describeSubnet(id string) ec2types.Subnet {
	e.t.Helper()
	out, err := e.ec2.DescribeSubnets(e.ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{id}})
	e.ok("DescribeSubnets "+id, err)
	if len(out.Subnets) != 1 {
		e.t.Fatalf("DescribeSubnets %s: %d subnets", id, len(out.Subnets))
	}
	return out.Subnets[0]
}
