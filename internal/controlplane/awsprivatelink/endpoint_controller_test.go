package awsprivatelink

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/outcome"
)

// While the endpoint stays pending, polls describe only it and space out;
// a spec change in between makes the next pass a full one.
func TestPendingEndpointIsPolledCheaply(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.EndpointPendingReason)
	var delays []time.Duration
	for range 4 {
		before, _, _ := x.calls()
		res := x.reconcile() // the clock has not moved: still pending
		if after, _, byOp := x.calls(); after-before != 1 {
			t.Fatalf("a poll made %d calls, want 1: %v", after-before, byOp)
		}
		delays = append(delays, res.RequeueAfter)
	}
	if delays[len(delays)-1] <= pendingFirstPoll || delays[len(delays)-1] > pendingMaxPoll*11/10 {
		t.Errorf("poll delays %v: want growing from %v to at most %v", delays, pendingFirstPoll, pendingMaxPoll)
	}
	x.patchCR(func(cr *hcplinkv1beta1.AWSEndpointService) {
		cr.Spec.ResourceTags = append(cr.Spec.ResourceTags, hcplinkv1beta1.AWSResourceTag{Key: "cost-center", Value: "42"})
	})
	before, _, _ := x.calls()
	x.reconcile()
	if after, _, byOp := x.calls(); after-before < 3 {
		t.Errorf("after a spec change the pass made %d calls, want a full pass: %v", after-before, byOp)
	}
}

func TestHappyPathAndSteadyState(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	res := x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.EndpointPendingReason)
	if res.RequeueAfter != pendingFirstPoll {
		t.Errorf("pending requeue %v, want %v", res.RequeueAfter, pendingFirstPoll)
	}
	x.clk.Advance(endpointPending + time.Second)
	before, _, _ := x.calls()
	res = x.reconcile()
	// The pass after a pending one describes only the endpoint: the
	// security group, subnets, service zones and records were just made.
	if after, _, byOp := x.calls(); after-before != 1 || byOp["ec2:DescribeVpcEndpoints"].Total == 0 {
		t.Errorf("the poll of a pending endpoint made %d calls, want 1 DescribeVpcEndpoints: %v", after-before, byOp)
	}
	x.requireCondition(metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason, "available")
	if lo, hi := DefaultDriftInterval*85/100, DefaultDriftInterval*115/100; res.RequeueAfter < lo || res.RequeueAfter > hi {
		t.Errorf("drift requeue %v, want in [%v, %v]", res.RequeueAfter, lo, hi)
	}

	cr := x.get()
	if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) {
		t.Error("finalizer missing")
	}
	ep := x.endpoint()
	if got, want := sorted(ep.SubnetIds), x.subnetList(x.zoneIDs...); !reflect.DeepEqual(got, want) {
		t.Errorf("endpoint subnets %v, want one per zone %v", got, want)
	}
	if !stateIs(ep.State, "available") || aws.ToString(ep.ServiceName) != x.serviceName {
		t.Errorf("endpoint state %s service %s", ep.State, aws.ToString(ep.ServiceName))
	}
	tags := awscloud.TagMap(ep.Tags)
	if tags["team"] != "blue" || tags[hcplinkv1beta1.ClusterTagKey(infraID)] != "owned" || tags[hcplinkv1beta1.EndpointServiceTagKey] != x.cr.Name {
		t.Errorf("endpoint tags %v", tags)
	}
	sgs := x.securityGroups()
	if len(sgs) != 1 {
		t.Fatalf("%d security groups, want 1", len(sgs))
	}
	sg := sgs[0]
	if aws.ToString(sg.GroupName) != infraID+"-vpce-private-router" || awscloud.TagMap(sg.Tags)["Name"] != aws.ToString(sg.GroupName) {
		t.Errorf("security group name %s tags %v", aws.ToString(sg.GroupName), awscloud.TagMap(sg.Tags))
	}
	if got := awscloud.ActualIngress(sg.IpPermissions); !reflect.DeepEqual(got, []IngressRule{{Protocol: "tcp", From: 443, To: 443, CIDR: "10.1.0.0/16"}}) {
		t.Errorf("ingress %v", got)
	}
	if len(ep.Groups) != 1 || aws.ToString(ep.Groups[0].GroupId) != aws.ToString(sg.GroupId) {
		t.Errorf("endpoint groups %v, want our group only", ep.Groups)
	}
	target := strings.TrimSuffix(aws.ToString(ep.DnsEntries[0].DnsName), ".")
	wantRecords := map[string]string{"*.apps.demo.hypershift.local": target, "api.demo.hypershift.local": target}
	if got := trimValues(x.records()); !reflect.DeepEqual(got, wantRecords) {
		t.Errorf("records %v, want %v", got, wantRecords)
	}
	if cr.Status.EndpointID != aws.ToString(ep.VpcEndpointId) || cr.Status.SecurityGroupID != aws.ToString(sg.GroupId) ||
		cr.Status.DNSZoneID != x.zoneID || cr.Status.Region != "us-east-1" || cr.Status.InfraID != infraID || cr.Status.VPCID != x.vpc ||
		!reflect.DeepEqual(cr.Status.DNSNames, []string{"*.apps.demo.hypershift.local", "api.demo.hypershift.local"}) {
		t.Errorf("status %+v", cr.Status)
	}
	// ExternalName Services for the Route-published API server.
	svc := &corev1.Service{}
	if err := env.Client.Get(x.ctx, types.NamespacedName{Namespace: cr.Namespace, Name: hcplinkv1beta1.KubeAPIServerPrivateExternalService}, svc); err != nil {
		t.Fatalf("ExternalName Service: %v", err)
	}
	if svc.Spec.ExternalName != target || svc.Annotations[hcplinkv1beta1.ExternalDNSHostnameAnnotation] != "api.demo.example.com" {
		t.Errorf("ExternalName Service %s → %s annotated %v", svc.Name, svc.Spec.ExternalName, svc.Annotations)
	}

	// Steady state: nothing changed, nothing written — in the cloud or the CR.
	_, mutBefore, _ := x.calls()
	rvBefore := x.get().ResourceVersion
	for range 2 {
		x.reconcile()
	}
	_, mutAfter, byOp := x.calls()
	if mutAfter != mutBefore {
		t.Errorf("steady state made %d mutating calls: %v", mutAfter-mutBefore, byOp)
	}
	if rv := x.get().ResourceVersion; rv != rvBefore {
		t.Errorf("steady state wrote the CR (resourceVersion %s → %s)", rvBefore, rv)
	}
	if n := byOp["route53:ListHostedZonesByName"].Total; n != 1 {
		t.Errorf("zone looked up %d times, want once (kept in status)", n)
	}
}

