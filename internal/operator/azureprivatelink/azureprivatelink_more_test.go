package azureprivatelink

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// ARM's write bucket runs dry: the pass reports Throttled, looks again no
// sooner than Retry-After (no hot loop), and converges once the bucket
// refills.
func TestThrottledWritesHonourRetryAfter(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	r := w.reconciler(nil)
	// One write, then one every 100 s: the NAT subnet takes the token,
	// the service's PUT is throttled.
	w.f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		azure.ThrottlingService: {NonMutating: sim.Limit{Burst: 1000, PerSecond: 1000}, Mutating: sim.Limit{Burst: 1, PerSecond: 0.01}},
	}}})
	var res time.Duration
	for range 3 {
		res = w.reconcile(r, c.cr).RequeueAfter
		if condition(t, c.cr, hcplinkv1beta1.AzurePLSCreatedCondition).Reason == hcplinkv1beta1.ThrottledReason {
			break
		}
		w.clk.Advance(10 * time.Second)
	}
	cond := condition(t, c.cr, hcplinkv1beta1.AzurePLSCreatedCondition)
	if cond.Reason != hcplinkv1beta1.ThrottledReason || cond.Status != metav1.ConditionFalse {
		t.Fatalf("condition = %+v, want Throttled", cond)
	}
	if res < 60*time.Second {
		t.Errorf("a throttled pass looks again after %v, sooner than Azure's Retry-After", res)
	}
	throttled := w.calls("privateLinkServices/write").Throttled
	w.reconcile(r, c.cr) // an early event-driven pass may try once more, no more
	if got := w.calls("privateLinkServices/write").Throttled - throttled; got > 1 {
		t.Errorf("%d throttled writes in one pass", got)
	}
	w.clk.Advance(2 * time.Minute)
	w.settle(r, c.cr)
}

// Two clusters behind the same management VNet get their own service (and
// share the NAT subnet); deleting one leaves the other's service and the
// subnet it still uses alone.
func TestTwoClustersNeverTouchEachOther(t *testing.T) {
	w := newWorld(t)
	a, b := w.cluster(), w.cluster()
	r := w.reconciler(nil)
	w.settle(r, a.cr)
	w.settle(r, b.cr)
	get(t, a.cr)
	get(t, b.cr)
	if a.cr.Status.PrivateLinkServiceID == b.cr.Status.PrivateLinkServiceID {
		t.Fatalf("the clusters share resources: %+v / %+v", a.cr.Status, b.cr.Status)
	}
	aliasB := b.cr.Status.PrivateLinkServiceAlias
	w.deleteAndSettle(r, a.cr)
	if w.pls(azurecloud.PrivateLinkServiceName(a.hc.Spec.ClusterID)) != nil {
		t.Error("the deleted cluster's service remains")
	}
	pls := w.pls(azurecloud.PrivateLinkServiceName(b.hc.Spec.ClusterID))
	if pls == nil || *pls.Properties.Alias != aliasB || !w.subnetExists(b.cr.Status.NATSubnetID) {
		t.Error("deleting one cluster touched the other's service or NAT subnet")
	}
}

// A paused cluster is left alone: no Azure call, a requeue when the pause
// ends.
func TestPausedClusterIsLeftAlone(t *testing.T) {
	w := newWorld(t)
	until := w.clk.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	c := w.cluster(func(hc *hcplinkv1beta1.HostedCluster, _ *hcplinkv1beta1.AzurePrivateLinkService) {
		hc.Spec.PausedUntil = &until
	})
	r := w.reconciler(nil)
	before := w.calls("loadBalancers/read").Total
	if res := w.reconcile(r, c.cr); res.RequeueAfter <= 0 || res.RequeueAfter > time.Hour {
		t.Errorf("requeue = %v, want the rest of the pause", res.RequeueAfter)
	}
	if w.calls("loadBalancers/read").Total != before || w.pls(azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)) != nil {
		t.Error("a paused cluster was served")
	}
}

// Without its HostedCluster the object says so and waits; deleting it
// still removes the service and the NAT subnet recorded in status.
func TestWithoutTheHostedClusterDeletionUsesStatus(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	r := w.reconciler(nil)
	w.settle(r, c.cr)
	get(t, c.cr)
	nat := c.cr.Status.NATSubnetID
	if err := env.Client.Delete(w.ctx, c.hc); err != nil {
		t.Fatal(err)
	}
	w.reconcile(r, c.cr)
	if cond := condition(t, c.cr, hcplinkv1beta1.AzurePLSCreatedCondition); cond.Reason != hcplinkv1beta1.HostedClusterNotFoundReason {
		t.Errorf("condition = %+v", cond)
	}
	w.deleteAndSettle(r, c.cr)
	if w.pls(azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)) != nil || w.subnetExists(nat) {
		t.Error("the service or the NAT subnet outlived the object")
	}
}

// The router's load balancer moved to another frontend (the control-plane
// operator reports a new address): the service follows in one pass.
func TestFollowsANewLoadBalancerFrontend(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	r := w.reconciler(nil)
	w.settle(r, c.cr)
	w.internalLB("kubernetes-internal-2", w.vnetID+"/subnets/lb", "10.0.1.20")
	update(t, c.cr, func() { c.cr.Spec.LoadBalancerIP = "10.0.1.20" })
	w.reconcile(r, c.cr)
	got := frontendIDs(w.pls(azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)).Properties.LoadBalancerFrontendIPConfigurations)
	if len(got) != 1 || !strings.Contains(got[0], "/loadBalancers/kubernetes-internal-2/") {
		t.Errorf("frontends after one pass = %v", got)
	}
	w.settle(r, c.cr)
	get(t, c.cr)
	if !strings.HasSuffix(c.cr.Status.InternalLoadBalancerID, "/kubernetes-internal-2") {
		t.Errorf("status.internalLoadBalancerID = %s", c.cr.Status.InternalLoadBalancerID)
	}
}
