package devenv

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	awsinfra "github.com/hcplink/hcplink/internal/infra/aws"
)

// TestCustomerNetworkIsCreateInfraAWSs: the customer network devenv seeds
// is exactly what `hcplink create infra aws --single-nat-gateway` makes
// (re-running create finds all of it and changes nothing), with the CIDR and
// zones devenv always had and the workers' subnets private.
func TestCustomerNetworkIsCreateInfraAWSs(t *testing.T) {
	cs, cfg, ctx := customerCloud(t)

	c, err := seedCustomer(ctx, cfg, CustomerAccount, "devenv-customer", customerVPCCIDR(0))
	if err != nil {
		t.Fatalf("seedCustomer: %v", err)
	}
	zones, err := zoneNames(ctx, ec2.NewFromConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if c.CIDR != "10.1.0.0/16" || !slices.Equal(c.Zones, zones) || len(c.SubnetByAZ) != zoneCount || c.OIDCProvider == "" {
		t.Fatalf("customer network %+v, want 10.1.0.0/16 over zones %v with a subnet each and an OIDC provider", c, zones)
	}
	for i, zone := range c.Zones {
		out, err := ec2.NewFromConfig(cfg).DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{c.SubnetByAZ[zone]}})
		if err != nil || len(out.Subnets) != 1 {
			t.Fatalf("describing the subnet of %s: %v", zone, err)
		}
		sn := out.Subnets[0]
		want := []string{"10.1.128.0/20", "10.1.144.0/20", "10.1.160.0/20"}[i]
		if awssdk.ToString(sn.CidrBlock) != want || awssdk.ToString(sn.VpcId) != c.VPCID || awssdk.ToString(sn.AvailabilityZone) != zone {
			t.Errorf("subnet of %s is %s in %s (%s), want the private %s in %s", zone, awssdk.ToString(sn.CidrBlock),
				awssdk.ToString(sn.VpcId), awssdk.ToString(sn.AvailabilityZone), want, c.VPCID)
		}
	}

	before := sim.Sum(cs.Calls(CustomerAccount)).Mutating
	again, err := awsinfra.Create(ctx, awsinfra.Options{InfraID: "devenv-customer", BaseDomain: customerBaseDomain, Region: Region,
		Zones: zones, VPCCIDR: c.CIDR, SingleNATGateway: true}, awsinfra.Deps{Clients: awsinfra.NewClients(cfg, Region), PollInterval: customerInfraPoll})
	if err != nil {
		t.Fatalf("create infra aws over devenv's customer network: %v", err)
	}
	if again.VPCID != c.VPCID || sim.Sum(cs.Calls(CustomerAccount)).Mutating != before {
		t.Errorf("create infra aws made %d changes (VPC %s, devenv's %s): devenv's network is not what it makes",
			sim.Sum(cs.Calls(CustomerAccount)).Mutating-before, again.VPCID, c.VPCID)
	}
	addresses, err := ec2.NewFromConfig(cfg).DescribeAddresses(ctx, &ec2.DescribeAddressesInput{})
	if err != nil || len(addresses.Addresses) != 1 {
		t.Errorf("the account holds %d Elastic IPs (%v), want 1 (one NAT gateway)", len(addresses.Addresses), err)
	}
}

// TestClusterZoneIsTaggedOrTheCustomers: the cluster's hypershift.local
// zone is create infra aws's (tagged for the infra ID, found again), and a
// zone the customer put on the VPC itself is taken as it is.
func TestClusterZoneIsTaggedOrTheCustomers(t *testing.T) {
	_, cfg, ctx := customerCloud(t)
	vpc, err := ec2.NewFromConfig(cfg).CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: awssdk.String("10.1.0.0/16")})
	if err != nil {
		t.Fatal(err)
	}
	customer := CustomerNetwork{VPCID: awssdk.ToString(vpc.Vpc.VpcId)}
	r53 := route53.NewFromConfig(cfg)

	id, err := clusterZone(ctx, customer, cfg, "one", "one-abcde")
	if err != nil {
		t.Fatalf("clusterZone: %v", err)
	}
	tags, err := r53.ListTagsForResource(ctx, &route53.ListTagsForResourceInput{ResourceType: r53types.TagResourceTypeHostedzone, ResourceId: &id})
	if err != nil {
		t.Fatal(err)
	}
	tagged := false
	for _, tg := range tags.ResourceTagSet.Tags {
		tagged = tagged || awssdk.ToString(tg.Key) == awsinfra.InfraIDTagKey && awssdk.ToString(tg.Value) == "one-abcde"
	}
	if !tagged {
		t.Errorf("zone %s is not tagged for infra ID one-abcde: %+v", id, tags.ResourceTagSet.Tags)
	}
	if again, err := clusterZone(ctx, customer, cfg, "one", "one-abcde"); err != nil || again != id {
		t.Errorf("clusterZone again: %q, %v; want %s", again, err, id)
	}

	if _, err := r53.DeleteHostedZone(ctx, &route53.DeleteHostedZoneInput{Id: &id}); err != nil {
		t.Fatal(err)
	}
	own, err := r53.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: awssdk.String("one.hypershift.local"), CallerReference: awssdk.String("by-hand"),
		VPC: &r53types.VPC{VPCId: &customer.VPCID, VPCRegion: r53types.VPCRegion(Region)}})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimPrefix(awssdk.ToString(own.HostedZone.Id), "/hostedzone/")
	if got, err := clusterZone(ctx, customer, cfg, "one", "one-abcde"); err != nil || got != want {
		t.Errorf("with the customer's own zone on the VPC clusterZone answered %q, %v; want %s", got, err, want)
	}
}

// customerCloud starts cloudsim with fast delays and gives the customer
// account's configuration and a context bounded by the test.
func customerCloud(t *testing.T) (*cloudsimtest.Fixture, awssdk.Config, context.Context) {
	t.Helper()
	delays := sim.FastDelays()
	cs := cloudsimtest.Start(t, cloudsim.Options{Delays: &delays})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return cs, cs.Config(t, CustomerAccount), ctx
}
