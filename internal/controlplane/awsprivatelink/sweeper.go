package awsprivatelink

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

const (
	// DefaultSweepInterval: orphans are rare (a lost CR, a crash in
	// deletion); a sweep every half hour costs two Describe calls.
	DefaultSweepInterval = 30 * time.Minute
	// DefaultSweepGrace protects an endpoint created a moment before its
	// CR became visible in the cache.
	DefaultSweepGrace = 15 * time.Minute
)

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
}

// Start runs sweeps until ctx ends (a manager Runnable).
func (s *Sweeper) Start(ctx context.Context) error {
	interval := s.Interval
	if interval <= 0 {
		interval = DefaultSweepInterval
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(jitter(interval)):
		}
		if err := s.Sweep(ctx); err != nil {
			ctrl.LoggerFrom(ctx).Info("Sweeping orphaned VPC endpoints failed; trying again at the next sweep", "reason", awscloud.ErrorMessage(err))
		}
	}
}

// NeedLeaderElection: the control-plane operator runs without election.
func (s *Sweeper) NeedLeaderElection() bool { return false }

// Sweep makes one pass.
func (s *Sweeper) Sweep(ctx context.Context) error {
	hcp, err := findHostedControlPlane(ctx, s.Client, s.Namespace, nil)
	if err != nil || hcp == nil || hcp.Spec.Platform.AWS == nil || hcp.Spec.InfraID == "" {
		return err
	}
	region := regionOption(hcp.Spec.Platform.AWS.Region)
	filters := []ec2types.Filter{
		{Name: aws.String("tag:" + hcplinkv1beta1.ClusterTagKey(hcp.Spec.InfraID)), Values: []string{hcplinkv1beta1.ClusterTagValueOwned}},
		{Name: aws.String("tag-key"), Values: []string{hcplinkv1beta1.EndpointServiceTagKey}},
	}
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

	livingEndpointOf := map[string]bool{} // endpoint-service tag values that still have an endpoint
	p := ec2.NewDescribeVpcEndpointsPaginator(s.EC2, &ec2.DescribeVpcEndpointsInput{Filters: filters})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx, region)
		if err != nil {
			return fmt.Errorf("listing the cluster's VPC endpoints: %w", err)
		}
		for _, ep := range page.VpcEndpoints {
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
			if _, err := s.EC2.DeleteVpcEndpoints(ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{id}}, region); err != nil && !awscloud.IsNotFound(err) {
				return fmt.Errorf("deleting orphaned VPC endpoint %s: %w", id, err)
			}
			ctrl.LoggerFrom(ctx).Info("Deleted orphaned VPC endpoint", "endpoint", id, "awsEndpointService", name)
		}
	}

	sgs := ec2.NewDescribeSecurityGroupsPaginator(s.EC2, &ec2.DescribeSecurityGroupsInput{Filters: filters})
	for sgs.HasMorePages() {
		page, err := sgs.NextPage(ctx, region)
		if err != nil {
			return fmt.Errorf("listing the cluster's security groups: %w", err)
		}
		for _, sg := range page.SecurityGroups {
			name := awscloud.TagMap(sg.Tags)[hcplinkv1beta1.EndpointServiceTagKey]
			isOrphan, err := orphan(name)
			if err != nil {
				return err
			}
			if !isOrphan || livingEndpointOf[name] {
				continue // claimed, or its endpoint goes first
			}
			id := aws.ToString(sg.GroupId)
			_, err = s.EC2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(id)}, region)
			switch {
			case awscloud.ErrorCode(err) == "DependencyViolation":
				continue // something still uses it; next sweep
			case err != nil && !awscloud.IsNotFound(err):
				return fmt.Errorf("deleting orphaned security group %s: %w", id, err)
			}
			ctrl.LoggerFrom(ctx).Info("Deleted orphaned security group", "securityGroup", id, "awsEndpointService", name)
		}
	}
	return nil
}
