package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// loadBalancerFor returns the NLB in the management account whose DNS name
// the Service carries in its status, and checks it is active.
func loadBalancerFor(ctx context.Context, namespace, service string) (*elbv2types.LoadBalancer, error) {
	var svc corev1.Service
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: service}, &svc); err != nil {
		return nil, fmt.Errorf("service %s: %w", service, err)
	}
	if len(svc.Status.LoadBalancer.Ingress) == 0 || svc.Status.LoadBalancer.Ingress[0].Hostname == "" {
		return nil, fmt.Errorf("service %s has no load-balancer hostname in status yet", service)
	}
	hostname := svc.Status.LoadBalancer.Ingress[0].Hostname
	lbs, err := allLoadBalancers(ctx)
	if err != nil {
		return nil, err
	}
	for i := range lbs {
		if aws.ToString(lbs[i].DNSName) == hostname {
			if lbs[i].State == nil || lbs[i].State.Code != elbv2types.LoadBalancerStateEnumActive {
				return nil, fmt.Errorf("NLB %s for %s is not active", aws.ToString(lbs[i].LoadBalancerName), service)
			}
			return &lbs[i], nil
		}
	}
	return nil, fmt.Errorf("service %s names %s, but the management account has no such NLB", service, hostname)
}

func allLoadBalancers(ctx context.Context) ([]elbv2types.LoadBalancer, error) {
	var out []elbv2types.LoadBalancer
	pages := elbv2.NewDescribeLoadBalancersPaginator(elbv2.NewFromConfig(env.ManagementAWS), &elbv2.DescribeLoadBalancersInput{})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing NLBs: %w", err)
		}
		out = append(out, page.LoadBalancers...)
	}
	return out, nil
}

// loadBalancerGone checks that no NLB with the given DNS name remains.
func loadBalancerGone(ctx context.Context, dnsName string) error {
	lbs, err := allLoadBalancers(ctx)
	if err != nil {
		return err
	}
	for _, lb := range lbs {
		if aws.ToString(lb.DNSName) == dnsName {
			return fmt.Errorf("NLB %s (%s) still exists", aws.ToString(lb.LoadBalancerName), lb.State.Code)
		}
	}
	return nil
}

// loadBalancersOfNamespace lists the NLBs the load-balancer stand-in made
// for Services of one namespace (it tags them with the Service's name).
func loadBalancersOfNamespace(ctx context.Context, namespace string) ([]string, error) {
	lbs, err := allLoadBalancers(ctx)
	if err != nil {
		return nil, err
	}
	client := elbv2.NewFromConfig(env.ManagementAWS)
	var names []string
	for _, lb := range lbs {
		tags, err := client.DescribeTags(ctx, &elbv2.DescribeTagsInput{ResourceArns: []string{aws.ToString(lb.LoadBalancerArn)}})
		var notFound *elbv2types.LoadBalancerNotFoundException
		if errors.As(err, &notFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, d := range tags.TagDescriptions {
			for _, tag := range d.Tags {
				if aws.ToString(tag.Key) == "kubernetes.io/service-name" && strings.HasPrefix(aws.ToString(tag.Value), namespace+"/") {
					names = append(names, aws.ToString(lb.LoadBalancerName))
				}
			}
		}
	}
	return names, nil
}
