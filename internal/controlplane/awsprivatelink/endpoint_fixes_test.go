package awsprivatelink

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/outcome"
)

// deleteRecord deletes a record behind the controller's back.
func (x *fixture) deleteRecord(name string) {
	x.t.Helper()
	value := x.records()[name]
	must(x.r53.ChangeResourceRecordSets(x.ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(x.zoneID), ChangeBatch: &r53types.ChangeBatch{
		Changes: []r53types.Change{{Action: r53types.ChangeActionDelete, ResourceRecordSet: &r53types.ResourceRecordSet{Name: aws.String(name + "."),
			Type: r53types.RRTypeCname, TTL: aws.Int64(recordTTL), ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(value)}}}}}}}))(x.t)
}

// requireRecordsAt fails unless every record points at the endpoint.
func (x *fixture) requireRecordsAt(ep string, names ...string) {
	x.t.Helper()
	got := x.records()
	if len(got) != len(names) {
		x.t.Fatalf("records %v, want exactly %v", got, names)
	}
	for _, n := range names {
		if awscloud.EndpointIDOfDNSName(got[n]) != ep {
			x.t.Fatalf("record %s = %q, want a name of %s", n, got[n], ep)
		}
	}
}

// TestDeletedSubnetIsDroppedAndDNSStillRepaired: a NodePool subnet deleted
// in the customer account (InvalidSubnetID.NotFound when named) does not
// fail the pass: the endpoint keeps the other subnets, a record deleted
// behind our back is restored, and the condition names the missing subnet.
func TestDeletedSubnetIsDroppedAndDNSStillRepaired(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	names := zoneNames(t, x.cust)
	gone := x.subnet("10.1.9.0/24", names[x.zoneIDs[0]])
	must(x.cust.DeleteSubnet(x.ctx, &ec2.DeleteSubnetInput{SubnetId: aws.String(gone)}))(t)
	x.patchCR(func(cr *hcplinkv1beta1.AWSEndpointService) {
		cr.Spec.SubnetIDs = sorted(append(cr.Spec.SubnetIDs, gone))
	})
	x.deleteRecord("api.demo.hypershift.local")

	res := x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.SubnetNotFoundReason, gone, "Next check at")
	ep := aws.ToString(x.endpoint().VpcEndpointId)
	x.requireRecordsAt(ep, "*.apps.demo.hypershift.local", "api.demo.hypershift.local")
	if got, want := sorted(x.endpoint().SubnetIds), x.subnetList(x.zoneIDs...); !reflect.DeepEqual(got, want) {
		t.Errorf("endpoint subnets %v, want %v", got, want)
	}
	if p := outcome.DefaultPolicy.Person; res.RequeueAfter < p.Base || res.RequeueAfter > p.Base+p.Spread {
		t.Errorf("first recheck %v", res.RequeueAfter)
	}
	if again := x.reconcile(); again.RequeueAfter < res.RequeueAfter*3/2 {
		t.Errorf("the recheck did not grow: %v then %v", res.RequeueAfter, again.RequeueAfter)
	}
	// The NodePool is fixed: the condition clears.
	x.patchCR(func(cr *hcplinkv1beta1.AWSEndpointService) { cr.Spec.SubnetIDs = x.subnetList(x.zoneIDs...) })
	x.reconcile()
	x.requireCondition(metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason)
}

