package aws_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

func tcpFrom(port int32, cidrs ...string) ec2types.IpPermission {
	p := ec2types.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(port), ToPort: aws.Int32(port)}
	for _, c := range cidrs {
		p.IpRanges = append(p.IpRanges, ec2types.IpRange{CidrIp: aws.String(c), Description: aws.String("from " + c)})
	}
	return p
}

func TestSecurityGroupLifecycle(t *testing.T) {
	e := newEC2Env(t)
	vpc, other := e.vpc("10.0.0.0/16"), e.vpc("10.1.0.0/16")
	out, err := e.ec2.CreateSecurityGroup(e.ctx, &ec2.CreateSecurityGroupInput{VpcId: &vpc, GroupName: aws.String("infra-vpce-router"),
		Description:       aws.String("endpoint for the private router"),
		TagSpecifications: ec2TagSpec(ec2types.ResourceTypeSecurityGroup, "Name", "infra-vpce-router")})
	e.ok("CreateSecurityGroup", err)
	sg := aws.ToString(out.GroupId)
	if name, _ := ec2TagValue(out.Tags, "Name"); name != "infra-vpce-router" || aws.ToString(out.SecurityGroupArn) == "" {
		t.Errorf("CreateSecurityGroup answered %+v", out)
	}
	g := e.securityGroupByID(sg)
	if len(g.IpPermissions) != 0 || len(g.IpPermissionsEgress) != 1 || aws.ToString(g.IpPermissionsEgress[0].IpProtocol) != "-1" ||
		aws.ToString(g.IpPermissionsEgress[0].IpRanges[0].CidrIp) != "0.0.0.0/0" || aws.ToString(g.Description) != "endpoint for the private router" {
		t.Errorf("new group = %+v, want no ingress and egress to everywhere", g)
	}

	for _, tc := range []struct {
		name string
		in   *ec2.CreateSecurityGroupInput
		code string
	}{
		{"same name in the VPC", &ec2.CreateSecurityGroupInput{VpcId: &vpc, GroupName: aws.String("infra-vpce-router"), Description: aws.String("x")}, "InvalidGroup.Duplicate"},
		{"reserved name", &ec2.CreateSecurityGroupInput{VpcId: &vpc, GroupName: aws.String("default"), Description: aws.String("x")}, "InvalidGroup.Reserved"},
		{"sg- name", &ec2.CreateSecurityGroupInput{VpcId: &vpc, GroupName: aws.String("sg-lookalike"), Description: aws.String("x")}, "InvalidParameterValue"},
		{"no VPC", &ec2.CreateSecurityGroupInput{GroupName: aws.String("orphan"), Description: aws.String("x")}, "VPCIdNotSpecified"},
		{"empty description", &ec2.CreateSecurityGroupInput{VpcId: &vpc, GroupName: aws.String("terse"), Description: aws.String("")}, "MissingParameter"},
		{"unknown VPC", &ec2.CreateSecurityGroupInput{VpcId: aws.String("vpc-0123456789abcdef0"), GroupName: aws.String("x"), Description: aws.String("x")}, "InvalidVpcID.NotFound"},
	} {
		_, err := e.ec2.CreateSecurityGroup(e.ctx, tc.in)
		e.wantErr(tc.name, err, tc.code)
	}
	e.securityGroup(other, "infra-vpce-router") // names are per VPC

	nodes := e.securityGroup(vpc, "nodes")
	auth, err := e.ec2.AuthorizeSecurityGroupIngress(e.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: &sg,
		IpPermissions: []ec2types.IpPermission{
			tcpFrom(443, "10.0.0.0/16", "10.2.0.0/16"),
			{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(6443), ToPort: aws.Int32(6443),
				UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: &nodes, Description: aws.String("nodes")}}},
		}})
	e.ok("AuthorizeSecurityGroupIngress", err)
	if !aws.ToBool(auth.Return) || len(auth.SecurityGroupRules) != 3 {
		t.Fatalf("AuthorizeSecurityGroupIngress answered %+v, want 3 rules", auth)
	}
	for _, r := range auth.SecurityGroupRules {
		if aws.ToString(r.GroupId) != sg || aws.ToBool(r.IsEgress) || aws.ToString(r.SecurityGroupRuleId) == "" {
			t.Errorf("created rule %+v", r)
		}
	}
	_, err = e.ec2.AuthorizeSecurityGroupIngress(e.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: &sg,
		IpPermissions: []ec2types.IpPermission{tcpFrom(443, "10.2.0.0/16", "10.3.0.0/16")}})
	e.wantErr("a rule that exists", err, "InvalidPermission.Duplicate")

	g = e.securityGroupByID(sg)
	if len(g.IpPermissions) != 2 {
		t.Fatalf("ingress permissions = %+v, want two (443 and 6443)", g.IpPermissions)
	}
	https := g.IpPermissions[0]
	if aws.ToInt32(https.FromPort) != 443 || len(https.IpRanges) != 2 || aws.ToString(https.IpRanges[1].CidrIp) != "10.2.0.0/16" ||
		aws.ToString(https.IpRanges[1].Description) != "from 10.2.0.0/16" {
		t.Errorf("443 permission = %+v; the duplicate request must not have added 10.3.0.0/16", https)
	}
	if pairs := g.IpPermissions[1].UserIdGroupPairs; len(pairs) != 1 || aws.ToString(pairs[0].GroupId) != nodes {
		t.Errorf("6443 permission = %+v", g.IpPermissions[1])
	}

	rules, err := e.ec2.DescribeSecurityGroupRules(e.ctx, &ec2.DescribeSecurityGroupRulesInput{Filters: []ec2types.Filter{ec2Filter("group-id", sg)}})
	e.ok("DescribeSecurityGroupRules", err)
	if len(rules.SecurityGroupRules) != 4 {
		t.Errorf("rules of the group: %d, want 4 (3 ingress, 1 egress)", len(rules.SecurityGroupRules))
	}

	_, err = e.ec2.RevokeSecurityGroupIngress(e.ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: &sg,
		IpPermissions: []ec2types.IpPermission{tcpFrom(443, "10.9.0.0/16")}})
	e.wantErr("revoking a rule that does not exist", err, "InvalidPermission.NotFound")
	rev, err := e.ec2.RevokeSecurityGroupIngress(e.ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: &sg,
		IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("6"), FromPort: aws.Int32(443), ToPort: aws.Int32(443),
			IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/16")}}}}})
	e.ok("RevokeSecurityGroupIngress (protocol by number, no description)", err)
	if len(rev.RevokedSecurityGroupRules) != 1 || aws.ToString(rev.RevokedSecurityGroupRules[0].CidrIpv4) != "10.0.0.0/16" {
		t.Errorf("revoked %+v", rev.RevokedSecurityGroupRules)
	}
	_, err = e.ec2.RevokeSecurityGroupEgress(e.ctx, &ec2.RevokeSecurityGroupEgressInput{GroupId: &sg,
		SecurityGroupRuleIds: []string{aws.ToString(auth.SecurityGroupRules[1].SecurityGroupRuleId)}})
	e.wantErr("revoking an ingress rule as egress", err, "InvalidSecurityGroupRuleId.NotFound")
	_, err = e.ec2.RevokeSecurityGroupIngress(e.ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: &sg,
		SecurityGroupRuleIds: []string{aws.ToString(auth.SecurityGroupRules[1].SecurityGroupRuleId)}})
	e.ok("RevokeSecurityGroupIngress by rule ID", err)
	if g = e.securityGroupByID(sg); len(g.IpPermissions) != 1 || len(g.IpPermissions[0].UserIdGroupPairs) != 1 {
		t.Errorf("ingress left = %+v, want only the 6443 rule from nodes", g.IpPermissions)
	}

	_, err = e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &nodes})
	e.wantErr("deleting a group another group's rule references", err, "DependencyViolation")
	def := e.mainSecurityGroup(vpc)
	_, err = e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &def})
	e.wantErr("deleting the default group", err, "CannotDelete")
	_, err = e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupName: aws.String("nodes")})
	e.wantErr("deleting by name outside a default VPC", err, "VPCIdNotSpecified")
	del, err := e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &sg})
	e.ok("DeleteSecurityGroup", err)
	if aws.ToString(del.GroupId) != sg {
		t.Errorf("DeleteSecurityGroup answered %+v", del)
	}
	_, err = e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &nodes})
	e.ok("DeleteSecurityGroup once unreferenced", err)
	_, err = e.ec2.DescribeSecurityGroups(e.ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{sg}})
	e.wantErr("DescribeSecurityGroups after delete", err, "InvalidGroup.NotFound")
	_, err = e.ec2.DeleteSecurityGroup(e.ctx, &ec2.DeleteSecurityGroupInput{GroupId: &sg})
	e.wantErr("DeleteSecurityGroup twice", err, "InvalidGroup.NotFound")
}

