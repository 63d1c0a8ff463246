package aws

import (
	"context"
	"errors"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// Error codes the endpoint-service provider's callers and tests name.
const (
	// CodeRequestLimitExceeded: EC2 throttled the caller.
	CodeRequestLimitExceeded = "RequestLimitExceeded"
	// CodeUnauthorizedOperation: EC2 refused the caller a permission.
	CodeUnauthorizedOperation = "UnauthorizedOperation"
)

// Timeouts of the provider's calls: one request, or a listing of every
// page of the account (longer: many pages).
const (
	DefaultCallTimeout = 20 * time.Second
	DefaultListTimeout = 60 * time.Second
)

// EndpointServiceProvider is the management account's VPC endpoint
// services and the network load balancers behind them: every EC2 and ELBv2
// call of the management operator's AWSEndpointService controller and its
// sweeper. Every error it returns is a classified *cloud.Error (Wrap).
type EndpointServiceProvider struct {
	EC2 EC2API
	ELB ELBV2API
	// CallTimeout bounds one request (zero: DefaultCallTimeout), so that a
	// hung call never holds a worker.
	CallTimeout time.Duration
	// ListTimeout bounds a listing of every page (zero: DefaultListTimeout).
	ListTimeout time.Duration
}

// NewEndpointServiceProvider returns a provider on the management
// account's clients.
func NewEndpointServiceProvider(ec2API EC2API, elbAPI ELBV2API) *EndpointServiceProvider {
	return &EndpointServiceProvider{EC2: ec2API, ELB: elbAPI}
}

func (p *EndpointServiceProvider) call(ctx context.Context) (context.Context, context.CancelFunc) {
	d := p.CallTimeout
	if d <= 0 {
		d = DefaultCallTimeout
	}
	return context.WithTimeout(ctx, d)
}

func (p *EndpointServiceProvider) list(ctx context.Context) (context.Context, context.CancelFunc) {
	d := p.ListTimeout
	if d <= 0 {
		d = DefaultListTimeout
	}
	return context.WithTimeout(ctx, d)
}

// Services lists every endpoint service of the account.
func (p *EndpointServiceProvider) Services(ctx context.Context) ([]ec2types.ServiceConfiguration, error) {
	ctx, cancel := p.list(ctx)
	defer cancel()
	all, err := ListEndpointServiceConfigurations(ctx, p.EC2)
	return all, Wrap("listing endpoint services", err)
}

// ServiceByName reads one endpoint service by a targeted describe
// (service-name filter); nil when it does not exist. Unlike a batched
// listing, its answer is the present.
func (p *EndpointServiceProvider) ServiceByName(ctx context.Context, name string) (*ec2types.ServiceConfiguration, error) {
	ctx, cancel := p.call(ctx)
	defer cancel()
	found, err := ListEndpointServiceConfigurations(ctx, p.EC2, Filter("service-name", name))
	if err != nil {
		return nil, Wrap("describing endpoint service "+name, err)
	}
	if len(found) == 0 {
		return nil, nil
	}
	return &found[0], nil
}

// ServicesByOwner lists the endpoint services tagged with the ownership
// pair of (infraID, crName) by a targeted describe.
func (p *EndpointServiceProvider) ServicesByOwner(ctx context.Context, infraID, crName string) ([]ec2types.ServiceConfiguration, error) {
	ctx, cancel := p.call(ctx)
	defer cancel()
	found, err := ListEndpointServiceConfigurations(ctx, p.EC2, OwnershipFilters(infraID, crName)...)
	return found, Wrap("listing the endpoint services tagged for "+crName, err)
}

// LoadBalancers lists every load balancer of the account.
func (p *EndpointServiceProvider) LoadBalancers(ctx context.Context) ([]elbv2types.LoadBalancer, error) {
	ctx, cancel := p.list(ctx)
	defer cancel()
	all, err := ListLoadBalancers(ctx, p.ELB)
	return all, Wrap("listing load balancers", err)
}

// LoadBalancerByName reads one load balancer; nil when it does not exist.
func (p *EndpointServiceProvider) LoadBalancerByName(ctx context.Context, name string) (*elbv2types.LoadBalancer, error) {
	ctx, cancel := p.call(ctx)
	defer cancel()
	found, err := ListLoadBalancers(ctx, p.ELB, name)
	if IsNotFound(err) || (err == nil && len(found) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("describing load balancer "+name, err)
	}
	return &found[0], nil
}

// CreateService publishes the network load balancer nlbARN as an endpoint
// service that accepts connections without approval, tagged at creation.
// clientToken makes a repeated create return the same service. When the
// load balancer already backs a service, AWS answers InvalidParameter
// (see IsLoadBalancerInUse).
func (p *EndpointServiceProvider) CreateService(ctx context.Context, nlbARN, clientToken string, tags map[string]string) (*ec2types.ServiceConfiguration, error) {
	ctx, cancel := p.call(ctx)
	defer cancel()
	out, err := p.EC2.CreateVpcEndpointServiceConfiguration(ctx, &ec2.CreateVpcEndpointServiceConfigurationInput{
		AcceptanceRequired:      awssdk.Bool(false),
		NetworkLoadBalancerArns: []string{nlbARN},
		ClientToken:             awssdk.String(clientToken),
		TagSpecifications:       TagSpecifications(ec2types.ResourceTypeVpcEndpointService, tags),
	})
	if err != nil {
		return nil, Wrap("creating the endpoint service", err)
	}
	if out.ServiceConfiguration == nil {
		return nil, Wrap("creating the endpoint service", errors.New("AWS returned no service configuration"))
	}
	return out.ServiceConfiguration, nil
}

// IsLoadBalancerInUse reports whether a create failed because the load
// balancer (probably) already backs an endpoint service: AWS says so with
// the general InvalidParameter code, so the caller confirms by listing.
func IsLoadBalancerInUse(err error) bool {
	return ErrorCode(err) == CodeInvalidParameter
}

// AllowedPrincipals returns the principals allowed to connect to the
// endpoint service serviceID, sorted.
func (p *EndpointServiceProvider) AllowedPrincipals(ctx context.Context, serviceID string) ([]string, error) {
	ctx, cancel := p.call(ctx)
	defer cancel()
	got, err := ListAllowedPrincipals(ctx, p.EC2, serviceID)
	return got, Wrap("reading the allowed principals of endpoint service "+serviceID, err)
}

// SetPrincipals adds and removes allowed principals of serviceID; nothing
// is called when both are empty.
func (p *EndpointServiceProvider) SetPrincipals(ctx context.Context, serviceID string, add, remove []string) error {
	if len(add) == 0 && len(remove) == 0 {
		return nil
	}
	ctx, cancel := p.call(ctx)
	defer cancel()
	in := &ec2.ModifyVpcEndpointServicePermissionsInput{ServiceId: awssdk.String(serviceID)}
	if len(add) > 0 {
		in.AddAllowedPrincipals = add
	}
	if len(remove) > 0 {
		in.RemoveAllowedPrincipals = remove
	}
	_, err := p.EC2.ModifyVpcEndpointServicePermissions(ctx, in)
	return Wrap("changing the allowed principals of endpoint service "+serviceID, err)
}

// SetTags sets tags on serviceID and removes the keys in remove; nothing
// is called for an empty half.
func (p *EndpointServiceProvider) SetTags(ctx context.Context, serviceID string, set map[string]string, remove []string) error {
	ctx, cancel := p.call(ctx)
	defer cancel()
	if len(set) > 0 {
		if _, err := p.EC2.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{serviceID}, Tags: EC2Tags(set)}); err != nil {
			return Wrap("tagging endpoint service "+serviceID, err)
		}
	}
	if len(remove) > 0 {
		keys := make([]ec2types.Tag, 0, len(remove))
		for _, k := range remove {
			keys = append(keys, ec2types.Tag{Key: awssdk.String(k)})
		}
		if _, err := p.EC2.DeleteTags(ctx, &ec2.DeleteTagsInput{Resources: []string{serviceID}, Tags: keys}); err != nil {
			return Wrap("removing tags from endpoint service "+serviceID, err)
		}
	}
	return nil
}

