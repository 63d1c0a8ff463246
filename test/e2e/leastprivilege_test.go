package e2e

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// notCheckedByAWS are granted actions AWS answers without evaluating any
// policy, so cloudsim never records them either: GetCallerIdentity works
// for every identity (the credentials check still calls it, and the table
// keeps it so that a reader sees the call).
var notCheckedByAWS = []string{"sts:GetCallerIdentity"}

// unreachableHere are granted actions on a path cloudsim cannot take, each
// with the reason; the test fails when one is called after all (then it
// belongs in the comparison, not here).
var unreachableHere = map[string]string{
	// Only when DescribeVpcEndpointServices reports zone names without zone
	// IDs; cloudsim always reports the IDs.
	"ec2:DescribeAvailabilityZones": "the endpoint service's zones come as names only",
}

// decoyZone puts a second <name>.hypershift.local private zone on another
// VPC of the customer account, so that finding the cluster's zone needs
// route53:GetHostedZone (two clusters of one name, as create infra aws
// allows).
func decoyZone(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	ec := ec2.NewFromConfig(env.CustomerAWS)
	vpc, err := ec.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.77.0.0/16")})
	if err != nil {
		t.Fatalf("creating the decoy VPC: %v", err)
	}
	r53 := route53.NewFromConfig(env.CustomerAWS)
	zone, err := r53.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{
		Name: aws.String(awscloud.PrivateZoneName(name)), CallerReference: aws.String("decoy-" + e2eutil.RandomSuffix(8)),
		VPC: &r53types.VPC{VPCId: vpc.Vpc.VpcId, VPCRegion: r53types.VPCRegion(devenv.Region)},
	})
	if err != nil {
		t.Fatalf("creating the decoy zone: %v", err)
	}
	t.Cleanup(func() {
		if _, err := r53.DeleteHostedZone(ctx, &route53.DeleteHostedZoneInput{Id: zone.HostedZone.Id}); err != nil {
			t.Errorf("deleting the decoy zone: %v", err)
		}
		if _, err := ec.DeleteVpc(ctx, &ec2.DeleteVpcInput{VpcId: vpc.Vpc.VpcId}); err != nil {
			t.Errorf("deleting the decoy VPC: %v", err)
		}
	})
}

// TestOperatorsLeastPrivilege walks one cluster through its whole life
// (create beside a namesake's private zone, PublicAndPrivate and back, a
// NodePool added and removed, resource tags added and removed, a new
// machine network, delete) with its control-plane operator under exactly
// the role `hcplink create iam aws` makes and the management operator as
// the user `create iam aws --operator` makes, and compares what cloudsim
// evaluated for each with what its policy grants: nothing denied, nothing
// granted and never used.
func TestOperatorsLeastPrivilege(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	zones := env.Customer.Zones
	c := plCreateCluster(t, "least-privilege", "leastpriv", zones[:2], func(c *plCluster, _ *hcplinkv1beta1.HostedCluster) {
		decoyZone(t, c.name)
	})
	want := plWant{
		subnets:    []string{env.Customer.SubnetByAZ[zones[0]], env.Customer.SubnetByAZ[zones[1]]},
		cidrs:      []string{env.Customer.CIDR},
		principals: []string{plPrincipal(c.roleARN)},
	}
	last := c.converge(t, "the private path", want)

	for _, access := range []hcplinkv1beta1.AWSEndpointAccessType{hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate, hcplinkv1beta1.AWSEndpointAccessPrivate} {
		c.patch(t, "switching to "+string(access), func(hc *hcplinkv1beta1.HostedCluster) { hc.Spec.Platform.AWS.EndpointAccess = access })
		last = c.converge(t, "the private path when "+string(access), want)
	}

	np := c.addNodePool(t, env.Customer.SubnetByAZ[zones[2]])
	three := want
	three.subnets = append(slices.Clone(want.subnets), env.Customer.SubnetByAZ[zones[2]])
	c.converge(t, "the endpoint in three subnets", three)
	if err := env.Client.Delete(ctx, &hcplinkv1beta1.NodePool{ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: np}}); err != nil {
		t.Fatalf("deleting NodePool %s: %v", np, err)
	}
	last = c.converge(t, "the endpoint back in two subnets", want)

	for _, tags := range [][]hcplinkv1beta1.AWSResourceTag{{{Key: "team", Value: "a"}, {Key: "env", Value: "e2e"}}, {{Key: "team", Value: "a"}}} {
		c.patch(t, "setting resource tags", func(hc *hcplinkv1beta1.HostedCluster) { hc.Spec.Platform.AWS.ResourceTags = tags })
		want.userTags = map[string]string{}
		for _, tag := range tags {
			want.userTags[tag.Key] = tag.Value
		}
		last = c.converge(t, "the resource tags everywhere", want)
	}

	c.patch(t, "splitting the machine network", func(hc *hcplinkv1beta1.HostedCluster) {
		hc.Spec.Networking.MachineNetwork = []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.1.0.0/17"}, {CIDR: "10.1.128.0/17"}}
	})
	want.cidrs = []string{"10.1.0.0/17", "10.1.128.0/17"}
	last = c.converge(t, "ingress from the two new CIDRs", want)

	// Another account is allowed to connect, which the management operator
	// checks against the service's permissions, and does: deleting the
	// service then needs its connection rejected first.
	other := "arn:aws:iam::" + devenv.SecondCustomerAccount + ":root"
	c.patch(t, "allowing another account", func(hc *hcplinkv1beta1.HostedCluster) {
		hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = []string{other}
	})
	want.principals = append(want.principals, other)
	last = c.converge(t, "the other account allowed on the endpoint service", want)
	foreign := connectFromSecondCustomer(t, aws.ToString(last.service.ServiceName))

	if err := env.Client.Delete(ctx, c.hc); err != nil {
		t.Fatalf("deleting the HostedCluster: %v", err)
	}
	otherEC2 := ec2.NewFromConfig(env.SecondCustomerAWS)
	waitForEndpointState(t, otherEC2, foreign, ec2types.StateRejected, "the other account's endpoint rejected by the deletion")
	// Its owner cleans it up, as a customer would.
	if _, err := otherEC2.DeleteVpcEndpoints(ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{foreign}}); err != nil {
		t.Fatalf("deleting the other account's endpoint %s: %v", foreign, err)
	}
	c.deleteAndProveNothingLeft(t, last)

	compareCalledWithGranted(t, "the control-plane operator", env.Cloud.AWS.Evaluations(c.roleARN), awscloud.ControlPlaneOperator)

	// devenv runs the management operator as the IAM user `hcplink create
	// iam aws --operator` makes; the same lifecycle uses all of its policy.
	compareCalledWithGranted(t, "the management operator", env.Cloud.AWS.Evaluations(devenv.ManagementOperatorUserARN), awscloud.ManagementOperator)
}

