package aws

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim"
	cloudsimaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

const (
	account    = cloudsimtest.CustomerAccount
	baseDomain = "example.com"
	// testTimeout bounds one create or destroy against cloudsim's fast
	// delays (NAT gateways take 300 ms there).
	testTimeout = 30 * time.Second
)

type infraFixture struct {
	cs   *cloudsimtest.Fixture
	deps Deps
	log  *strings.Builder
}

// startInfra starts cloudsim with fast delays and makes the base domain's
// public zone, as a platform team has it before `create infra`.
func startInfra(t *testing.T) *infraFixture {
	t.Helper()
	delays := sim.FastDelays()
	cs := cloudsimtest.Start(t, cloudsim.Options{Delays: &delays})
	log := &strings.Builder{}
	f := &infraFixture{cs: cs, log: log, deps: Deps{Clients: NewClients(cs.Config(t, account), cloudsimtest.Region),
		Progress: &LineProgress{W: log}, PollInterval: 50 * time.Millisecond}}
	_, err := route53.NewFromConfig(cs.Config(t, account)).CreateHostedZone(context.Background(), &route53.CreateHostedZoneInput{
		Name: awssdk.String(baseDomain), CallerReference: awssdk.String("public-zone")})
	if err != nil {
		t.Fatalf("creating the public zone: %v", err)
	}
	return f
}

func (f *infraFixture) create(t *testing.T, opts Options) (*Output, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	return Create(ctx, opts, f.deps)
}

func (f *infraFixture) mustCreate(t *testing.T, opts Options) *Output {
	t.Helper()
	out, err := f.create(t, opts)
	if err != nil {
		t.Fatalf("create infra %s: %v\n%s", opts.InfraID, err, f.log)
	}
	return out
}

func (f *infraFixture) mustDestroy(t *testing.T, opts Options) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := Destroy(ctx, opts, f.deps); err != nil {
		t.Fatalf("destroy infra %s: %v\n%s", opts.InfraID, err, f.log)
	}
}

// mutatingCalls counts the account's mutating calls so far.
func (f *infraFixture) mutatingCalls() int64 { return sim.Sum(f.cs.Calls(account)).Mutating }

// leftovers lists what the account still holds for infraID: every live
// EC2 resource carrying its cluster tag (a deleted NAT gateway stays
// visible for an hour on AWS too, and holds nothing), every Elastic IP
// whatever its tags, and every hosted zone tagged for it.
func (f *infraFixture) leftovers(infraID string) []string {
	var out []string
	key := hcplinkv1beta1.ClusterTagKey(infraID)
	f.cs.Server.AWS.Inspect(func(accounts map[string]*cloudsimaws.Account) {
		a := accounts[account]
		if a == nil {
			return
		}
		for _, r := range a.Regions {
			for id, tags := range r.Tags {
				if g := r.EC2.NatGateways[id]; g != nil && g.State == "deleted" {
					continue
				}
				if tags[key] == "owned" {
					out = append(out, id)
				}
			}
			for id := range r.EC2.Addresses {
				out = append(out, "address "+id)
			}
		}
		for id, z := range a.Route53.HostedZones {
			if z.Tags[key] == "owned" {
				out = append(out, "zone "+id)
			}
		}
	})
	sort.Strings(out)
	return out
}