// TestSubnetOfAnotherVPCIsNeverNamed: a NodePool subnet of another VPC of
// the customer's account (found by the bad-input corpus) is never given to
// the endpoint, whose ModifyVpcEndpoint AWS would refuse; the endpoint
// keeps serving the other subnets and the condition names the subnet and
// the cluster's VPC.
func TestSubnetOfAnotherVPCIsNeverNamed(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	names := zoneNames(t, x.cust)
	other := aws.ToString(must(x.cust.CreateVpc(x.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.2.0.0/16")}))(t).Vpc.VpcId)
	foreign := aws.ToString(must(x.cust.CreateSubnet(x.ctx, &ec2.CreateSubnetInput{VpcId: aws.String(other),
		CidrBlock: aws.String("10.2.0.0/24"), AvailabilityZone: aws.String(names[x.zoneIDs[0]])}))(t).Subnet.SubnetId)
	// The subnet of another VPC is the only one named in its zone.
	x.patchCR(func(cr *hcplinkv1beta1.AWSEndpointService) {
		cr.Spec.SubnetIDs = sorted(append(x.subnetList(x.zoneIDs[1:]...), foreign))
	})
	_, _, before := x.calls()

	x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.SubnetNotInVPCReason, foreign, x.vpc, "Move those NodePools")
	if got, want := sorted(x.endpoint().SubnetIds), x.subnetList(x.zoneIDs[1:]...); !reflect.DeepEqual(got, want) {
		t.Errorf("endpoint subnets %v, want %v", got, want)
	}
	if _, _, after := x.calls(); after["ec2:ModifyVpcEndpoint"].Failed > before["ec2:ModifyVpcEndpoint"].Failed {
		t.Errorf("a ModifyVpcEndpoint call failed: the subnet of another VPC was named to AWS")
	}
	if _, ok := x.get().Status.SubnetZoneIDs[foreign]; ok {
		t.Errorf("status.subnetZoneIDs lists the subnet of another VPC")
	}
}

// TestNodePoolSubnetsAndZoneIDs: every NodePool subnet is described, not
// only the operator's capped spec.subnetIDs: the endpoint reaches their
// zones, and status.subnetZoneIDs maps each subnet to its zone ID.
func TestNodePoolSubnetsAndZoneIDs(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.patchCR(func(cr *hcplinkv1beta1.AWSEndpointService) { cr.Spec.SubnetIDs = x.subnetList(x.zoneIDs[:2]...) })
	x.patchHCP(func(hcp *hcplinkv1beta1.HostedControlPlane) {
		for i, z := range x.zoneIDs {
			hcp.Spec.NodePools = append(hcp.Spec.NodePools, hcplinkv1beta1.HostedControlPlaneNodePool{Name: fmt.Sprintf("np%d", i), SubnetID: x.subnets[z]})
		}
	})
	x.ready()
	if got, want := sorted(x.endpoint().SubnetIds), x.subnetList(x.zoneIDs...); !reflect.DeepEqual(got, want) {
		t.Errorf("endpoint subnets %v, want every NodePool zone %v", got, want)
	}
	want := map[string]string{}
	for _, z := range x.zoneIDs {
		want[x.subnets[z]] = z
	}
	if got := x.get().Status.SubnetZoneIDs; !reflect.DeepEqual(got, want) {
		t.Errorf("status.subnetZoneIDs %v, want %v", got, want)
	}
	// A NodePool gone: its subnet leaves the map.
	x.patchHCP(func(hcp *hcplinkv1beta1.HostedControlPlane) { hcp.Spec.NodePools = hcp.Spec.NodePools[:2] })
	x.reconcile()
	delete(want, x.subnets[x.zoneIDs[2]])
	if got := x.get().Status.SubnetZoneIDs; !reflect.DeepEqual(got, want) {
		t.Errorf("after a NodePool went, status.subnetZoneIDs %v, want %v", got, want)
	}
}

// TestStaleRecordsFollowAReplacedEndpoint: the endpoint is deleted behind
// our back while the api record stops being wanted; the new endpoint gets
// the records it serves and no record points at the old one, and on
// deletion no record remains.
func TestStaleRecordsFollowAReplacedEndpoint(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	old := aws.ToString(x.endpoint().VpcEndpointId)
	must(x.cust.DeleteVpcEndpoints(x.ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{old}}))(t)
	x.clk.Advance(max(endpointDeleting, endpointVisibilityGrace) + time.Second) // deleted, and past the grace in which EC2 may not show a new endpoint
	x.patchHCP(func(hcp *hcplinkv1beta1.HostedControlPlane) {
		hcp.Spec.Services[0].ServicePublishingStrategy = hcplinkv1beta1.ServicePublishingStrategy{Type: hcplinkv1beta1.LoadBalancerPublishing}
	})
	x.reconcile()
	ep := aws.ToString(x.endpoint().VpcEndpointId)
	if ep == old {
		t.Fatal("no new endpoint")
	}
	x.requireRecordsAt(ep, "*.apps.demo.hypershift.local")

	if err := env.Client.Delete(x.ctx, x.get()); err != nil {
		t.Fatal(err)
	}
	x.reconcile()
	if got := x.records(); len(got) != 0 {
		t.Errorf("records left after deletion: %v", got)
	}
}

// TestZoneCreatedIsNoticedAtTheFirstRecheck: a missing private zone is
// rechecked within 20 s and the message says when; once the zone exists
// the next pass writes the records and the condition clears.
func TestZoneCreatedIsNoticedAtTheFirstRecheck(t *testing.T) {
	x := newFixture(t, cloudOpts{noZone: true})
	res := x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.DNSZoneNotFoundReason, "Next check at")
	if res.RequeueAfter < 15*time.Second || res.RequeueAfter > 20*time.Second {
		t.Errorf("first recheck in %v, want 15–20 s", res.RequeueAfter)
	}
	out := must(x.r53.CreateHostedZone(x.ctx, &route53.CreateHostedZoneInput{Name: aws.String("demo.hypershift.local"), CallerReference: aws.String(t.Name()),
		HostedZoneConfig: &r53types.HostedZoneConfig{PrivateZone: true},
		VPC:              &r53types.VPC{VPCId: aws.String(x.vpc), VPCRegion: r53types.VPCRegion("us-east-1")}}))(t)
	x.zoneID = strings.TrimPrefix(aws.ToString(out.HostedZone.Id), "/hostedzone/")
	x.clk.Advance(res.RequeueAfter)
	x.reconcile()
	if c := x.condition(); c.Reason == hcplinkv1beta1.DNSZoneNotFoundReason {
		t.Fatalf("still %s after the zone was created: %q", c.Reason, c.Message)
	}
	if got := x.records(); len(got) != 2 {
		t.Errorf("records %v, want both", got)
	}
}

