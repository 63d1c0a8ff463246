package aws_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Every kind of EC2 resource can be tagged after creation, VPC endpoints
// included, and DescribeTags reports each with its resource type.
func TestCreateTagsOnEveryResourceType(t *testing.T) {
	e := newEC2Env(t)
	vpc, igw, subnet := e.publicNetwork()
	sg := e.securityGroup(vpc, "tagged")
	eip := e.eip()
	nat := aws.ToString(e.natGateway(subnet, eip).NatGatewayId)
	rt := aws.ToString(e.mainRouteTable(vpc).RouteTableId)
	dopt, err := e.ec2.CreateDhcpOptions(e.ctx, &ec2.CreateDhcpOptionsInput{DhcpConfigurations: []ec2types.NewDhcpConfiguration{
		{Key: aws.String("domain-name"), Values: []string{"ec2.internal"}}}})
	e.ok("CreateDhcpOptions", err)
	auth, err := e.ec2.AuthorizeSecurityGroupIngress(e.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: &sg,
		IpPermissions: []ec2types.IpPermission{tcpFrom(443, "10.0.0.0/16")}})
	e.ok("AuthorizeSecurityGroupIngress", err)
	ep, err := e.ec2.CreateVpcEndpoint(e.ctx, &ec2.CreateVpcEndpointInput{VpcId: &vpc, VpcEndpointType: ec2types.VpcEndpointTypeGateway,
		ServiceName: aws.String("com.amazonaws.us-east-1.s3"), RouteTableIds: []string{rt}})
	e.ok("CreateVpcEndpoint", err)

	want := map[string]ec2types.ResourceType{
		vpc:    ec2types.ResourceTypeVpc,
		subnet: ec2types.ResourceTypeSubnet,
		igw:    ec2types.ResourceTypeInternetGateway,
		sg:     ec2types.ResourceTypeSecurityGroup,
		eip:    ec2types.ResourceTypeElasticIp,
		nat:    ec2types.ResourceTypeNatgateway,
		rt:     ec2types.ResourceTypeRouteTable,
		aws.ToString(dopt.DhcpOptions.DhcpOptionsId):                 ec2types.ResourceTypeDhcpOptions,
		aws.ToString(auth.SecurityGroupRules[0].SecurityGroupRuleId): ec2types.ResourceTypeSecurityGroupRule,
		aws.ToString(ep.VpcEndpoint.VpcEndpointId):                   ec2types.ResourceTypeVpcEndpoint,
	}
	var ids []string
	for id := range want {
		ids = append(ids, id)
	}
	_, err = e.ec2.CreateTags(e.ctx, &ec2.CreateTagsInput{Resources: ids, Tags: []ec2types.Tag{
		{Key: aws.String("kubernetes.io/cluster/infra"), Value: aws.String("owned")}, {Key: aws.String("empty")}}})
	e.ok("CreateTags", err)

	out, err := e.ec2.DescribeTags(e.ctx, &ec2.DescribeTagsInput{Filters: []ec2types.Filter{ec2Filter("key", "kubernetes.io/cluster/infra")}})
	e.ok("DescribeTags", err)
	if len(out.Tags) != len(want) {
		t.Errorf("DescribeTags found %d tagged resources, want %d: %+v", len(out.Tags), len(want), out.Tags)
	}
	for _, td := range out.Tags {
		if want[aws.ToString(td.ResourceId)] != td.ResourceType || aws.ToString(td.Value) != "owned" {
			t.Errorf("tag description %+v, want resource type %s", td, want[aws.ToString(td.ResourceId)])
		}
	}

	// Each Describe returns the tags with the resource.
	tagsOf := map[string][]ec2types.Tag{
		vpc:    mustVpc(e, vpc).Tags,
		subnet: e.describeSubnet(subnet).Tags,
		sg:     e.securityGroupByID(sg).Tags,
		eip:    e.describeAddress(eip).Tags,
		nat:    e.describeNat(nat).Tags,
		rt:     e.routeTable(rt).Tags,
	}
	for id, tags := range tagsOf {
		if v, ok := ec2TagValue(tags, "empty"); !ok || v != "" {
			t.Errorf("%s: tags %v, want empty= among them", id, tags)
		}
	}
	byType, err := e.ec2.DescribeTags(e.ctx, &ec2.DescribeTagsInput{Filters: []ec2types.Filter{
		ec2Filter("resource-type", "natgateway", "elastic-ip"), ec2Filter("key", "empty")}})
	e.ok("DescribeTags by resource-type", err)
	if len(byType.Tags) != 2 {
		t.Errorf("DescribeTags resource-type natgateway|elastic-ip = %+v", byType.Tags)
	}
}

