package aws

import (
	"context"
	"slices"
	"strings"
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// TestActionsTableIsExact runs create, create again with one zone more,
// and destroy (with a security group the control-plane operator left and
// a private zone of this infra ID on another VPC, so that every path
// runs), records the actions each command called in cloudsim, and
// compares them with the table: nothing called is missing from it, and
// nothing in it is never called.
func TestActionsTableIsExact(t *testing.T) {
	f := startInfra(t)
	opts := Options{InfraID: "infra-t", Name: "tab", BaseDomain: baseDomain, Zones: []string{"us-east-1a"}}
	f.tagLocalZoneOnOtherVPC(t, opts)

	before := f.cs.Calls(account)
	f.mustCreate(t, opts)
	opts.Zones = append(opts.Zones, "us-east-1b")
	out := f.mustCreate(t, opts)
	afterCreate := f.cs.Calls(account)
	f.leaveOperatorSecurityGroup(t, opts.InfraID, out.VPCID)
	f.leaveOperatorRecord(t, out.LocalZoneID, "api."+opts.Name+".hypershift.local")
	f.leaveGuestLoadBalancer(t, opts.InfraID, out.Zones[0].SubnetID)
	beforeDestroy := f.cs.Calls(account)
	f.mustDestroy(t, opts)

	compareActions(t, CreateInfra, calledBetween(before, afterCreate), Actions(CreateInfra))
	compareActions(t, DestroyInfra, calledBetween(beforeDestroy, f.cs.Calls(account)), Actions(DestroyInfra))
}

// calledBetween lists the IAM actions of the calls made between two
// counter snapshots.
func calledBetween(before, after map[string]sim.CallCount) []string {
	var out []string
	for key, c := range after {
		if c.Total > before[key].Total {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

func compareActions(t *testing.T, cmd Command, called, granted []string) {
	t.Helper()
	lacking, unused := missing(called, granted), missing(granted, called)
	if len(lacking) > 0 {
		t.Errorf("%s calls actions the table lacks: %s", cmd, strings.Join(lacking, ", "))
	}
	if len(unused) > 0 {
		t.Errorf("%s never calls actions the table grants: %s", cmd, strings.Join(unused, ", "))
	}
}

// tagLocalZoneOnOtherVPC makes the infra ID's hypershift.local zone exist
// already, tagged for it, on another VPC (a VPC replaced since the last
// run): create must take that zone and put it on the new VPC.
func (f *infraFixture) tagLocalZoneOnOtherVPC(t *testing.T, opts Options) {
	t.Helper()
	ctx := context.Background()
	ec2c := ec2.NewFromConfig(f.cs.Config(t, account))
	vpc, err := ec2c.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: awssdk.String("10.99.0.0/16")})
	if err != nil {
		t.Fatalf("creating another VPC: %v", err)
	}
	r53 := route53.NewFromConfig(f.cs.Config(t, account))
	zone, err := r53.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: awssdk.String(opts.Name + ".hypershift.local"), CallerReference: awssdk.String("old"),
		VPC: &r53types.VPC{VPCId: vpc.Vpc.VpcId, VPCRegion: r53types.VPCRegionUsEast1}})
	if err != nil {
		t.Fatalf("creating the old local zone: %v", err)
	}
	var tags []r53types.Tag
	for k, v := range (Options{InfraID: opts.InfraID, Name: opts.Name}).tags(opts.Name+".hypershift.local", nil) {
		tags = append(tags, r53types.Tag{Key: awssdk.String(k), Value: awssdk.String(v)})
	}
	if _, err := r53.ChangeTagsForResource(ctx, &route53.ChangeTagsForResourceInput{ResourceType: r53types.TagResourceTypeHostedzone,
		ResourceId: awssdk.String(zoneID(zone.HostedZone.Id)), AddTags: tags}); err != nil {
		t.Fatalf("tagging the old local zone: %v", err)
	}
}

// leaveOperatorSecurityGroup makes a security group with a rule, tagged
// as the control-plane operator tags its endpoint's group.
func (f *infraFixture) leaveOperatorSecurityGroup(t *testing.T, infraID, vpcID string) {
	t.Helper()
	ctx := context.Background()
	ec2c := ec2.NewFromConfig(f.cs.Config(t, account))
	sg, err := ec2c.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: awssdk.String(infraID + "-vpce-x"), Description: awssdk.String("left by the operator"),
		VpcId: awssdk.String(vpcID), TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeSecurityGroup, awscloud.OwnershipTags(infraID, "x"))})
	if err != nil {
		t.Fatalf("creating the operator's security group: %v", err)
	}
	_, err = ec2c.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: sg.GroupId, IpPermissions: []ec2types.IpPermission{{
		IpProtocol: awssdk.String("tcp"), FromPort: awssdk.Int32(443), ToPort: awssdk.Int32(443), IpRanges: []ec2types.IpRange{{CidrIp: awssdk.String("10.0.0.0/16")}}}}})
	if err != nil {
		t.Fatalf("authorizing the operator's rule: %v", err)
	}
}

// leaveOperatorRecord writes a CNAME as the control-plane operator does.
func (f *infraFixture) leaveOperatorRecord(t *testing.T, zoneID, name string) {
	t.Helper()
	rs := &r53types.ResourceRecordSet{Name: awssdk.String(name), Type: r53types.RRTypeCname, TTL: awssdk.Int64(60),
		ResourceRecords: []r53types.ResourceRecord{{Value: awssdk.String("vpce-1-abc.vpce-svc-1.us-east-1.vpce.amazonaws.com")}}}
	err := awscloud.Records{Route53: route53.NewFromConfig(f.cs.Config(t, account))}.ChangeRecords(context.Background(), zoneID, "",
		[]r53types.Change{{Action: r53types.ChangeActionCreate, ResourceRecordSet: rs}})
	if err != nil {
		t.Fatalf("writing the operator's record: %v", err)
	}
}

// leaveGuestLoadBalancer makes an internal NLB in subnetID tagged for the
// cluster, as a guest cluster's Service of type LoadBalancer does.
func (f *infraFixture) leaveGuestLoadBalancer(t *testing.T, infraID, subnetID string) {
	t.Helper()
	_, err := elbv2.NewFromConfig(f.cs.Config(t, account)).CreateLoadBalancer(context.Background(), &elbv2.CreateLoadBalancerInput{
		Name: awssdk.String(infraID + "-guest"), Type: elbv2types.LoadBalancerTypeEnumNetwork, Scheme: elbv2types.LoadBalancerSchemeEnumInternal,
		Subnets: []string{subnetID}, Tags: []elbv2types.Tag{{Key: awssdk.String(hcplinkv1beta1.ClusterTagKey(infraID)), Value: awssdk.String("owned")}}})
	if err != nil {
		t.Fatalf("creating the guest cluster's load balancer: %v", err)
	}
}