// TestPausedMakesNoCloudCall: while pausedUntil is in the future nothing
// is called in the customer account.
func TestPausedMakesNoCloudCall(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.patchHCP(func(hcp *hcplinkv1beta1.HostedControlPlane) {
		hcp.Spec.PausedUntil = ptr.To(time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	})
	before, _, _ := x.calls()
	res := x.reconcile()
	x.requireCondition(metav1.ConditionUnknown, hcplinkv1beta1.ReconciliationPausedReason)
	if after, _, byOp := x.calls(); after != before {
		t.Errorf("cloud calls while paused: %v", byOp)
	}
	if res.RequeueAfter <= 50*time.Minute || res.RequeueAfter > time.Hour {
		t.Errorf("requeue %v, want the end of the pause", res.RequeueAfter)
	}
}

// TestEndpointOfAnotherServiceIsReplaced: when the operator's service
// changes (a new endpoint service name), the endpoint to the old one is
// deleted, a new one made, and the records follow it.
func TestEndpointOfAnotherServiceIsReplaced(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	old := aws.ToString(x.endpoint().VpcEndpointId)
	other := x.anotherService()
	cr := x.get()
	cr.Status.EndpointServiceName = other
	if err := env.Client.Status().Update(x.ctx, cr); err != nil {
		t.Fatal(err)
	}
	x.reconcile()
	var fresh string
	for _, ep := range x.endpoints() {
		id := aws.ToString(ep.VpcEndpointId)
		switch {
		case id == old && !isGone(ep.State):
			t.Errorf("the endpoint to the old service is %s, want deleting", ep.State)
		case id != old:
			fresh = id
			if aws.ToString(ep.ServiceName) != other {
				t.Errorf("new endpoint to %s, want %s", aws.ToString(ep.ServiceName), other)
			}
		}
	}
	if fresh == "" {
		t.Fatal("no endpoint to the new service")
	}
	x.requireRecordsAt(fresh, "*.apps.demo.hypershift.local", "api.demo.hypershift.local")
}

// anotherService makes a second NLB and endpoint service allowing the
// customer, and returns the service's name.
func (x *fixture) anotherService() string {
	x.t.Helper()
	subnets := must(x.mgmt.DescribeSubnets(x.ctx, &ec2.DescribeSubnetsInput{}))(x.t).Subnets
	var ids []string
	for _, sn := range subnets {
		ids = append(ids, aws.ToString(sn.SubnetId))
	}
	elb := elbv2.NewFromConfig(x.f.Config(x.t, mgmt))
	lb := must(elb.CreateLoadBalancer(x.ctx, &elbv2.CreateLoadBalancerInput{Name: aws.String("k8s-demo-other-0123456789"), Type: elbtypes.LoadBalancerTypeEnumNetwork,
		Scheme: elbtypes.LoadBalancerSchemeEnumInternal, Subnets: ids}))(x.t).LoadBalancers[0]
	svc := must(x.mgmt.CreateVpcEndpointServiceConfiguration(x.ctx, &ec2.CreateVpcEndpointServiceConfigurationInput{
		AcceptanceRequired: aws.Bool(false), NetworkLoadBalancerArns: []string{aws.ToString(lb.LoadBalancerArn)}}))(x.t).ServiceConfiguration
	must(x.mgmt.ModifyVpcEndpointServicePermissions(x.ctx, &ec2.ModifyVpcEndpointServicePermissionsInput{
		ServiceId: svc.ServiceId, AddAllowedPrincipals: []string{"arn:aws:iam::" + customer + ":root"}}))(x.t)
	return aws.ToString(svc.ServiceName)
}

// TestZoneDeletedAndRecreated: a private zone deleted and created again
// (NoSuchHostedZone on the kept ID) is looked up again and gets the
// records, in the same pass.
func TestZoneDeletedAndRecreated(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	oldZone := x.zoneID
	for name := range x.records() {
		x.deleteRecord(name)
	}
	must(x.r53.DeleteHostedZone(x.ctx, &route53.DeleteHostedZoneInput{Id: aws.String(oldZone)}))(t)
	out := must(x.r53.CreateHostedZone(x.ctx, &route53.CreateHostedZoneInput{Name: aws.String("demo.hypershift.local"), CallerReference: aws.String(t.Name() + "-again"),
		HostedZoneConfig: &r53types.HostedZoneConfig{PrivateZone: true},
		VPC:              &r53types.VPC{VPCId: aws.String(x.vpc), VPCRegion: r53types.VPCRegion("us-east-1")}}))(t)
	x.zoneID = strings.TrimPrefix(aws.ToString(out.HostedZone.Id), "/hostedzone/")
	x.reconcile()
	x.requireCondition(metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason)
	if got := x.get().Status.DNSZoneID; got != x.zoneID || got == oldZone {
		t.Errorf("status.dnsZoneID %s, want the new zone %s", got, x.zoneID)
	}
	x.requireRecordsAt(aws.ToString(x.endpoint().VpcEndpointId), "*.apps.demo.hypershift.local", "api.demo.hypershift.local")
}

// TestRecordsWrittenWhileEndpointPending: the records exist from the
// first pass, while the endpoint is still pending.
func TestRecordsWrittenWhileEndpointPending(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.EndpointPendingReason)
	ep := x.endpoint()
	if !stateIs(ep.State, "pending") {
		t.Fatalf("endpoint %s, want pending", ep.State)
	}
	x.requireRecordsAt(aws.ToString(ep.VpcEndpointId), "*.apps.demo.hypershift.local", "api.demo.hypershift.local")
}