func mustVpc(e *ec2Env, id string) ec2types.Vpc {
	e.t.Helper()
	out, err := e.ec2.DescribeVpcs(e.ctx, &ec2.DescribeVpcsInput{VpcIds: []string{id}})
	e.ok("DescribeVpcs "+id, err)
	return out.Vpcs[0]
}

func TestCreateTagsErrors(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	tag := []ec2types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}
	for _, tc := range []struct {
		name string
		ids  []string
		tags []ec2types.Tag
		code string
	}{
		{"unknown VPC", []string{"vpc-0123456789abcdef0"}, tag, "InvalidVpcID.NotFound"},
		{"unknown subnet", []string{"subnet-0123456789abcdef0"}, tag, "InvalidSubnetID.NotFound"},
		{"unknown group", []string{"sg-0123456789abcdef0"}, tag, "InvalidGroup.NotFound"},
		{"unknown gateway", []string{"igw-0123456789abcdef0"}, tag, "InvalidInternetGatewayID.NotFound"},
		{"unknown route table", []string{"rtb-0123456789abcdef0"}, tag, "InvalidRouteTableID.NotFound"},
		{"unknown allocation", []string{"eipalloc-0123456789abcdef0"}, tag, "InvalidAllocationID.NotFound"},
		{"unknown endpoint", []string{"vpce-0123456789abcdef0"}, tag, "InvalidVpcEndpointId.NotFound"},
		{"unknown endpoint service", []string{"vpce-svc-0123456789abcdef0"}, tag, "InvalidVpcEndpointServiceId.NotFound"},
		{"unknown kind of ID", []string{"i-0123456789abcdef0"}, tag, "InvalidID"},
		{"malformed ID", []string{"vpc-zz"}, tag, "InvalidVpcID.Malformed"},
		{"one bad ID among good ones", []string{vpc, "subnet-0123456789abcdef0"}, tag, "InvalidSubnetID.NotFound"},
		{"aws: prefix", []string{vpc}, []ec2types.Tag{{Key: aws.String("aws:cloudformation:stack-name"), Value: aws.String("x")}}, "InvalidParameterValue"},
		{"key too long", []string{vpc}, []ec2types.Tag{{Key: aws.String(strings.Repeat("k", 129)), Value: aws.String("x")}}, "InvalidParameterValue"},
	} {
		_, err := e.ec2.CreateTags(e.ctx, &ec2.CreateTagsInput{Resources: tc.ids, Tags: tc.tags})
		e.wantErr(tc.name, err, tc.code)
	}
	if tags := mustVpc(e, vpc).Tags; len(tags) != 0 {
		t.Errorf("a failed CreateTags tagged the VPC: %v", tags)
	}

	// Fifty tags per resource; replacing a value does not count.
	var fifty []ec2types.Tag
	for i := 0; i < 50; i++ {
		fifty = append(fifty, ec2types.Tag{Key: aws.String(fmt.Sprintf("key-%02d", i)), Value: aws.String("v")})
	}
	_, err := e.ec2.CreateTags(e.ctx, &ec2.CreateTagsInput{Resources: []string{vpc}, Tags: fifty})
	e.ok("50 tags", err)
	_, err = e.ec2.CreateTags(e.ctx, &ec2.CreateTagsInput{Resources: []string{vpc}, Tags: []ec2types.Tag{{Key: aws.String("key-07"), Value: aws.String("new")}}})
	e.ok("overwriting a tag at the limit", err)
	_, err = e.ec2.CreateTags(e.ctx, &ec2.CreateTagsInput{Resources: []string{vpc}, Tags: []ec2types.Tag{{Key: aws.String("one-more"), Value: aws.String("v")}}})
	e.wantErr("51st tag", err, "TagLimitExceeded")
	var tooMany []ec2types.TagSpecification
	spec := ec2types.TagSpecification{ResourceType: ec2types.ResourceTypeVpc, Tags: append(fifty, ec2types.Tag{Key: aws.String("x"), Value: aws.String("y")})}
	tooMany = append(tooMany, spec)
	_, err = e.ec2.CreateVpc(e.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.1.0.0/16"), TagSpecifications: tooMany})
	e.wantErr("51 tags at creation", err, "TagLimitExceeded")
	_, err = e.ec2.CreateVpc(e.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.1.0.0/16"),
		TagSpecifications: ec2TagSpec(ec2types.ResourceTypeSubnet, "Name", "wrong type")})
	e.wantErr("tag specification for another resource type", err, "InvalidParameterValue")
}