// DeleteService deletes the endpoint service serviceID. While consumer
// endpoints are connected AWS refuses; then it rejects those that hold the
// service and tries once more. gone is true when the service no longer
// exists (already gone included); otherwise connections says how many
// consumer connections remain.
func (p *EndpointServiceProvider) DeleteService(ctx context.Context, serviceID string) (gone bool, connections int, err error) {
	ctx, cancel := p.call(ctx)
	defer cancel()
	doing := "deleting endpoint service " + serviceID
	err = DeleteEndpointService(ctx, p.EC2, serviceID)
	if err == nil || IsNotFound(err) {
		return true, 0, nil
	}
	if ErrorCode(err) != CodeExistingVpcEndpointConnections {
		return false, 0, Wrap(doing, err)
	}
	conns, err := ListEndpointConnections(ctx, p.EC2, serviceID)
	if err != nil {
		return false, 0, Wrap("reading the connections of endpoint service "+serviceID, err)
	}
	var reject []string
	for _, c := range conns {
		if ConnectionNeedsRejection(c.VpcEndpointState) {
			reject = append(reject, awssdk.ToString(c.VpcEndpointId))
		}
	}
	if err := RejectEndpointConnections(ctx, p.EC2, serviceID, reject); err != nil && !IsNotFound(err) {
		return false, 0, Wrap("rejecting the connections of endpoint service "+serviceID, err)
	}
	err = DeleteEndpointService(ctx, p.EC2, serviceID)
	if err == nil || IsNotFound(err) {
		return true, 0, nil
	}
	if ErrorCode(err) == CodeExistingVpcEndpointConnections {
		return false, len(conns), nil
	}
	return false, 0, Wrap(doing, err)
}

// ServiceOnLoadBalancer reports whether svc is published on the load
// balancer arn.
func ServiceOnLoadBalancer(svc *ec2types.ServiceConfiguration, arn string) bool {
	for _, a := range svc.NetworkLoadBalancerArns {
		if a == arn {
			return true
		}
	}
	return false
}
