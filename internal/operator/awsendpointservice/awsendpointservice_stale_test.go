package awsendpointservice

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// TestReplacedLoadBalancerReplacesService: when the control plane's load
// balancer is replaced (spec.networkLoadBalancerName names another), the
// service on the old one is deleted and a new one published on the new
// one, under a new generation (so the ClientToken differs).
func TestReplacedLoadBalancerReplacesService(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-first-private")
	cr := w.cluster().endpointService(t, "private-router", "k8s-first-private")
	r := w.reconciler()
	w.settle(r, cr)
	old := cr.Status.EndpointServiceName

	second := w.activeNLB("k8s-second-private")
	update(t, cr, func() { cr.Spec.NetworkLoadBalancerName = "k8s-second-private" })
	w.settle(r, cr)

	if cr.Status.EndpointServiceName == old || cr.Status.EndpointServiceName == "" {
		t.Fatalf("status names %q, want a new service (old %q)", cr.Status.EndpointServiceName, old)
	}
	svcs := w.services()
	if len(svcs) != 1 {
		t.Fatalf("%d endpoint services, want 1 (the old one deleted)", len(svcs))
	}
	if !slices.Equal(svcs[0].NetworkLoadBalancerArns, []string{aws.ToString(second.LoadBalancerArn)}) {
		t.Errorf("service on %v, want the new load balancer %s", svcs[0].NetworkLoadBalancerArns, aws.ToString(second.LoadBalancerArn))
	}
	if cr.Annotations[GenerationAnnotation] != "1" {
		t.Errorf("generation annotation = %q, want 1", cr.Annotations[GenerationAnnotation])
	}
	if got := w.principals(svcs[0]); !slices.Equal(got, []string{cpoPrincipal}) {
		t.Errorf("new service's principals = %v", got)
	}
}

// TestTaggedServiceOnAnotherLoadBalancerIsNotAdopted: a service tagged for
// the object but on another load balancer (the load balancer was replaced
// while status was lost) is stale: it is deleted, never adopted, and a
// service is created on the load balancer now named. (The sweeper would
// never take it: the object it is tagged for exists.)
func TestTaggedServiceOnAnotherLoadBalancerIsNotAdopted(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	stale := w.rawService("k8s-stale-private", ours(c.hc.Spec.InfraID, "private-router"))
	current := w.activeNLB("k8s-current-private")
	cr := c.endpointService(t, "private-router", "k8s-current-private")
	w.settle(w.reconciler(), cr)
	if cr.Status.EndpointServiceName == stale {
		t.Fatalf("adopted the stale service %s on another load balancer", stale)
	}
	svcs := w.services()
	if len(svcs) != 1 || !slices.Equal(svcs[0].NetworkLoadBalancerArns, []string{aws.ToString(current.LoadBalancerArn)}) {
		t.Errorf("services = %d, want only the one on %s", len(svcs), aws.ToString(current.LoadBalancerArn))
	}
}

// TestServiceMissingFromStaleListingKeepsStatus: a batched listing taken
// before the service existed lacks it; a targeted describe confirms it
// exists, so status and the generation are kept and nothing is created.
func TestServiceMissingFromStaleListingKeepsStatus(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-lag-private")
	cr := w.cluster().endpointService(t, "private-router", "k8s-lag-private")
	stale := w.reconciler()
	stale.init()
	if _, err := stale.Cache.Services(w.ctx); err != nil { // listed before the service exists
		t.Fatal(err)
	}
	w.settle(w.reconciler(), cr)
	name := cr.Status.EndpointServiceName
	creates := w.calls(createSvc).Total

	w.reconcile(stale, cr)
	get(t, cr)
	if cr.Status.EndpointServiceName != name {
		t.Errorf("status names %q, want %q kept", cr.Status.EndpointServiceName, name)
	}
	if g, ok := cr.Annotations[GenerationAnnotation]; ok {
		t.Errorf("generation raised to %s on a stale listing", g)
	}
	if n := w.calls(createSvc).Total - creates; n != 0 {
		t.Errorf("%d creates on a stale listing, want 0", n)
	}
	if cond := condition(t, cr); cond.Status != metav1.ConditionTrue {
		t.Errorf("condition = %+v", cond)
	}
}

// TestManagementClusterTag: services are created with the management
// cluster's tag; one of ours without it gets it; one tagged for another
// management cluster is never adopted or changed, and the condition says
// why.
func TestManagementClusterTag(t *testing.T) {
	w := newWorld(t)
	const mc = "mc-a"
	r := w.managementCluster(env.Client, mc)

	t.Run("created with it", func(t *testing.T) {
		w.activeNLB("k8s-tagged-private")
		cr := w.cluster().endpointService(t, "private-router", "k8s-tagged-private")
		w.settle(r, cr)
		if got := awscloud.TagMap(w.service(cr.Status.EndpointServiceName).Tags)[hcplinkv1beta1.ManagementClusterTagKey]; got != mc {
			t.Errorf("management-cluster tag = %q, want %q", got, mc)
		}
	})

	t.Run("adopted onto ours that lacks it", func(t *testing.T) {
		c := w.cluster()
		legacy := w.rawService("k8s-legacy-private", ours(c.hc.Spec.InfraID, "private-router"))
		w.clk.Advance(testDelays.LoadBalancerProvisioning.D() + 1)
		cr := c.endpointService(t, "private-router", "k8s-legacy-private")
		creates := w.calls(createSvc).Total
		w.clk.Advance(testDrift * 2) // a fresh listing that includes the service
		w.settle(r, cr)
		if cr.Status.EndpointServiceName != legacy {
			t.Errorf("status names %q, want the legacy service %q adopted", cr.Status.EndpointServiceName, legacy)
		}
		if got := awscloud.TagMap(w.service(legacy).Tags)[hcplinkv1beta1.ManagementClusterTagKey]; got != mc {
			t.Errorf("management-cluster tag = %q, want %q", got, mc)
		}
		if n := w.calls(createSvc).Total - creates; n != 0 {
			t.Errorf("%d creates, want 0 (adopted by tags)", n)
		}
	})

	t.Run("another's never adopted", func(t *testing.T) {
		c := w.cluster()
		theirs := w.rawService("k8s-theirs-private", oursIn("mc-b", c.hc.Spec.InfraID, "private-router"))
		w.clk.Advance(testDelays.LoadBalancerProvisioning.D() + 1)
		cr := c.endpointService(t, "private-router", "k8s-theirs-private")
		before := awscloud.TagMap(w.service(theirs).Tags)
		w.clk.Advance(testDrift * 2)
		w.reconcile(r, cr)
		get(t, cr)
		if cr.Status.EndpointServiceName != "" {
			t.Errorf("status names %q; another management cluster's service must not be adopted", cr.Status.EndpointServiceName)
		}
		if cond := condition(t, cr); cond.Reason != hcplinkv1beta1.OwnedByAnotherManagementClusterReason {
			t.Errorf("condition = %+v, want %s", cond, hcplinkv1beta1.OwnedByAnotherManagementClusterReason)
		}
		after := awscloud.TagMap(w.service(theirs).Tags)
		if after[hcplinkv1beta1.ManagementClusterTagKey] != "mc-b" || len(after) != len(before) {
			t.Errorf("their service's tags changed: %v → %v", before, after)
		}
		if err := env.Client.Delete(t.Context(), cr); err != nil {
			t.Fatal(err)
		}
		w.reconcile(r, cr)
		if !slices.Contains(w.serviceNames(), theirs) {
			t.Error("deleting our object deleted another management cluster's service")
		}
	})
}
