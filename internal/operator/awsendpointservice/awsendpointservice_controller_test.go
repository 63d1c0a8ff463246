package awsendpointservice

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/outcome"
)

func TestHappyPath(t *testing.T) {
	w := newWorld(t)
	lb := w.activeNLB("k8s-happy-private")
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-happy-private")
	r := w.reconciler()
	w.settle(r, cr)

	if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.OperatorFinalizer) {
		t.Errorf("finalizers = %v, want %s", cr.Finalizers, hcplinkv1beta1.OperatorFinalizer)
	}
	if cr.Status.EndpointServiceName == "" {
		t.Fatal("status.endpointServiceName not set")
	}
	svc := w.service(cr.Status.EndpointServiceName)
	if !slices.Equal(svc.NetworkLoadBalancerArns, []string{aws.ToString(lb.LoadBalancerArn)}) {
		t.Errorf("NLBs = %v, want %s", svc.NetworkLoadBalancerArns, aws.ToString(lb.LoadBalancerArn))
	}
	if aws.ToBool(svc.AcceptanceRequired) {
		t.Error("AcceptanceRequired = true, want false")
	}
	tags := awscloud.TagMap(svc.Tags)
	want := map[string]string{"team": "platform", hcplinkv1beta1.ClusterTagKey(c.hc.Spec.InfraID): "owned", hcplinkv1beta1.EndpointServiceTagKey: "private-router"}
	for k, v := range want {
		if tags[k] != v {
			t.Errorf("tag %s = %q, want %q (tags %v)", k, tags[k], v, tags)
		}
	}
	if got := w.principals(svc); !slices.Equal(got, []string{cpoPrincipal}) {
		t.Errorf("allowed principals = %v, want [%s] (IAM path removed)", got, cpoPrincipal)
	}
	cond := condition(t, cr)
	if cond.Reason != hcplinkv1beta1.AWSSuccessReason || cond.ObservedGeneration != cr.Generation {
		t.Errorf("condition = %+v", cond)
	}
	if res := w.reconcile(r, cr); res.RequeueAfter < testDrift*80/100 || res.RequeueAfter > testDrift*120/100 {
		t.Errorf("steady-state requeue = %v, want the drift interval ±20%%", res.RequeueAfter)
	}
}

func TestLoadBalancerNotActiveOrMissing(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-slow-private")
	r := w.reconciler()

	res := w.reconcile(r, cr)
	if cond := condition(t, cr); cond.Reason != hcplinkv1beta1.LoadBalancerNotFoundReason || cond.Status != metav1.ConditionFalse {
		t.Errorf("no NLB: condition = %+v", cond)
	}
	if res.RequeueAfter <= 0 {
		t.Error("no NLB: no requeue")
	}
	w.nlb("k8s-slow-private")
	res = w.reconcile(r, cr)
	if cond := condition(t, cr); cond.Reason != hcplinkv1beta1.LoadBalancerNotActiveReason {
		t.Errorf("provisioning NLB: condition = %+v", cond)
	}
	if res.RequeueAfter <= 0 || res.RequeueAfter > time.Minute {
		t.Errorf("provisioning NLB: requeue = %v, want a short one", res.RequeueAfter)
	}
	if n := w.calls(createSvc).Total; n != 0 {
		t.Errorf("CreateVpcEndpointServiceConfiguration calls = %d before the NLB is active", n)
	}
	w.clk.Advance(testDelays.LoadBalancerProvisioning.D())
	w.settle(r, cr)
}

func TestSubnetsFromNodePools(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-subnets-private")
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-subnets-private")
	r := w.reconciler()
	a, b := "subnet-0000000000000000b", "subnet-0000000000000000a"
	c.nodePool(t, "np1", a)
	np2 := c.nodePool(t, "np2", b)
	c.nodePool(t, "np3", a)  // duplicate
	c.nodePool(t, "np4", "") // no subnet
	w.settle(r, cr)
	if want := []string{b, a}; !slices.Equal(cr.Spec.SubnetIDs, want) {
		t.Errorf("subnetIDs = %v, want %v", cr.Spec.SubnetIDs, want)
	}

	if err := env.Client.Delete(t.Context(), np2); err != nil {
		t.Fatal(err)
	}
	w.reconcile(r, cr)
	get(t, cr)
	if want := []string{a}; !slices.Equal(cr.Spec.SubnetIDs, want) {
		t.Errorf("after removing a NodePool: subnetIDs = %v, want %v", cr.Spec.SubnetIDs, want)
	}

	for i := range 11 {
		c.nodePool(t, fmt.Sprintf("many%d", i), fmt.Sprintf("subnet-%08x", i+16))
	}
	w.reconcile(r, cr)
	get(t, cr)
	gen := cr.Generation
	for range 3 {
		w.reconcile(r, cr)
	}
	cond := condition(t, cr)
	if cond.Reason != hcplinkv1beta1.TooManySubnetsReason || cond.Status != metav1.ConditionFalse {
		t.Errorf("12 subnets: condition = %+v", cond)
	}
	if len(cr.Spec.SubnetIDs) != maxSubnets {
		t.Errorf("12 subnets: %d written, want %d", len(cr.Spec.SubnetIDs), maxSubnets)
	}
	if cr.Generation != gen {
		t.Errorf("spec rewritten on every pass: generation %d → %d", gen, cr.Generation)
	}
}

