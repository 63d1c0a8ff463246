package awsendpointservice

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// createLag is how long cloudsim hides a new endpoint service from
// describes and listings here (EC2's eventual consistency).
const createLag = 40 * time.Second

// withCreateLag turns EC2's eventual consistency on in the world's cloudsim.
func (w *world) withCreateLag() {
	w.t.Helper()
	ch := sim.Chaos{Consistency: sim.Consistency{CreateLag: sim.Duration(createLag)}}
	w.f.Control(w.t, http.MethodPut, "/_cloudsim/faults", sim.FaultConfig{Chaos: &ch, Seed: 1}, nil)
}

// A cluster deleted seconds after its endpoint service was created, while
// EC2 shows the service neither by name nor by its tags: the deletion
// waits for EC2 to show it and deletes it, instead of finding nothing,
// dropping its finalizer and leaking the service.
func TestDeletionWaitsForAServiceEC2DoesNotShowYet(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-lag-delete")
	w.withCreateLag()
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-lag-delete")
	r := w.reconciler()
	w.reconcile(r, cr)
	get(t, cr)
	if cr.Status.EndpointServiceName == "" {
		t.Fatal("no endpoint service created on the first pass")
	}
	if err := env.Client.Delete(t.Context(), cr); err != nil {
		t.Fatal(err)
	}
	w.clk.Advance(time.Second)
	w.reconcile(r, cr)
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); err != nil {
		t.Fatalf("the deletion did not wait for the service EC2 does not show yet (the service is left behind): %v", err)
	}
	if cond := condition(t, cr); cond.Reason != hcplinkv1beta1.EndpointServicePendingReason {
		t.Errorf("deleting while EC2 does not show the service: condition = %s %q, want %s", cond.Reason, cond.Message, hcplinkv1beta1.EndpointServicePendingReason)
	}

	for range 6 {
		w.clk.Advance(serviceVisibilityRecheck + 5*time.Second)
		w.reconcile(r, cr)
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); apierrors.IsNotFound(err) {
			break
		}
	}
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); err == nil {
		t.Fatalf("AWSEndpointService still exists: finalizers %v, conditions %+v", cr.Finalizers, cr.Status.Conditions)
	}
	w.clk.Advance(createLag)
	if n := len(w.services()); n != 0 {
		t.Errorf("%d endpoint services left after deletion, want 0 (leaked)", n)
	}
}

// Past the grace, nothing shown means nothing there: a deletion whose
// create never made a service does not wait for ever.
func TestDeletionAfterTheGraceConcludesNothingIsLeft(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-never-made")
	r := w.reconciler()
	w.reconcile(r, cr) // adds the finalizer; the load balancer does not exist
	stamp := w.clk.Now().UTC().Format(time.RFC3339)
	update(t, cr, func() { cr.Annotations[ServiceCreatedAtAnnotation] = stamp })
	if err := env.Client.Delete(t.Context(), cr); err != nil {
		t.Fatal(err)
	}
	w.reconcile(r, cr)
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); err != nil {
		t.Fatalf("the deletion did not wait within the grace: %v", err)
	}
	w.clk.Advance(serviceVisibilityGrace)
	w.reconcile(r, cr)
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); !apierrors.IsNotFound(err) {
		t.Fatalf("after the grace the deletion still waits: %v, conditions %+v", err, cr.Status.Conditions)
	}
}

// A service that EC2 does not show yet right after its creation is waited
// for, not replaced: no second create, no new generation, the same name.
func TestJustCreatedServiceNotYetShownIsNotReplaced(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-lag-ensure")
	w.withCreateLag()
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-lag-ensure")
	r := w.reconciler()
	w.reconcile(r, cr)
	get(t, cr)
	first := cr.Status.EndpointServiceName
	if first == "" {
		t.Fatal("no endpoint service created on the first pass")
	}
	w.clk.Advance(testDelays.EndpointServicePending.D() + time.Second)
	w.reconcile(r, cr)
	if cond := condition(t, cr); cond.Reason != hcplinkv1beta1.EndpointServicePendingReason {
		t.Errorf("while EC2 does not show the service: condition = %s %q, want %s", cond.Reason, cond.Message, hcplinkv1beta1.EndpointServicePendingReason)
	}
	w.clk.Advance(createLag)
	w.settle(r, cr)
	if cr.Status.EndpointServiceName != first {
		t.Errorf("endpoint service = %q, want the one created, %q", cr.Status.EndpointServiceName, first)
	}
	if g := cr.Annotations[GenerationAnnotation]; g != "" {
		t.Errorf("generation annotation = %q, want none (nothing was replaced)", g)
	}
	if n := w.calls(createSvc).Total; n != 1 {
		t.Errorf("CreateVpcEndpointServiceConfiguration calls = %d, want 1", n)
	}
	if n := len(w.services()); n != 1 {
		t.Errorf("%d endpoint services, want 1", n)
	}
}

