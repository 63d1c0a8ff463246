package aws_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"

	"github.com/hcplink/hcplink/internal/cloudsim"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// ec2Env is a fresh cloudsim on a manual clock (with sim.FastDelays) and an
// EC2 client for the management account, for the EC2 networking tests.
type ec2Env struct {
	t   *testing.T
	ctx context.Context
	f   *cloudsimtest.Fixture
	clk *sim.ManualClock
	ec2 *ec2.Client
}

func newEC2Env(t *testing.T) *ec2Env {
	t.Helper()
	clk := sim.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	f := cloudsimtest.Start(t, cloudsim.Options{Clock: clk})
	e := &ec2Env{t: t, ctx: context.Background(), f: f, clk: clk}
	e.ec2 = e.clientFor(cloudsimtest.ManagementAccount)
	return e
}

// clientFor is an EC2 client of an account on the test's cloud.
func (e *ec2Env) clientFor(account string) *ec2.Client { return ec2.NewFromConfig(e.config(account)) }

func (e *ec2Env) config(account string) aws.Config { return e.f.Config(e.t, account) }

// region gives a test direct read/write access to the management account's
// model (for quota overrides, as a Service Quotas increase would).
func (e *ec2Env) region(f func(r *cloudaws.Region)) {
	e.t.Helper()
	// Accounts and regions come into being on their first request.
	_, err := e.ec2.DescribeAvailabilityZones(e.ctx, &ec2.DescribeAvailabilityZonesInput{})
	e.ok("DescribeAvailabilityZones", err)
	e.f.Server.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		f(accounts[cloudsimtest.ManagementAccount].Regions[cloudsimtest.Region])
	})
}

func ec2ErrCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

// wantErr fails the test unless err is the AWS error code.
func (e *ec2Env) wantErr(what string, err error, code string) {
	e.t.Helper()
	if got := ec2ErrCode(err); got != code {
		e.t.Errorf("%s: error = %v, want code %s", what, err, code)
	}
}

// ok fails the test at once on an unexpected error.
func (e *ec2Env) ok(what string, err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatalf("%s: %v", what, err)
	}
}

// ec2TagSpec builds a TagSpecification from key, value pairs.
func ec2TagSpec(resourceType ec2types.ResourceType, kv ...string) []ec2types.TagSpecification {
	spec := ec2types.TagSpecification{ResourceType: resourceType}
	for i := 0; i+1 < len(kv); i += 2 {
		spec.Tags = append(spec.Tags, ec2types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return []ec2types.TagSpecification{spec}
}

func ec2TagValue(tags []ec2types.Tag, key string) (string, bool) {
	for _, t := range tags {
		if aws.ToString(t.Key) == key {
			return aws.ToString(t.Value), true
		}
	}
	return "", false
}

func ec2Filter(name string, values ...string) ec2types.Filter {
	return ec2types.Filter{Name: aws.String(name), Values: values}
}

func (e *ec2Env) vpc(cidr string, kv ...string) string {
	e.t.Helper()
	in := &ec2.CreateVpcInput{CidrBlock: aws.String(cidr)}
	if len(kv) > 0 {
		in.TagSpecifications = ec2TagSpec(ec2types.ResourceTypeVpc, kv...)
	}
	out, err := e.ec2.CreateVpc(e.ctx, in)
	e.ok("CreateVpc "+cidr, err)
	return aws.ToString(out.Vpc.VpcId)
}

func (e *ec2Env) subnet(vpc, cidr, zone string, kv ...string) ec2types.Subnet {
	e.t.Helper()
	in := &ec2.CreateSubnetInput{VpcId: aws.String(vpc), CidrBlock: aws.String(cidr), AvailabilityZone: aws.String(zone)}
	if len(kv) > 0 {
		in.TagSpecifications = ec2TagSpec(ec2types.ResourceTypeSubnet, kv...)
	}
	out, err := e.ec2.CreateSubnet(e.ctx, in)
	e.ok("CreateSubnet "+cidr, err)
	return *out.Subnet
}

// attachedIGW creates an internet gateway attached to vpc.
func (e *ec2Env) attachedIGW(vpc string) string {
	e.t.Helper()
	out, err := e.ec2.CreateInternetGateway(e.ctx, &ec2.CreateInternetGatewayInput{})
	e.ok("CreateInternetGateway", err)
	id := aws.ToString(out.InternetGateway.InternetGatewayId)
	_, err = e.ec2.AttachInternetGateway(e.ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: &id, VpcId: &vpc})
	e.ok("AttachInternetGateway", err)
	return id
}

func (e *ec2Env) eip() string {
	e.t.Helper()
	out, err := e.ec2.AllocateAddress(e.ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc})
	e.ok("AllocateAddress", err)
	return aws.ToString(out.AllocationId)
}

