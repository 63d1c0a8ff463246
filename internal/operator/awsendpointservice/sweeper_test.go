package awsendpointservice

import (
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/metrics"
	"github.com/hcplink/hcplink/internal/testenv"
)

// rawService creates an endpoint service on a new NLB directly, tagged as
// given (nil: untagged, a customer's own).
func (w *world) rawService(nlb string, tags map[string]string) string {
	w.t.Helper()
	lb := w.nlb(nlb)
	in := &ec2.CreateVpcEndpointServiceConfigurationInput{AcceptanceRequired: aws.Bool(false), NetworkLoadBalancerArns: []string{aws.ToString(lb.LoadBalancerArn)}}
	if tags != nil {
		in.TagSpecifications = awscloud.TagSpecifications(ec2types.ResourceTypeVpcEndpointService, tags)
	}
	out, err := w.ec2.CreateVpcEndpointServiceConfiguration(w.ctx, in)
	if err != nil {
		w.t.Fatalf("creating service on %s: %v", nlb, err)
	}
	return aws.ToString(out.ServiceConfiguration.ServiceName)
}

func ours(infraID, name string) map[string]string {
	return map[string]string{hcplinkv1beta1.ClusterTagKey(infraID): "owned", hcplinkv1beta1.EndpointServiceTagKey: name, "team": "x"}
}

// oursIn is ours, tagged for the management cluster mc.
func oursIn(mc, infraID, name string) map[string]string {
	tags := ours(infraID, name)
	tags[hcplinkv1beta1.ManagementClusterTagKey] = mc
	return tags
}

func (w *world) sweeper(k client.Reader, mc string) *Sweeper {
	cache := &DescribeCache{Provider: awscloud.NewEndpointServiceProvider(w.ec2, w.elb), Clock: w.clk, TTL: testDrift}
	return &Sweeper{Reader: k, EC2: w.ec2, Cache: cache, Clock: w.clk, GracePeriod: 10 * time.Minute, ManagementClusterID: mc}
}

// serviceNames are the names of every endpoint service in the account.
func (w *world) serviceNames() []string {
	var names []string
	for _, svc := range w.services() {
		names = append(names, aws.ToString(svc.ServiceName))
	}
	return names
}

func TestSweeperRemovesOnlyOrphans(t *testing.T) {
	const mc = "mc-a"
	w := newWorld(t)
	w.activeNLB("k8s-kept-private")
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-kept-private")
	w.settle(w.managementCluster(env.Client, mc), cr)
	kept := cr.Status.EndpointServiceName

	orphan := w.rawService("k8s-orphan-private", oursIn(mc, "deleted-cluster", "private-router"))
	foreign := w.rawService("k8s-foreign-private", nil)
	sameNameOtherCluster := w.rawService("k8s-other-private", oursIn(mc, "other-gone", "kube-apiserver-private"))
	// Made before the management-cluster tag existed (or by another
	// management cluster that does not tag): never this sweeper's to take.
	untagged := w.rawService("k8s-legacy-private", ours("legacy-gone", "private-router"))

	s := w.sweeper(env.Client, mc)
	before := testutil.ToFloat64(metrics.OrphanCounter("operator", OrphanKind))

	removed, err := s.Sweep(w.ctx)
	if err != nil || len(removed) != 0 {
		t.Fatalf("first sweep = %v, %v; want nothing removed (candidates only just seen)", removed, err)
	}

	w.clk.Advance(11 * time.Minute)
	young := w.rawService("k8s-young-private", oursIn(mc, "new-cluster", "private-router"))
	removed, err = s.Sweep(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := []string{orphan, sameNameOtherCluster}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed = %v, want %v", removed, want)
	}
	left := w.serviceNames()
	for _, name := range []string{kept, foreign, young, untagged} {
		if !slices.Contains(left, name) {
			t.Errorf("service %s was removed; only this management cluster's orphans older than the grace period may be", name)
		}
	}
	if got := testutil.ToFloat64(metrics.OrphanCounter("operator", OrphanKind)) - before; got != 2 {
		t.Errorf("orphan counter rose by %v, want 2", got)
	}
}