// The load balancer already backs a service made moments ago outside
// status, which EC2's listing does not show yet: the create's "already
// associated" is a wait for the listing, not a refusal of the cluster's
// settings; once shown, the service is adopted.
func TestServiceOnTheLoadBalancerNotYetListedIsWaitedFor(t *testing.T) {
	w := newWorld(t)
	lb := w.activeNLB("k8s-lag-inuse")
	w.withCreateLag()
	out, err := w.ec2.CreateVpcEndpointServiceConfiguration(w.ctx, &ec2.CreateVpcEndpointServiceConfigurationInput{
		AcceptanceRequired: aws.Bool(false), NetworkLoadBalancerArns: []string{aws.ToString(lb.LoadBalancerArn)}})
	if err != nil {
		t.Fatal(err)
	}
	existing := aws.ToString(out.ServiceConfiguration.ServiceName)
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-lag-inuse")
	r := w.reconciler()
	w.reconcile(r, cr)
	if cond := condition(t, cr); cond.Reason != hcplinkv1beta1.EndpointServicePendingReason {
		t.Errorf("while EC2 does not list the service on the load balancer: condition = %s %q, want %s", cond.Reason, cond.Message, hcplinkv1beta1.EndpointServicePendingReason)
	}
	w.clk.Advance(createLag)
	w.settle(r, cr)
	if cr.Status.EndpointServiceName != existing {
		t.Errorf("status names %q, want the existing service %q", cr.Status.EndpointServiceName, existing)
	}
}

// The HostedCluster is gone and the control-plane operator never wrote
// status.infraID, and status does not name the service (the pass that
// created it stopped before writing it): the deletion still finds the
// service by its tags, through the infraID kept when it was created,
// instead of waiting out the grace and leaving it behind.
func TestDeletionAfterTheClusterIsGoneFindsTheServiceByTheInfraIDKeptAtCreate(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-gone-cluster")
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-gone-cluster")
	r := w.reconciler()
	w.settle(r, cr)
	if err := env.Client.Status().Patch(t.Context(), cr, client.RawPatch(types.MergePatchType, []byte(`{"status":{"endpointServiceName":null,"infraID":null}}`))); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(t.Context(), c.hc); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(t.Context(), cr); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		w.reconcile(r, cr)
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); apierrors.IsNotFound(err) {
			break
		}
		w.clk.Advance(serviceVisibilityGrace / 2)
	}
	if n := len(w.services()); n != 0 {
		t.Errorf("%d endpoint services left after the deletion, want 0 (the deletion did not find it)", n)
	}
}

// A HostedCluster being deleted gets no new endpoint service: its
// operator deletes the AWSEndpointService next, and a service made now
// would only have to be found and deleted again.
func TestNoServiceIsCreatedForAClusterBeingDeleted(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-going")
	c := w.cluster()
	update(t, c.hc, func() { controllerutil.AddFinalizer(c.hc, "test.hcplink.io/hold") })
	if err := env.Client.Delete(t.Context(), c.hc); err != nil {
		t.Fatal(err)
	}
	cr := c.endpointService(t, "private-router", "k8s-going")
	t.Cleanup(func() {
		// Leave nothing behind for the other tests' sweepers.
		ctx := context.Background()
		_ = env.Client.Patch(ctx, c.hc, client.RawPatch(types.JSONPatchType, []byte(`[{"op":"remove","path":"/metadata/finalizers"}]`)))
		_ = env.Client.Patch(ctx, cr, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
		_ = env.Client.Delete(ctx, cr)
	})
	w.reconcile(w.reconciler(), cr)
	if n := w.calls(createSvc).Total; n != 0 {
		t.Errorf("CreateVpcEndpointServiceConfiguration calls = %d for a cluster being deleted, want 0", n)
	}
}
