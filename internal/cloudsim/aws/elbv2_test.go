package aws_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
)

func TestNLBProvisionsThenBecomesActive(t *testing.T) {
	c := newPLCloud(t)
	a := c.account(provider)
	lb := a.nlb("k8s-ns-router-db6fee3a62", "use1-az1", "use1-az2")

	if lb.State == nil || lb.State.Code != elbtypes.LoadBalancerStateEnumProvisioning {
		t.Fatalf("new NLB state = %+v, want provisioning", lb.State)
	}
	arnRE := regexp.MustCompile(`^arn:aws:elasticloadbalancing:us-east-1:` + provider + `:loadbalancer/net/k8s-ns-router-db6fee3a62/[0-9a-f]{16}$`)
	if !arnRE.MatchString(aws.ToString(lb.LoadBalancerArn)) {
		t.Errorf("ARN %s does not match %s", aws.ToString(lb.LoadBalancerArn), arnRE)
	}
	dnsRE := regexp.MustCompile(`^k8s-ns-router-db6fee3a62-[0-9a-f]{16}\.elb\.us-east-1\.amazonaws\.com$`)
	if !dnsRE.MatchString(aws.ToString(lb.DNSName)) {
		t.Errorf("DNS name %s does not match %s", aws.ToString(lb.DNSName), dnsRE)
	}
	if got := aws.ToString(lb.CanonicalHostedZoneId); got != "Z26RNL4JYFTOTI" {
		t.Errorf("CanonicalHostedZoneId = %s, want us-east-1's NLB zone Z26RNL4JYFTOTI", got)
	}
	if lb.Type != elbtypes.LoadBalancerTypeEnumNetwork || lb.Scheme != elbtypes.LoadBalancerSchemeEnumInternal {
		t.Errorf("type/scheme = %s/%s, want network/internal", lb.Type, lb.Scheme)
	}
	wantZones := map[string]bool{a.names["use1-az1"]: true, a.names["use1-az2"]: true}
	if len(lb.AvailabilityZones) != 2 {
		t.Fatalf("zones = %+v, want two", lb.AvailabilityZones)
	}
	for _, z := range lb.AvailabilityZones {
		if !wantZones[aws.ToString(z.ZoneName)] || aws.ToString(z.SubnetId) == "" {
			t.Errorf("zone %s (subnet %s) is not one of the subnets' zones %v", aws.ToString(z.ZoneName), aws.ToString(z.SubnetId), wantZones)
		}
	}
	// The zone IDs are recorded in the model, though ELBv2 does not report them.
	c.f.Server.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		m := accounts[provider].Regions["us-east-1"].ELB.LoadBalancers[aws.ToString(lb.LoadBalancerArn)]
		if got := fmt.Sprint(m.ZoneIDs()); got != fmt.Sprint(sortedByName(a, "use1-az1", "use1-az2")) {
			t.Errorf("model zone IDs = %s", got)
		}
	})

	state := func() elbtypes.LoadBalancerStateEnum {
		out, err := a.elb.DescribeLoadBalancers(c.ctx, &elbv2.DescribeLoadBalancersInput{Names: []string{"k8s-ns-router-db6fee3a62"}})
		if err != nil {
			t.Fatalf("DescribeLoadBalancers: %v", err)
		}
		return out.LoadBalancers[0].State.Code
	}
	c.clk.Advance(testDelays.LoadBalancerProvisioning.D() - 1)
	if got := state(); got != elbtypes.LoadBalancerStateEnumProvisioning {
		t.Errorf("state just before the delay = %s, want provisioning", got)
	}
	c.clk.Advance(1)
	if got := state(); got != elbtypes.LoadBalancerStateEnumActive {
		t.Errorf("state after the delay = %s, want active", got)
	}
}

// sortedByName orders zone IDs by the account's names for them, the order
// an NLB lists its zones in.
func sortedByName(a *plAccount, ids ...string) []string {
	if a.names[ids[0]] > a.names[ids[1]] {
		ids[0], ids[1] = ids[1], ids[0]
	}
	return ids
}

