package aws_test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
)

func TestEndpointServiceOnNLB(t *testing.T) {
	c := newPLCloud(t)
	a := c.account(provider)
	lb := a.nlb("router", "use1-az1", "use1-az2")
	out, err := a.ec2.CreateVpcEndpointServiceConfiguration(c.ctx, &ec2.CreateVpcEndpointServiceConfigurationInput{
		AcceptanceRequired:      aws.Bool(false),
		NetworkLoadBalancerArns: []string{aws.ToString(lb.LoadBalancerArn)},
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeVpcEndpointService,
			Tags: []ec2types.Tag{{Key: aws.String("kubernetes.io/cluster/mgmt"), Value: aws.String("owned")}}}},
	})
	if err != nil {
		t.Fatalf("CreateVpcEndpointServiceConfiguration: %v", err)
	}
	svc := out.ServiceConfiguration
	id := aws.ToString(svc.ServiceId)
	if !regexp.MustCompile(`^vpce-svc-[0-9a-f]{17}$`).MatchString(id) {
		t.Errorf("service ID %s is not in AWS's format", id)
	}
	if got, want := aws.ToString(svc.ServiceName), "com.amazonaws.vpce.us-east-1."+id; got != want {
		t.Errorf("service name = %s, want %s", got, want)
	}
	if svc.ServiceState != ec2types.ServiceStatePending {
		t.Errorf("new service state = %s, want Pending", svc.ServiceState)
	}
	wantZones := []string{a.names["use1-az1"], a.names["use1-az2"]}
	sort.Strings(wantZones)
	if fmt.Sprint(svc.AvailabilityZones) != fmt.Sprint(wantZones) {
		t.Errorf("zones = %v, want the NLB's %v", svc.AvailabilityZones, wantZones)
	}
	if len(svc.BaseEndpointDnsNames) != 1 || svc.BaseEndpointDnsNames[0] != id+".us-east-1.vpce.amazonaws.com" {
		t.Errorf("base endpoint DNS names = %v", svc.BaseEndpointDnsNames)
	}
	if len(svc.NetworkLoadBalancerArns) != 1 || svc.NetworkLoadBalancerArns[0] != aws.ToString(lb.LoadBalancerArn) {
		t.Errorf("NLB ARNs = %v", svc.NetworkLoadBalancerArns)
	}

	describe := func(in *ec2.DescribeVpcEndpointServiceConfigurationsInput) []ec2types.ServiceConfiguration {
		t.Helper()
		out, err := a.ec2.DescribeVpcEndpointServiceConfigurations(c.ctx, in)
		if err != nil {
			t.Fatalf("DescribeVpcEndpointServiceConfigurations: %v", err)
		}
		return out.ServiceConfigurations
	}
	available := &ec2.DescribeVpcEndpointServiceConfigurationsInput{Filters: []ec2types.Filter{{Name: aws.String("service-state"), Values: []string{"Available"}}}}
	if got := describe(available); len(got) != 0 {
		t.Errorf("Available services before EndpointServicePending = %d, want 0", len(got))
	}
	c.clk.Advance(testDelays.EndpointServicePending.D())
	if got := describe(available); len(got) != 1 || aws.ToString(got[0].ServiceId) != id {
		t.Errorf("Available services after EndpointServicePending = %+v, want %s", got, id)
	}
	byTag := describe(&ec2.DescribeVpcEndpointServiceConfigurationsInput{Filters: []ec2types.Filter{{Name: aws.String("tag:kubernetes.io/cluster/mgmt"), Values: []string{"owned"}}}})
	if len(byTag) != 1 || len(byTag[0].Tags) != 1 {
		t.Errorf("by cluster tag: %+v", byTag)
	}
	byName := describe(&ec2.DescribeVpcEndpointServiceConfigurationsInput{Filters: []ec2types.Filter{{Name: aws.String("service-name"), Values: []string{aws.ToString(svc.ServiceName)}}}})
	if len(byName) != 1 {
		t.Errorf("by service name: %d services", len(byName))
	}
	_, err = a.ec2.DescribeVpcEndpointServiceConfigurations(c.ctx, &ec2.DescribeVpcEndpointServiceConfigurationsInput{ServiceIds: []string{"vpce-svc-00000000000000000"}})
	wantCode(t, "describe unknown service", err, "InvalidVpcEndpointServiceId.NotFound")
	// Only the owner sees its configurations.
	other, err := c.account(consumer).ec2.DescribeVpcEndpointServiceConfigurations(c.ctx, &ec2.DescribeVpcEndpointServiceConfigurationsInput{})
	if err != nil || len(other.ServiceConfigurations) != 0 {
		t.Errorf("another account sees configurations: %v %+v", err, other)
	}
}