// TestSecurityGroupDependencyGrows: a security group AWS still holds at
// deletion (DependencyViolation) is retried after a growing delay.
func TestSecurityGroupDependencyGrows(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	// Someone else's endpoint uses our group: it cannot go.
	must(x.cust.CreateVpcEndpoint(x.ctx, &ec2.CreateVpcEndpointInput{VpcEndpointType: "Interface", VpcId: aws.String(x.vpc),
		ServiceName: aws.String(x.anotherService()), SubnetIds: []string{x.subnets[x.zoneIDs[0]]}, SecurityGroupIds: []string{x.get().Status.SecurityGroupID}}))(t)
	if err := env.Client.Delete(x.ctx, x.get()); err != nil {
		t.Fatal(err)
	}
	x.reconcile()
	x.clk.Advance(endpointDeleting + time.Second)
	first := x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.DependencyReason, "Next check at")
	second := x.reconcile()
	if second.RequeueAfter < first.RequeueAfter*3/2 {
		t.Errorf("DependencyViolation retried after %v then %v, want growing", first.RequeueAfter, second.RequeueAfter)
	}
}

// TestThrottledRecordsResumeAtTheRecords: a pass that fails at Route 53
// (throttled) is followed by one that asks the cloud only for what it did
// not finish — the records — and a drift check after Ready looks at the
// security group, the endpoint and the records again.
func TestThrottledRecordsResumeAtTheRecords(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Account: customer, Service: "route53", Operation: "ChangeResourceRecordSets",
		Code: "Throttling", HTTPStatus: 400, Rate: 1}}})
	x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.ThrottledReason)
	x.f.Server.Faults.Set(sim.FaultConfig{})
	x.clk.Advance(endpointPending + time.Second)

	_, _, before := x.calls()
	x.reconcile()
	x.requireCondition(metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason)
	_, _, after := x.calls()
	asked := callsBetween(before, after)
	want := map[string]int64{"ec2:DescribeVpcEndpoints": 1, "route53:ListResourceRecordSets": 1, "route53:ChangeResourceRecordSets": 1}
	if !reflect.DeepEqual(asked, want) {
		t.Errorf("the pass after the throttled one asked %v, want only %v", asked, want)
	}

	// The next pass is a drift check: it looks again.
	_, _, before = x.calls()
	x.reconcile()
	_, _, after = x.calls()
	drift := callsBetween(before, after)
	for _, op := range []string{"ec2:DescribeSecurityGroups", "ec2:DescribeVpcEndpoints", "route53:ListResourceRecordSets"} {
		if drift[op] != 1 {
			t.Errorf("the drift check asked %s %d times, want 1 (all: %v)", op, drift[op], drift)
		}
	}
}

// callsBetween is the calls made between two snapshots of one account's
// counters, by operation.
func callsBetween(before, after map[string]sim.CallCount) map[string]int64 {
	out := map[string]int64{}
	for op, c := range after {
		if n := c.Total - before[op].Total; n > 0 {
			out[op] = n
		}
	}
	return out
}