// mainSecurityGroup is the VPC's default group.
func (e *ec2Env) mainSecurityGroup(vpc string) string {
	e.t.Helper()
	out, err := e.ec2.DescribeSecurityGroups(e.ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{
		ec2Filter("vpc-id", vpc), ec2Filter("group-name", "default")}})
	e.ok("DescribeSecurityGroups default", err)
	if len(out.SecurityGroups) != 1 {
		e.t.Fatalf("VPC %s has %d default groups", vpc, len(out.SecurityGroups))
	}
	return aws.ToString(out.SecurityGroups[0].GroupId)
}

func TestSecurityGroupRuleValidation(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	sg := e.securityGroup(vpc, "checked")
	for _, tc := range []struct {
		name string
		perm ec2types.IpPermission
		code string
	}{
		{"tcp without ports", ec2types.IpPermission{IpProtocol: aws.String("tcp"), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/8")}}}, "InvalidParameterValue"},
		{"ports reversed", ec2types.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(444), ToPort: aws.Int32(443), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/8")}}}, "InvalidParameterValue"},
		{"port out of range", ec2types.IpPermission{IpProtocol: aws.String("udp"), FromPort: aws.Int32(0), ToPort: aws.Int32(70000), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/8")}}}, "InvalidParameterValue"},
		{"unknown protocol", ec2types.IpPermission{IpProtocol: aws.String("carrier-pigeon"), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/8")}}}, "InvalidParameterValue"},
		{"malformed CIDR", tcpFrom(443, "10.0.0.0/33"), "InvalidParameterValue"},
		{"no peer", ec2types.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(443), ToPort: aws.Int32(443)}, "MissingParameter"},
		{"unknown peer group", ec2types.IpPermission{IpProtocol: aws.String("-1"), UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String("sg-0123456789abcdef0")}}}, "InvalidGroup.NotFound"},
		{"twice in one request", ec2types.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(22), ToPort: aws.Int32(22),
			IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/8")}, {CidrIp: aws.String("10.0.0.0/8")}}}, "InvalidPermission.Duplicate"},
	} {
		_, err := e.ec2.AuthorizeSecurityGroupIngress(e.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: &sg,
			IpPermissions: []ec2types.IpPermission{tc.perm}})
		e.wantErr(tc.name, err, tc.code)
	}
	if g := e.securityGroupByID(sg); len(g.IpPermissions) != 0 {
		t.Errorf("failed requests left rules behind: %+v", g.IpPermissions)
	}

	// All-traffic and ICMP rules, and egress.
	_, err := e.ec2.AuthorizeSecurityGroupIngress(e.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: &sg,
		IpPermissions: []ec2types.IpPermission{
			{IpProtocol: aws.String("-1"), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("10.0.0.0/16")}}},
			{IpProtocol: aws.String("icmp"), FromPort: aws.Int32(-1), ToPort: aws.Int32(-1), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("0.0.0.0/0")}}},
		}})
	e.ok("AuthorizeSecurityGroupIngress all and icmp", err)
	_, err = e.ec2.AuthorizeSecurityGroupEgress(e.ctx, &ec2.AuthorizeSecurityGroupEgressInput{GroupId: &sg,
		IpPermissions: []ec2types.IpPermission{tcpFrom(5432, "10.0.0.0/16")}})
	e.ok("AuthorizeSecurityGroupEgress", err)
	_, err = e.ec2.AuthorizeSecurityGroupEgress(e.ctx, &ec2.AuthorizeSecurityGroupEgressInput{GroupId: &sg,
		IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("-1"), IpRanges: []ec2types.IpRange{{CidrIp: aws.String("0.0.0.0/0")}}}}})
	e.wantErr("the default egress rule again", err, "InvalidPermission.Duplicate")
	g := e.securityGroupByID(sg)
	if len(g.IpPermissions) != 2 || g.IpPermissions[0].FromPort != nil || aws.ToInt32(g.IpPermissions[1].FromPort) != -1 {
		t.Errorf("ingress = %+v, want all-traffic without ports and icmp with -1", g.IpPermissions)
	}
	if len(g.IpPermissionsEgress) != 2 {
		t.Errorf("egress = %+v, want the default rule and 5432", g.IpPermissionsEgress)
	}

	// Sixty rules per direction.
	var perms []ec2types.IpPermission
	for i := 0; i < 58; i++ {
		perms = append(perms, tcpFrom(int32(1000+i), "10.0.0.0/16"))
	}
	_, err = e.ec2.AuthorizeSecurityGroupIngress(e.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: &sg, IpPermissions: perms})
	e.ok("up to 60 ingress rules", err)
	_, err = e.ec2.AuthorizeSecurityGroupIngress(e.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: &sg,
		IpPermissions: []ec2types.IpPermission{tcpFrom(2000, "10.0.0.0/16")}})
	e.wantErr("61st ingress rule", err, "RulesPerSecurityGroupLimitExceeded")
}

