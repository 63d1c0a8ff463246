package aws_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// sim.FastDelays, which newEC2Env's cloud runs with.
var (
	natPending  = sim.FastDelays().NatGatewayPending.D()
	natDeleting = sim.FastDelays().NatGatewayDeleting.D()
)

func TestElasticIPs(t *testing.T) {
	e := newEC2Env(t)
	out, err := e.ec2.AllocateAddress(e.ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc,
		TagSpecifications: ec2TagSpec(ec2types.ResourceTypeElasticIp, "Name", "infra-eip-us-east-1a")})
	e.ok("AllocateAddress", err)
	id := aws.ToString(out.AllocationId)
	if out.Domain != ec2types.DomainTypeVpc || aws.ToString(out.PublicIp) == "" || aws.ToString(out.NetworkBorderGroup) != "us-east-1" {
		t.Errorf("AllocateAddress answered %+v", out)
	}
	a := e.describeAddress(id)
	if aws.ToString(a.PublicIp) != aws.ToString(out.PublicIp) || aws.ToString(a.AssociationId) != "" {
		t.Errorf("DescribeAddresses = %+v", a)
	}
	if name, _ := ec2TagValue(a.Tags, "Name"); name != "infra-eip-us-east-1a" {
		t.Errorf("address tags = %v", a.Tags)
	}
	byTag, err := e.ec2.DescribeAddresses(e.ctx, &ec2.DescribeAddressesInput{Filters: []ec2types.Filter{
		ec2Filter("tag:Name", "infra-eip-*"), ec2Filter("domain", "vpc")}})
	e.ok("DescribeAddresses by tag", err)
	byIP, err := e.ec2.DescribeAddresses(e.ctx, &ec2.DescribeAddressesInput{PublicIps: []string{aws.ToString(out.PublicIp)}})
	e.ok("DescribeAddresses by public IP", err)
	if len(byTag.Addresses) != 1 || len(byIP.Addresses) != 1 {
		t.Errorf("by tag: %d addresses, by IP: %d; want 1 each", len(byTag.Addresses), len(byIP.Addresses))
	}

	// Five per region; every address is distinct.
	ips := map[string]bool{aws.ToString(out.PublicIp): true}
	for i := 0; i < 4; i++ {
		more, err := e.ec2.AllocateAddress(e.ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc})
		e.ok("AllocateAddress", err)
		ips[aws.ToString(more.PublicIp)] = true
	}
	if len(ips) != 5 {
		t.Errorf("five allocations gave %d distinct addresses", len(ips))
	}
	_, err = e.ec2.AllocateAddress(e.ctx, &ec2.AllocateAddressInput{Domain: ec2types.DomainTypeVpc})
	e.wantErr("sixth address", err, "AddressLimitExceeded")

	_, err = e.ec2.ReleaseAddress(e.ctx, &ec2.ReleaseAddressInput{AllocationId: &id})
	e.ok("ReleaseAddress", err)
	_, err = e.ec2.DescribeAddresses(e.ctx, &ec2.DescribeAddressesInput{AllocationIds: []string{id}})
	e.wantErr("DescribeAddresses after release", err, "InvalidAllocationID.NotFound")
	_, err = e.ec2.ReleaseAddress(e.ctx, &ec2.ReleaseAddressInput{AllocationId: &id})
	e.wantErr("ReleaseAddress twice", err, "InvalidAllocationID.NotFound")
	e.eip() // room again
}

// publicNetwork is a VPC with an attached internet gateway and a subnet in
// us-east-1a: what a public NAT gateway needs.
func (e *ec2Env) publicNetwork() (vpc, igw, subnet string) {
	vpc = e.vpc("10.0.0.0/16")
	igw = e.attachedIGW(vpc)
	subnet = aws.ToString(e.subnet(vpc, "10.0.0.0/20", "us-east-1a").SubnetId)
	return vpc, igw, subnet
}

