package awsprivatelink

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/metrics"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

const (
	// DefaultSweepInterval: see intervals.AWSEndpointSweep.
	DefaultSweepInterval = intervals.AWSEndpointSweep
	// DefaultSweepGrace protects an endpoint created a moment before its
	// CR became visible in the cache.
	DefaultSweepGrace = 15 * time.Minute
)

// sweeperComponent labels the sweeper's finds in
// hcplink_orphans_deleted_total.
const sweeperComponent = "control-plane-operator"

// Sweeper removes VPC endpoints and security groups tagged for this
// namespace's cluster whose hcplink.io/endpoint-service tag names no
// AWSEndpointService in the namespace: the endpoint first, the group once
// the endpoint is gone.
type Sweeper struct {
	Client    client.Client // reads the namespace (HostedControlPlane, AWSEndpointServices)
	EC2       awscloud.EC2API
	Namespace string
	Interval  time.Duration // zero: DefaultSweepInterval, jittered
	Grace     time.Duration // zero: DefaultSweepGrace
	Now       func() time.Time
	// Events tells, on the HostedControlPlane, of each orphan removed; nil
	// tells nothing.
	Events *events.Recorder
}

// Start runs sweeps until ctx ends (a manager Runnable).
func (s *Sweeper) Start(ctx context.Context) error {
	return s.loop().Start(ctx)
}

// NeedLeaderElection: the control-plane operator runs without election.
func (s *Sweeper) NeedLeaderElection() bool { return s.loop().NeedLeaderElection() }

func (s *Sweeper) loop() reconcilekit.Periodic {
	interval := s.Interval
	if interval <= 0 {
		interval = DefaultSweepInterval
	}
	return reconcilekit.Periodic{Interval: interval, Timeout: passTimeout, Run: s.Sweep,
		Failed: "Sweeping orphaned VPC endpoints failed; trying again at the next sweep"}
}

// Sweep makes one pass.
func (s *Sweeper) Sweep(ctx context.Context) error {
	hcp, err := hcpref.Find(ctx, s.Client, s.Namespace, nil)
	if err != nil || hcp == nil || hcp.Spec.Platform.AWS == nil || hcp.Spec.InfraID == "" {
		return err
	}
	region := hcp.Spec.Platform.AWS.Region
	endpoints := awscloud.VPCEndpoints{EC2: s.EC2, Region: region}
	groups := awscloud.SecurityGroups{EC2: s.EC2, Region: region}
	filters := awscloud.ClusterFilters(hcp.Spec.InfraID)
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	grace := s.Grace
	if grace <= 0 {
		grace = DefaultSweepGrace
	}
	claimed := map[string]bool{}
	orphan := func(name string) (bool, error) {
		if v, ok := claimed[name]; ok {
			return !v, nil
		}
		err := s.Client.Get(ctx, types.NamespacedName{Namespace: s.Namespace, Name: name}, &hcplinkv1beta1.AWSEndpointService{})
		if apierrors.IsNotFound(err) {
			claimed[name] = false
			return true, nil
		}
		if err != nil {
			return false, err
		}
		claimed[name] = true
		return false, nil
	}

	eps, err := endpoints.List(ctx, filters)
	if err != nil {
		return err
	}
	livingEndpointOf := map[string]bool{} // endpoint-service tag values that still have an endpoint
	for _, ep := range eps {
		name := awscloud.TagMap(ep.Tags)[hcplinkv1beta1.EndpointServiceTagKey]
		isOrphan, err := orphan(name)
		if err != nil {
			return err
		}
		if !isOrphan {
			continue
		}
		livingEndpointOf[name] = true
		if isGone(ep.State) || now.Sub(aws.ToTime(ep.CreationTimestamp)) < grace {
			continue
		}
		id := aws.ToString(ep.VpcEndpointId)
		if err := endpoints.Delete(ctx, id); err != nil {
			return err
		}
		ctrl.LoggerFrom(ctx).Info("Deleted orphaned VPC endpoint", "endpoint", id, "awsEndpointService", name)
		s.Events.Swept(hcp, "VPC endpoint", id)
		metrics.OrphanDeleted(sweeperComponent, "vpc_endpoint")
	}

	sgs, err := groups.List(ctx, filters)
	if err != nil {
		return err
	}
	for _, sg := range sgs {
		name := awscloud.TagMap(sg.Tags)[hcplinkv1beta1.EndpointServiceTagKey]
		isOrphan, err := orphan(name)
		if err != nil {
			return err
		}
		if !isOrphan || livingEndpointOf[name] {
			continue // claimed, or its endpoint goes first
		}
		id := aws.ToString(sg.GroupId)
		err = groups.Delete(ctx, sg)
		switch {
		case cloud.ClassOf(err) == cloud.ClassDependency:
			continue // something still uses it; next sweep
		case err != nil:
			return err
		}
		ctrl.LoggerFrom(ctx).Info("Deleted orphaned security group", "securityGroup", id, "awsEndpointService", name)
		s.Events.Swept(hcp, "security group", id)
		metrics.OrphanDeleted(sweeperComponent, "security_group")
	}
	return nil
}
