package aws

import (
	"context"
	"slices"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// maxTagARNs is how many load balancers one DescribeTags call takes.
const maxTagARNs = 20

// deleteLoadBalancers deletes the load balancers tagged for the cluster —
// those the guest cluster's Services of type LoadBalancer made in the VPC —
// and waits until they are gone: they hold subnets and security groups.
func (r *run) deleteLoadBalancers(ctx context.Context) ([]string, error) {
	found, err := r.ownedLoadBalancers(ctx)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	var left []string
	for _, arn := range found {
		left = append(left, "load balancer "+arn)
		if _, err := r.c.ELBV2.DeleteLoadBalancer(ctx, &elbv2.DeleteLoadBalancerInput{LoadBalancerArn: awssdk.String(arn)}); !gone(err) {
			return left, awscloud.Wrap("deleting load balancer "+arn, err)
		}
		r.say.Done("deleting", "load balancer", arn, "")
	}
	return left, r.waitGone(ctx, "load balancers", r.ownedLoadBalancers)
}

// ownedLoadBalancers are the ARNs of the region's load balancers tagged
// for the cluster.
func (r *run) ownedLoadBalancers(ctx context.Context) ([]string, error) {
	lbs, err := awscloud.ListLoadBalancers(ctx, r.c.ELBV2)
	if err != nil {
		return nil, awscloud.Wrap("listing load balancers", err)
	}
	arns := make([]string, 0, len(lbs))
	for _, lb := range lbs {
		arns = append(arns, awssdk.ToString(lb.LoadBalancerArn))
	}
	var owned []string
	key := hcplinkv1beta1.ClusterTagKey(r.opts.InfraID)
	for chunk := range slices.Chunk(arns, maxTagARNs) {
		out, err := r.c.ELBV2.DescribeTags(ctx, &elbv2.DescribeTagsInput{ResourceArns: chunk})
		if err != nil {
			return nil, awscloud.Wrap("reading load balancers' tags", err)
		}
		for _, d := range out.TagDescriptions {
			for _, t := range d.Tags {
				if awssdk.ToString(t.Key) == key && awssdk.ToString(t.Value) == hcplinkv1beta1.ClusterTagValueOwned {
					owned = append(owned, awssdk.ToString(d.ResourceArn))
				}
			}
		}
	}
	return owned, nil
}