func TestEndpointServiceIdempotencyAndOneServicePerNLB(t *testing.T) {
	c := newPLCloud(t)
	a := c.account(provider)
	arn := aws.ToString(a.nlb("router", "use1-az1").LoadBalancerArn)
	create := func(token string, acceptance bool) (*ec2.CreateVpcEndpointServiceConfigurationOutput, error) {
		in := &ec2.CreateVpcEndpointServiceConfigurationInput{AcceptanceRequired: aws.Bool(acceptance), NetworkLoadBalancerArns: []string{arn}}
		if token != "" {
			in.ClientToken = aws.String(token)
		}
		return a.ec2.CreateVpcEndpointServiceConfiguration(c.ctx, in)
	}
	first, err := create("uid-1", false)
	if err != nil {
		t.Fatalf("first create: %v", err)
	}
	again, err := create("uid-1", false)
	if err != nil {
		t.Fatalf("retried create with the same token: %v", err)
	}
	if aws.ToString(again.ServiceConfiguration.ServiceId) != aws.ToString(first.ServiceConfiguration.ServiceId) {
		t.Errorf("same token made a second service: %s then %s",
			aws.ToString(first.ServiceConfiguration.ServiceId), aws.ToString(again.ServiceConfiguration.ServiceId))
	}
	if aws.ToString(again.ClientToken) != "uid-1" {
		t.Errorf("clientToken = %q, want uid-1", aws.ToString(again.ClientToken))
	}
	_, err = create("uid-1", true)
	wantCode(t, "same token, other parameters", err, "IdempotentParameterMismatch")
	_, err = create("uid-2", false)
	wantCode(t, "a second service on the NLB", err, "InvalidParameter")

	// HyperShift's way out: find the service that already uses the NLB.
	all, err := a.ec2.DescribeVpcEndpointServiceConfigurations(c.ctx, &ec2.DescribeVpcEndpointServiceConfigurationsInput{})
	if err != nil {
		t.Fatalf("DescribeVpcEndpointServiceConfigurations: %v", err)
	}
	adopted := ""
	for _, s := range all.ServiceConfigurations {
		for _, lbARN := range s.NetworkLoadBalancerArns {
			if lbARN == arn {
				adopted = aws.ToString(s.ServiceId)
			}
		}
	}
	if adopted != aws.ToString(first.ServiceConfiguration.ServiceId) || len(all.ServiceConfigurations) != 1 {
		t.Errorf("adoption found %q among %d services, want %s", adopted, len(all.ServiceConfigurations), aws.ToString(first.ServiceConfiguration.ServiceId))
	}
}

// roleSession creates a role in the account (trusting the account itself)
// and assumes it through STS, returning the account as seen through the
// session's keys.
func roleSession(c *plCloud, a *plAccount, path, name string) *plAccount {
	c.t.Helper()
	cfg := c.config(a.id)
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + a.id + `:root"},"Action":"sts:AssumeRole"}]}`
	role, err := iam.NewFromConfig(cfg).CreateRole(c.ctx, &iam.CreateRoleInput{RoleName: aws.String(name), Path: aws.String(path),
		AssumeRolePolicyDocument: aws.String(trust)})
	if err != nil {
		c.t.Fatalf("CreateRole(%s%s): %v", path, name, err)
	}
	allowEverything(c.t, iam.NewFromConfig(cfg), name)
	out, err := sts.NewFromConfig(cfg).AssumeRole(c.ctx, &sts.AssumeRoleInput{RoleArn: role.Role.Arn, RoleSessionName: aws.String("test-session")})
	if err != nil {
		c.t.Fatalf("AssumeRole(%s): %v", aws.ToString(role.Role.Arn), err)
	}
	k := out.Credentials
	return a.withKeys(aws.ToString(k.AccessKeyId), aws.ToString(k.SecretAccessKey), aws.ToString(k.SessionToken))
}

func TestCrossAccountServiceNeedsAllowedPrincipal(t *testing.T) {
	c := newPLCloud(t)
	a, b := c.account(provider), c.account(consumer)
	svc := a.service(false, "use1-az1", "use1-az2")
	name, id := aws.ToString(svc.ServiceName), aws.ToString(svc.ServiceId)
	vpc := b.vpc("10.20.0.0/16")
	subnet := b.subnet(vpc, "10.20.1.0/24", "use1-az1")
	cpo := roleSession(c, b, "/hypershift/", "cpo-role")
	stranger := roleSession(c, b, "/", "other-role")

	visible := func(who *plAccount) error {
		_, err := who.ec2.DescribeVpcEndpointServices(c.ctx, &ec2.DescribeVpcEndpointServicesInput{ServiceNames: []string{name}})
		return err
	}
	createTo := func(who *plAccount, serviceName string) error {
		_, err := who.ec2.CreateVpcEndpoint(c.ctx, &ec2.CreateVpcEndpointInput{VpcEndpointType: ec2types.VpcEndpointTypeInterface,
			VpcId: aws.String(vpc), ServiceName: aws.String(serviceName), SubnetIds: []string{subnet}})
		return err
	}
	create := func(who *plAccount) error { return createTo(who, name) }
	listed := func(who *plAccount) bool {
		out, err := who.ec2.DescribeVpcEndpointServices(c.ctx, &ec2.DescribeVpcEndpointServicesInput{})
		if err != nil {
			t.Fatalf("DescribeVpcEndpointServices: %v", err)
		}
		for _, n := range out.ServiceNames {
			if n == name {
				return true
			}
		}
		return false
	}

	// Not allowed: indistinguishable from a service that does not exist.
	wantCode(t, "B describes A's service", visible(b), "InvalidServiceName")
	wantCode(t, "B connects to A's service", create(b), "InvalidServiceName")
	wantCode(t, "B connects to a service that does not exist",
		createTo(b, "com.amazonaws.vpce.us-east-1.vpce-svc-00000000000000000"), "InvalidServiceName")
	if listed(b) {
		t.Errorf("B lists A's service before being allowed")
	}
	if !listed(a) {
		t.Errorf("A does not list its own service")
	}

	// The role, named without its IAM path, admits sessions of that role only.
	a.allow(id, "arn:aws:iam::"+consumer+":role/cpo-role")
	if err := visible(cpo); err != nil {
		t.Errorf("allowed role session describes the service: %v", err)
	}
	wantCode(t, "another role of B", visible(stranger), "InvalidServiceName")
	wantCode(t, "B's root with only a role allowed", visible(b), "InvalidServiceName")
	if err := create(cpo); err != nil {
		t.Errorf("allowed role session creates an endpoint: %v", err)
	}

	// The account root ARN admits every principal of the account.
	a.allow(id, "arn:aws:iam::"+consumer+":root")
	if err := visible(stranger); err != nil {
		t.Errorf("root allowed, other role describes: %v", err)
	}
	if !listed(b) {
		t.Errorf("B does not list A's service once allowed")
	}

	perms, err := a.ec2.DescribeVpcEndpointServicePermissions(c.ctx, &ec2.DescribeVpcEndpointServicePermissionsInput{ServiceId: aws.String(id)})
	if err != nil {
		t.Fatalf("DescribeVpcEndpointServicePermissions: %v", err)
	}
	types := map[string]ec2types.PrincipalType{}
	for _, p := range perms.AllowedPrincipals {
		types[aws.ToString(p.Principal)] = p.PrincipalType
	}
	if types["arn:aws:iam::"+consumer+":root"] != ec2types.PrincipalTypeAccount || types["arn:aws:iam::"+consumer+":role/cpo-role"] != ec2types.PrincipalTypeRole {
		t.Errorf("allowed principals = %v", types)
	}
	_, err = a.ec2.ModifyVpcEndpointServicePermissions(c.ctx, &ec2.ModifyVpcEndpointServicePermissionsInput{ServiceId: aws.String(id),
		AddAllowedPrincipals: []string{"arn:aws:sts::" + consumer + ":assumed-role/cpo-role/session"}})
	wantCode(t, "allowing an assumed-role session ARN", err, "InvalidPrincipal")

	mod, err := a.ec2.ModifyVpcEndpointServicePermissions(c.ctx, &ec2.ModifyVpcEndpointServicePermissionsInput{ServiceId: aws.String(id),
		RemoveAllowedPrincipals: []string{"arn:aws:iam::" + consumer + ":root", "arn:aws:iam::" + consumer + ":role/cpo-role"},
		AddAllowedPrincipals:    []string{"arn:aws:iam::333333333333:root"}})
	if err != nil || !aws.ToBool(mod.ReturnValue) || len(mod.AddedPrincipals) != 1 ||
		aws.ToString(mod.AddedPrincipals[0].ServicePermissionId) == "" {
		t.Fatalf("ModifyVpcEndpointServicePermissions: %v %+v", err, mod)
	}
	wantCode(t, "B after its principals were removed", visible(b), "InvalidServiceName")
}