func TestDescribeSecurityGroupsFiltersAndPages(t *testing.T) {
	e := newEC2Env(t)
	vpc, other := e.vpc("10.0.0.0/16"), e.vpc("10.1.0.0/16")
	var ids []string
	for i := 0; i < 7; i++ {
		out, err := e.ec2.CreateSecurityGroup(e.ctx, &ec2.CreateSecurityGroupInput{VpcId: &vpc,
			GroupName: aws.String(fmt.Sprintf("infra-vpce-%d", i)), Description: aws.String("endpoint"),
			TagSpecifications: ec2TagSpec(ec2types.ResourceTypeSecurityGroup, "kubernetes.io/cluster/infra", "owned", "hcplink.io/endpoint-service", fmt.Sprint(i))})
		e.ok("CreateSecurityGroup", err)
		ids = append(ids, aws.ToString(out.GroupId))
	}
	_, err := e.ec2.AuthorizeSecurityGroupIngress(e.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: &ids[3],
		IpPermissions: []ec2types.IpPermission{tcpFrom(6443, "10.0.0.0/16")}})
	e.ok("AuthorizeSecurityGroupIngress", err)
	untagged := e.securityGroup(other, "infra-vpce-0")

	for _, tc := range []struct {
		name    string
		filters []ec2types.Filter
		want    []string
	}{
		{"tag pair", []ec2types.Filter{ec2Filter("tag:kubernetes.io/cluster/infra", "owned"), ec2Filter("tag:hcplink.io/endpoint-service", "2")}, ids[2:3]},
		{"tag-key", []ec2types.Filter{ec2Filter("tag-key", "hcplink.io/endpoint-service")}, ids},
		{"group-name across VPCs", []ec2types.Filter{ec2Filter("group-name", "infra-vpce-0")}, []string{ids[0], untagged}},
		{"group-name and vpc-id", []ec2types.Filter{ec2Filter("group-name", "infra-vpce-0"), ec2Filter("vpc-id", other)}, []string{untagged}},
		{"group-id", []ec2types.Filter{ec2Filter("group-id", ids[5])}, ids[5:6]},
		{"ip-permission.from-port", []ec2types.Filter{ec2Filter("ip-permission.from-port", "6443")}, ids[3:4]},
		{"ip-permission.cidr", []ec2types.Filter{ec2Filter("ip-permission.cidr", "10.0.0.0/16")}, ids[3:4]},
	} {
		out, err := e.ec2.DescribeSecurityGroups(e.ctx, &ec2.DescribeSecurityGroupsInput{Filters: tc.filters})
		e.ok("DescribeSecurityGroups "+tc.name, err)
		var got []string
		for _, g := range out.SecurityGroups {
			got = append(got, aws.ToString(g.GroupId))
		}
		if !sameIDs(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}

	// Ten groups in all: seven, one more and the two VPCs' defaults.
	seen := map[string]bool{}
	p := ec2.NewDescribeSecurityGroupsPaginator(e.ec2, &ec2.DescribeSecurityGroupsInput{MaxResults: aws.Int32(5)})
	pages := 0
	for p.HasMorePages() {
		page, err := p.NextPage(e.ctx)
		e.ok("DescribeSecurityGroups page", err)
		pages++
		for _, g := range page.SecurityGroups {
			if seen[aws.ToString(g.GroupId)] {
				t.Errorf("group %s on two pages", aws.ToString(g.GroupId))
			}
			seen[aws.ToString(g.GroupId)] = true
		}
	}
	if len(seen) != 10 || pages != 2 {
		t.Errorf("%d groups on %d pages, want 10 on 2", len(seen), pages)
	}

	_, err = e.ec2.DescribeSecurityGroups(e.ctx, &ec2.DescribeSecurityGroupsInput{GroupNames: []string{"infra-vpce-0"}})
	e.wantErr("GroupNames without a default VPC", err, "VPCIdNotSpecified")
	_, err = e.ec2.DescribeSecurityGroups(e.ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-0123456789abcdef0"}})
	e.wantErr("unknown group", err, "InvalidGroup.NotFound")
	_, err = e.ec2.DescribeSecurityGroups(e.ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-xyz"}})
	e.wantErr("malformed group ID", err, "InvalidGroupId.Malformed")
}
