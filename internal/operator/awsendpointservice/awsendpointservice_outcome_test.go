package awsendpointservice

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/outcome"
)

// passes reconciles n times, each after the delay the previous pass asked
// for (as the work queue would), and returns the delays.
func (w *world) passes(r *Reconciler, cr *hcplinkv1beta1.AWSEndpointService, n int) []time.Duration {
	w.t.Helper()
	var out []time.Duration
	for range n {
		res := w.reconcile(r, cr)
		out = append(out, res.RequeueAfter)
		w.clk.Advance(res.RequeueAfter)
	}
	return out
}

// grew checks that delays grew from within first to near cap, never past
// it (with the tracker's ±10 % jitter).
func grew(t *testing.T, what string, delays []time.Duration, first outcome.Step, cap time.Duration) {
	t.Helper()
	if d := delays[0]; d < first.Base || d > first.Base+first.Spread {
		t.Errorf("%s: first delay %v, want in [%v, %v]", what, d, first.Base, first.Base+first.Spread)
	}
	for i, d := range delays {
		if d > cap*11/10 {
			t.Errorf("%s: delay %d is %v, beyond the cap %v", what, i, d, cap)
		}
	}
	if last := delays[len(delays)-1]; last < cap*9/10 {
		t.Errorf("%s: delays %v never reach the cap %v", what, delays, cap)
	}
}

func TestRepeatedThrottlingBacksOffAndResetsOnSuccess(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-grow-private")
	cr := w.cluster().endpointService(t, "private-router", "k8s-grow-private")
	r := w.reconciler()
	throttle := sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "ec2", Operation: "DescribeVpcEndpointServiceConfigurations",
		Code: awscloud.CodeRequestLimitExceeded, Message: "Request limit exceeded.", HTTPStatus: 503, Rate: 1}}}
	w.f.Server.Faults.Set(throttle)
	p := outcome.DefaultPolicy.Throttled
	grew(t, "throttled", w.passes(r, cr, 7), p, p.Cap)
	if c := condition(t, cr); c.Reason != hcplinkv1beta1.ThrottledReason || !strings.Contains(c.Message, "Next check at") {
		t.Errorf("condition = %+v, want Throttled saying when the next check is", c)
	}

	w.f.Server.Faults.Set(sim.FaultConfig{})
	w.settle(r, cr)
	// Throttled again at the next drift check: the delays start over.
	w.f.Server.Faults.Set(throttle)
	w.clk.Advance(testDrift * 2)
	if d := w.reconcile(r, cr).RequeueAfter; d > p.Base+p.Spread {
		t.Errorf("after a success, the first throttled delay is %v, want at most %v", d, p.Base+p.Spread)
	}
}

// TestMissingLoadBalancerIsNotPolledEvery15s: a load balancer that does not
// exist is looked for again after delays growing to 10 minutes, so an hour
// of waiting costs a dozen describes, not 240.
func TestMissingLoadBalancerIsNotPolledEvery15s(t *testing.T) {
	w := newWorld(t)
	cr := w.cluster().endpointService(t, "private-router", "k8s-never-private")
	r := w.reconciler()
	start := w.clk.Now()
	var delays []time.Duration
	for w.clk.Now().Sub(start) < time.Hour {
		delays = append(delays, w.passes(r, cr, 1)...)
	}
	p := outcome.DefaultPolicy.Person
	grew(t, "missing load balancer", delays, p, p.Cap)
	if n := len(delays); n > 15 {
		t.Errorf("%d passes in an hour for a missing load balancer, want at most 15", n)
	}
	// A targeted describe per pass, plus the batched listing once per
	// drift interval (the cache's lifetime).
	if n, most := w.calls(describeLBs).Total, int64(len(delays))+int64(time.Hour/testDrift)+1; n > most {
		t.Errorf("%d DescribeLoadBalancers calls in %d passes, want at most %d", n, len(delays), most)
	}
	if c := condition(t, cr); c.Reason != hcplinkv1beta1.LoadBalancerNotFoundReason || !strings.Contains(c.Message, "Next check at") {
		t.Errorf("condition = %+v", c)
	}
	// The load balancer appears: the spec's name change (or the next look)
	// finds it, and the delays are forgotten.
	w.activeNLB("k8s-never-private")
	w.settle(r, cr)
}

// TestRefusedPermissionBacksOffWithASanitisedMessage: a permission the
// operator lacks is rechecked soon, then rarely; the condition says what
// failed without request IDs or HTTP wording.
func TestRefusedPermissionBacksOffWithASanitisedMessage(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-denied-private")
	cr := w.cluster().endpointService(t, "private-router", "k8s-denied-private")
	r := w.reconciler()
	w.f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "ec2", Operation: "CreateVpcEndpointServiceConfiguration",
		Code: awscloud.CodeUnauthorizedOperation, HTTPStatus: 403, Rate: 1,
		Message: "You are not authorized to perform this operation. RequestID: 0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e"}}})
	p := outcome.DefaultPolicy.Person
	grew(t, "access denied", w.passes(r, cr, 8), p, p.Cap)
	c := condition(t, cr)
	if c.Reason != hcplinkv1beta1.AccessDeniedReason || !strings.Contains(c.Message, awscloud.CodeUnauthorizedOperation) {
		t.Errorf("condition = %+v", c)
	}
	for _, bad := range []string{"0b1c2d3e", "RequestID", "StatusCode", "https response error"} {
		if strings.Contains(c.Message, bad) {
			t.Errorf("message contains %q: %s", bad, c.Message)
		}
	}
	w.f.Server.Faults.Set(sim.FaultConfig{})
	w.settle(r, cr)
}