func TestCreateLoadBalancerRules(t *testing.T) {
	c := newPLCloud(t)
	a := c.account(provider)
	vpc := a.vpc("10.0.0.0/16")
	s1 := a.subnet(vpc, "10.0.1.0/24", "use1-az1")
	s1b := a.subnet(vpc, "10.0.2.0/24", "use1-az1")
	s2 := a.subnet(vpc, "10.0.3.0/24", "use1-az2")
	other := a.subnet(a.vpc("10.1.0.0/16"), "10.1.1.0/24", "use1-az3")
	if _, err := a.elb.CreateLoadBalancer(c.ctx, &elbv2.CreateLoadBalancerInput{Name: aws.String("taken"),
		Type: elbtypes.LoadBalancerTypeEnumNetwork, Scheme: elbtypes.LoadBalancerSchemeEnumInternal, Subnets: []string{s1}}); err != nil {
		t.Fatalf("CreateLoadBalancer(taken): %v", err)
	}

	for _, tc := range []struct {
		name    string
		in      elbv2.CreateLoadBalancerInput
		want    string
		sameARN bool
	}{
		{name: "application load balancers are not modelled", want: "ValidationError",
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("alb"), Subnets: []string{s1, s2}}},
		{name: "name longer than 32", want: "ValidationError",
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("a234567890123456789012345678901234"), Type: "network", Subnets: []string{s1}}},
		{name: "name with a dot", want: "ValidationError",
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("bad.name"), Type: "network", Subnets: []string{s1}}},
		{name: "name ending in a hyphen", want: "ValidationError",
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("bad-"), Type: "network", Subnets: []string{s1}}},
		{name: "no subnets", want: "ValidationError",
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("nosubnets"), Type: "network"}},
		{name: "unknown subnet", want: "SubnetNotFound",
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("ghost"), Type: "network", Subnets: []string{"subnet-0123456789abcdef0"}}},
		{name: "two subnets in one zone", want: "InvalidConfigurationRequest",
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("twice"), Type: "network", Subnets: []string{s1, s1b}}},
		{name: "subnets of two VPCs", want: "InvalidConfigurationRequest",
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("twovpcs"), Type: "network", Subnets: []string{s1, other}}},
		{name: "same name, other settings", want: "DuplicateLoadBalancerName",
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("taken"), Type: "network", Scheme: "internal", Subnets: []string{s1, s2}}},
		{name: "same name and settings is idempotent", sameARN: true,
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("taken"), Type: "network", Scheme: "internal", Subnets: []string{s1}}},
		{name: "internet-facing in a VPC without an internet gateway", want: "InvalidSubnet",
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("public"), Type: "network", Subnets: []string{s1}}},
		{name: "subnet mappings", want: "",
			in: elbv2.CreateLoadBalancerInput{Name: aws.String("mapped"), Type: "network", Scheme: "internal",
				SubnetMappings: []elbtypes.SubnetMapping{{SubnetId: aws.String(s1)}, {SubnetId: aws.String(s2)}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := a.elb.CreateLoadBalancer(c.ctx, &tc.in)
			wantCode(t, "CreateLoadBalancer", err, tc.want)
			if tc.sameARN {
				desc, derr := a.elb.DescribeLoadBalancers(c.ctx, &elbv2.DescribeLoadBalancersInput{Names: []string{"taken"}})
				if derr != nil || len(desc.LoadBalancers) != 1 {
					t.Fatalf("DescribeLoadBalancers(taken): %v, %d found", derr, len(desc.LoadBalancers))
				}
				if aws.ToString(out.LoadBalancers[0].LoadBalancerArn) != aws.ToString(desc.LoadBalancers[0].LoadBalancerArn) {
					t.Errorf("repeated create made a second NLB")
				}
			}
			if tc.name == "subnet mappings" && len(out.LoadBalancers[0].AvailabilityZones) != 2 {
				t.Errorf("subnet mappings gave zones %+v, want two", out.LoadBalancers[0].AvailabilityZones)
			}
		})
	}
}

