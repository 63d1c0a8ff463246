package aws_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Many clients creating at once get distinct IDs, and everything they
// created is visible afterwards; run under -race.
func TestConcurrentCreates(t *testing.T) {
	e := newEC2Env(t)
	vpc := e.vpc("10.0.0.0/16")
	const workers = 40
	var (
		mu      sync.Mutex
		groups  = map[string]bool{}
		subnets = map[string]bool{}
		errs    []error
		wg      sync.WaitGroup
	)
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sg, err := e.ec2.CreateSecurityGroup(e.ctx, &ec2.CreateSecurityGroupInput{VpcId: &vpc,
				GroupName: aws.String(fmt.Sprint("group-", i)), Description: aws.String("concurrent"),
				TagSpecifications: ec2TagSpec(ec2types.ResourceTypeSecurityGroup, "worker", fmt.Sprint(i))})
			if err == nil {
				_, err = e.ec2.AuthorizeSecurityGroupIngress(e.ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: sg.GroupId,
					IpPermissions: []ec2types.IpPermission{tcpFrom(443, "10.0.0.0/16")}})
			}
			var subnet *ec2.CreateSubnetOutput
			if err == nil {
				subnet, err = e.ec2.CreateSubnet(e.ctx, &ec2.CreateSubnetInput{VpcId: &vpc,
					CidrBlock: aws.String(fmt.Sprintf("10.0.%d.0/24", i)), AvailabilityZone: aws.String("us-east-1a")})
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			if groups[aws.ToString(sg.GroupId)] || subnets[aws.ToString(subnet.Subnet.SubnetId)] {
				errs = append(errs, fmt.Errorf("worker %d got an ID already handed out", i))
			}
			groups[aws.ToString(sg.GroupId)] = true
			subnets[aws.ToString(subnet.Subnet.SubnetId)] = true
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}

	// The same CIDR from every worker: exactly one wins, the rest conflict.
	var won, conflicts int
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.ec2.CreateSubnet(e.ctx, &ec2.CreateSubnetInput{VpcId: &vpc, CidrBlock: aws.String("10.0.200.0/24")})
			mu.Lock()
			defer mu.Unlock()
			switch ec2ErrCode(err) {
			case "":
				won++
			case "InvalidSubnet.Conflict":
				conflicts++
			default:
				t.Errorf("racing CreateSubnet: %v", err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || conflicts != 9 {
		t.Errorf("racing creates of one CIDR: %d won, %d conflicted; want 1 and 9", won, conflicts)
	}

	sgs, err := e.ec2.DescribeSecurityGroups(e.ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{ec2Filter("tag-key", "worker")}})
	e.ok("DescribeSecurityGroups", err)
	for _, g := range sgs.SecurityGroups {
		if !groups[aws.ToString(g.GroupId)] || len(g.IpPermissions) != 1 {
			t.Errorf("group %s: unknown or without its rule (%+v)", aws.ToString(g.GroupId), g.IpPermissions)
		}
	}
	subs, err := e.ec2.DescribeSubnets(e.ctx, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{ec2Filter("vpc-id", vpc)}})
	e.ok("DescribeSubnets", err)
	if len(sgs.SecurityGroups) != workers || len(subs.Subnets) != workers+1 {
		t.Errorf("visible: %d groups and %d subnets, want %d and %d", len(sgs.SecurityGroups), len(subs.Subnets), workers, workers+1)
	}
}