func TestCreateTwiceThenDestroyLeavesNothing(t *testing.T) {
	f := startInfra(t)
	opts := Options{InfraID: "infra-a", Name: "alpha", BaseDomain: baseDomain, Region: cloudsimtest.Region,
		Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c"}, AdditionalTags: map[string]string{"team": "platform"}}

	first := f.mustCreate(t, opts)
	f.assertCreated(t, opts, first)
	before := f.mutatingCalls()
	second := f.mustCreate(t, opts)
	if fmt.Sprint(*first) != fmt.Sprint(*second) {
		t.Errorf("the second create answered\n%+v\nthe first\n%+v", *second, *first)
	}
	if n := f.mutatingCalls() - before; n != 0 {
		t.Errorf("the second create made %d mutating calls, want 0 (everything exists)", n)
	}

	f.mustDestroy(t, opts)
	if left := f.leftovers(opts.InfraID); len(left) > 0 {
		t.Fatalf("destroy left %v\n%s", left, f.log)
	}
	for _, want := range []string{"created  VPC", "created  NAT gateway", "found    VPC", "deleting NAT gateway", "released Elastic IP", "deleted  private zone"} {
		if !strings.Contains(f.log.String(), want) {
			t.Errorf("progress has no %q line:\n%s", want, f.log)
		}
	}
}

// assertCreated checks the cloud's state through the SDK against spec Part 1.
func (f *infraFixture) assertCreated(t *testing.T, opts Options, out *Output) {
	t.Helper()
	ctx := context.Background()
	c := f.deps.Clients
	if out.MachineCIDR != "10.0.0.0/16" || len(out.Zones) != 3 || out.PublicZoneID == "" || out.PrivateZoneID == "" || out.LocalZoneID == "" {
		t.Fatalf("output %+v lacks a field", *out)
	}
	subnets, err := c.EC2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{out.Zones[0].SubnetID}})
	if err != nil || len(subnets.Subnets) != 1 {
		t.Fatalf("describing the first zone's subnet: %v", err)
	}
	sn := subnets.Subnets[0]
	if awssdk.ToString(sn.CidrBlock) != "10.0.128.0/20" || awssdk.ToString(sn.AvailabilityZone) != "us-east-1a" {
		t.Errorf("first private subnet is %s in %s, want 10.0.128.0/20 in us-east-1a", awssdk.ToString(sn.CidrBlock), awssdk.ToString(sn.AvailabilityZone))
	}
	tags := map[string]string{}
	for _, tg := range sn.Tags {
		tags[awssdk.ToString(tg.Key)] = awssdk.ToString(tg.Value)
	}
	if tags[internalELBTagKey] != "1" || tags["team"] != "platform" || tags[hcplinkv1beta1.ClusterTagKey(opts.InfraID)] != "owned" {
		t.Errorf("private subnet tags %v lack the role, additional or cluster tag", tags)
	}
	nats, err := c.EC2.DescribeNatGateways(ctx, &ec2.DescribeNatGatewaysInput{})
	if err != nil || len(nats.NatGateways) != 3 {
		t.Fatalf("NAT gateways: %d, %v; want 3", len(nats.NatGateways), err)
	}
	eps, err := c.EC2.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{})
	if err != nil || len(eps.VpcEndpoints) != 1 || len(eps.VpcEndpoints[0].RouteTableIds) != 4 {
		t.Fatalf("want one S3 gateway endpoint on 4 route tables, got %+v, %v", eps.VpcEndpoints, err)
	}
	for _, id := range []string{out.PrivateZoneID, out.LocalZoneID} {
		assertPrivateZone(t, c.Route53, id, out.VPCID)
	}
}

func assertPrivateZone(t *testing.T, api Route53API, id, vpcID string) {
	t.Helper()
	ctx := context.Background()
	z, err := api.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: awssdk.String(id)})
	if err != nil {
		t.Fatalf("reading zone %s: %v", id, err)
	}
	if len(z.VPCs) != 1 || awssdk.ToString(z.VPCs[0].VPCId) != vpcID {
		t.Errorf("zone %s is on %+v, want VPC %s", id, z.VPCs, vpcID)
	}
	recs, err := api.ListResourceRecordSets(ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: awssdk.String(id)})
	if err != nil {
		t.Fatalf("listing records of %s: %v", id, err)
	}
	for _, rs := range recs.ResourceRecordSets {
		if rs.Type == r53types.RRTypeSoa && (awssdk.ToInt64(rs.TTL) != negativeTTL || !strings.HasSuffix(awssdk.ToString(rs.ResourceRecords[0].Value), " 60")) {
			t.Errorf("zone %s SOA is TTL %d %q, want negative caching of 60 s", id, awssdk.ToInt64(rs.TTL), awssdk.ToString(rs.ResourceRecords[0].Value))
		}
	}
}

// TestSameNameGetsSeparateLocalZones: two clusters named alike never share
// a hypershift.local zone, and destroying one leaves the other's.
func TestSameNameGetsSeparateLocalZones(t *testing.T) {
	f := startInfra(t)
	a := Options{InfraID: "infra-a", Name: "twin", BaseDomain: baseDomain, PublicOnly: true}
	b := Options{InfraID: "infra-b", Name: "twin", BaseDomain: baseDomain, PublicOnly: true}
	outA, outB := f.mustCreate(t, a), f.mustCreate(t, b)
	if outA.LocalZoneID == outB.LocalZoneID || outA.PrivateZoneID == outB.PrivateZoneID {
		t.Fatalf("clusters share a private zone: %+v and %+v", *outA, *outB)
	}
	if again := f.mustCreate(t, b); again.LocalZoneID != outB.LocalZoneID {
		t.Fatalf("re-running b took zone %s, want its own %s", again.LocalZoneID, outB.LocalZoneID)
	}
	f.mustDestroy(t, a)
	if left := f.leftovers(a.InfraID); len(left) > 0 {
		t.Fatalf("destroying a left %v", left)
	}
	assertPrivateZone(t, f.deps.Clients.Route53, outB.LocalZoneID, outB.VPCID)
	f.mustDestroy(t, b)
	if left := f.leftovers(b.InfraID); len(left) > 0 {
		t.Fatalf("destroying b left %v", left)
	}
}

