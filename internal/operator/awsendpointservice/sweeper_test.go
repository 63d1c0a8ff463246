package awsendpointservice

import (
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/prometheus/client_golang/prometheus/testutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
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

func TestSweeperRemovesOnlyOrphans(t *testing.T) {
	w := newWorld(t)
	w.activeNLB("k8s-kept-private")
	c := w.cluster()
	cr := c.endpointService(t, "private-router", "k8s-kept-private")
	w.settle(w.reconciler(), cr)
	kept := cr.Status.EndpointServiceName

	orphan := w.rawService("k8s-orphan-private", ours("deleted-cluster", "private-router"))
	foreign := w.rawService("k8s-foreign-private", nil)
	sameNameOtherCluster := w.rawService("k8s-other-private", ours("other-gone", "kube-apiserver-private"))

	cache := &DescribeCache{EC2: w.ec2, ELB: w.elb, Clock: w.clk, TTL: testDrift}
	s := &Sweeper{Reader: env.Client, EC2: w.ec2, Cache: cache, Clock: w.clk, GracePeriod: 10 * time.Minute}
	before := testutil.ToFloat64(orphansDeleted)

	removed, err := s.Sweep(w.ctx)
	if err != nil || len(removed) != 0 {
		t.Fatalf("first sweep = %v, %v; want nothing removed (candidates only just seen)", removed, err)
	}

	w.clk.Advance(11 * time.Minute)
	young := w.rawService("k8s-young-private", ours("new-cluster", "private-router"))
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
	var left []string
	for _, svc := range w.services() {
		left = append(left, aws.ToString(svc.ServiceName))
	}
	for _, name := range []string{kept, foreign, young} {
		if !slices.Contains(left, name) {
			t.Errorf("service %s was removed; only orphans older than the grace period may be", name)
		}
	}
	if got := testutil.ToFloat64(orphansDeleted) - before; got != 2 {
		t.Errorf("orphan counter rose by %v, want 2", got)
	}
}