func trimValues(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = strings.TrimSuffix(v, ".")
	}
	return out
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func TestSubnetsFollowSpecOnePerZone(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	// A second subnet in the first zone: only the smaller ID is used.
	names := zoneNames(t, x.cust)
	extra := x.subnet("10.1.9.0/24", names[x.zoneIDs[0]])
	x.patchCR(func(cr *hcplinkv1beta1.AWSEndpointService) {
		cr.Spec.SubnetIDs = append(x.subnetList(x.zoneIDs[:2]...), extra)
	})
	x.ready()
	first := min(extra, x.subnets[x.zoneIDs[0]])
	if got, want := sorted(x.endpoint().SubnetIds), sorted([]string{first, x.subnets[x.zoneIDs[1]]}); !reflect.DeepEqual(got, want) {
		t.Fatalf("subnets %v, want %v", got, want)
	}
	// Add the third zone, drop the second.
	x.patchCR(func(cr *hcplinkv1beta1.AWSEndpointService) {
		cr.Spec.SubnetIDs = sorted([]string{extra, x.subnets[x.zoneIDs[0]], x.subnets[x.zoneIDs[2]]})
	})
	x.reconcile()
	if got, want := sorted(x.endpoint().SubnetIds), sorted([]string{first, x.subnets[x.zoneIDs[2]]}); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the change subnets %v, want %v", got, want)
	}
	if n := x.f.Calls(customer)["ec2:ModifyVpcEndpoint"].Total; n != 1 {
		t.Errorf("ModifyVpcEndpoint calls %d, want 1", n)
	}
}