func TestDescribeLoadBalancersPagesAndLookups(t *testing.T) {
	c := newPLCloud(t)
	a := c.account(provider)
	vpc := a.vpc("10.0.0.0/16")
	subnet := a.subnet(vpc, "10.0.1.0/24", "use1-az1")
	arns := map[string]string{}
	for i := range 5 {
		name := fmt.Sprintf("nlb-%d", i)
		out, err := a.elb.CreateLoadBalancer(c.ctx, &elbv2.CreateLoadBalancerInput{Name: aws.String(name), Type: "network", Scheme: "internal", Subnets: []string{subnet}})
		if err != nil {
			t.Fatalf("CreateLoadBalancer(%s): %v", name, err)
		}
		arns[name] = aws.ToString(out.LoadBalancers[0].LoadBalancerArn)
	}

	seen := map[string]bool{}
	pages := 0
	p := elbv2.NewDescribeLoadBalancersPaginator(a.elb, &elbv2.DescribeLoadBalancersInput{PageSize: aws.Int32(2)})
	for p.HasMorePages() {
		out, err := p.NextPage(c.ctx)
		if err != nil {
			t.Fatalf("DescribeLoadBalancers page %d: %v", pages, err)
		}
		pages++
		for _, lb := range out.LoadBalancers {
			if seen[aws.ToString(lb.LoadBalancerName)] {
				t.Errorf("%s listed twice", aws.ToString(lb.LoadBalancerName))
			}
			seen[aws.ToString(lb.LoadBalancerName)] = true
		}
	}
	if pages != 3 || len(seen) != 5 {
		t.Errorf("got %d NLBs over %d pages, want 5 over 3", len(seen), pages)
	}

	byARN, err := a.elb.DescribeLoadBalancers(c.ctx, &elbv2.DescribeLoadBalancersInput{LoadBalancerArns: []string{arns["nlb-3"]}})
	if err != nil || len(byARN.LoadBalancers) != 1 || aws.ToString(byARN.LoadBalancers[0].LoadBalancerName) != "nlb-3" {
		t.Errorf("DescribeLoadBalancers by ARN: %v %+v", err, byARN)
	}
	_, err = a.elb.DescribeLoadBalancers(c.ctx, &elbv2.DescribeLoadBalancersInput{Names: []string{"nlb-1", "missing"}})
	wantCode(t, "DescribeLoadBalancers(missing)", err, "LoadBalancerNotFound")
	// Another account's NLB does not exist for the caller.
	_, err = c.account(consumer).elb.DescribeLoadBalancers(c.ctx, &elbv2.DescribeLoadBalancersInput{LoadBalancerArns: []string{arns["nlb-1"]}})
	wantCode(t, "DescribeLoadBalancers from another account", err, "LoadBalancerNotFound")
}