// consumerSetup is B's VPC with one subnet in each of the given zones and
// a security group, and A's service admitting B.
type consumerSetup struct {
	vpc, sg string
	subnets []string // in the order of the zone IDs given
	service ec2types.ServiceConfiguration
}

func setupConsumer(c *plCloud, a, b *plAccount, acceptance bool, serviceZones []string, consumerZones ...string) consumerSetup {
	c.t.Helper()
	s := consumerSetup{service: a.service(acceptance, serviceZones...)}
	a.allow(aws.ToString(s.service.ServiceId), "arn:aws:iam::"+b.id+":root")
	s.vpc = b.vpc("10.20.0.0/16")
	for i, z := range consumerZones {
		s.subnets = append(s.subnets, b.subnet(s.vpc, fmt.Sprintf("10.20.%d.0/24", i), z))
	}
	s.sg = b.securityGroup(s.vpc, "vpce")
	return s
}

func (s consumerSetup) endpointInput(subnets ...string) *ec2.CreateVpcEndpointInput {
	return &ec2.CreateVpcEndpointInput{VpcEndpointType: ec2types.VpcEndpointTypeInterface, VpcId: aws.String(s.vpc),
		ServiceName: s.service.ServiceName, SubnetIds: subnets, SecurityGroupIds: []string{s.sg}}
}

func TestAcceptanceRequiredEndpointLifecycle(t *testing.T) {
	c := newPLCloud(t)
	a, b := c.account(provider), c.account(consumer)
	s := setupConsumer(c, a, b, true, []string{"use1-az1"}, "use1-az1")
	svcID := aws.ToString(s.service.ServiceId)
	accepted := b.endpoint(s.endpointInput(s.subnets[0]))
	rejected := b.endpoint(s.endpointInput(s.subnets[0]))
	if accepted.State != "pendingAcceptance" {
		t.Fatalf("new endpoint state = %s, want pendingAcceptance", accepted.State)
	}

	conns, err := a.ec2.DescribeVpcEndpointConnections(c.ctx, &ec2.DescribeVpcEndpointConnectionsInput{
		Filters: []ec2types.Filter{{Name: aws.String("service-id"), Values: []string{svcID}}}})
	if err != nil {
		t.Fatalf("DescribeVpcEndpointConnections: %v", err)
	}
	if len(conns.VpcEndpointConnections) != 2 {
		t.Fatalf("A sees %d connections, want B's 2", len(conns.VpcEndpointConnections))
	}
	for _, conn := range conns.VpcEndpointConnections {
		if aws.ToString(conn.VpcEndpointOwner) != consumer || conn.VpcEndpointState != "pendingAcceptance" || len(conn.DnsEntries) == 0 {
			t.Errorf("connection %+v: want owner %s, pendingAcceptance, DNS entries", conn, consumer)
		}
	}

	acc, err := a.ec2.AcceptVpcEndpointConnections(c.ctx, &ec2.AcceptVpcEndpointConnectionsInput{ServiceId: aws.String(svcID),
		VpcEndpointIds: []string{aws.ToString(accepted.VpcEndpointId), "vpce-00000000000000000"}})
	if err != nil {
		t.Fatalf("AcceptVpcEndpointConnections: %v", err)
	}
	if len(acc.Unsuccessful) != 1 || aws.ToString(acc.Unsuccessful[0].ResourceId) != "vpce-00000000000000000" ||
		aws.ToString(acc.Unsuccessful[0].Error.Code) != "InvalidVpcEndpoint.NotFound" {
		t.Errorf("unsuccessful = %+v, want only the unknown endpoint", acc.Unsuccessful)
	}
	rej, err := a.ec2.RejectVpcEndpointConnections(c.ctx, &ec2.RejectVpcEndpointConnectionsInput{ServiceId: aws.String(svcID),
		VpcEndpointIds: []string{aws.ToString(rejected.VpcEndpointId)}})
	if err != nil || len(rej.Unsuccessful) != 0 {
		t.Fatalf("RejectVpcEndpointConnections: %v %+v", err, rej)
	}

	if got := b.describeEndpoint(aws.ToString(accepted.VpcEndpointId)).State; got != "pending" {
		t.Errorf("accepted endpoint = %s, want pending", got)
	}
	if got := b.describeEndpoint(aws.ToString(rejected.VpcEndpointId)).State; got != "rejected" {
		t.Errorf("rejected endpoint = %s, want rejected", got)
	}
	c.clk.Advance(testDelays.EndpointPending.D())
	if got := b.describeEndpoint(aws.ToString(accepted.VpcEndpointId)).State; got != "available" {
		t.Errorf("accepted endpoint after EndpointPending = %s, want available", got)
	}
	byState, err := a.ec2.DescribeVpcEndpointConnections(c.ctx, &ec2.DescribeVpcEndpointConnectionsInput{
		Filters: []ec2types.Filter{{Name: aws.String("vpc-endpoint-state"), Values: []string{"rejected"}}}})
	if err != nil || len(byState.VpcEndpointConnections) != 1 || aws.ToString(byState.VpcEndpointConnections[0].VpcEndpointId) != aws.ToString(rejected.VpcEndpointId) {
		t.Errorf("rejected connections: %v %+v", err, byState)
	}
}