func TestRulesAndTagsFollow(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	// A customer's own tag and security group on the endpoint stay.
	ep := x.endpoint()
	must(x.cust.CreateTags(x.ctx, &ec2.CreateTagsInput{Resources: []string{aws.ToString(ep.VpcEndpointId)}, Tags: awscloud.EC2Tags(map[string]string{"customer": "mine"})}))(t)
	theirs := aws.ToString(must(x.cust.CreateSecurityGroup(x.ctx, &ec2.CreateSecurityGroupInput{VpcId: aws.String(x.vpc), GroupName: aws.String("theirs"), Description: aws.String("x")}))(t).GroupId)
	must(x.cust.ModifyVpcEndpoint(x.ctx, &ec2.ModifyVpcEndpointInput{VpcEndpointId: ep.VpcEndpointId, AddSecurityGroupIds: []string{theirs}}))(t)

	x.patchHCP(func(hcp *hcplinkv1beta1.HostedControlPlane) {
		hcp.Spec.Networking.MachineNetwork = []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.2.0.0/16"}, {CIDR: "10.3.0.0/16"}}
	})
	x.patchCR(func(cr *hcplinkv1beta1.AWSEndpointService) {
		cr.Spec.ResourceTags = []hcplinkv1beta1.AWSResourceTag{{Key: "env", Value: "prod"}}
	})
	x.reconcile()
	x.requireCondition(metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason)

	sg := x.securityGroups()[0]
	if got := awscloud.ActualIngress(sg.IpPermissions); !reflect.DeepEqual(sortRules(got), []IngressRule{{Protocol: "tcp", From: 443, To: 443, CIDR: "10.2.0.0/16"}, {Protocol: "tcp", From: 443, To: 443, CIDR: "10.3.0.0/16"}}) {
		t.Errorf("rules %v, want the new CIDRs only", got)
	}
	for what, tags := range map[string]map[string]string{"security group": awscloud.TagMap(sg.Tags), "endpoint": awscloud.TagMap(x.endpoint().Tags)} {
		if tags["env"] != "prod" || tags["team"] != "" || tags[hcplinkv1beta1.EndpointServiceTagKey] != x.cr.Name {
			t.Errorf("%s tags %v: want env=prod, team removed, ownership kept", what, tags)
		}
	}
	ep = x.endpoint()
	if awscloud.TagMap(ep.Tags)["customer"] != "mine" {
		t.Error("the customer's tag was removed")
	}
	var groups []string
	for _, g := range ep.Groups {
		groups = append(groups, aws.ToString(g.GroupId))
	}
	if !slices.Contains(groups, theirs) {
		t.Errorf("the customer's security group was removed: %v", groups)
	}
}

func sortRules(r []IngressRule) []IngressRule {
	sort.Slice(r, func(i, j int) bool { return r[i].CIDR < r[j].CIDR })
	return r
}

func TestRestartBetweenCreateAndStatusAdopts(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.reconcile()
	first := x.endpoint()
	// Status lost (a restart before the status write): clear it.
	cr := x.get()
	cr.Status.EndpointID = ""
	if err := env.Client.Status().Update(x.ctx, cr); err != nil {
		t.Fatal(err)
	}
	x.reconcileWith(x.newReconciler())
	if eps := x.endpoints(); len(eps) != 1 || aws.ToString(eps[0].VpcEndpointId) != aws.ToString(first.VpcEndpointId) {
		t.Fatalf("endpoints after the restart: %d, want the one first created", len(eps))
	}
	if n := x.f.Calls(customer)["ec2:CreateVpcEndpoint"].Total; n != 1 {
		t.Errorf("CreateVpcEndpoint calls %d, want 1", n)
	}
	if got := x.get().Status.EndpointID; got != aws.ToString(first.VpcEndpointId) {
		t.Errorf("status.endpointID %q, want the adopted %s", got, aws.ToString(first.VpcEndpointId))
	}
}

