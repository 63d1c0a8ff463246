package awsendpointservice

import (
	"context"
	"sort"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/listcache"
)

// Clock tells the time; sim.ManualClock and the real clock satisfy it.
type Clock interface{ Now() time.Time }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// DefaultErrorTTL is how long a failed listing is remembered, so that the
// workers of many objects throttled at once do not each repeat it.
const DefaultErrorTTL = 5 * time.Second

// DescribeCache batches the operator's reads of the management account:
// one paginated DescribeVpcEndpointServiceConfigurations and one
// DescribeLoadBalancers page-set per TTL serve every AWSEndpointService
// (karpenter-style batching). Concurrent callers share one listing in
// flight. An entry the operator changed (or that is in a transitional
// state) is read again by a targeted call instead of relisting everything.
type DescribeCache struct {
	// Provider makes the calls (its listing timeout bounds each listing).
	Provider *awscloud.EndpointServiceProvider
	// Clock tells the time (nil: the real clock).
	Clock Clock
	// TTL is how long a listing serves; the drift interval.
	TTL time.Duration
	// ErrorTTL is how long a failed listing is remembered (0: DefaultErrorTTL).
	ErrorTTL time.Duration

	services listcache.Batch[ec2types.ServiceConfiguration] // by service name
	lbs      listcache.Batch[elbv2types.LoadBalancer]       // by load balancer name
}

func (c *DescribeCache) now() time.Time {
	if c.Clock == nil {
		return time.Now()
	}
	return c.Clock.Now()
}

func (c *DescribeCache) errTTL() time.Duration {
	if c.ErrorTTL <= 0 {
		return DefaultErrorTTL
	}
	return c.ErrorTTL
}

func (c *DescribeCache) listServices(ctx context.Context) (map[string]ec2types.ServiceConfiguration, error) {
	return c.services.Get(ctx, c.now, c.TTL, c.errTTL(), func(ctx context.Context) (map[string]ec2types.ServiceConfiguration, error) {
		all, err := c.Provider.Services(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[string]ec2types.ServiceConfiguration, len(all))
		for _, s := range all {
			out[awssdk.ToString(s.ServiceName)] = s
		}
		return out, nil
	})
}

// settledService: a service the listing may be trusted on. Transitional
// states, and Deleted, are read again by a targeted call.
func settledService(s ec2types.ServiceConfiguration) bool {
	switch string(s.ServiceState) {
	case awscloud.ServiceStatePending, awscloud.ServiceStateDeleting, awscloud.ServiceStateDeleted:
		return false
	}
	return true
}

// Service returns the endpoint service named name, or nil when it does not
// exist. The listing answers for a settled service; a service the listing
// lacks (listings lag: it may predate the service, or AWS may list it late),
// or one in a transitional state or changed by the operator, is read by a
// targeted call, so that nil always means a targeted describe found nothing.
func (c *DescribeCache) Service(ctx context.Context, name string) (*ec2types.ServiceConfiguration, error) {
	items, err := c.listServices(ctx)
	if err != nil {
		return nil, err
	}
	if s, ok := items[name]; ok && !c.services.IsDirty(name) && settledService(s) {
		return &s, nil
	}
	found, err := c.Provider.ServiceByName(ctx, name)
	if err != nil {
		return nil, err
	}
	if found == nil {
		c.services.Forget(name)
		return nil, nil
	}
	c.services.Put(name, *found)
	return found, nil
}

// ServicesByTags returns the endpoint services tagged with the ownership
// pair of (infraID, crName), from the listing.
func (c *DescribeCache) ServicesByTags(ctx context.Context, infraID, crName string) ([]ec2types.ServiceConfiguration, error) {
	items, err := c.listServices(ctx)
	if err != nil {
		return nil, err
	}
	var out []ec2types.ServiceConfiguration
	for _, s := range items {
		if awscloud.OwnedBy(awscloud.TagMap(s.Tags), infraID, crName) {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return awssdk.ToString(out[i].ServiceName) < awssdk.ToString(out[j].ServiceName) })
	return out, nil
}

// ServiceByLoadBalancer re-lists the services (the listing may predate
// the one AWS says the NLB has) and returns the one on loadBalancerARN, or
// nil.
func (c *DescribeCache) ServiceByLoadBalancer(ctx context.Context, loadBalancerARN string) (*ec2types.ServiceConfiguration, error) {
	c.services.Expire()
	items, err := c.listServices(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range items {
		if awscloud.ServiceOnLoadBalancer(&s, loadBalancerARN) {
			return &s, nil
		}
	}
	return nil, nil
}

// Services returns every endpoint service of the account.
func (c *DescribeCache) Services(ctx context.Context) ([]ec2types.ServiceConfiguration, error) {
	items, err := c.listServices(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ec2types.ServiceConfiguration, 0, len(items))
	for _, s := range items {
		out = append(out, s)
	}
	return out, nil
}

// PutService records a service the operator just created or adopted.
func (c *DescribeCache) PutService(s ec2types.ServiceConfiguration) {
	c.services.Put(awssdk.ToString(s.ServiceName), s)
}

// InvalidateService makes the next read of the service a targeted call;
// used after the operator changed it.
func (c *DescribeCache) InvalidateService(name string) { c.services.Invalidate(name) }

// ForgetService drops a service the operator deleted.
func (c *DescribeCache) ForgetService(name string) { c.services.Forget(name) }

// LoadBalancer returns the load balancer named name, or nil when it does
// not exist. One not in the listing, or not active yet, is read by a
// targeted call (the listing may predate it).
func (c *DescribeCache) LoadBalancer(ctx context.Context, name string) (*elbv2types.LoadBalancer, error) {
	items, err := c.lbs.Get(ctx, c.now, c.TTL, c.errTTL(), func(ctx context.Context) (map[string]elbv2types.LoadBalancer, error) {
		all, err := c.Provider.LoadBalancers(ctx)
		if err != nil {
			return nil, err
		}
		out := make(map[string]elbv2types.LoadBalancer, len(all))
		for _, lb := range all {
			out[awssdk.ToString(lb.LoadBalancerName)] = lb
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	if lb, ok := items[name]; ok && lb.State != nil && lb.State.Code == elbv2types.LoadBalancerStateEnumActive {
		return &lb, nil
	}
	found, err := c.Provider.LoadBalancerByName(ctx, name)
	if err != nil {
		return nil, err
	}
	if found == nil {
		c.lbs.Forget(name)
		return nil, nil
	}
	c.lbs.Put(name, *found)
	return found, nil
}