func TestEndpointBecomesAvailableWithRegionalAndZonalNames(t *testing.T) {
	c := newPLCloud(t)
	a, b := c.account(provider), c.account(consumer)
	s := setupConsumer(c, a, b, false, []string{"use1-az1", "use1-az2"}, "use1-az1", "use1-az2")
	svcID := aws.ToString(s.service.ServiceId)
	ep := b.endpoint(s.endpointInput(s.subnets...))
	id := aws.ToString(ep.VpcEndpointId)
	if ep.State != "pending" {
		t.Errorf("endpoint to a service without acceptance = %s, want pending", ep.State)
	}
	if len(ep.Groups) != 1 || aws.ToString(ep.Groups[0].GroupId) != s.sg || aws.ToString(ep.Groups[0].GroupName) != "vpce" {
		t.Errorf("groups = %+v, want %s (vpce)", ep.Groups, s.sg)
	}
	if len(ep.NetworkInterfaceIds) != 2 {
		t.Errorf("network interfaces = %v, want one per subnet", ep.NetworkInterfaceIds)
	}

	if len(ep.DnsEntries) != 3 {
		t.Fatalf("DNS entries = %+v, want a regional and two zonal names", ep.DnsEntries)
	}
	suffix := `\.` + svcID + `\.us-east-1\.vpce\.amazonaws\.com$`
	regional := regexp.MustCompile(`^` + id + `-[a-z0-9]{8}` + suffix)
	if !regional.MatchString(aws.ToString(ep.DnsEntries[0].DnsName)) {
		t.Errorf("first DNS entry %s is not the regional name %s", aws.ToString(ep.DnsEntries[0].DnsName), regional)
	}
	label := strings.SplitN(aws.ToString(ep.DnsEntries[0].DnsName), ".", 2)[0]
	zoneNames := []string{b.names["use1-az1"], b.names["use1-az2"]}
	sort.Strings(zoneNames)
	for i, z := range zoneNames {
		if got, want := aws.ToString(ep.DnsEntries[i+1].DnsName), label+"-"+z+"."+svcID+".us-east-1.vpce.amazonaws.com"; got != want {
			t.Errorf("zonal DNS entry %d = %s, want %s (B's zone name)", i, got, want)
		}
	}
	for _, e := range ep.DnsEntries {
		if aws.ToString(e.HostedZoneId) != "Z7HUB22UULQXV" {
			t.Errorf("DNS entry %s has hosted zone %s, want us-east-1's Z7HUB22UULQXV", aws.ToString(e.DnsName), aws.ToString(e.HostedZoneId))
		}
	}

	c.clk.Advance(testDelays.EndpointPending.D() - 1)
	if got := b.describeEndpoint(id).State; got != "pending" {
		t.Errorf("just before EndpointPending: %s, want pending", got)
	}
	c.clk.Advance(1)
	if got := b.describeEndpoint(id).State; got != "available" {
		t.Errorf("after EndpointPending: %s, want available", got)
	}
}

func TestEndpointZoneRules(t *testing.T) {
	c := newPLCloud(t)
	a, b := c.account(provider), c.account(consumer)
	served := []string{"use1-az1", "use1-az2"}
	outside := zoneOutside(b, served...)
	s := setupConsumer(c, a, b, false, served, "use1-az1", "use1-az2", outside)
	extra := b.subnet(s.vpc, "10.20.100.0/24", "use1-az1") // a second subnet in use1-az1

	// The consumer sees the service's zones under its own zone names.
	svcs, err := b.ec2.DescribeVpcEndpointServices(c.ctx, &ec2.DescribeVpcEndpointServicesInput{ServiceNames: []string{aws.ToString(s.service.ServiceName)}})
	if err != nil || len(svcs.ServiceDetails) != 1 {
		t.Fatalf("DescribeVpcEndpointServices: %v %+v", err, svcs)
	}
	want := []string{b.names["use1-az1"], b.names["use1-az2"]}
	sort.Strings(want)
	if got := svcs.ServiceDetails[0].AvailabilityZones; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("B sees zones %v, want its names %v for %v", got, want, served)
	}
	if fmt.Sprint(want) == fmt.Sprint(s.service.AvailabilityZones) {
		t.Logf("note: both accounts happen to name %v alike", served)
	}
	if aws.ToString(svcs.ServiceDetails[0].Owner) != provider {
		t.Errorf("owner = %s, want %s", aws.ToString(svcs.ServiceDetails[0].Owner), provider)
	}

	_, err = b.ec2.CreateVpcEndpoint(c.ctx, s.endpointInput(s.subnets[0], extra))
	wantCode(t, "two subnets in one zone", err, "DuplicateSubnetsInSameZone")
	_, err = b.ec2.CreateVpcEndpoint(c.ctx, s.endpointInput(s.subnets[0], s.subnets[2]))
	wantCode(t, "a subnet in a zone the NLB does not serve", err, "InvalidParameter")

	if ep := b.endpoint(s.endpointInput(s.subnets[0], s.subnets[1])); len(ep.SubnetIds) != 2 {
		t.Errorf("endpoint in both served zones has subnets %v", ep.SubnetIds)
	}

	// hcplink's model: with cross-zone load balancing on, the NLB's service
	// accepts endpoints in zones it has no subnet in (see plTarget.crossZone).
	lbARN := s.service.NetworkLoadBalancerArns[0]
	if _, err := a.elb.ModifyLoadBalancerAttributes(c.ctx, crossZoneOn(lbARN)); err != nil {
		t.Fatalf("enabling cross-zone: %v", err)
	}
	if ep := b.endpoint(s.endpointInput(s.subnets[2])); len(ep.SubnetIds) != 1 {
		t.Errorf("endpoint in an unserved zone with cross-zone on has subnets %v", ep.SubnetIds)
	}
}

