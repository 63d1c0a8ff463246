package aws_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Fixtures shared by the ELBv2 and PrivateLink tests: a cloud on a manual
// clock with AWS-like delays, and per-account helpers that build VPCs,
// subnets, security groups and NLBs through the real SDK clients.

const (
	provider = cloudsimtest.ManagementAccount // owns NLBs and endpoint services
	consumer = cloudsimtest.CustomerAccount   // owns VPC endpoints
)

var testDelays = sim.Delays{
	LoadBalancerProvisioning: sim.Duration(150 * time.Second),
	LoadBalancerDeleting:     sim.Duration(20 * time.Second),
	EndpointPending:          sim.Duration(90 * time.Second),
	EndpointDeleting:         sim.Duration(60 * time.Second),
	EndpointServicePending:   sim.Duration(10 * time.Second),
}

type plCloud struct {
	t   *testing.T
	ctx context.Context
	f   *cloudsimtest.Fixture
	clk *sim.ManualClock
	seq int // makes fixture names unique
}

func newPLCloud(t *testing.T) *plCloud {
	t.Helper()
	clk := sim.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	d := testDelays
	f := cloudsimtest.Start(t, cloudsim.Options{Clock: clk, Delays: &d})
	return &plCloud{t: t, ctx: context.Background(), f: f, clk: clk}
}

// plAccount is one account's clients and its zone mapping.
type plAccount struct {
	c       *plCloud
	id      string
	ec2     *ec2.Client
	elb     *elbv2.Client
	zoneIDs map[string]string // zone name → zone ID
	names   map[string]string // zone ID → zone name
}

// config is f.Config with the request-body workaround below.
func (c *plCloud) config(id string) aws.Config {
	return c.f.Config(c.t, id)
}

func (c *plCloud) account(id string) *plAccount {
	c.t.Helper()
	cfg := c.config(id)
	a := &plAccount{c: c, id: id, ec2: ec2.NewFromConfig(cfg), elb: elbv2.NewFromConfig(cfg),
		zoneIDs: map[string]string{}, names: map[string]string{}}
	out, err := a.ec2.DescribeAvailabilityZones(c.ctx, &ec2.DescribeAvailabilityZonesInput{})
	if err != nil {
		c.t.Fatalf("DescribeAvailabilityZones(%s): %v", id, err)
	}
	for _, z := range out.AvailabilityZones {
		a.zoneIDs[aws.ToString(z.ZoneName)] = aws.ToString(z.ZoneId)
		a.names[aws.ToString(z.ZoneId)] = aws.ToString(z.ZoneName)
	}
	return a
}

// withKeys is the account seen through other credentials (e.g. an
// STS-issued role session).
func (a *plAccount) withKeys(accessKey, secret, session string) *plAccount {
	cfg := a.c.f.ConfigWithKeys(a.c.t, accessKey, secret, session)
	b := *a
	b.ec2, b.elb = ec2.NewFromConfig(cfg), elbv2.NewFromConfig(cfg)
	return &b
}

func (a *plAccount) vpc(cidr string) string {
	a.c.t.Helper()
	out, err := a.ec2.CreateVpc(a.c.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String(cidr)})
	if err != nil {
		a.c.t.Fatalf("CreateVpc(%s) in %s: %v", cidr, a.id, err)
	}
	return aws.ToString(out.Vpc.VpcId)
}

// subnet creates a subnet in the zone with the given zone ID (the physical
// zone), whatever this account calls it.
func (a *plAccount) subnet(vpc, cidr, zoneID string) string {
	a.c.t.Helper()
	name, ok := a.names[zoneID]
	if !ok {
		a.c.t.Fatalf("account %s has no zone %s", a.id, zoneID)
	}
	out, err := a.ec2.CreateSubnet(a.c.ctx, &ec2.CreateSubnetInput{VpcId: aws.String(vpc), CidrBlock: aws.String(cidr), AvailabilityZone: aws.String(name)})
	if err != nil {
		a.c.t.Fatalf("CreateSubnet(%s, %s) in %s: %v", cidr, zoneID, a.id, err)
	}
	return aws.ToString(out.Subnet.SubnetId)
}

func (a *plAccount) securityGroup(vpc, name string) string {
	a.c.t.Helper()
	out, err := a.ec2.CreateSecurityGroup(a.c.ctx, &ec2.CreateSecurityGroupInput{VpcId: aws.String(vpc),
		GroupName: aws.String(name), Description: aws.String("test group " + name)})
	if err != nil {
		a.c.t.Fatalf("CreateSecurityGroup(%s) in %s: %v", name, a.id, err)
	}
	return aws.ToString(out.GroupId)
}

