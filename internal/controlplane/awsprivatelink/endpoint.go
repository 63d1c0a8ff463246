package awsprivatelink

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ctrl "sigs.k8s.io/controller-runtime"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// stateIs compares an endpoint state case-insensitively: the API answers
// lower camel case ("pendingAcceptance"), the SDK's constants are upper.
func stateIs(state ec2types.State, want string) bool {
	return strings.EqualFold(string(state), want)
}

// isGone: the endpoint is deleting or deleted and will not serve again.
func isGone(state ec2types.State) bool {
	return stateIs(state, "deleting") || stateIs(state, "deleted")
}

// reconcileEndpoint finds, adopts or creates the VPC endpoint and keeps its
// subnets, our security group and its tags as wanted.
func (r *Reconciler) reconcileEndpoint(ctx context.Context, s *scope, subnets []ec2types.Subnet, svc serviceInfo) (*ec2types.VpcEndpoint, error) {
	cr := s.cr
	var ep *ec2types.VpcEndpoint
	if id := cr.Status.EndpointID; id != "" {
		out, err := r.EC2.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{id}}, s.ec2Region)
		switch {
		case awscloud.IsNotFound(err):
		case err != nil:
			return nil, fmt.Errorf("describing VPC endpoint %s: %w", id, err)
		case len(out.VpcEndpoints) == 1:
			ep = &out.VpcEndpoints[0]
		}
		switch {
		case ep == nil || isGone(ep.State):
			ctrl.LoggerFrom(ctx).Info("VPC endpoint is gone; creating a new one", "endpoint", id)
			if err := r.replaceEndpoint(ctx, s); err != nil {
				return nil, err
			}
			ep = nil
		case aws.ToString(ep.ServiceName) != cr.Status.EndpointServiceName:
			ctrl.LoggerFrom(ctx).Info("VPC endpoint points at another endpoint service; replacing it", "endpoint", id, "service", aws.ToString(ep.ServiceName))
			if _, err := r.EC2.DeleteVpcEndpoints(ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{id}}, s.ec2Region); err != nil && !awscloud.IsNotFound(err) {
				return nil, fmt.Errorf("deleting VPC endpoint %s of another service: %w", id, err)
			}
			if err := r.replaceEndpoint(ctx, s); err != nil {
				return nil, err
			}
			ep = nil
		}
	}
	if ep == nil {
		adopted, err := r.adoptEndpoint(ctx, s)
		if err != nil {
			return nil, err
		}
		ep = adopted
	}
	if ep == nil {
		created, err := r.createEndpoint(ctx, s, subnets, svc)
		if err != nil {
			return nil, err
		}
		return created, nil
	}
	if cr.Status.EndpointID != aws.ToString(ep.VpcEndpointId) {
		cr.Status.EndpointID = aws.ToString(ep.VpcEndpointId)
		if err := r.persist(ctx, s); err != nil {
			return nil, err
		}
	}
	if err := r.modifyEndpoint(ctx, s, ep, subnets, svc); err != nil {
		return nil, err
	}
	if err := r.syncTags(ctx, s, aws.ToString(ep.VpcEndpointId), awscloud.TagMap(ep.Tags)); err != nil {
		return nil, err
	}
	return ep, nil
}

// replaceEndpoint forgets the endpoint and raises the token generation so
// that the next create makes a new endpoint.
func (r *Reconciler) replaceEndpoint(ctx context.Context, s *scope) error {
	s.cr.Status.EndpointID = ""
	if err := r.persist(ctx, s); err != nil {
		return err
	}
	return r.patchAnnotation(ctx, s.cr, TokenGenerationAnnotation, strconv.FormatInt(tokenGeneration(s.cr)+1, 10))
}

// adoptEndpoint finds an endpoint of ours by the stable tag pair (cluster
// + endpoint service), in the VPC, to the same service; extra ones (should
// never exist) are deleted.
func (r *Reconciler) adoptEndpoint(ctx context.Context, s *scope) (*ec2types.VpcEndpoint, error) {
	filters := append(ownFilters(s), ec2types.Filter{Name: aws.String("service-name"), Values: []string{s.cr.Status.EndpointServiceName}})
	eps, err := r.listEndpoints(ctx, s, filters)
	if err != nil {
		return nil, err
	}
	var live []ec2types.VpcEndpoint
	for _, ep := range eps {
		if !isGone(ep.State) {
			live = append(live, ep)
		}
	}
	if len(live) == 0 {
		return nil, nil
	}
	sort.Slice(live, func(i, j int) bool {
		return aws.ToTime(live[i].CreationTimestamp).Before(aws.ToTime(live[j].CreationTimestamp))
	})
	for _, extra := range live[1:] {
		ctrl.LoggerFrom(ctx).Info("Deleting a duplicate VPC endpoint", "endpoint", aws.ToString(extra.VpcEndpointId))
		if _, err := r.EC2.DeleteVpcEndpoints(ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: []string{aws.ToString(extra.VpcEndpointId)}}, s.ec2Region); err != nil && !awscloud.IsNotFound(err) {
			return nil, fmt.Errorf("deleting duplicate VPC endpoint: %w", err)
		}
	}
	ctrl.LoggerFrom(ctx).Info("Adopted VPC endpoint found by its tags", "endpoint", aws.ToString(live[0].VpcEndpointId))
	return &live[0], nil
}