func TestPrincipalsAndTagsFollowTheCluster(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-follow-private")
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-follow-private")
	r := w.reconciler()
	w.settle(r, cr)
	svc := w.service(cr.Status.EndpointServiceName)
	// A customer's own tag, which hcplink must leave alone.
	if _, err := w.ec2.CreateTags(w.ctx, &ec2.CreateTagsInput{Resources: []string{aws.ToString(svc.ServiceId)},
		Tags: []ec2types.Tag{{Key: aws.String("cost-center"), Value: aws.String("42")}}}); err != nil {
		t.Fatal(err)
	}

	extra := "arn:aws:iam::333333333333:role/extra"
	update(t, c.hc, func() {
		c.hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = []string{extra}
		c.hc.Spec.Platform.AWS.ResourceTags = []hcplinkv1beta1.AWSResourceTag{{Key: "env", Value: "prod"}}
	})
	w.settle(r, cr)
	if got, want := w.principals(svc), sortedCopy([]string{cpoPrincipal, extra}); !slices.Equal(got, want) {
		t.Errorf("principals = %v, want %v", got, want)
	}
	tags := awscloud.TagMap(w.service(cr.Status.EndpointServiceName).Tags)
	if tags["env"] != "prod" || tags["cost-center"] != "42" {
		t.Errorf("tags = %v, want env=prod and the customer's cost-center=42", tags)
	}
	if _, ok := tags["team"]; ok {
		t.Errorf("tags = %v: removed resource tag team is still there", tags)
	}

	update(t, c.hc, func() { c.hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = nil })
	w.settle(r, cr)
	if got := w.principals(svc); !slices.Equal(got, []string{cpoPrincipal}) {
		t.Errorf("after removal: principals = %v, want [%s]", got, cpoPrincipal)
	}
}

func TestRestartBetweenCreateAndStatusAdopts(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-restart-private")
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-restart-private")
	w.reconcile(w.reconciler(), cr)
	get(t, cr)
	if cr.Status.EndpointServiceName == "" {
		t.Fatal("no service name after the first pass")
	}
	// Lose the status, as if the write had not happened before a crash.
	if err := env.Client.Status().Patch(t.Context(), cr, client.RawPatch(types.MergePatchType, []byte(`{"status":{"endpointServiceName":null}}`))); err != nil {
		t.Fatal(err)
	}
	w.settle(w.reconciler(), cr)
	if n := len(w.services()); n != 1 {
		t.Errorf("%d endpoint services, want 1", n)
	}
	if n := w.calls(createSvc).Total; n != 1 {
		t.Errorf("CreateVpcEndpointServiceConfiguration calls = %d, want 1 (adopted by tags)", n)
	}
}

func TestServiceDeletedBehindOurBackIsRecreated(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-gone-private")
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-gone-private")
	r := w.reconciler()
	w.settle(r, cr)
	old := cr.Status.EndpointServiceName
	if err := awscloud.DeleteEndpointService(w.ctx, w.ec2, aws.ToString(w.service(old).ServiceId)); err != nil {
		t.Fatal(err)
	}
	// The next drift check notices.
	w.clk.Advance(testDrift + time.Minute)
	w.settle(r, cr)
	if cr.Status.EndpointServiceName == old || cr.Status.EndpointServiceName == "" {
		t.Errorf("service name = %q, want a new one (old %q)", cr.Status.EndpointServiceName, old)
	}
	if n := len(w.services()); n != 1 {
		t.Errorf("%d endpoint services, want 1", n)
	}
	if cr.Annotations[GenerationAnnotation] != "1" {
		t.Errorf("generation annotation = %q, want 1", cr.Annotations[GenerationAnnotation])
	}
}