// nlb creates an internal NLB with one subnet per zone ID in a new VPC.
func (a *plAccount) nlb(name string, zoneIDs ...string) elbtypes.LoadBalancer {
	a.c.t.Helper()
	vpc := a.vpc("10.0.0.0/16")
	var subnets []string
	for i, z := range zoneIDs {
		subnets = append(subnets, a.subnet(vpc, fmt.Sprintf("10.0.%d.0/24", i), z))
	}
	out, err := a.elb.CreateLoadBalancer(a.c.ctx, &elbv2.CreateLoadBalancerInput{
		Name: aws.String(name), Type: elbtypes.LoadBalancerTypeEnumNetwork,
		Scheme: elbtypes.LoadBalancerSchemeEnumInternal, Subnets: subnets,
	})
	if err != nil {
		a.c.t.Fatalf("CreateLoadBalancer(%s) in %s: %v", name, a.id, err)
	}
	return out.LoadBalancers[0]
}

// service creates an endpoint service on an NLB (created here, in the given
// zones) and waits until it is Available.
func (a *plAccount) service(acceptance bool, zoneIDs ...string) ec2types.ServiceConfiguration {
	a.c.t.Helper()
	a.c.seq++
	lb := a.nlb(fmt.Sprintf("svc-nlb-%d", a.c.seq), zoneIDs...)
	out, err := a.ec2.CreateVpcEndpointServiceConfiguration(a.c.ctx, &ec2.CreateVpcEndpointServiceConfigurationInput{
		AcceptanceRequired: aws.Bool(acceptance), NetworkLoadBalancerArns: []string{aws.ToString(lb.LoadBalancerArn)},
	})
	if err != nil {
		a.c.t.Fatalf("CreateVpcEndpointServiceConfiguration in %s: %v", a.id, err)
	}
	a.c.clk.Advance(testDelays.EndpointServicePending.D())
	return *out.ServiceConfiguration
}

func (a *plAccount) allow(serviceID string, principals ...string) {
	a.c.t.Helper()
	if _, err := a.ec2.ModifyVpcEndpointServicePermissions(a.c.ctx, &ec2.ModifyVpcEndpointServicePermissionsInput{
		ServiceId: aws.String(serviceID), AddAllowedPrincipals: principals}); err != nil {
		a.c.t.Fatalf("ModifyVpcEndpointServicePermissions(%s, %v): %v", serviceID, principals, err)
	}
}

func (a *plAccount) endpoint(in *ec2.CreateVpcEndpointInput) ec2types.VpcEndpoint {
	a.c.t.Helper()
	if in.VpcEndpointType == "" {
		in.VpcEndpointType = ec2types.VpcEndpointTypeInterface
	}
	out, err := a.ec2.CreateVpcEndpoint(a.c.ctx, in)
	if err != nil {
		a.c.t.Fatalf("CreateVpcEndpoint(%s) in %s: %v", aws.ToString(in.ServiceName), a.id, err)
	}
	return *out.VpcEndpoint
}

func (a *plAccount) describeEndpoint(id string) ec2types.VpcEndpoint {
	a.c.t.Helper()
	out, err := a.ec2.DescribeVpcEndpoints(a.c.ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{id}})
	if err != nil {
		a.c.t.Fatalf("DescribeVpcEndpoints(%s) in %s: %v", id, a.id, err)
	}
	if len(out.VpcEndpoints) != 1 {
		a.c.t.Fatalf("DescribeVpcEndpoints(%s) returned %d endpoints", id, len(out.VpcEndpoints))
	}
	return out.VpcEndpoints[0]
}

// errorCode is the AWS error code of err ("" when err is nil).
func errorCode(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v is not an AWS API error", err)
	}
	return apiErr.ErrorCode()
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := errorCode(t, err); got != code {
		t.Fatalf("%s: error code %q (%v), want %q", what, got, err, code)
	}
}

// zoneOutside returns a zone ID of the region not in ids.
func zoneOutside(a *plAccount, ids ...string) string {
	for id := range a.names {
		used := false
		for _, u := range ids {
			used = used || u == id
		}
		if !used {
			return id
		}
	}
	a.c.t.Fatalf("no zone outside %v", ids)
	return ""
}