func TestModifyVpcEndpointSubnetsAndGroups(t *testing.T) {
	c := newPLCloud(t)
	a, b := c.account(provider), c.account(consumer)
	s := setupConsumer(c, a, b, false, []string{"use1-az1", "use1-az2", "use1-az3"}, "use1-az1", "use1-az2", "use1-az3")
	sameZone := b.subnet(s.vpc, "10.20.100.0/24", "use1-az2")
	sg2 := b.securityGroup(s.vpc, "customer-added")
	id := aws.ToString(b.endpoint(s.endpointInput(s.subnets[0])).VpcEndpointId)

	out, err := b.ec2.ModifyVpcEndpoint(c.ctx, &ec2.ModifyVpcEndpointInput{VpcEndpointId: aws.String(id),
		AddSubnetIds: []string{s.subnets[1], s.subnets[2]}, AddSecurityGroupIds: []string{sg2}})
	if err != nil || !aws.ToBool(out.Return) {
		t.Fatalf("ModifyVpcEndpoint add: %v %+v", err, out)
	}
	ep := b.describeEndpoint(id)
	if len(ep.SubnetIds) != 3 || len(ep.DnsEntries) != 4 || len(ep.Groups) != 2 || len(ep.NetworkInterfaceIds) != 3 {
		t.Errorf("after adding: subnets %v, %d DNS entries, groups %+v, interfaces %v", ep.SubnetIds, len(ep.DnsEntries), ep.Groups, ep.NetworkInterfaceIds)
	}

	_, err = b.ec2.ModifyVpcEndpoint(c.ctx, &ec2.ModifyVpcEndpointInput{VpcEndpointId: aws.String(id), AddSubnetIds: []string{sameZone}})
	wantCode(t, "adding a second subnet in a zone", err, "DuplicateSubnetsInSameZone")
	// Replacing a zone's subnet in one call is fine: removals come first.
	if _, err := b.ec2.ModifyVpcEndpoint(c.ctx, &ec2.ModifyVpcEndpointInput{VpcEndpointId: aws.String(id),
		AddSubnetIds: []string{sameZone}, RemoveSubnetIds: []string{s.subnets[1], s.subnets[2]}, RemoveSecurityGroupIds: []string{s.sg}}); err != nil {
		t.Fatalf("ModifyVpcEndpoint swap: %v", err)
	}
	ep = b.describeEndpoint(id)
	gotSubnets := append([]string(nil), ep.SubnetIds...)
	sort.Strings(gotSubnets)
	wantSubnets := []string{s.subnets[0], sameZone}
	sort.Strings(wantSubnets)
	if fmt.Sprint(gotSubnets) != fmt.Sprint(wantSubnets) || len(ep.DnsEntries) != 3 || len(ep.Groups) != 1 || aws.ToString(ep.Groups[0].GroupId) != sg2 {
		t.Errorf("after swap: subnets %v (want %v), %d DNS entries, groups %+v", gotSubnets, wantSubnets, len(ep.DnsEntries), ep.Groups)
	}
	_, err = b.ec2.ModifyVpcEndpoint(c.ctx, &ec2.ModifyVpcEndpointInput{VpcEndpointId: aws.String("vpce-00000000000000000"), AddSubnetIds: []string{sameZone}})
	wantCode(t, "modifying an unknown endpoint", err, "InvalidVpcEndpointId.NotFound")
}

func crossZoneOn(arn string) *elbv2.ModifyLoadBalancerAttributesInput {
	return &elbv2.ModifyLoadBalancerAttributesInput{LoadBalancerArn: aws.String(arn),
		Attributes: []elbtypes.LoadBalancerAttribute{{Key: aws.String("load_balancing.cross_zone.enabled"), Value: aws.String("true")}}}
}