// TestSweeperWithoutManagementClusterIDSweepsNothing: a sweeper that does
// not know whose services are its own takes none, whatever their tags.
func TestSweeperWithoutManagementClusterIDSweepsNothing(t *testing.T) {
	w := newWorld(t)
	orphan := w.rawService("k8s-noid-private", oursIn("mc-a", "deleted-cluster", "private-router"))
	legacy := w.rawService("k8s-noid2-private", ours("deleted-cluster", "private-router"))
	s := w.sweeper(env.Client, "")
	for range 2 {
		if removed, err := s.Sweep(w.ctx); err != nil || len(removed) != 0 {
			t.Fatalf("sweep = %v, %v; want nothing", removed, err)
		}
		w.clk.Advance(11 * time.Minute)
	}
	if n := w.calls(describeSvcs).Total; n != 0 {
		t.Errorf("%d describes by a sweeper that cannot sweep, want 0", n)
	}
	left := w.serviceNames()
	if !slices.Contains(left, orphan) || !slices.Contains(left, legacy) {
		t.Errorf("services left = %v; want %s and %s kept", left, orphan, legacy)
	}
}

// TestTwoManagementClustersShareOneAccount: two management clusters (two
// API servers) in one account and region each serve a cluster; neither's
// sweeper takes the other's service (which its own API server knows
// nothing of), and an orphan of A is removed by A's sweeper only.
func TestTwoManagementClustersShareOneAccount(t *testing.T) {
	w := newWorld(t)
	envB := testenv.Start(t)
	const idA, idB = "mc-a-uid", "mc-b-uid"

	w.activeNLB("k8s-mca-private")
	w.activeNLB("k8s-mcb-private")
	crA := w.clusterIn(env).endpointService(t, "private-router", "k8s-mca-private")
	crB := w.clusterIn(envB).endpointService(t, "private-router", "k8s-mcb-private")
	w.settle(w.managementCluster(env.Client, idA), crA)
	w.settle(w.managementCluster(envB.Client, idB), crB)
	svcA, svcB := crA.Status.EndpointServiceName, crB.Status.EndpointServiceName
	if got := awscloud.TagMap(w.service(svcA).Tags)[hcplinkv1beta1.ManagementClusterTagKey]; got != idA {
		t.Errorf("A's service tagged %s=%q, want %q", hcplinkv1beta1.ManagementClusterTagKey, got, idA)
	}
	if got := awscloud.TagMap(w.service(svcB).Tags)[hcplinkv1beta1.ManagementClusterTagKey]; got != idB {
		t.Errorf("B's service tagged %s=%q, want %q", hcplinkv1beta1.ManagementClusterTagKey, got, idB)
	}
	orphanA := w.rawService("k8s-orphana-private", oursIn(idA, "gone-cluster", "private-router"))

	sweepA, sweepB := w.sweeper(env.Client, idA), w.sweeper(envB.Client, idB)
	var removedA, removedB []string
	for range 2 { // first sight, then past the grace period
		got, err := sweepA.Sweep(w.ctx)
		if err != nil {
			t.Fatalf("A's sweep: %v", err)
		}
		removedA = append(removedA, got...)
		got, err = sweepB.Sweep(w.ctx)
		if err != nil {
			t.Fatalf("B's sweep: %v", err)
		}
		removedB = append(removedB, got...)
		w.clk.Advance(11 * time.Minute)
	}
	if !slices.Equal(removedA, []string{orphanA}) {
		t.Errorf("A's sweeper removed %v, want only A's orphan %s", removedA, orphanA)
	}
	if len(removedB) != 0 {
		t.Errorf("B's sweeper removed %v, want nothing", removedB)
	}
	left := w.serviceNames()
	for name, whose := range map[string]string{svcA: "A's", svcB: "B's"} {
		if !slices.Contains(left, name) {
			t.Errorf("%s service %s was deleted", whose, name)
		}
	}
	if slices.Contains(left, orphanA) {
		t.Errorf("A's orphan %s is still there", orphanA)
	}
}