func TestSteadyStateIsQuietAndBatched(t *testing.T) {
	w := newWorld(t)
	r := w.managementCluster(env.Client, "mc-quiet")
	var crs []*hcplinkv1beta1.AWSEndpointService
	const n = 4
	for i := range n {
		name := fmt.Sprintf("k8s-quiet%d-private", i)
		w.nlb(name)
		crs = append(crs, w.cluster().endpointService(t, "private-router", name))
	}
	w.clk.Advance(testDelays.LoadBalancerProvisioning.D() + time.Second)
	for _, cr := range crs {
		w.settle(r, cr)
	}
	// A service it just created has no principals: the operator trusts
	// the create and does not read them.
	if d := w.calls(describePerms).Total; d != 0 {
		t.Errorf("DescribeVpcEndpointServicePermissions calls while creating %d services = %d, want 0", n, d)
	}

	before := w.f.Calls(mgmt)
	mutBefore := w.mutating()
	for range 2 {
		for _, cr := range crs {
			w.reconcile(r, cr)
		}
	}
	if m := w.mutating() - mutBefore; m != 0 {
		t.Errorf("%d mutating calls at steady state, want 0", m)
	}
	after := w.f.Calls(mgmt)
	for k, c := range after {
		if c.Total != before[k].Total {
			t.Errorf("%s: %d calls within the drift interval, want 0", k, c.Total-before[k].Total)
		}
	}

	// A drift check: one listing for all n objects.
	w.clk.Advance(testDrift + time.Minute)
	before = w.f.Calls(mgmt)
	for _, cr := range crs {
		w.reconcile(r, cr)
	}
	after = w.f.Calls(mgmt)
	if d := after[describeSvcs].Total - before[describeSvcs].Total; d != 1 {
		t.Errorf("DescribeVpcEndpointServiceConfigurations calls for %d objects = %d, want 1", n, d)
	}
	if d := after[describeLBs].Total - before[describeLBs].Total; d != 1 {
		t.Errorf("DescribeLoadBalancers calls for %d objects = %d, want 1", n, d)
	}
	if d := after[describePerms].Total - before[describePerms].Total; d != n {
		t.Errorf("DescribeVpcEndpointServicePermissions calls = %d, want %d (one per service per drift check)", d, n)
	}
	if m := w.mutating() - mutBefore; m != 0 {
		t.Errorf("%d mutating calls on a drift check with nothing changed, want 0", m)
	}
}

func TestThrottledBacksOff(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-throttle-private")
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-throttle-private")
	r := w.reconciler()
	w.f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "ec2", Operation: "DescribeVpcEndpointServiceConfigurations",
		Code: awscloud.CodeRequestLimitExceeded, Message: "Request limit exceeded.", HTTPStatus: 503, Rate: 1}}})
	res := w.reconcile(r, cr)
	cond := condition(t, cr)
	if cond.Reason != hcplinkv1beta1.ThrottledReason || cond.Status != metav1.ConditionFalse {
		t.Errorf("condition = %+v, want Throttled", cond)
	}
	if min := outcome.DefaultPolicy.Throttled.Base; res.RequeueAfter < min {
		t.Errorf("requeue = %v, want at least %v", res.RequeueAfter, min)
	}
	if len(cond.Message) > outcome.MaxMessageLength {
		t.Errorf("message too long: %d", len(cond.Message))
	}
	// Repeated passes right away (other objects, events) share the
	// remembered failure: no hot loop on the API.
	calls := w.calls(describeSvcs).Total
	for range 5 {
		w.reconcile(r, cr)
	}
	if d := w.calls(describeSvcs).Total - calls; d != 0 {
		t.Errorf("%d more describes within the error TTL, want 0", d)
	}
	w.f.Server.Faults.Set(sim.FaultConfig{})
	w.clk.Advance(time.Minute)
	w.settle(r, cr)
}