func TestDeletingEndpointKeepsItsSecurityGroupBusy(t *testing.T) {
	c := newPLCloud(t)
	a, b := c.account(provider), c.account(consumer)
	s := setupConsumer(c, a, b, false, []string{"use1-az1"}, "use1-az1")
	id := aws.ToString(b.endpoint(s.endpointInput(s.subnets[0])).VpcEndpointId)
	c.clk.Advance(testDelays.EndpointPending.D())

	del, err := b.ec2.DeleteVpcEndpoints(c.ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{id, "vpce-00000000000000000"}})
	if err != nil {
		t.Fatalf("DeleteVpcEndpoints: %v", err)
	}
	if len(del.Unsuccessful) != 1 || aws.ToString(del.Unsuccessful[0].Error.Code) != "InvalidVpcEndpoint.NotFound" {
		t.Errorf("unsuccessful = %+v, want the unknown endpoint as InvalidVpcEndpoint.NotFound", del.Unsuccessful)
	}
	if got := b.describeEndpoint(id).State; got != "deleting" {
		t.Errorf("state after delete = %s, want deleting", got)
	}
	_, err = b.ec2.DeleteSecurityGroup(c.ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(s.sg)})
	wantCode(t, "DeleteSecurityGroup while the endpoint is deleting", err, "DependencyViolation")

	c.clk.Advance(testDelays.EndpointDeleting.D())
	_, err = b.ec2.DescribeVpcEndpoints(c.ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{id}})
	wantCode(t, "DescribeVpcEndpoints after deletion finished", err, "InvalidVpcEndpointId.NotFound")
	if _, err := b.ec2.DeleteSecurityGroup(c.ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(s.sg)}); err != nil {
		t.Errorf("DeleteSecurityGroup once the endpoint is gone: %v", err)
	}
}

func TestDeletingServiceNeedsConnectionsRejectedAndNLBNeedsServiceGone(t *testing.T) {
	c := newPLCloud(t)
	a, b := c.account(provider), c.account(consumer)
	s := setupConsumer(c, a, b, false, []string{"use1-az1"}, "use1-az1")
	svcID := aws.ToString(s.service.ServiceId)
	lbARN := s.service.NetworkLoadBalancerArns[0]
	epID := aws.ToString(b.endpoint(s.endpointInput(s.subnets[0])).VpcEndpointId)

	_, err := a.elb.DeleteLoadBalancer(c.ctx, &elbv2.DeleteLoadBalancerInput{LoadBalancerArn: aws.String(lbARN)})
	wantCode(t, "DeleteLoadBalancer under a service", err, "ResourceInUse")

	deleteService := func(id string) []ec2types.UnsuccessfulItem {
		t.Helper()
		out, err := a.ec2.DeleteVpcEndpointServiceConfigurations(c.ctx, &ec2.DeleteVpcEndpointServiceConfigurationsInput{ServiceIds: []string{id}})
		if err != nil {
			t.Fatalf("DeleteVpcEndpointServiceConfigurations answered an error instead of unsuccessful items: %v", err)
		}
		return out.Unsuccessful
	}
	if u := deleteService(svcID); len(u) != 1 || aws.ToString(u[0].Error.Code) != "ExistingVpcEndpointConnections" {
		t.Fatalf("delete with a connection: %+v, want ExistingVpcEndpointConnections", u)
	}
	if _, err := a.ec2.RejectVpcEndpointConnections(c.ctx, &ec2.RejectVpcEndpointConnectionsInput{ServiceId: aws.String(svcID), VpcEndpointIds: []string{epID}}); err != nil {
		t.Fatalf("RejectVpcEndpointConnections: %v", err)
	}
	if u := deleteService(svcID); len(u) != 0 {
		t.Fatalf("delete after rejecting: %+v", u)
	}
	if u := deleteService(svcID); len(u) != 1 || aws.ToString(u[0].Error.Code) != "InvalidVpcEndpointService.NotFound" {
		t.Errorf("deleting again: %+v, want InvalidVpcEndpointService.NotFound", u)
	}
	if got := b.describeEndpoint(epID).State; got != "rejected" {
		t.Errorf("B's endpoint after the service went = %s, want rejected", got)
	}
	if _, err := a.elb.DeleteLoadBalancer(c.ctx, &elbv2.DeleteLoadBalancerInput{LoadBalancerArn: aws.String(lbARN)}); err != nil {
		t.Errorf("DeleteLoadBalancer once the service is gone: %v", err)
	}
}

func TestDescribeVpcEndpointsPagesAndFilters(t *testing.T) {
	c := newPLCloud(t)
	a, b := c.account(provider), c.account(consumer)
	s := setupConsumer(c, a, b, false, []string{"use1-az1"}, "use1-az1")
	want := map[string]bool{}
	for i := range 7 {
		in := s.endpointInput(s.subnets[0])
		in.TagSpecifications = []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeVpcEndpoint,
			Tags: []ec2types.Tag{{Key: aws.String("index"), Value: aws.String(fmt.Sprint(i))}}}}
		want[aws.ToString(b.endpoint(in).VpcEndpointId)] = true
	}
	seen, pages := map[string]bool{}, 0
	p := ec2.NewDescribeVpcEndpointsPaginator(b.ec2, &ec2.DescribeVpcEndpointsInput{MaxResults: aws.Int32(3),
		Filters: []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{s.vpc}}}})
	for p.HasMorePages() {
		out, err := p.NextPage(c.ctx)
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		pages++
		if len(out.VpcEndpoints) > 3 {
			t.Errorf("page %d has %d endpoints, more than MaxResults", pages, len(out.VpcEndpoints))
		}
		for _, ep := range out.VpcEndpoints {
			if seen[aws.ToString(ep.VpcEndpointId)] {
				t.Errorf("%s listed twice", aws.ToString(ep.VpcEndpointId))
			}
			seen[aws.ToString(ep.VpcEndpointId)] = true
		}
	}
	if pages != 3 || fmt.Sprint(len(seen)) != "7" {
		t.Errorf("%d endpoints over %d pages, want 7 over 3", len(seen), pages)
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("endpoint %s never listed", id)
		}
	}
	for _, tc := range []struct {
		filter ec2types.Filter
		n      int
	}{
		{ec2types.Filter{Name: aws.String("tag:index"), Values: []string{"3", "5"}}, 2},
		{ec2types.Filter{Name: aws.String("vpc-endpoint-state"), Values: []string{"pending"}}, 7},
		{ec2types.Filter{Name: aws.String("vpc-endpoint-state"), Values: []string{"available"}}, 0},
		{ec2types.Filter{Name: aws.String("vpc-endpoint-type"), Values: []string{"Interface"}}, 7},
		{ec2types.Filter{Name: aws.String("service-name"), Values: []string{aws.ToString(s.service.ServiceName)}}, 7},
	} {
		out, err := b.ec2.DescribeVpcEndpoints(c.ctx, &ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{tc.filter}})
		if err != nil || len(out.VpcEndpoints) != tc.n {
			t.Errorf("filter %s=%v: %v, %d endpoints, want %d", aws.ToString(tc.filter.Name), tc.filter.Values, err, len(out.VpcEndpoints), tc.n)
		}
	}
	_, err := b.ec2.DescribeVpcEndpoints(c.ctx, &ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{{Name: aws.String("color"), Values: []string{"red"}}}})
	wantCode(t, "unknown filter", err, "InvalidParameterValue")
}

