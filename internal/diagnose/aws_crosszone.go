package diagnose

import (
	"context"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
)

// crossZoneAttribute is the NLB attribute that spreads traffic over zones.
const crossZoneAttribute = "load_balancing.cross_zone.enabled"

// crossZone reads whether the NLB balances across zones; nil when unknown.
func crossZone(ctx context.Context, acct AWSAccount, arn string) *bool {
	out, err := acct.ELB.DescribeLoadBalancerAttributes(ctx, &elbv2.DescribeLoadBalancerAttributesInput{LoadBalancerArn: awssdk.String(arn)})
	if err != nil {
		return nil
	}
	for _, a := range out.Attributes {
		if awssdk.ToString(a.Key) == crossZoneAttribute {
			on := awssdk.ToString(a.Value) == "true"
			return &on
		}
	}
	off := false // AWS's default for a network load balancer
	return &off
}