func TestNatGatewayLifecycle(t *testing.T) {
	e := newEC2Env(t)
	vpc, igw, subnet := e.publicNetwork()
	eip := e.eip()
	out, err := e.ec2.CreateNatGateway(e.ctx, &ec2.CreateNatGatewayInput{SubnetId: &subnet, AllocationId: &eip,
		TagSpecifications: ec2TagSpec(ec2types.ResourceTypeNatgateway, "Name", "infra-nat-us-east-1a")})
	e.ok("CreateNatGateway", err)
	nat := aws.ToString(out.NatGateway.NatGatewayId)
	if out.NatGateway.State != ec2types.NatGatewayStatePending || aws.ToString(out.NatGateway.VpcId) != vpc ||
		out.NatGateway.ConnectivityType != ec2types.ConnectivityTypePublic || out.NatGateway.CreateTime == nil {
		t.Errorf("CreateNatGateway answered %+v", out.NatGateway)
	}
	if addrs := out.NatGateway.NatGatewayAddresses; len(addrs) != 1 || aws.ToString(addrs[0].AllocationId) != eip ||
		aws.ToString(addrs[0].PrivateIp) != "10.0.0.4" {
		t.Errorf("NAT gateway addresses = %+v, want the EIP and the subnet's first free address", addrs)
	}

	// Routing through it works from the start.
	private := e.mainRouteTable(vpc)
	_, err = e.ec2.CreateRoute(e.ctx, &ec2.CreateRouteInput{RouteTableId: private.RouteTableId,
		DestinationCidrBlock: aws.String("0.0.0.0/0"), NatGatewayId: &nat})
	e.ok("CreateRoute to the NAT gateway", err)

	if a := e.describeAddress(eip); aws.ToString(a.AssociationId) == "" || aws.ToString(a.NetworkInterfaceId) == "" {
		t.Errorf("the gateway's EIP shows no association: %+v", a)
	}
	_, err = e.ec2.ReleaseAddress(e.ctx, &ec2.ReleaseAddressInput{AllocationId: &eip})
	e.wantErr("ReleaseAddress held by a NAT gateway", err, "InvalidIPAddress.InUse")
	_, err = e.ec2.DetachInternetGateway(e.ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: &igw, VpcId: &vpc})
	e.wantErr("DetachInternetGateway with a mapped EIP", err, "DependencyViolation")

	e.clk.Advance(natPending - time.Millisecond)
	if got := e.describeNat(nat).State; got != ec2types.NatGatewayStatePending {
		t.Errorf("just before the delay: state %s, want pending", got)
	}
	e.clk.Advance(time.Millisecond)
	if got := e.describeNat(nat).State; got != ec2types.NatGatewayStateAvailable {
		t.Errorf("after the delay: state %s, want available", got)
	}

	del, err := e.ec2.DeleteNatGateway(e.ctx, &ec2.DeleteNatGatewayInput{NatGatewayId: &nat})
	e.ok("DeleteNatGateway", err)
	if aws.ToString(del.NatGatewayId) != nat {
		t.Errorf("DeleteNatGateway answered %s", aws.ToString(del.NatGatewayId))
	}
	if got := e.describeNat(nat).State; got != ec2types.NatGatewayStateDeleting {
		t.Errorf("after DeleteNatGateway: state %s, want deleting", got)
	}
	_, err = e.ec2.DeleteSubnet(e.ctx, &ec2.DeleteSubnetInput{SubnetId: &subnet})
	e.wantErr("DeleteSubnet with a deleting NAT gateway", err, "DependencyViolation")
	_, err = e.ec2.ReleaseAddress(e.ctx, &ec2.ReleaseAddressInput{AllocationId: &eip})
	e.wantErr("ReleaseAddress while the gateway is deleting", err, "InvalidIPAddress.InUse")

	e.clk.Advance(natDeleting)
	gone := e.describeNat(nat)
	if gone.State != ec2types.NatGatewayStateDeleted || gone.DeleteTime == nil {
		t.Errorf("after the deletion delay: %+v, want deleted with a delete time", gone)
	}
	if name, _ := ec2TagValue(gone.Tags, "Name"); name != "infra-nat-us-east-1a" {
		t.Errorf("deleted gateway lost its tags: %v", gone.Tags)
	}
	if a := e.describeAddress(eip); aws.ToString(a.AssociationId) != "" {
		t.Errorf("EIP still associated after its gateway was deleted: %+v", a)
	}
	if rt := e.routeTable(aws.ToString(private.RouteTableId)); rt.Routes[1].State != ec2types.RouteStateBlackhole {
		t.Errorf("route to the deleted gateway: %+v, want blackhole", rt.Routes[1])
	}
	listed, err := e.ec2.DescribeNatGateways(e.ctx, &ec2.DescribeNatGatewaysInput{Filter: []ec2types.Filter{ec2Filter("state", "deleted")}})
	e.ok("DescribeNatGateways state=deleted", err)
	if len(listed.NatGateways) != 1 {
		t.Errorf("deleted gateways listed: %d, want 1", len(listed.NatGateways))
	}
	_, err = e.ec2.DetachInternetGateway(e.ctx, &ec2.DetachInternetGatewayInput{InternetGatewayId: &igw, VpcId: &vpc})
	e.ok("DetachInternetGateway", err)
	_, err = e.ec2.ReleaseAddress(e.ctx, &ec2.ReleaseAddressInput{AllocationId: &eip})
	e.ok("ReleaseAddress", err)
	_, err = e.ec2.DeleteSubnet(e.ctx, &ec2.DeleteSubnetInput{SubnetId: &subnet})
	e.ok("DeleteSubnet", err)

	// A deleted gateway is listed for about an hour, then disappears.
	e.clk.Advance(time.Hour)
	_, err = e.ec2.DescribeNatGateways(e.ctx, &ec2.DescribeNatGatewaysInput{NatGatewayIds: []string{nat}})
	e.wantErr("DescribeNatGateways an hour later", err, "NatGatewayNotFound")
	all, err := e.ec2.DescribeNatGateways(e.ctx, &ec2.DescribeNatGatewaysInput{})
	e.ok("DescribeNatGateways", err)
	if len(all.NatGateways) != 0 {
		t.Errorf("gateways still listed an hour later: %+v", all.NatGateways)
	}
}

