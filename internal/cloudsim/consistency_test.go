package cloudsim_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// With EC2's eventual consistency on, a new security group is missing from
// describes (InvalidGroup.NotFound by ID, absent from a tag listing) until
// the create lag passes, and a deleted one is still listed, with its tags,
// until the delete lag passes.
func TestEC2ReadsLagBehindCreatesAndDeletes(t *testing.T) {
	clock := sim.NewManualClock(time.Unix(1_700_000_000, 0))
	f := cloudsimtest.Start(t, cloudsim.Options{Clock: clock})
	ctx := context.Background()
	client := ec2.NewFromConfig(f.Config(t, cloudsimtest.CustomerAccount))
	vpc, err := client.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	if err != nil {
		t.Fatal(err)
	}
	setChaos(t, f, sim.Chaos{Consistency: sim.Consistency{CreateLag: sim.Duration(5 * time.Second), DeleteLag: sim.Duration(3 * time.Second)}})

	sg, err := client.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{VpcId: vpc.Vpc.VpcId, GroupName: aws.String("ours"), Description: aws.String("ours"),
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSecurityGroup, Tags: []ec2types.Tag{{Key: aws.String("owner"), Value: aws.String("soak")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	byID := &ec2.DescribeSecurityGroupsInput{GroupIds: []string{*sg.GroupId}}
	byTag := &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{{Name: aws.String("tag:owner"), Values: []string{"soak"}}}}
	listed := func() int {
		t.Helper()
		out, err := client.DescribeSecurityGroups(ctx, byTag)
		if err != nil {
			t.Fatal(err)
		}
		return len(out.SecurityGroups)
	}

	if _, err := client.DescribeSecurityGroups(ctx, byID); awsCode(err) != "InvalidGroup.NotFound" {
		t.Errorf("describing the new group by ID: %v, want InvalidGroup.NotFound", err)
	}
	if n := listed(); n != 0 {
		t.Errorf("the new group is listed at once (%d)", n)
	}
	clock.Advance(5 * time.Second)
	if _, err := client.DescribeSecurityGroups(ctx, byID); err != nil {
		t.Errorf("describing the group after the create lag: %v", err)
	}

	if _, err := client.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: sg.GroupId}); err != nil {
		t.Fatal(err)
	}
	if n := listed(); n != 1 {
		t.Errorf("the deleted group is not listed by its tag during the delete lag (%d)", n)
	}
	clock.Advance(3 * time.Second)
	if n := listed(); n != 0 {
		t.Errorf("the deleted group is still listed after the delete lag (%d)", n)
	}
}