// TestNATFailureThenRerunLeaksNothing: the second NAT gateway's create
// fails after its Elastic IP was allocated; the re-run reuses that address
// (no second one) and destroy leaves nothing.
func TestNATFailureThenRerunLeaksNothing(t *testing.T) {
	f := startInfra(t)
	f.cs.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "ec2", Operation: "CreateNatGateway",
		Code: "InternalError", Message: "An internal error has occurred", HTTPStatus: 500, Nth: 2}}})
	opts := Options{InfraID: "infra-n", BaseDomain: baseDomain, Zones: []string{"us-east-1a", "us-east-1b"}}
	_, err := f.create(t, opts)
	if err == nil || !strings.Contains(err.Error(), "creating NAT gateway infra-n-nat-us-east-1b") {
		t.Fatalf("create with a failing NAT gateway = %v, want the gateway named", err)
	}
	f.mustCreate(t, opts)
	if n := f.countAddresses(); n != 2 {
		t.Fatalf("%d Elastic IPs after the re-run, want 2 (one per zone)", n)
	}
	f.mustDestroy(t, opts)
	if left := f.leftovers(opts.InfraID); len(left) > 0 {
		t.Fatalf("destroy left %v", left)
	}
}

func (f *infraFixture) countAddresses() int {
	n := 0
	f.cs.Server.AWS.Inspect(func(accounts map[string]*cloudsimaws.Account) {
		for _, r := range accounts[account].Regions {
			n += len(r.EC2.Addresses)
		}
	})
	return n
}

// TestImpossibleLayoutIsRefusedBeforeAnyChange: only the zone listing is
// read; nothing is created.
func TestImpossibleLayoutIsRefusedBeforeAnyChange(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"VPC too small", Options{VPCCIDR: "10.0.0.0/26"}, "between /16 and /24"},
		{"unknown zone", Options{Zones: []string{"us-east-1z"}}, `zone "us-east-1z" is not an availability zone`},
		{"zone twice", Options{Zones: []string{"us-east-1a", "us-east-1a"}}, "given twice"},
		{"no public zone", Options{BaseDomain: "elsewhere.example"}, "no public hosted zone elsewhere.example"},
		{"no infra ID", Options{InfraID: "-"}, ""},
	}
	f := startInfra(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			if opts.BaseDomain == "" {
				opts.BaseDomain = baseDomain
			}
			if opts.InfraID == "" {
				opts.InfraID = "infra-x"
			} else {
				opts.InfraID, tt.wantErr = "", "--infra-id is required"
			}
			before := f.mutatingCalls()
			_, err := f.create(t, opts)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("create = %v, want an error containing %q", err, tt.wantErr)
			}
			if n := f.mutatingCalls() - before; n != 0 {
				t.Fatalf("a refused create made %d mutating calls", n)
			}
		})
	}
}

// TestNATProvisioningFailureThenRerunLeaksNothing: a NAT gateway is
// created but fails while provisioning (as AWS's do); create says so and
// how to resume, the re-run makes a new gateway on the same Elastic IP,
// and destroy removes the failed one with the rest.
func TestNATProvisioningFailureThenRerunLeaksNothing(t *testing.T) {
	f := startInfra(t)
	f.cs.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "ec2", Operation: cloudsimaws.NatGatewayProvisioning,
		Code: "InternalError", Message: "Network interface could not be created", Nth: 1}}})
	opts := Options{InfraID: "infra-p", BaseDomain: baseDomain, Zones: []string{"us-east-1a", "us-east-1b"}}
	_, err := f.create(t, opts)
	if err == nil || !strings.Contains(err.Error(), "failed (InternalError: Network interface could not be created); re-run") {
		t.Fatalf("create with a NAT gateway failing to provision = %v, want the failure and how to resume", err)
	}
	out := f.mustCreate(t, opts)
	if n := f.countAddresses(); n != 2 {
		t.Fatalf("%d Elastic IPs after the re-run, want 2 (one per zone)", n)
	}
	nats, err := f.deps.Clients.EC2.DescribeNatGateways(context.Background(), &ec2.DescribeNatGatewaysInput{})
	if err != nil || len(nats.NatGateways) != 3 {
		t.Fatalf("NAT gateways after the re-run: %d (%v), want 3: the failed one and two available", len(nats.NatGateways), err)
	}
	f.mustDestroy(t, opts)
	if left := f.leftovers(opts.InfraID); len(left) > 0 {
		t.Fatalf("destroy left %v (VPC %s)", left, out.VPCID)
	}
}

// TestDestroyAfterPartOfItIsGone: what was deleted by hand (the first
// private zone, a subnet) does not stop destroy from finding the rest.
func TestDestroyAfterPartOfItIsGone(t *testing.T) {
	f := startInfra(t)
	opts := Options{InfraID: "infra-g", Name: "gone", BaseDomain: baseDomain, PublicOnly: true}
	out := f.mustCreate(t, opts)
	ctx := context.Background()
	if _, err := f.deps.Clients.Route53.DeleteHostedZone(ctx, &route53.DeleteHostedZoneInput{Id: awssdk.String(out.PrivateZoneID)}); err != nil {
		t.Fatalf("deleting %s by hand: %v", out.PrivateZoneID, err)
	}
	f.mustDestroy(t, opts)
	if left := f.leftovers(opts.InfraID); len(left) > 0 {
		t.Fatalf("destroy left %v", left)
	}
}