func TestNLBCrossZoneAttribute(t *testing.T) {
	c := newPLCloud(t)
	a := c.account(provider)
	arn := a.nlb("cross", "use1-az1").LoadBalancerArn
	attr := func(list []elbtypes.LoadBalancerAttribute, key string) string {
		for _, kv := range list {
			if aws.ToString(kv.Key) == key {
				return aws.ToString(kv.Value)
			}
		}
		t.Fatalf("attribute %s missing from %+v", key, list)
		return ""
	}
	out, err := a.elb.DescribeLoadBalancerAttributes(c.ctx, &elbv2.DescribeLoadBalancerAttributesInput{LoadBalancerArn: arn})
	if err != nil {
		t.Fatalf("DescribeLoadBalancerAttributes: %v", err)
	}
	if got := attr(out.Attributes, "load_balancing.cross_zone.enabled"); got != "false" {
		t.Errorf("cross-zone default = %s, want false for an NLB", got)
	}
	mod, err := a.elb.ModifyLoadBalancerAttributes(c.ctx, &elbv2.ModifyLoadBalancerAttributesInput{LoadBalancerArn: arn,
		Attributes: []elbtypes.LoadBalancerAttribute{{Key: aws.String("load_balancing.cross_zone.enabled"), Value: aws.String("true")}}})
	if err != nil {
		t.Fatalf("ModifyLoadBalancerAttributes: %v", err)
	}
	if got := attr(mod.Attributes, "load_balancing.cross_zone.enabled"); got != "true" {
		t.Errorf("modify answered cross-zone = %s, want true", got)
	}
	out, err = a.elb.DescribeLoadBalancerAttributes(c.ctx, &elbv2.DescribeLoadBalancerAttributesInput{LoadBalancerArn: arn})
	if err != nil || attr(out.Attributes, "load_balancing.cross_zone.enabled") != "true" {
		t.Errorf("cross-zone after modify: %v %+v", err, out)
	}
	c.f.Server.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		if !accounts[provider].Regions["us-east-1"].ELB.LoadBalancers[aws.ToString(arn)].CrossZone {
			t.Errorf("model LoadBalancer.CrossZone is false after enabling it")
		}
	})

	for _, tc := range []struct{ key, value, want string }{
		{"idle_timeout.timeout_seconds", "60", "InvalidConfigurationRequest"}, // an ALB attribute
		{"load_balancing.cross_zone.enabled", "maybe", "InvalidConfigurationRequest"},
	} {
		_, err := a.elb.ModifyLoadBalancerAttributes(c.ctx, &elbv2.ModifyLoadBalancerAttributesInput{LoadBalancerArn: arn,
			Attributes: []elbtypes.LoadBalancerAttribute{{Key: aws.String(tc.key), Value: aws.String(tc.value)}}})
		wantCode(t, "ModifyLoadBalancerAttributes "+tc.key+"="+tc.value, err, tc.want)
	}
}

func TestNLBTags(t *testing.T) {
	c := newPLCloud(t)
	a := c.account(provider)
	arn := aws.ToString(a.nlb("tagged", "use1-az1").LoadBalancerArn)
	if _, err := a.elb.AddTags(c.ctx, &elbv2.AddTagsInput{ResourceArns: []string{arn}, Tags: []elbtypes.Tag{
		{Key: aws.String("kubernetes.io/cluster/infra"), Value: aws.String("owned")}, {Key: aws.String("team"), Value: aws.String("a")}}}); err != nil {
		t.Fatalf("AddTags: %v", err)
	}
	if _, err := a.elb.RemoveTags(c.ctx, &elbv2.RemoveTagsInput{ResourceArns: []string{arn}, TagKeys: []string{"team"}}); err != nil {
		t.Fatalf("RemoveTags: %v", err)
	}
	out, err := a.elb.DescribeTags(c.ctx, &elbv2.DescribeTagsInput{ResourceArns: []string{arn}})
	if err != nil {
		t.Fatalf("DescribeTags: %v", err)
	}
	if len(out.TagDescriptions) != 1 || aws.ToString(out.TagDescriptions[0].ResourceArn) != arn {
		t.Fatalf("DescribeTags answered %+v", out.TagDescriptions)
	}
	tags := out.TagDescriptions[0].Tags
	if len(tags) != 1 || aws.ToString(tags[0].Key) != "kubernetes.io/cluster/infra" || aws.ToString(tags[0].Value) != "owned" {
		t.Errorf("tags = %+v, want only kubernetes.io/cluster/infra=owned", tags)
	}
	_, err = a.elb.DescribeTags(c.ctx, &elbv2.DescribeTagsInput{ResourceArns: []string{arn + "0"}})
	wantCode(t, "DescribeTags(unknown ARN)", err, "LoadBalancerNotFound")
}