func TestInterfaceEndpointQuotaPerVPC(t *testing.T) {
	c := newPLCloud(t)
	a, b := c.account(provider), c.account(consumer)
	s := setupConsumer(c, a, b, false, []string{"use1-az1"}, "use1-az1")
	var first string
	for i := range 50 {
		id := aws.ToString(b.endpoint(s.endpointInput(s.subnets[0])).VpcEndpointId)
		if i == 0 {
			first = id
		}
	}
	_, err := b.ec2.CreateVpcEndpoint(c.ctx, s.endpointInput(s.subnets[0]))
	wantCode(t, "51st interface endpoint in a VPC", err, "VpcEndpointLimitExceeded")
	// Another VPC has its own quota.
	vpc2 := b.vpc("10.30.0.0/16")
	in := s.endpointInput(b.subnet(vpc2, "10.30.1.0/24", "use1-az1"))
	in.VpcId, in.SecurityGroupIds = aws.String(vpc2), nil
	b.endpoint(in)
	// A deleting endpoint still counts; a deleted one does not.
	if _, err := b.ec2.DeleteVpcEndpoints(c.ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{first}}); err != nil {
		t.Fatalf("DeleteVpcEndpoints: %v", err)
	}
	_, err = b.ec2.CreateVpcEndpoint(c.ctx, s.endpointInput(s.subnets[0]))
	wantCode(t, "while one is deleting", err, "VpcEndpointLimitExceeded")
	c.clk.Advance(testDelays.EndpointDeleting.D())
	b.endpoint(s.endpointInput(s.subnets[0]))

	// A quota increase, as Service Quotas would grant it.
	c.f.Server.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		accounts[consumer].Regions["us-east-1"].PrivateLink.Quotas.InterfaceEndpointsPerVPC = 51
	})
	b.endpoint(s.endpointInput(s.subnets[0]))
	_, err = b.ec2.CreateVpcEndpoint(c.ctx, s.endpointInput(s.subnets[0]))
	wantCode(t, "52nd with a quota of 51", err, "VpcEndpointLimitExceeded")
}

func TestCreateVpcEndpointClientTokenAndDefaults(t *testing.T) {
	c := newPLCloud(t)
	a, b := c.account(provider), c.account(consumer)
	s := setupConsumer(c, a, b, false, []string{"use1-az1"}, "use1-az1")
	in := s.endpointInput(s.subnets[0])
	in.SecurityGroupIds = nil // the VPC's default group is used
	in.ClientToken = aws.String("cr-uid-1")
	first := b.endpoint(in)
	again := b.endpoint(in)
	if aws.ToString(first.VpcEndpointId) != aws.ToString(again.VpcEndpointId) {
		t.Errorf("same token made two endpoints: %s, %s", aws.ToString(first.VpcEndpointId), aws.ToString(again.VpcEndpointId))
	}
	if len(first.Groups) != 1 || aws.ToString(first.Groups[0].GroupName) != "default" {
		t.Errorf("groups = %+v, want the VPC's default group", first.Groups)
	}
	if aws.ToBool(first.PrivateDnsEnabled) {
		t.Errorf("private DNS enabled on an endpoint to a service without a private DNS name")
	}
	in.SubnetIds = nil
	_, err := b.ec2.CreateVpcEndpoint(c.ctx, in)
	wantCode(t, "same token, other parameters", err, "IdempotentParameterMismatch")

	in = s.endpointInput(s.subnets[0])
	in.PrivateDnsEnabled = aws.Bool(true)
	_, err = b.ec2.CreateVpcEndpoint(c.ctx, in)
	wantCode(t, "private DNS on a service without a name", err, "InvalidParameter")
	in = s.endpointInput("subnet-00000000000000000")
	_, err = b.ec2.CreateVpcEndpoint(c.ctx, in)
	wantCode(t, "unknown subnet", err, "InvalidSubnetID.NotFound")
	in = s.endpointInput(s.subnets[0])
	in.VpcId = aws.String("vpc-00000000000000000")
	_, err = b.ec2.CreateVpcEndpoint(c.ctx, in)
	wantCode(t, "unknown VPC", err, "InvalidVpcID.NotFound")
	in = s.endpointInput(s.subnets[0])
	in.DryRun = aws.Bool(true)
	_, err = b.ec2.CreateVpcEndpoint(c.ctx, in)
	wantCode(t, "dry run", err, "DryRunOperation")
}