func TestDeletionRejectsForeignEndpointAndDeletesService(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-delete-private")
	c := w.cluster(func(hc *hcplinkv1beta1.HostedCluster) {
		hc.Spec.Platform.AWS.AdditionalAllowedPrincipals = []string{customerRoot}
	})
	cr := c.endpointService(t, "private-router", "k8s-delete-private")
	r := w.reconciler()
	w.settle(r, cr)

	// The customer connects an endpoint from its own account.
	cust := ec2.NewFromConfig(w.f.Config(t, customer))
	zones, err := cust.DescribeAvailabilityZones(w.ctx, &ec2.DescribeAvailabilityZonesInput{})
	if err != nil {
		t.Fatal(err)
	}
	var zoneName string
	for _, z := range zones.AvailabilityZones {
		if aws.ToString(z.ZoneId) == w.zoneIDs[0] {
			zoneName = aws.ToString(z.ZoneName)
		}
	}
	vpc, err := cust.CreateVpc(w.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.1.0.0/16")})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := cust.CreateSubnet(w.ctx, &ec2.CreateSubnetInput{VpcId: vpc.Vpc.VpcId, CidrBlock: aws.String("10.1.0.0/24"), AvailabilityZone: aws.String(zoneName)})
	if err != nil {
		t.Fatal(err)
	}
	ep, err := cust.CreateVpcEndpoint(w.ctx, &ec2.CreateVpcEndpointInput{VpcEndpointType: ec2types.VpcEndpointTypeInterface,
		VpcId: vpc.Vpc.VpcId, ServiceName: aws.String(cr.Status.EndpointServiceName), SubnetIds: []string{aws.ToString(sub.Subnet.SubnetId)}})
	if err != nil {
		t.Fatalf("CreateVpcEndpoint from the customer account: %v", err)
	}
	w.clk.Advance(testDelays.EndpointPending.D() + time.Second)

	// The CPO's finalizer holds deletion.
	update(t, cr, func() { controllerutil.AddFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) })
	if err := env.Client.Delete(t.Context(), cr); err != nil {
		t.Fatal(err)
	}
	deletes := w.calls("ec2:DeleteVpcEndpointServiceConfigurations").Total
	res := w.reconcile(r, cr)
	if cond := condition(t, cr); cond.Reason != hcplinkv1beta1.WaitingForControlPlaneCleanupReason {
		t.Errorf("while the CPO cleans up: condition = %+v", cond)
	}
	if res.RequeueAfter <= 0 {
		t.Error("no requeue while waiting for the CPO")
	}
	if d := w.calls("ec2:DeleteVpcEndpointServiceConfigurations").Total - deletes; d != 0 {
		t.Errorf("%d service deletes while the CPO's finalizer is present", d)
	}

	// The CPO is done (its endpoint stays connected, as a foreign one would).
	update(t, cr, func() { controllerutil.RemoveFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) })
	for range 5 {
		w.reconcile(r, cr)
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); err != nil {
			break
		}
		w.clk.Advance(time.Minute)
	}
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); err == nil {
		t.Fatalf("AWSEndpointService still exists with finalizers %v, conditions %+v", cr.Finalizers, cr.Status.Conditions)
	}
	if n := len(w.services()); n != 0 {
		t.Errorf("%d endpoint services left, want 0", n)
	}
	eps, err := cust.DescribeVpcEndpoints(w.ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{aws.ToString(ep.VpcEndpoint.VpcEndpointId)}})
	if err == nil && len(eps.VpcEndpoints) == 1 && !strings.EqualFold(string(eps.VpcEndpoints[0].State), "rejected") {
		t.Errorf("customer endpoint state = %s, want rejected", eps.VpcEndpoints[0].State)
	}
}

func TestPublicClusterIsNotServed(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-public-private")
	c := w.cluster(func(hc *hcplinkv1beta1.HostedCluster) {
		hc.Spec.Platform.AWS.EndpointAccess = hcplinkv1beta1.AWSEndpointAccessPublic
	})
	cr := c.endpointService(t, "private-router", "k8s-public-private")
	w.reconcile(w.reconciler(), cr)
	get(t, cr)
	if len(cr.Finalizers) != 0 || len(cr.Status.Conditions) != 0 || len(w.services()) != 0 {
		t.Errorf("public cluster served: finalizers %v, conditions %v, services %d", cr.Finalizers, cr.Status.Conditions, len(w.services()))
	}
}

func TestClusterAnnotationWrittenWhenMissing(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-annot-private")
	c := w.cluster()
	cr := &hcplinkv1beta1.AWSEndpointService{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.hcpNS, Name: "private-router"},
		Spec:       hcplinkv1beta1.AWSEndpointServiceSpec{NetworkLoadBalancerName: "k8s-annot-private"},
	}
	create(t, cr)
	w.settle(w.reconciler(), cr)
	if got, want := cr.Annotations[hcplinkv1beta1.ClusterAnnotation], hcplinkv1beta1.ClusterAnnotationValue(c.hc.Namespace, c.hc.Name); got != want {
		t.Errorf("cluster annotation = %q, want %q", got, want)
	}
}

var _ = cloudsimtest.Region