func TestDeleteLoadBalancer(t *testing.T) {
	c := newPLCloud(t)
	a := c.account(provider)
	lb := a.nlb("doomed", "use1-az1")
	arn, subnet := lb.LoadBalancerArn, aws.ToString(lb.AvailabilityZones[0].SubnetId)

	if _, err := a.elb.ModifyLoadBalancerAttributes(c.ctx, &elbv2.ModifyLoadBalancerAttributesInput{LoadBalancerArn: arn,
		Attributes: []elbtypes.LoadBalancerAttribute{{Key: aws.String("deletion_protection.enabled"), Value: aws.String("true")}}}); err != nil {
		t.Fatalf("enabling deletion protection: %v", err)
	}
	_, err := a.elb.DeleteLoadBalancer(c.ctx, &elbv2.DeleteLoadBalancerInput{LoadBalancerArn: arn})
	wantCode(t, "DeleteLoadBalancer with deletion protection", err, "OperationNotPermitted")
	if _, err := a.elb.ModifyLoadBalancerAttributes(c.ctx, &elbv2.ModifyLoadBalancerAttributesInput{LoadBalancerArn: arn,
		Attributes: []elbtypes.LoadBalancerAttribute{{Key: aws.String("deletion_protection.enabled"), Value: aws.String("false")}}}); err != nil {
		t.Fatalf("disabling deletion protection: %v", err)
	}
	if _, err := a.elb.DeleteLoadBalancer(c.ctx, &elbv2.DeleteLoadBalancerInput{LoadBalancerArn: arn}); err != nil {
		t.Fatalf("DeleteLoadBalancer: %v", err)
	}
	_, err = a.elb.DescribeLoadBalancers(c.ctx, &elbv2.DescribeLoadBalancersInput{LoadBalancerArns: []string{aws.ToString(arn)}})
	wantCode(t, "DescribeLoadBalancers after delete", err, "LoadBalancerNotFound")
	if _, err := a.elb.DeleteLoadBalancer(c.ctx, &elbv2.DeleteLoadBalancerInput{LoadBalancerArn: arn}); err != nil {
		t.Errorf("deleting a deleted NLB again: %v, want success as on AWS", err)
	}

	// Its network interfaces keep the subnet busy for a while.
	inSubnet := func() []string {
		var arns []string
		c.f.Server.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
			arns = accounts[provider].Regions["us-east-1"].LoadBalancersInSubnet(subnet)
		})
		return arns
	}
	if got := inSubnet(); len(got) != 1 {
		t.Errorf("LoadBalancersInSubnet right after delete = %v, want the deleted NLB", got)
	}
	c.clk.Advance(testDelays.LoadBalancerDeleting.D())
	if got := inSubnet(); len(got) != 0 {
		t.Errorf("LoadBalancersInSubnet after LoadBalancerDeleting = %v, want none", got)
	}
}

func TestInternetFacingNLBNeedsAnInternetGateway(t *testing.T) {
	c := newPLCloud(t)
	a := c.account(provider)
	vpc := a.vpc("10.0.0.0/16")
	subnet := a.subnet(vpc, "10.0.1.0/24", "use1-az1")
	in := &elbv2.CreateLoadBalancerInput{Name: aws.String("public"), Type: "network", Subnets: []string{subnet}}
	_, err := a.elb.CreateLoadBalancer(c.ctx, in)
	wantCode(t, "internet-facing without an internet gateway", err, "InvalidSubnet")
	igw, err := a.ec2.CreateInternetGateway(c.ctx, &ec2.CreateInternetGatewayInput{})
	if err != nil {
		t.Fatalf("CreateInternetGateway: %v", err)
	}
	if _, err := a.ec2.AttachInternetGateway(c.ctx, &ec2.AttachInternetGatewayInput{VpcId: aws.String(vpc),
		InternetGatewayId: igw.InternetGateway.InternetGatewayId}); err != nil {
		t.Fatalf("AttachInternetGateway: %v", err)
	}
	out, err := a.elb.CreateLoadBalancer(c.ctx, in)
	if err != nil {
		t.Fatalf("internet-facing with an internet gateway: %v", err)
	}
	if out.LoadBalancers[0].Scheme != elbtypes.LoadBalancerSchemeEnumInternetFacing {
		t.Errorf("scheme = %s, want internet-facing (the default)", out.LoadBalancers[0].Scheme)
	}
}