func TestDriftRepaired(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	// A record deleted behind our back is restored at the next drift check.
	recs := x.records()
	must(x.r53.ChangeResourceRecordSets(x.ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(x.zoneID), ChangeBatch: &r53types.ChangeBatch{
		Changes: []r53types.Change{{Action: r53types.ChangeActionDelete, ResourceRecordSet: &r53types.ResourceRecordSet{Name: aws.String("api.demo.hypershift.local."),
			Type: r53types.RRTypeCname, TTL: aws.Int64(recordTTL), ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(recs["api.demo.hypershift.local"])}}}}}}}))(t)
	x.reconcile()
	if got := x.records(); got["api.demo.hypershift.local"] == "" {
		t.Fatalf("record not restored: %v", got)
	}

	// The endpoint deleted behind our back is recreated (a new one).
	old := aws.ToString(x.endpoint().VpcEndpointId)
	must(x.cust.DeleteVpcEndpoints(x.ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{old}}))(t)
	x.clk.Advance(max(endpointDeleting, endpointVisibilityGrace) + time.Second) // deleted, and past the grace in which EC2 may not show a new endpoint
	x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.EndpointPendingReason)
	ep := x.endpoint()
	if aws.ToString(ep.VpcEndpointId) == old {
		t.Fatal("the deleted endpoint came back instead of a new one")
	}
	x.clk.Advance(endpointPending + time.Second)
	x.reconcile()
	x.requireCondition(metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason)
	target := strings.TrimSuffix(aws.ToString(ep.DnsEntries[0].DnsName), ".")
	if got := trimValues(x.records()); got["api.demo.hypershift.local"] != target || got["*.apps.demo.hypershift.local"] != target {
		t.Errorf("records %v do not follow the new endpoint %s", got, target)
	}
	if x.get().Annotations[TokenGenerationAnnotation] != "1" {
		t.Errorf("token generation %q, want 1", x.get().Annotations[TokenGenerationAnnotation])
	}
}

func TestZoneMissing(t *testing.T) {
	x := newFixture(t, cloudOpts{noZone: true})
	x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.DNSZoneNotFoundReason, "demo.hypershift.local", x.vpc)
}

// TestZoneMismatch: a service whose load balancer serves two of the three
// zones (and does not balance across zones) gets an endpoint in those two;
// the condition is True and names the zone it does not reach; the refused
// subnet is not retried at every pass.
func TestZoneMismatch(t *testing.T) {
	x := newFixture(t, cloudOpts{nlbZoneCount: 2})
	x.ready()
	unserved := x.subnets[x.zoneIDs[2]]
	x.requireCondition(metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason, unserved+" ("+x.zoneIDs[2]+")", "does not reach", x.zoneIDs[0], x.zoneIDs[1])
	if got, want := sorted(x.endpoint().SubnetIds), x.subnetList(x.zoneIDs[:2]...); !reflect.DeepEqual(got, want) {
		t.Errorf("endpoint subnets %v, want the served zones' %v", got, want)
	}
	_, mutBefore, _ := x.calls()
	for range 2 {
		x.reconcile()
	}
	if _, mutAfter, byOp := x.calls(); mutAfter != mutBefore {
		t.Errorf("steady state retried the refused subnet: %d mutating calls: %v", mutAfter-mutBefore, byOp)
	}

	// With cross-zone load balancing the same subnets are accepted.
	y := newFixture(t, cloudOpts{nlbZoneCount: 2, crossZone: true})
	y.ready()
	if n := len(y.endpoint().SubnetIds); n != 3 {
		t.Errorf("cross-zone: %d subnets, want 3", n)
	}
}

