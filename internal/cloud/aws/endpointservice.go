package aws

import (
	"context"
	"fmt"
	"sort"
	"strings"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
)

// Endpoint-service helpers of the management operator: paginated reads of
// the management account's endpoint services, their permissions and
// connections, and of its load balancers; and the error codes the operator
// decides on.

// Error codes of endpoint-service calls the operator acts on.
const (
	// CodeExistingVpcEndpointConnections: a service cannot be deleted while
	// consumer endpoints are connected; reject them first.
	CodeExistingVpcEndpointConnections = "ExistingVpcEndpointConnections"
	// CodeInvalidParameter: among others, the NLB already backs a service,
	// or a subnet lies in a zone the service does not serve.
	CodeInvalidParameter = "InvalidParameter"
	// CodeDependencyViolation: a security group is still used (by the
	// endpoint's network interfaces while the endpoint is deleted).
	CodeDependencyViolation = "DependencyViolation"
	// CodeInvalidServiceName: the endpoint service is not visible to the
	// caller's account (not allowed yet, or gone).
	CodeInvalidServiceName = "InvalidServiceName"
	// CodeNoSuchHostedZone: the Route 53 zone is gone.
	CodeNoSuchHostedZone = "NoSuchHostedZone"
	// CodeConflictingDomainExists: a VPC already has a private zone of
	// that name (Route 53 allows one per name and VPC).
	CodeConflictingDomainExists = "ConflictingDomainExists"
	// CodeDuplicatePermission: an ingress rule that already exists.
	CodeDuplicatePermission = "InvalidPermission.Duplicate"
	// CodeDuplicateGroup: a security group of that name exists in the VPC.
	CodeDuplicateGroup = "InvalidGroup.Duplicate"
	// CodeSubnetNotFound: a subnet the request names does not exist.
	CodeSubnetNotFound = "InvalidSubnetID.NotFound"
)

// Endpoint service states (ec2types.ServiceState) and VPC endpoint states as
// the service owner sees them on a connection.
const (
	ServiceStatePending   = "Pending"
	ServiceStateAvailable = "Available"
	ServiceStateDeleting  = "Deleting"
	ServiceStateDeleted   = "Deleted"
	ServiceStateFailed    = "Failed"
)

// ListEndpointServiceConfigurations returns every endpoint service of the
// account that matches filters (none: all), reading every page.
func ListEndpointServiceConfigurations(ctx context.Context, api EC2API, filters ...ec2types.Filter) ([]ec2types.ServiceConfiguration, error) {
	in := &ec2.DescribeVpcEndpointServiceConfigurationsInput{MaxResults: awssdk.Int32(1000)}
	if len(filters) > 0 {
		in.Filters = filters
	}
	var out []ec2types.ServiceConfiguration
	p := ec2.NewDescribeVpcEndpointServiceConfigurationsPaginator(api, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing VPC endpoint service configurations: %w", err)
		}
		out = append(out, page.ServiceConfigurations...)
	}
	return out, nil
}

// ListLoadBalancers returns every load balancer of the account, reading
// every page; with names, only those (a name that does not exist fails the
// call with LoadBalancerNotFound).
func ListLoadBalancers(ctx context.Context, api ELBV2API, names ...string) ([]elbv2types.LoadBalancer, error) {
	in := &elbv2.DescribeLoadBalancersInput{}
	if len(names) > 0 {
		in.Names = names
	} else {
		in.PageSize = awssdk.Int32(400)
	}
	var out []elbv2types.LoadBalancer
	p := elbv2.NewDescribeLoadBalancersPaginator(api, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing load balancers: %w", err)
		}
		out = append(out, page.LoadBalancers...)
	}
	return out, nil
}

// ListAllowedPrincipals returns the principals allowed to connect to the
// endpoint service serviceID, sorted.
func ListAllowedPrincipals(ctx context.Context, api EC2API, serviceID string) ([]string, error) {
	p := ec2.NewDescribeVpcEndpointServicePermissionsPaginator(api, &ec2.DescribeVpcEndpointServicePermissionsInput{
		ServiceId: awssdk.String(serviceID), MaxResults: awssdk.Int32(1000)})
	var out []string
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing the permissions of endpoint service %s: %w", serviceID, err)
		}
		for _, a := range page.AllowedPrincipals {
			out = append(out, awssdk.ToString(a.Principal))
		}
	}
	sort.Strings(out)
	return out, nil
}