// compareCalledWithGranted fails for every action denied to the component
// and every action its policy grants that was never evaluated.
func compareCalledWithGranted(t *testing.T, who string, evaluated map[string]cloudaws.Decision, component awscloud.Component) {
	t.Helper()
	var called, denied []string
	for action, d := range evaluated {
		called = append(called, action)
		if d.Denied > 0 {
			denied = append(denied, action)
		}
	}
	sort.Strings(called)
	t.Logf("%s was evaluated for: %v", who, called)
	if len(denied) > 0 {
		t.Errorf("denied to %s (its policy misses them): %v", who, denied)
	}
	for _, action := range awscloud.Actions(component) {
		_, ok := evaluated[action]
		why, unreachable := unreachableHere[action]
		switch {
		case ok && unreachable:
			t.Errorf("%s was called after all: take it out of unreachableHere (%s)", action, why)
		case !ok && !unreachable && !slices.Contains(notCheckedByAWS, action):
			t.Errorf("the policy of %s grants %s, which the whole lifecycle never called", who, action)
		}
	}
}

// connectFromSecondCustomer makes a VPC endpoint to serviceName in the
// second customer's account, as a consumer the cluster allowed would, and
// waits until it is connected.
func connectFromSecondCustomer(t *testing.T, serviceName string) string {
	t.Helper()
	ctx := context.Background()
	other := env.SecondCustomer
	client := ec2.NewFromConfig(env.SecondCustomerAWS)
	out, err := client.CreateVpcEndpoint(ctx, &ec2.CreateVpcEndpointInput{
		VpcEndpointType: ec2types.VpcEndpointTypeInterface,
		VpcId:           aws.String(other.VPCID),
		ServiceName:     aws.String(serviceName),
		SubnetIds:       []string{other.SubnetByAZ[other.Zones[0]]},
	})
	if err != nil {
		t.Fatalf("connecting the second customer's VPC to %s: %v", serviceName, err)
	}
	id := aws.ToString(out.VpcEndpoint.VpcEndpointId)
	waitForEndpointState(t, client, id, ec2types.StateAvailable, "the second customer's endpoint available")
	return id
}

// waitForEndpointState waits until VPC endpoint id is in state (EC2 reports
// states in lower case; the SDK's constants are capitalised).
func waitForEndpointState(t *testing.T, client *ec2.Client, id string, state ec2types.State, what string) {
	t.Helper()
	suite.Eventually(t, e2eutil.LongWait, what, func(ctx context.Context) error {
		out, err := client.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{id}})
		if err != nil {
			return err
		}
		if got := out.VpcEndpoints[0].State; !strings.EqualFold(string(got), string(state)) {
			return fmt.Errorf("endpoint %s is %s", id, got)
		}
		return nil
	})
}