func (r *Reconciler) listEndpoints(ctx context.Context, s *scope, filters []ec2types.Filter) ([]ec2types.VpcEndpoint, error) {
	var out []ec2types.VpcEndpoint
	p := ec2.NewDescribeVpcEndpointsPaginator(r.EC2, &ec2.DescribeVpcEndpointsInput{Filters: filters})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx, s.ec2Region)
		if err != nil {
			return nil, fmt.Errorf("listing VPC endpoints by tag: %w", err)
		}
		out = append(out, page.VpcEndpoints...)
	}
	return out, nil
}

// createEndpoint creates the endpoint with the CR's ClientToken and writes
// its ID to status at once.
func (r *Reconciler) createEndpoint(ctx context.Context, s *scope, subnets []ec2types.Subnet, svc serviceInfo) (*ec2types.VpcEndpoint, error) {
	cr := s.cr
	out, err := r.EC2.CreateVpcEndpoint(ctx, &ec2.CreateVpcEndpointInput{
		VpcEndpointType:   ec2types.VpcEndpointTypeInterface,
		VpcId:             aws.String(cr.Status.VPCID),
		ServiceName:       aws.String(cr.Status.EndpointServiceName),
		SubnetIds:         subnetIDs(subnets),
		SecurityGroupIds:  []string{cr.Status.SecurityGroupID},
		PrivateDnsEnabled: aws.Bool(false),
		ClientToken:       aws.String(awscloud.ClientToken(clientTokenPurpose, string(cr.UID), tokenGeneration(cr))),
		TagSpecifications: awscloud.TagSpecifications(ec2types.ResourceTypeVpcEndpoint, s.desiredTags()),
	}, s.ec2Region)
	if err != nil {
		return nil, fmt.Errorf("creating VPC endpoint: %w", zoneError(err, subnets, svc))
	}
	ep := out.VpcEndpoint
	cr.Status.EndpointID = aws.ToString(ep.VpcEndpointId)
	ctrl.LoggerFrom(ctx).Info("Created VPC endpoint", "endpoint", cr.Status.EndpointID, "subnets", subnetIDs(subnets))
	if err := r.persist(ctx, s); err != nil {
		return nil, err
	}
	return ep, nil
}

// EndpointModification computes the ModifyVpcEndpoint change: subnets to
// add and remove, and our security group to add if missing. Groups the
// customer added are never removed.
func EndpointModification(haveSubnets, wantSubnets, haveGroups []string, ourGroup string) (addSubnets, removeSubnets, addGroups []string) {
	for _, sn := range wantSubnets {
		if !slices.Contains(haveSubnets, sn) {
			addSubnets = append(addSubnets, sn)
		}
	}
	for _, sn := range haveSubnets {
		if !slices.Contains(wantSubnets, sn) {
			removeSubnets = append(removeSubnets, sn)
		}
	}
	if ourGroup != "" && !slices.Contains(haveGroups, ourGroup) {
		addGroups = []string{ourGroup}
	}
	return addSubnets, removeSubnets, addGroups
}

func (r *Reconciler) modifyEndpoint(ctx context.Context, s *scope, ep *ec2types.VpcEndpoint, subnets []ec2types.Subnet, svc serviceInfo) error {
	var haveGroups []string
	for _, g := range ep.Groups {
		haveGroups = append(haveGroups, aws.ToString(g.GroupId))
	}
	add, remove, groups := EndpointModification(ep.SubnetIds, subnetIDs(subnets), haveGroups, s.cr.Status.SecurityGroupID)
	if len(add)+len(remove)+len(groups) == 0 {
		return nil
	}
	id := aws.ToString(ep.VpcEndpointId)
	if _, err := r.EC2.ModifyVpcEndpoint(ctx, &ec2.ModifyVpcEndpointInput{
		VpcEndpointId: aws.String(id), AddSubnetIds: add, RemoveSubnetIds: remove, AddSecurityGroupIds: groups,
	}, s.ec2Region); err != nil {
		return fmt.Errorf("modifying VPC endpoint %s: %w", id, zoneError(err, subnets, svc))
	}
	ctrl.LoggerFrom(ctx).Info("Modified VPC endpoint", "endpoint", id, "addSubnets", add, "removeSubnets", remove, "addSecurityGroups", groups)
	ep.SubnetIds = subnetIDs(subnets)
	return nil
}

// syncTags makes the resource's tags follow desiredTags, touching only keys
// we manage.
func (r *Reconciler) syncTags(ctx context.Context, s *scope, resourceID string, actual map[string]string) error {
	set, remove := awscloud.TagDiff(s.desiredTags(), actual, s.managedTag)
	if len(set) > 0 {
		if _, err := r.EC2.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{resourceID}, Tags: awscloud.EC2Tags(set)}, s.ec2Region); err != nil {
			return fmt.Errorf("tagging %s: %w", resourceID, err)
		}
	}
	if len(remove) > 0 {
		tags := make([]ec2types.Tag, 0, len(remove))
		for _, k := range remove {
			tags = append(tags, ec2types.Tag{Key: aws.String(k)})
		}
		if _, err := r.EC2.DeleteTags(ctx, &ec2.DeleteTagsInput{Resources: []string{resourceID}, Tags: tags}, s.ec2Region); err != nil {
			return fmt.Errorf("removing tags from %s: %w", resourceID, err)
		}
	}
	return nil
}