func TestDeleteTags(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16", "a", "1", "b", "2", "c", "3", "d", "4")
	_, err := e.ec2.DeleteTags(e.ctx, &ec2.DeleteTagsInput{Resources: []string{vpc}, Tags: []ec2types.Tag{
		{Key: aws.String("a")},                          // whatever its value
		{Key: aws.String("b"), Value: aws.String("9")},  // only with this value: kept
		{Key: aws.String("c"), Value: aws.String("3")},  // value matches: removed
		{Key: aws.String("zz"), Value: aws.String("1")}, // absent: ignored
	}})
	e.ok("DeleteTags", err)
	tags := mustVpc(e, vpc).Tags
	if len(tags) != 2 {
		t.Errorf("tags left = %v, want b and d", tags)
	}
	for _, k := range []string{"b", "d"} {
		if _, ok := ec2TagValue(tags, k); !ok {
			t.Errorf("tag %s was removed; left %v", k, tags)
		}
	}
	_, err = e.ec2.DeleteTags(e.ctx, &ec2.DeleteTagsInput{Resources: []string{vpc}})
	e.ok("DeleteTags without tags", err)
	if tags := mustVpc(e, vpc).Tags; len(tags) != 0 {
		t.Errorf("DeleteTags without Tag.N left %v", tags)
	}
	_, err = e.ec2.DeleteTags(e.ctx, &ec2.DeleteTagsInput{Resources: []string{"vpc-0123456789abcdef0"}})
	e.wantErr("DeleteTags of an unknown VPC", err, "InvalidVpcID.NotFound")
}

func TestDescribeTagsPaginates(t *testing.T) {
	e := newEC2Env(t)
	var kv []string
	for i := 0; i < 7; i++ {
		kv = append(kv, fmt.Sprint("key-", i), fmt.Sprint(i))
	}
	vpc := e.vpc("10.0.0.0/16", kv...)
	seen := map[string]bool{}
	pages := 0
	p := ec2.NewDescribeTagsPaginator(e.ec2, &ec2.DescribeTagsInput{MaxResults: aws.Int32(5),
		Filters: []ec2types.Filter{ec2Filter("resource-id", vpc)}})
	for p.HasMorePages() {
		page, err := p.NextPage(e.ctx)
		e.ok("DescribeTags page", err)
		pages++
		for _, td := range page.Tags {
			if seen[aws.ToString(td.Key)] {
				t.Errorf("tag %s on two pages", aws.ToString(td.Key))
			}
			seen[aws.ToString(td.Key)] = true
		}
	}
	if len(seen) != 7 || pages != 2 {
		t.Errorf("%d tags on %d pages, want 7 on 2", len(seen), pages)
	}
	byValue, err := e.ec2.DescribeTags(e.ctx, &ec2.DescribeTagsInput{Filters: []ec2types.Filter{ec2Filter("value", "3", "5")}})
	e.ok("DescribeTags by value", err)
	if len(byValue.Tags) != 2 {
		t.Errorf("DescribeTags value=3|5 = %+v", byValue.Tags)
	}
}