// The SDK's waiters are what callers use to wait on NAT gateways; they must
// see the states they key on.
func TestNatGatewayWaiters(t *testing.T) {
	e := newEC2Env(t)
	_, _, subnet := e.publicNetwork()
	nat := aws.ToString(e.natGateway(subnet, e.eip()).NatGatewayId)
	e.clk.Advance(natPending)
	err := ec2.NewNatGatewayAvailableWaiter(e.ec2).Wait(e.ctx, &ec2.DescribeNatGatewaysInput{NatGatewayIds: []string{nat}}, time.Minute)
	e.ok("NatGatewayAvailable waiter", err)
	_, err = e.ec2.DeleteNatGateway(e.ctx, &ec2.DeleteNatGatewayInput{NatGatewayId: &nat})
	e.ok("DeleteNatGateway", err)
	e.clk.Advance(natDeleting)
	err = ec2.NewNatGatewayDeletedWaiter(e.ec2).Wait(e.ctx, &ec2.DescribeNatGatewaysInput{NatGatewayIds: []string{nat}}, time.Minute)
	e.ok("NatGatewayDeleted waiter", err)
}

func TestCreateNatGatewayClientToken(t *testing.T) {
	e := newEC2Env(t)
	_, _, subnet := e.publicNetwork()
	eip, other := e.eip(), e.eip()
	create := func(allocation string) (*ec2.CreateNatGatewayOutput, error) {
		return e.ec2.CreateNatGateway(e.ctx, &ec2.CreateNatGatewayInput{SubnetId: &subnet, AllocationId: &allocation,
			ClientToken: aws.String("nodepool-uid-1")})
	}
	first, err := create(eip)
	e.ok("CreateNatGateway", err)
	again, err := create(eip)
	e.ok("CreateNatGateway retried", err)
	if a, b := aws.ToString(first.NatGateway.NatGatewayId), aws.ToString(again.NatGateway.NatGatewayId); a != b || aws.ToString(again.ClientToken) != "nodepool-uid-1" {
		t.Errorf("same token: gateways %s and %s (token %q), want one", a, b, aws.ToString(again.ClientToken))
	}
	_, err = create(other)
	e.wantErr("same token, other parameters", err, "IdempotentParameterMismatch")
	all, err := e.ec2.DescribeNatGateways(e.ctx, &ec2.DescribeNatGatewaysInput{})
	e.ok("DescribeNatGateways", err)
	if len(all.NatGateways) != 1 {
		t.Errorf("%d gateways exist, want 1", len(all.NatGateways))
	}
}