// TestDeletionHeldByConnectionsBacksOff: a deletion AWS keeps refusing for
// connected endpoints is retried after growing delays, then completes.
func TestDeletionHeldByConnectionsBacksOff(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-held-private")
	cr := w.cluster().endpointService(t, "private-router", "k8s-held-private")
	r := w.reconciler()
	w.settle(r, cr)
	if err := env.Client.Delete(t.Context(), cr); err != nil {
		t.Fatal(err)
	}
	w.f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "ec2", Operation: "DeleteVpcEndpointServiceConfigurations",
		Code: awscloud.CodeExistingVpcEndpointConnections, Message: "Service has existing active VPC Endpoint connections!", HTTPStatus: 400, Rate: 1}}})
	p := outcome.DefaultPolicy.Dependency
	grew(t, "connections pending", w.passes(r, cr, 7), p, p.Cap)
	if c := condition(t, cr); c.Reason != hcplinkv1beta1.ConnectionsPendingReason {
		t.Errorf("condition = %+v", c)
	}
	w.f.Server.Faults.Set(sim.FaultConfig{})
	w.reconcile(r, cr)
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); err == nil {
		t.Errorf("still there with finalizers %v", cr.Finalizers)
	}
	if n := len(w.services()); n != 0 {
		t.Errorf("%d endpoint services left", n)
	}
}

// TestPausedMakesNoCloudCall: while the HostedCluster is paused nothing is
// asked of AWS; the pass after the pause does the work.
func TestPausedMakesNoCloudCall(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-paused-private")
	until := w.clk.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	c := w.cluster(func(hc *hcplinkv1beta1.HostedCluster) { hc.Spec.PausedUntil = &until })
	cr := c.endpointService(t, "private-router", "k8s-paused-private")
	r := w.reconciler()
	before := w.f.Calls(mgmt)
	res := w.reconcile(r, cr)
	for k, n := range w.f.Calls(mgmt) {
		if n.Total != before[k].Total {
			t.Errorf("%s called %d times while paused", k, n.Total-before[k].Total)
		}
	}
	if res.RequeueAfter < 59*time.Minute || res.RequeueAfter > time.Hour {
		t.Errorf("requeue while paused = %v, want the rest of the pause", res.RequeueAfter)
	}
	get(t, cr)
	if controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.OperatorFinalizer) || len(cr.Status.Conditions) != 0 {
		t.Errorf("paused object was written: finalizers %v, conditions %v", cr.Finalizers, cr.Status.Conditions)
	}
	w.clk.Advance(res.RequeueAfter)
	w.settle(r, cr)
	if n := w.calls(createSvc).Total; n != 1 {
		t.Errorf("%d creates after the pause, want 1", n)
	}
}

// TestAdoptsServiceAlreadyOnLoadBalancer: the load balancer already backs
// a service created outside status (untagged: e.g. by hand, or before the
// tags were written); the create's InvalidParameter leads to adopting it,
// tagging it, and no second service.
func TestAdoptsServiceAlreadyOnLoadBalancer(t *testing.T) {
	w := newWorld(t)
	lb := w.activeNLB("k8s-inuse-private")
	out, err := w.ec2.CreateVpcEndpointServiceConfiguration(w.ctx, &ec2.CreateVpcEndpointServiceConfigurationInput{
		AcceptanceRequired: aws.Bool(false), NetworkLoadBalancerArns: []string{aws.ToString(lb.LoadBalancerArn)}})
	if err != nil {
		t.Fatal(err)
	}
	existing := aws.ToString(out.ServiceConfiguration.ServiceName)
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-inuse-private")
	r := w.managementCluster(env.Client, "mc-a")
	w.settle(r, cr)
	if cr.Status.EndpointServiceName != existing {
		t.Errorf("status names %q, want the existing service %q", cr.Status.EndpointServiceName, existing)
	}
	if n := len(w.services()); n != 1 {
		t.Errorf("%d endpoint services, want 1", n)
	}
	tags := awscloud.TagMap(w.service(existing).Tags)
	if !awscloud.OwnedBy(tags, c.hc.Spec.InfraID, cr.Name) || tags[hcplinkv1beta1.ManagementClusterTagKey] != "mc-a" {
		t.Errorf("adopted service's tags = %v, want the ownership pair and the management cluster", tags)
	}
	if cond := condition(t, cr); cond.Status != metav1.ConditionTrue {
		t.Errorf("condition = %+v", cond)
	}
}