func TestDescribeVpcEndpointServicesListsAWSServices(t *testing.T) {
	c := newPLCloud(t)
	b := c.account(consumer)
	out, err := b.ec2.DescribeVpcEndpointServices(c.ctx, &ec2.DescribeVpcEndpointServicesInput{
		ServiceNames: []string{"com.amazonaws.us-east-1.s3"},
		Filters:      []ec2types.Filter{{Name: aws.String("service-type"), Values: []string{"Gateway"}}}})
	if err != nil {
		t.Fatalf("DescribeVpcEndpointServices(s3): %v", err)
	}
	if len(out.ServiceDetails) != 1 || out.ServiceDetails[0].ServiceType[0].ServiceType != ec2types.ServiceTypeGateway ||
		aws.ToString(out.ServiceDetails[0].Owner) != "amazon" || len(out.ServiceDetails[0].AvailabilityZones) != 6 {
		t.Errorf("s3 gateway detail = %+v", out.ServiceDetails)
	}
	_, err = b.ec2.DescribeVpcEndpointServices(c.ctx, &ec2.DescribeVpcEndpointServicesInput{ServiceNames: []string{"com.amazonaws.us-east-1.nothing"}})
	wantCode(t, "unknown AWS service", err, "InvalidServiceName")
}

func TestGatewayEndpointToS3OnRouteTables(t *testing.T) {
	c := newPLCloud(t)
	b := c.account(consumer)
	vpc := b.vpc("10.40.0.0/16")
	rt, err := b.ec2.CreateRouteTable(c.ctx, &ec2.CreateRouteTableInput{VpcId: aws.String(vpc)})
	if err != nil {
		t.Fatalf("CreateRouteTable: %v", err)
	}
	rtID := aws.ToString(rt.RouteTable.RouteTableId)
	s3 := "com.amazonaws.us-east-1.s3"

	// VpcEndpointType defaults to Gateway, as on AWS.
	ep := b.endpoint(&ec2.CreateVpcEndpointInput{VpcEndpointType: ec2types.VpcEndpointTypeGateway, VpcId: aws.String(vpc),
		ServiceName: aws.String(s3), RouteTableIds: []string{rtID}})
	if ep.State != "available" || len(ep.DnsEntries) != 0 || aws.ToString(ep.PolicyDocument) == "" {
		t.Errorf("gateway endpoint: state %s, DNS %v, policy %q; want available, no DNS entries, the default policy",
			ep.State, ep.DnsEntries, aws.ToString(ep.PolicyDocument))
	}
	_, err = b.ec2.CreateVpcEndpoint(c.ctx, &ec2.CreateVpcEndpointInput{VpcId: aws.String(vpc), ServiceName: aws.String(s3), RouteTableIds: []string{rtID}})
	wantCode(t, "a second S3 gateway on the same route table", err, "RouteAlreadyExists")
	_, err = b.ec2.CreateVpcEndpoint(c.ctx, &ec2.CreateVpcEndpointInput{VpcId: aws.String(vpc), ServiceName: aws.String(s3),
		RouteTableIds: []string{"rtb-00000000000000000"}})
	wantCode(t, "unknown route table", err, "InvalidRouteTableID.NotFound")
	_, err = b.ec2.CreateVpcEndpoint(c.ctx, &ec2.CreateVpcEndpointInput{VpcEndpointType: ec2types.VpcEndpointTypeGateway,
		VpcId: aws.String(vpc), ServiceName: aws.String("com.amazonaws.us-east-1.sts")})
	wantCode(t, "a gateway to an interface-only service", err, "InvalidParameter")

	// The route table is in use until the endpoint is gone.
	_, err = b.ec2.DeleteRouteTable(c.ctx, &ec2.DeleteRouteTableInput{RouteTableId: aws.String(rtID)})
	wantCode(t, "DeleteRouteTable under a gateway endpoint", err, "DependencyViolation")
	if _, err := b.ec2.DeleteVpcEndpoints(c.ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{aws.ToString(ep.VpcEndpointId)}}); err != nil {
		t.Fatalf("DeleteVpcEndpoints: %v", err)
	}
	c.clk.Advance(testDelays.EndpointDeleting.D())
	if _, err := b.ec2.DeleteRouteTable(c.ctx, &ec2.DeleteRouteTableInput{RouteTableId: aws.String(rtID)}); err != nil {
		t.Errorf("DeleteRouteTable once the endpoint is gone: %v", err)
	}
}

func TestInterfaceEndpointToAWSServiceWithPrivateDNS(t *testing.T) {
	c := newPLCloud(t)
	b := c.account(consumer)
	vpc := b.vpc("10.50.0.0/16")
	subnet := b.subnet(vpc, "10.50.1.0/24", "use1-az1")
	in := &ec2.CreateVpcEndpointInput{VpcEndpointType: ec2types.VpcEndpointTypeInterface, VpcId: aws.String(vpc),
		ServiceName: aws.String("com.amazonaws.us-east-1.sts"), SubnetIds: []string{subnet}}

	// Private DNS is on by default for AWS services and needs DNS hostnames.
	_, err := b.ec2.CreateVpcEndpoint(c.ctx, in)
	wantCode(t, "private DNS in a VPC without DNS hostnames", err, "InvalidParameter")
	if _, err := b.ec2.ModifyVpcAttribute(c.ctx, &ec2.ModifyVpcAttributeInput{VpcId: aws.String(vpc),
		EnableDnsHostnames: &ec2types.AttributeBooleanValue{Value: aws.Bool(true)}}); err != nil {
		t.Fatalf("ModifyVpcAttribute: %v", err)
	}
	ep := b.endpoint(in)
	if !aws.ToBool(ep.PrivateDnsEnabled) {
		t.Errorf("private DNS is off on an endpoint to sts")
	}
	last := ep.DnsEntries[len(ep.DnsEntries)-1]
	if len(ep.DnsEntries) != 3 || aws.ToString(last.DnsName) != "sts.us-east-1.amazonaws.com" {
		t.Errorf("DNS entries = %+v, want regional, zonal and sts.us-east-1.amazonaws.com", ep.DnsEntries)
	}
	if !strings.HasSuffix(aws.ToString(ep.DnsEntries[0].DnsName), ".sts.us-east-1.vpce.amazonaws.com") {
		t.Errorf("regional name %s", aws.ToString(ep.DnsEntries[0].DnsName))
	}
}