// Problems AWS only finds while provisioning leave a failed gateway, not
// an error; the failed gateway holds nothing and disappears after an hour.
func TestNatGatewayFailures(t *testing.T) {
	e := newEC2Env(t)
	_, _, subnet := e.publicNetwork()
	noIGW := e.vpc("10.1.0.0/16")
	isolated := aws.ToString(e.subnet(noIGW, "10.1.0.0/24", "us-east-1a").SubnetId)

	held := e.eip()
	e.natGateway(subnet, held)
	inUse := aws.ToString(e.natGateway(subnet, held).NatGatewayId)
	free := e.eip()
	noGateway := aws.ToString(e.natGateway(isolated, free).NatGatewayId)
	e.clk.Advance(natPending)
	for _, tc := range []struct{ id, code string }{
		{inUse, "Resource.AlreadyAssociated"},
		{noGateway, "Gateway.NotAttached"},
	} {
		g := e.describeNat(tc.id)
		if g.State != ec2types.NatGatewayStateFailed || aws.ToString(g.FailureCode) != tc.code || aws.ToString(g.FailureMessage) == "" {
			t.Errorf("gateway %s: state %s, failure %s (%s); want failed with %s", tc.id, g.State,
				aws.ToString(g.FailureCode), aws.ToString(g.FailureMessage), tc.code)
		}
	}
	// The failed gateway never held its address: it can be released.
	_, err := e.ec2.ReleaseAddress(e.ctx, &ec2.ReleaseAddressInput{AllocationId: &free})
	e.ok("ReleaseAddress of a failed gateway's EIP", err)
	_, err = e.ec2.DeleteSubnet(e.ctx, &ec2.DeleteSubnetInput{SubnetId: &isolated})
	e.ok("DeleteSubnet with only a failed gateway", err)
	e.clk.Advance(time.Hour)
	_, err = e.ec2.DescribeNatGateways(e.ctx, &ec2.DescribeNatGatewaysInput{NatGatewayIds: []string{inUse}})
	e.wantErr("failed gateway after an hour", err, "NatGatewayNotFound")

	for _, tc := range []struct {
		name string
		in   *ec2.CreateNatGatewayInput
		code string
	}{
		{"no subnet", &ec2.CreateNatGatewayInput{AllocationId: &held}, "MissingParameter"},
		{"unknown subnet", &ec2.CreateNatGatewayInput{SubnetId: aws.String("subnet-0123456789abcdef0"), AllocationId: &held}, "InvalidSubnetID.NotFound"},
		{"public without an EIP", &ec2.CreateNatGatewayInput{SubnetId: &subnet}, "MissingParameter"},
		{"unknown EIP", &ec2.CreateNatGatewayInput{SubnetId: &subnet, AllocationId: aws.String("eipalloc-0123456789abcdef0")}, "InvalidAllocationID.NotFound"},
		{"private with an EIP", &ec2.CreateNatGatewayInput{SubnetId: &subnet, AllocationId: &held, ConnectivityType: ec2types.ConnectivityTypePrivate}, "InvalidParameterCombination"},
	} {
		_, err := e.ec2.CreateNatGateway(e.ctx, tc.in)
		e.wantErr(tc.name, err, tc.code)
	}
}

// Five NAT gateways per availability zone; private gateways need no EIP,
// which keeps the EIP quota out of the way.
func TestNatGatewayQuotaIsPerZone(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	a := aws.ToString(e.subnet(vpc, "10.0.0.0/24", "us-east-1a").SubnetId)
	b := aws.ToString(e.subnet(vpc, "10.0.1.0/24", "us-east-1b").SubnetId)
	private := func(subnet string) (*ec2.CreateNatGatewayOutput, error) {
		return e.ec2.CreateNatGateway(e.ctx, &ec2.CreateNatGatewayInput{SubnetId: &subnet, ConnectivityType: ec2types.ConnectivityTypePrivate})
	}
	var first string
	for i := 0; i < 5; i++ {
		out, err := private(a)
		e.ok("private NAT gateway", err)
		if i == 0 {
			first = aws.ToString(out.NatGateway.NatGatewayId)
		}
	}
	_, err := private(a)
	e.wantErr("sixth gateway in us-east-1a", err, "NatGatewayLimitExceeded")
	_, err = private(b)
	e.ok("first gateway in us-east-1b", err)

	// A deleted gateway no longer counts.
	_, err = e.ec2.DeleteNatGateway(e.ctx, &ec2.DeleteNatGatewayInput{NatGatewayId: &first})
	e.ok("DeleteNatGateway", err)
	e.clk.Advance(natDeleting)
	_, err = private(a)
	e.ok("gateway in us-east-1a after one was deleted", err)
}

