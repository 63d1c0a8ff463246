package awsprivatelink

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

func TestSweeperRemovesOrphans(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	ours := aws.ToString(x.endpoint().VpcEndpointId)
	// An orphan: tagged for the cluster, for a CR that does not exist.
	tags := map[string]string{hcplinkv1beta1.ClusterTagKey(infraID): "owned", hcplinkv1beta1.EndpointServiceTagKey: "kube-apiserver-private", "Name": "orphan"}
	sg := aws.ToString(must(x.cust.CreateSecurityGroup(x.ctx, &ec2.CreateSecurityGroupInput{VpcId: aws.String(x.vpc), GroupName: aws.String("orphan"), Description: aws.String("x"),
		TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeSecurityGroup, tags)}))(t).GroupId)
	ep := aws.ToString(must(x.cust.CreateVpcEndpoint(x.ctx, &ec2.CreateVpcEndpointInput{VpcEndpointType: ec2types.VpcEndpointTypeInterface, VpcId: aws.String(x.vpc),
		ServiceName: aws.String(x.serviceName), SubnetIds: []string{x.subnets[x.zoneIDs[0]]}, SecurityGroupIds: []string{sg},
		TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeVpcEndpoint, tags)}))(t).VpcEndpoint.VpcEndpointId)

	sw := &Sweeper{Client: env.Client, EC2: x.r.EC2, Namespace: x.cr.Namespace, Now: x.clk.Now}
	// Within the grace period: left alone.
	if err := sw.Sweep(x.ctx); err != nil {
		t.Fatal(err)
	}
	if n := x.f.Calls(customer)["ec2:DeleteVpcEndpoints"].Total; n != 0 {
		t.Fatalf("swept a young endpoint (%d deletes)", n)
	}
	x.clk.Advance(DefaultSweepGrace + time.Minute)
	if err := sw.Sweep(x.ctx); err != nil {
		t.Fatal(err)
	}
	if n := x.f.Calls(customer)["ec2:DeleteSecurityGroup"].Total; n != 0 {
		t.Fatal("swept the security group before its endpoint was gone")
	}
	x.clk.Advance(endpointDeleting + time.Second)
	if err := sw.Sweep(x.ctx); err != nil {
		t.Fatal(err)
	}
	eps := x.endpoints()
	if len(eps) != 1 || aws.ToString(eps[0].VpcEndpointId) != ours || ours == ep {
		t.Fatalf("after the sweep endpoints %d; want only the CR's", len(eps))
	}
	sgs := x.securityGroups()
	if len(sgs) != 1 || aws.ToString(sgs[0].GroupId) == sg {
		t.Fatalf("after the sweep %d groups; want only the CR's", len(sgs))
	}
}
