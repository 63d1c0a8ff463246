package awsprivatelink

import (
	"testing"
	"time"

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