func (e *ec2Env) securityGroup(vpc, name string) string {
	e.t.Helper()
	out, err := e.ec2.CreateSecurityGroup(e.ctx, &ec2.CreateSecurityGroupInput{VpcId: aws.String(vpc),
		GroupName: aws.String(name), Description: aws.String("group " + name)})
	e.ok("CreateSecurityGroup "+name, err)
	return aws.ToString(out.GroupId)
}

func (e *ec2Env) natGateway(subnet, allocation string) ec2types.NatGateway {
	e.t.Helper()
	out, err := e.ec2.CreateNatGateway(e.ctx, &ec2.CreateNatGatewayInput{SubnetId: aws.String(subnet), AllocationId: aws.String(allocation)})
	e.ok("CreateNatGateway", err)
	return *out.NatGateway
}

func (e *ec2Env) describeNat(id string) ec2types.NatGateway {
	e.t.Helper()
	out, err := e.ec2.DescribeNatGateways(e.ctx, &ec2.DescribeNatGatewaysInput{NatGatewayIds: []string{id}})
	e.ok("DescribeNatGateways "+id, err)
	if len(out.NatGateways) != 1 {
		e.t.Fatalf("DescribeNatGateways %s: %d gateways", id, len(out.NatGateways))
	}
	return out.NatGateways[0]
}

func (e *ec2Env) describeAddress(id string) ec2types.Address {
	e.t.Helper()
	out, err := e.ec2.DescribeAddresses(e.ctx, &ec2.DescribeAddressesInput{AllocationIds: []string{id}})
	e.ok("DescribeAddresses "+id, err)
	if len(out.Addresses) != 1 {
		e.t.Fatalf("DescribeAddresses %s: %d addresses", id, len(out.Addresses))
	}
	return out.Addresses[0]
}

func (e *ec2Env) routeTable(id string) ec2types.RouteTable {
	e.t.Helper()
	out, err := e.ec2.DescribeRouteTables(e.ctx, &ec2.DescribeRouteTablesInput{RouteTableIds: []string{id}})
	e.ok("DescribeRouteTables "+id, err)
	if len(out.RouteTables) != 1 {
		e.t.Fatalf("DescribeRouteTables %s: %d tables", id, len(out.RouteTables))
	}
	return out.RouteTables[0]
}

// mainRouteTable returns the VPC's main route table.
func (e *ec2Env) mainRouteTable(vpc string) ec2types.RouteTable {
	e.t.Helper()
	out, err := e.ec2.DescribeRouteTables(e.ctx, &ec2.DescribeRouteTablesInput{Filters: []ec2types.Filter{
		ec2Filter("vpc-id", vpc), ec2Filter("association.main", "true")}})
	e.ok("DescribeRouteTables main", err)
	if len(out.RouteTables) != 1 {
		e.t.Fatalf("VPC %s has %d main route tables, want 1", vpc, len(out.RouteTables))
	}
	return out.RouteTables[0]
}

func (e *ec2Env) securityGroupByID(id string) ec2types.SecurityGroup {
	e.t.Helper()
	out, err := e.ec2.DescribeSecurityGroups(e.ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{id}})
	e.ok("DescribeSecurityGroups "+id, err)
	if len(out.SecurityGroups) != 1 {
		e.t.Fatalf("DescribeSecurityGroups %s: %d groups", id, len(out.SecurityGroups))
	}
	return out.SecurityGroups[0]
}

// zoneIDs maps an account's zone names to zone IDs.
func (e *ec2Env) zoneIDs(c *ec2.Client) map[string]string {
	e.t.Helper()
	out, err := c.DescribeAvailabilityZones(e.ctx, &ec2.DescribeAvailabilityZonesInput{})
	e.ok("DescribeAvailabilityZones", err)
	m := map[string]string{}
	for _, z := range out.AvailabilityZones {
		m[aws.ToString(z.ZoneName)] = aws.ToString(z.ZoneId)
	}
	return m
}