// ListEndpointConnections returns the consumer endpoints connected to the
// endpoint service serviceID, in every state.
func ListEndpointConnections(ctx context.Context, api EC2API, serviceID string) ([]ec2types.VpcEndpointConnection, error) {
	p := ec2.NewDescribeVpcEndpointConnectionsPaginator(api, &ec2.DescribeVpcEndpointConnectionsInput{
		Filters:    []ec2types.Filter{{Name: awssdk.String("service-id"), Values: []string{serviceID}}},
		MaxResults: awssdk.Int32(1000),
	})
	var out []ec2types.VpcEndpointConnection
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing the connections of endpoint service %s: %w", serviceID, err)
		}
		out = append(out, page.VpcEndpointConnections...)
	}
	return out, nil
}

// DeleteEndpointService deletes one endpoint service. A per-item failure
// (EC2 answers 200 with an unsuccessful item) comes back as an error with
// the item's code, so that Classify and ErrorCode work on it:
// ExistingVpcEndpointConnections while consumers are connected,
// InvalidVpcEndpointService.NotFound when it is gone.
func DeleteEndpointService(ctx context.Context, api EC2API, serviceID string) error {
	out, err := api.DeleteVpcEndpointServiceConfigurations(ctx, &ec2.DeleteVpcEndpointServiceConfigurationsInput{ServiceIds: []string{serviceID}})
	if err != nil {
		return fmt.Errorf("deleting endpoint service %s: %w", serviceID, err)
	}
	return unsuccessful("deleting endpoint service "+serviceID, out.Unsuccessful)
}

// RejectEndpointConnections rejects consumer endpoints of serviceID.
func RejectEndpointConnections(ctx context.Context, api EC2API, serviceID string, endpointIDs []string) error {
	if len(endpointIDs) == 0 {
		return nil
	}
	out, err := api.RejectVpcEndpointConnections(ctx, &ec2.RejectVpcEndpointConnectionsInput{ServiceId: awssdk.String(serviceID), VpcEndpointIds: endpointIDs})
	if err != nil {
		return fmt.Errorf("rejecting the connections of endpoint service %s: %w", serviceID, err)
	}
	return unsuccessful("rejecting the connections of endpoint service "+serviceID, out.Unsuccessful)
}

// unsuccessful turns the first unsuccessful item into a typed error.
func unsuccessful(what string, items []ec2types.UnsuccessfulItem) error {
	for _, it := range items {
		if it.Error == nil {
			continue
		}
		return fmt.Errorf("%s: %s: %w", what, awssdk.ToString(it.ResourceId), &smithy.GenericAPIError{
			Code: awssdk.ToString(it.Error.Code), Message: awssdk.ToString(it.Error.Message), Fault: smithy.FaultClient})
	}
	return nil
}

// ConnectionNeedsRejection reports whether a consumer endpoint in state
// still holds the service: pendingAcceptance, pending or available.
func ConnectionNeedsRejection(state ec2types.State) bool {
	switch strings.ToLower(string(state)) {
	case "pendingacceptance", "pending", "available":
		return true
	}
	return false
}

// ConnectionTransitional reports whether a consumer endpoint is on its way
// out (deleting, rejected, partial, failed...), so that deletion waits and
// retries rather than rejecting it again.
func ConnectionTransitional(state ec2types.State) bool {
	switch strings.ToLower(string(state)) {
	case "deleting", "partial":
		return true
	}
	return false
}

// PrincipalWithoutPath returns an IAM role or user ARN without its IAM
// path, the form endpoint-service permissions compare:
// arn:aws:iam::123456789012:role/a/b/name → arn:aws:iam::123456789012:role/name.
// Other ARNs (account roots) come back unchanged.
func PrincipalWithoutPath(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[2] != "iam" {
		return arn
	}
	resource := parts[5]
	kind, rest, ok := strings.Cut(resource, "/")
	if !ok || (kind != "role" && kind != "user") {
		return arn
	}
	if i := strings.LastIndex(rest, "/"); i >= 0 {
		rest = rest[i+1:]
	}
	parts[5] = kind + "/" + rest
	return strings.Join(parts, ":")
}