// TestZoneMismatchNoZoneServed: when the service serves none of the
// cluster's zones there is no endpoint and the condition says so.
func TestZoneMismatchNoZoneServed(t *testing.T) {
	x := newFixture(t, cloudOpts{nlbZoneCount: 2})
	x.patchCR(func(cr *hcplinkv1beta1.AWSEndpointService) { cr.Spec.SubnetIDs = x.subnetList(x.zoneIDs[2]) })
	res := x.reconcile()
	unserved := x.subnets[x.zoneIDs[2]]
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.ZoneMismatchReason, x.zoneIDs[0], x.zoneIDs[1], unserved+" ("+x.zoneIDs[2]+")", "Next check at")
	if p := outcome.DefaultPolicy.Person; res.RequeueAfter < p.Base || res.RequeueAfter > p.Base+p.Spread {
		t.Errorf("zone mismatch first recheck %v, want the first step of waiting on a person", res.RequeueAfter)
	}
	if n := len(x.endpoints()); n != 0 {
		t.Errorf("%d endpoints", n)
	}
}

func TestThrottlingConverges(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.f.Server.Faults.Set(sim.FaultConfig{Seed: 7, Errors: []sim.ErrorRule{{Account: customer, Code: "RequestLimitExceeded", HTTPStatus: 503, Rate: 0.3, For: sim.Duration(30 * time.Minute)}}})
	passes := 0
	for ; passes < 60; passes++ {
		res := x.reconcile()
		c := x.condition()
		if c.Status == metav1.ConditionTrue {
			break
		}
		if p := outcome.DefaultPolicy.Throttled; c.Reason == hcplinkv1beta1.ThrottledReason && (res.RequeueAfter < p.Base || res.RequeueAfter > p.Cap*11/10) {
			t.Errorf("throttled requeue %v, want within [%v, %v]", res.RequeueAfter, p.Base, p.Cap)
		}
		x.clk.Advance(res.RequeueAfter)
	}
	if passes == 60 {
		t.Fatalf("did not converge under 30%% throttling: %+v", x.condition())
	}
	total, _, byOp := x.calls()
	x.f.Server.Faults.Set(sim.FaultConfig{}) // the checks below are the test's own calls
	if n := len(x.endpoints()); n != 1 {
		t.Errorf("%d endpoints, want 1", n)
	}
	var throttled int64
	for _, c := range byOp {
		throttled += c.Throttled + c.Failed
	}
	if throttled == 0 {
		t.Error("no call was throttled: the fault rule did not apply")
	}
	if total > int64(passes+1)*25 {
		t.Errorf("%d calls in %d passes: %v", total, passes+1, byOp)
	}
}

func TestDeletionOrder(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	if err := env.Client.Delete(x.ctx, x.get()); err != nil {
		t.Fatal(err)
	}
	// Also the HCP is gone: cleanup works from status alone.
	if err := env.Client.Delete(x.ctx, x.hcp); err != nil {
		t.Fatal(err)
	}
	res := x.reconcile()
	if got := x.records(); len(got) != 0 {
		t.Errorf("records left after the first deletion pass: %v", got)
	}
	if eps := x.endpoints(); len(eps) != 1 || !stateIs(eps[0].State, "deleting") {
		t.Fatalf("endpoint not deleting: %v", eps)
	}
	if len(x.securityGroups()) != 1 {
		t.Fatal("the security group went before its endpoint")
	}
	if !controllerutil.ContainsFinalizer(x.get(), hcplinkv1beta1.ControlPlaneFinalizer) {
		t.Fatal("finalizer dropped while the endpoint is deleting")
	}
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.DeletingReason)
	if res.RequeueAfter <= 0 {
		t.Error("no requeue while waiting for the endpoint")
	}
	x.clk.Advance(endpointDeleting + time.Second)
	x.reconcile()
	if eps := x.endpoints(); len(eps) != 0 {
		t.Fatalf("endpoints left: %v", eps)
	}
	if sgs := x.securityGroups(); len(sgs) != 0 {
		t.Fatalf("security groups left: %v", sgs)
	}
	cr := &hcplinkv1beta1.AWSEndpointService{}
	if err := env.Client.Get(x.ctx, types.NamespacedName{Namespace: x.cr.Namespace, Name: x.cr.Name}, cr); err == nil && controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) {
		t.Fatal("finalizer still there after cleanup")
	}
}

