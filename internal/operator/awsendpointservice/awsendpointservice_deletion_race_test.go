package awsendpointservice

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/smithy-go/middleware"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// soakLag is the soak's EC2 eventual consistency: a new endpoint service
// is hidden from reads, a deleted one still shown, for 3 s.
const soakLag = 3 * time.Second

// afterCreate runs hook once the real SDK's
// CreateVpcEndpointServiceConfiguration has returned, before the caller
// sees the answer: the moment between "created" and "status written".
func afterCreate(hook func()) func(*ec2.Options) {
	return func(o *ec2.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("testAfterCreate",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					out, md, err := next.HandleInitialize(ctx, in)
					if _, ok := in.Parameters.(*ec2.CreateVpcEndpointServiceConfigurationInput); ok && err == nil {
						hook()
					}
					return out, md, err
				}), middleware.Before)
		})
	}
}

// A cluster deleted within seconds of its endpoint service's creation —
// at each step of that creation, with EC2's read lag on as in the soak —
// leaves no endpoint service behind (the load balancer would stay in use,
// and with it the Service, the namespace and the next cluster of the name).
func TestClusterDeletedWhileItsServiceIsBeingCreatedLeavesNoService(t *testing.T) {
	cases := []struct {
		name string
		// deleteInCreate deletes the cluster right after the create
		// returns, before status names the service.
		deleteInCreate bool
		// afterPass is how long after the creating pass the cluster is
		// deleted (the service is Pending for 5 s, hidden for 3 s).
		afterPass time.Duration
		// clusterGone: the HostedCluster is gone, not only deleting.
		clusterGone bool
		// restart: the deletion is run by a new process.
		restart bool
	}{
		{name: "right after the create returns", deleteInCreate: true},
		{name: "right after the create returns, cluster gone", deleteInCreate: true, clusterGone: true},
		{name: "right after the create returns, then a restart", deleteInCreate: true, restart: true},
		{name: "while hidden and pending", afterPass: time.Second},
		{name: "while shown and pending", afterPass: 4 * time.Second},
		{name: "while pending, then a restart", afterPass: 2 * time.Second, restart: true, clusterGone: true},
		{name: "once available", afterPass: 7 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.activeNLB("k8s-race")
			ch := sim.Chaos{Consistency: sim.Consistency{CreateLag: sim.Duration(soakLag), DeleteLag: sim.Duration(soakLag)}}
			w.f.Control(t, http.MethodPut, "/_cloudsim/faults", sim.FaultConfig{Chaos: &ch, Seed: 1}, nil)
			c := w.cluster()
			cr := c.endpointService(t, "private-router", "k8s-race")
			deleteCluster := func() {
				ctx := context.Background()
				if !tc.clusterGone {
					update(t, c.hc, func() { c.hc.Finalizers = append(c.hc.Finalizers, "test.hcplink.io/hold") })
				}
				if err := env.Client.Delete(ctx, c.hc); err != nil {
					t.Errorf("deleting the HostedCluster: %v", err)
				}
				if err := env.Client.Delete(ctx, cr); err != nil {
					t.Errorf("deleting the AWSEndpointService: %v", err)
				}
			}
			t.Cleanup(func() {
				_ = env.Client.Patch(context.Background(), c.hc, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)))
			})
			r := w.reconciler()
			if tc.deleteInCreate {
				fired := false
				r.EC2 = ec2.NewFromConfig(w.f.Config(t, mgmt), afterCreate(func() {
					if !fired {
						fired = true
						deleteCluster()
					}
				}))
			}
			w.reconcile(r, cr) // adds the finalizer, creates the service
			if w.calls(createSvc).Total != 1 {
				t.Fatalf("CreateVpcEndpointServiceConfiguration calls = %d, want 1", w.calls(createSvc).Total)
			}
			if !tc.deleteInCreate {
				w.clk.Advance(tc.afterPass)
				deleteCluster()
			}
			if tc.restart {
				r = w.reconciler()
			}
			for range 30 {
				w.reconcile(r, cr)
				if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); apierrors.IsNotFound(err) {
					break
				}
				w.clk.Advance(time.Second)
			}
			if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); err == nil {
				t.Fatalf("the AWSEndpointService is still there after 30 s: finalizers %v, conditions %+v", cr.Finalizers, cr.Status.Conditions)
			}
			w.clk.Advance(soakLag)
			if n := len(w.services()); n != 0 {
				t.Errorf("%d endpoint services left after the deletion, want 0: %v", n, w.services())
			}
			if n := w.calls(createSvc).Total; n != 1 {
				t.Errorf("CreateVpcEndpointServiceConfiguration calls = %d, want 1", n)
			}
		})
	}
}