func TestDescribeNatGatewaysFiltersAndPages(t *testing.T) {
	e := newEC2Env(t)
	e.region(func(r *cloudaws.Region) { r.EC2.Quotas.NatGatewaysPerZone = 10 })
	vpc := e.vpc("10.0.0.0/16")
	a := aws.ToString(e.subnet(vpc, "10.0.0.0/24", "us-east-1a").SubnetId)
	b := aws.ToString(e.subnet(vpc, "10.0.1.0/24", "us-east-1b").SubnetId)
	var inA, inB []string
	for i := 0; i < 7; i++ {
		subnet := a
		if i%2 == 1 {
			subnet = b
		}
		out, err := e.ec2.CreateNatGateway(e.ctx, &ec2.CreateNatGatewayInput{SubnetId: &subnet,
			ConnectivityType:  ec2types.ConnectivityTypePrivate,
			TagSpecifications: ec2TagSpec(ec2types.ResourceTypeNatgateway, "Name", fmt.Sprintf("nat-%d", i))})
		e.ok("CreateNatGateway", err)
		if subnet == a {
			inA = append(inA, aws.ToString(out.NatGateway.NatGatewayId))
		} else {
			inB = append(inB, aws.ToString(out.NatGateway.NatGatewayId))
		}
	}
	e.clk.Advance(natPending)
	_, err := e.ec2.DeleteNatGateway(e.ctx, &ec2.DeleteNatGatewayInput{NatGatewayId: &inB[0]})
	e.ok("DeleteNatGateway", err)

	for _, tc := range []struct {
		name    string
		filters []ec2types.Filter
		want    []string
	}{
		{"subnet-id", []ec2types.Filter{ec2Filter("subnet-id", a)}, inA},
		{"vpc-id", []ec2types.Filter{ec2Filter("vpc-id", vpc)}, append(append([]string{}, inA...), inB...)},
		{"state", []ec2types.Filter{ec2Filter("state", "deleting")}, inB[:1]},
		{"nat-gateway-id", []ec2types.Filter{ec2Filter("nat-gateway-id", inA[1])}, inA[1:2]},
		{"tag:Name", []ec2types.Filter{ec2Filter("tag:Name", "nat-0", "nat-1")}, []string{inA[0], inB[0]}},
		{"state and subnet", []ec2types.Filter{ec2Filter("state", "available"), ec2Filter("subnet-id", b)}, inB[1:]},
	} {
		out, err := e.ec2.DescribeNatGateways(e.ctx, &ec2.DescribeNatGatewaysInput{Filter: tc.filters})
		e.ok("DescribeNatGateways "+tc.name, err)
		var got []string
		for _, g := range out.NatGateways {
			got = append(got, aws.ToString(g.NatGatewayId))
		}
		if !sameIDs(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}

	seen := map[string]bool{}
	pages := 0
	p := ec2.NewDescribeNatGatewaysPaginator(e.ec2, &ec2.DescribeNatGatewaysInput{MaxResults: aws.Int32(5)})
	for p.HasMorePages() {
		page, err := p.NextPage(e.ctx)
		e.ok("DescribeNatGateways page", err)
		pages++
		for _, g := range page.NatGateways {
			if seen[aws.ToString(g.NatGatewayId)] {
				t.Errorf("gateway %s on two pages", aws.ToString(g.NatGatewayId))
			}
			seen[aws.ToString(g.NatGatewayId)] = true
		}
	}
	if pages != 2 || len(seen) != 7 {
		t.Errorf("%d pages with %d gateways, want 2 pages with 7", pages, len(seen))
	}
	_, err = e.ec2.DescribeNatGateways(e.ctx, &ec2.DescribeNatGatewaysInput{NatGatewayIds: []string{"nat-0123456789abcdef0"}})
	e.wantErr("unknown gateway", err, "NatGatewayNotFound")
}

// An error rule naming NatGatewayProvisioning fails a created gateway the
// way AWS's provisioning failures do: the create answers, the gateway goes
// from pending to failed with the rule's code, and its address stays free.
func TestNatGatewayInjectedProvisioningFailure(t *testing.T) {
	e := newEC2Env(t)
	_, _, subnet := e.publicNetwork()
	e.f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "ec2", Operation: cloudaws.NatGatewayProvisioning,
		Code: "InternalError", Message: "Network interface could not be created", Nth: 1}}})
	eip := e.eip()
	failing := aws.ToString(e.natGateway(subnet, eip).NatGatewayId)
	e.clk.Advance(natPending)
	g := e.describeNat(failing)
	if g.State != ec2types.NatGatewayStateFailed || aws.ToString(g.FailureCode) != "InternalError" {
		t.Fatalf("gateway %s: state %s, failure %s; want failed with the injected InternalError", failing, g.State, aws.ToString(g.FailureCode))
	}
	// The rule fired once: the same address now gets a working gateway.
	next := aws.ToString(e.natGateway(subnet, eip).NatGatewayId)
	e.clk.Advance(natPending)
	if g := e.describeNat(next); g.State != ec2types.NatGatewayStateAvailable {
		t.Fatalf("the next gateway on the same address is %s, want available", g.State)
	}
}