func TestSecurityGroupDeleteWaitsForEndpoint(t *testing.T) {
	// DeleteSecurityGroup answers DependencyViolation while the endpoint
	// holds the group: the controller never calls it before the endpoint is
	// gone.
	x := newFixture(t, cloudOpts{})
	x.ready()
	if err := env.Client.Delete(x.ctx, x.get()); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		x.reconcile()
		x.clk.Advance(5 * time.Second)
	}
	if n := x.f.Calls(customer)["ec2:DeleteSecurityGroup"].Total; n != 0 {
		t.Errorf("DeleteSecurityGroup called %d times while the endpoint was deleting", n)
	}
	if n := x.f.Calls(customer)["ec2:DeleteVpcEndpoints"].Total; n != 1 {
		t.Errorf("DeleteVpcEndpoints called %d times, want 1", n)
	}
}

func TestErrorMessagesSanitised(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Account: customer, Operation: "CreateVpcEndpoint", Code: "UnauthorizedOperation", HTTPStatus: 403,
		Message: "You are not authorized to perform this operation. Request ID: 4f0c1c4e-2b7a-4d53-9d2e-6c0b8b1f9a11", Rate: 1}}})
	res := x.reconcile()
	c := x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.AccessDeniedReason, "CreateVpcEndpoint", "UnauthorizedOperation")
	if len(c.Message) > 2*awscloud.MaxMessageLength {
		t.Errorf("message too long: %d", len(c.Message))
	}
	// A person must act: the first recheck is soon, the next ones grow,
	// and the message says when.
	p := outcome.DefaultPolicy.Person
	if res.RequeueAfter < p.Base || res.RequeueAfter > p.Base+p.Spread {
		t.Errorf("first recheck %v, want within [%v, %v]", res.RequeueAfter, p.Base, p.Base+p.Spread)
	}
	if !strings.Contains(c.Message, "Next check at") {
		t.Errorf("message %q does not say when the next check is", c.Message)
	}
	if again := x.reconcile(); again.RequeueAfter < res.RequeueAfter*3/2 {
		t.Errorf("second recheck %v did not grow from %v", again.RequeueAfter, res.RequeueAfter)
	}
}

func TestStaleRecordsAndExternalNamesRemoved(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.ready()
	// The API server moves to its own load balancer and the cluster becomes
	// PublicAndPrivate: the api record and the ExternalName Service go.
	x.patchHCP(func(hcp *hcplinkv1beta1.HostedControlPlane) {
		hcp.Spec.Services[0].ServicePublishingStrategy = hcplinkv1beta1.ServicePublishingStrategy{Type: hcplinkv1beta1.LoadBalancerPublishing}
		hcp.Spec.Platform.AWS.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate
	})
	x.reconcile()
	x.requireCondition(metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason)
	if got := x.records(); len(got) != 1 || got["*.apps.demo.hypershift.local"] == "" {
		t.Errorf("records %v, want *.apps only", got)
	}
	if got := x.get().Status.DNSNames; !reflect.DeepEqual(got, []string{"*.apps.demo.hypershift.local"}) {
		t.Errorf("status.dnsNames %v", got)
	}
	svc := &corev1.Service{}
	if err := env.Client.Get(x.ctx, types.NamespacedName{Namespace: x.cr.Namespace, Name: hcplinkv1beta1.KubeAPIServerPrivateExternalService}, svc); err == nil && svc.DeletionTimestamp.IsZero() {
		t.Error("ExternalName Service kept on a public cluster")
	}
}

func TestWaitsForEndpointServiceName(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	cr := x.get()
	cr.Status.EndpointServiceName = ""
	if err := env.Client.Status().Update(x.ctx, cr); err != nil {
		t.Fatal(err)
	}
	_, before, _ := x.calls()
	x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.WaitingForEndpointServiceReason)
	if _, mutating, byOp := x.calls(); mutating != before {
		t.Errorf("mutating calls before the service name: %v", byOp)
	}
	if got := x.get().Status; got.Region != "us-east-1" || got.InfraID != infraID || got.VPCID != x.vpc {
		t.Errorf("cleanup data not kept early: %+v", got)
	}
}

func TestPendingAcceptance(t *testing.T) {
	x := newFixture(t, cloudOpts{acceptanceRequired: true})
	x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.EndpointPendingAcceptanceReason)
}
