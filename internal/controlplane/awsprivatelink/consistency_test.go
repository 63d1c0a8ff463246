package awsprivatelink

import (
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// EC2 is eventually consistent: right after CreateVpcEndpoint, describing
// the endpoint by its ID may answer InvalidVpcEndpointId.NotFound. That is
// not an endpoint deleted behind our back: replacing it would leave two
// endpoints for one cluster (the soak found this). The pass waits instead,
// and the endpoint is used once EC2 shows it.
func TestJustCreatedEndpointNotYetDescribedIsNotReplaced(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.f.Server.Faults.Set(sim.FaultConfig{Chaos: &sim.Chaos{Consistency: sim.Consistency{CreateLag: sim.Duration(30 * time.Second)}}})
	x.reconcile() // creates the endpoint
	x.reconcile() // describes it by ID: not shown yet
	x.reconcile()
	if n := liveEndpoints(x); n != 1 {
		t.Fatalf("%d endpoints in the cloud, want the one created: a just-created endpoint EC2 did not show yet was replaced", n)
	}
	if g := x.get().Annotations[TokenGenerationAnnotation]; g != "" {
		t.Errorf("token generation %q, want none: nothing was replaced", g)
	}
	x.clk.Advance(30 * time.Second)
	x.reconcile()
	if n := liveEndpoints(x); n != 1 {
		t.Fatalf("%d endpoints once EC2 shows it, want 1", n)
	}
}

// Once EC2 shows the endpoint (it is Available), its created-at mark has
// served and goes, in the pass's last writes: the status written in the
// same pass is kept, and a later deletion of the endpoint behind our back
// is repaired at once, without the grace.
func TestCreatedAtMarkDroppedOnceTheEndpointIsShown(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.f.Server.Faults.Set(sim.FaultConfig{Chaos: &sim.Chaos{Consistency: sim.Consistency{CreateLag: sim.Duration(10 * time.Second)}}})
	x.reconcile()
	if x.get().Annotations[EndpointCreatedAtAnnotation] == "" {
		t.Fatal("no created-at mark after the create")
	}
	x.clk.Advance(endpointPending + time.Second)
	x.reconcile()
	x.requireCondition(metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason)
	cr := x.get()
	if at := cr.Annotations[EndpointCreatedAtAnnotation]; at != "" {
		t.Errorf("created-at mark %q still there once EC2 shows the endpoint, want it dropped", at)
	}
	if cr.Status.EndpointID == "" || len(cr.Status.DNSNames) == 0 || cr.Status.SecurityGroupID == "" {
		t.Errorf("status lost by the pass that dropped the mark: %+v", cr.Status)
	}
}

// A cluster deleted seconds after its endpoint was created, while EC2
// shows it neither by ID nor by tags: deletion waits for EC2 to show it
// and deletes it, instead of dropping the finalizer over a leaked endpoint.
func TestDeletionWaitsForAnEndpointEC2DoesNotShowYet(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.f.Server.Faults.Set(sim.FaultConfig{Chaos: &sim.Chaos{Consistency: sim.Consistency{CreateLag: sim.Duration(30 * time.Second)}}})
	x.reconcile() // creates the endpoint
	if err := env.Client.Delete(x.ctx, x.get()); err != nil {
		t.Fatal(err)
	}
	x.reconcile()
	held := &hcplinkv1beta1.AWSEndpointService{}
	if err := env.Client.Get(x.ctx, client.ObjectKeyFromObject(x.cr), held); err != nil || !controllerutil.ContainsFinalizer(held, hcplinkv1beta1.ControlPlaneFinalizer) {
		t.Fatalf("finalizer dropped while EC2 did not show the new endpoint yet (%d endpoint left behind)", liveEndpoints(x))
	}
	for range 6 {
		x.clk.Advance(endpointDeleting + time.Second)
		x.reconcile()
		if err := env.Client.Get(x.ctx, client.ObjectKeyFromObject(x.cr), &hcplinkv1beta1.AWSEndpointService{}); apierrors.IsNotFound(err) {
			break
		}
	}
	if n := liveEndpoints(x); n != 0 {
		t.Errorf("%d endpoints left after deletion, want 0", n)
	}
	if err := env.Client.Get(x.ctx, client.ObjectKeyFromObject(x.cr), &hcplinkv1beta1.AWSEndpointService{}); !apierrors.IsNotFound(err) {
		t.Errorf("AWSEndpointService not deleted: %v", err)
	}
}

// An endpoint the deletion saw and deleted is gone once EC2 no longer
// shows it, even within the grace a just-created endpoint gets: the
// deletion does not wait out the grace (e2e's repaired-then-deleted
// cluster hit the 2 minutes).
func TestDeletionOfAShownEndpointDoesNotWaitOutTheGrace(t *testing.T) {
	x := newFixture(t, cloudOpts{})
	x.reconcile() // creates the endpoint; its created-at mark is set
	if x.get().Annotations[EndpointCreatedAtAnnotation] == "" {
		t.Fatal("no created-at mark after the create")
	}
	if err := env.Client.Delete(x.ctx, x.get()); err != nil {
		t.Fatal(err)
	}
	// Each pass moves the clock past the endpoint's deletion only; three
	// passes stay inside the visibility grace.
	for range 3 {
		x.reconcile()
		if err := env.Client.Get(x.ctx, client.ObjectKeyFromObject(x.cr), &hcplinkv1beta1.AWSEndpointService{}); apierrors.IsNotFound(err) {
			break
		}
		x.clk.Advance(endpointDeleting + time.Second)
	}
	if 3*(endpointDeleting+time.Second) >= endpointVisibilityGrace {
		t.Fatalf("the test's passes span %v, not inside the %v grace", 3*(endpointDeleting+time.Second), endpointVisibilityGrace)
	}
	if err := env.Client.Get(x.ctx, client.ObjectKeyFromObject(x.cr), &hcplinkv1beta1.AWSEndpointService{}); !apierrors.IsNotFound(err) {
		t.Errorf("deletion still waiting for an endpoint it saw and deleted (EC2 shows %d): %v", liveEndpoints(x), err)
	}
}

// liveEndpoints counts the customer's endpoints in cloudsim's model, which
// knows the truth the lagging describes do not show.
func liveEndpoints(x *fixture) int {
	n := 0
	x.f.Server.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		for _, a := range accounts {
			for _, r := range a.Regions {
				for _, ep := range r.PrivateLink.Endpoints {
					if ep.State != cloudaws.EndpointDeleting {
						n++
					}
				}
			}
		}
	})
	return n
}
