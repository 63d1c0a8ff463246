package awsprivatelink

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ctrl "sigs.k8s.io/controller-runtime"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/outcome"
)

// stateIs compares an endpoint state case-insensitively.
func stateIs(state ec2types.State, want string) bool { return awscloud.EndpointStateIs(state, want) }

// isGone: the endpoint is deleting or deleted and will not serve again.
func isGone(state ec2types.State) bool { return awscloud.EndpointGone(state) }

// reconcileEndpoint finds, adopts or creates the VPC endpoint and keeps its
// subnets (one per zone, in the zones the service accepts), our security
// group and its tags as wanted.
func (r *Reconciler) reconcileEndpoint(ctx context.Context, s *scope, subnets []ec2types.Subnet, svc serviceInfo) (*ec2types.VpcEndpoint, outcome.Outcome) {
	ep, err := r.currentEndpoint(ctx, s)
	if errors.Is(err, errEndpointNotShownYet) {
		return nil, outcome.Wait(hcplinkv1beta1.EndpointPendingReason,
			"The VPC endpoint "+s.cr.Status.EndpointID+" was just created and EC2 does not show it yet; looking again shortly.", endpointVisibilityRecheck)
	}
	if err != nil {
		return nil, outcome.FromError(fmt.Errorf("VPC endpoint: %w", err))
	}
	use := r.usableSubnets(s, subnets, svc)
	apply := func(use []ec2types.Subnet) error {
		if ep == nil {
			created, err := r.createEndpoint(ctx, s, use)
			ep = created
			return err
		}
		return r.modifyEndpoint(ctx, s, ep, use)
	}
	err = apply(use)
	if err != nil && zoneRefusal(err, use, svc) {
		// The service takes subnets only in the zones its load balancer
		// serves: use those, and say which are not reached.
		r.rememberRefusal(s, svc)
		use = ServedSubnets(use, svc.zoneIDs)
		if len(use) == 0 {
			return nil, zoneMismatchOutcome(svc.zoneIDs, UnservedSubnets(subnets, svc.zoneIDs))
		}
		err = apply(use)
	}
	if err != nil {
		return nil, outcome.FromError(fmt.Errorf("VPC endpoint: %w", err))
	}
	if dropped := UnservedSubnets(subnets, zonesOf(use)); len(dropped) > 0 {
		s.notes = append(s.notes, unservedNote(dropped, svc.zoneIDs))
	}
	set, remove := awscloud.TagDiff(s.desiredTags(nil), awscloud.TagMap(ep.Tags), s.managedTag)
	if err := awscloud.UpdateTags(ctx, r.EC2, s.cr.Status.Region, aws.ToString(ep.VpcEndpointId), set, remove); err != nil {
		return nil, outcome.FromError(fmt.Errorf("VPC endpoint: %w", err))
	}
	return ep, outcome.Continue()
}

func zonesOf(subnets []ec2types.Subnet) []string {
	out := []string{}
	for _, sn := range subnets {
		out = append(out, aws.ToString(sn.AvailabilityZoneId))
	}
	return out
}

// currentEndpoint returns the endpoint in status, replacing it when it is
// gone or points at another service, else one adopted by its tags; nil
// when there is none (to be created).
func (r *Reconciler) currentEndpoint(ctx context.Context, s *scope) (*ec2types.VpcEndpoint, error) {
	cr := s.cr
	if id := cr.Status.EndpointID; id != "" {
		ep, err := s.endpoints.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		switch {
		case ep == nil && justCreated(cr, r.now()):
			return nil, errEndpointNotShownYet
		case ep == nil || isGone(ep.State):
			ctrl.LoggerFrom(ctx).Info("VPC endpoint is gone; creating a new one", "endpoint", id)
			return nil, r.replaceEndpoint(ctx, s)
		case aws.ToString(ep.ServiceName) != cr.Status.EndpointServiceName:
			ctrl.LoggerFrom(ctx).Info("VPC endpoint points at another endpoint service; replacing it", "endpoint", id, "service", aws.ToString(ep.ServiceName))
			if err := s.endpoints.Delete(ctx, id); err != nil {
				return nil, err
			}
			return nil, r.replaceEndpoint(ctx, s)
		}
		return ep, nil
	}
	ep, err := r.adoptEndpoint(ctx, s)
	if err != nil || ep == nil {
		return nil, err
	}
	cr.Status.EndpointID = aws.ToString(ep.VpcEndpointId)
	return ep, s.persist(ctx)
}

// errEndpointNotShownYet: the endpoint in status was created moments ago
// and EC2 does not describe it yet (eventual consistency).
var errEndpointNotShownYet = errors.New("the VPC endpoint was just created and EC2 does not show it yet")

// justCreated reports whether the endpoint was created within the grace
// in which EC2 may not show it yet.
func justCreated(cr *hcplinkv1beta1.AWSEndpointService, now time.Time) bool {
	at, err := time.Parse(time.RFC3339, cr.Annotations[EndpointCreatedAtAnnotation])
	return err == nil && now.Sub(at) < endpointVisibilityGrace
}

// replaceEndpoint forgets the endpoint and raises the token generation so
// that the next create makes a new endpoint. The old ID stays among the
// endpoints whose records we may delete.
func (r *Reconciler) replaceEndpoint(ctx context.Context, s *scope) error {
	if err := r.rememberEndpoint(ctx, s, s.cr.Status.EndpointID); err != nil {
		return err
	}
	s.cr.Status.EndpointID = ""
	if err := s.persist(ctx); err != nil {
		return err
	}
	return s.patchAnnotation(ctx, TokenGenerationAnnotation, strconv.FormatInt(s.tokenGeneration()+1, 10))
}

// adoptEndpoint finds an endpoint of ours by the stable tag pair (cluster
// + endpoint service), in the VPC, to the same service; extra ones (should
// never exist) are deleted.
func (r *Reconciler) adoptEndpoint(ctx context.Context, s *scope) (*ec2types.VpcEndpoint, error) {
	filters := append(s.ownFilters(), awscloud.Filter("service-name", s.cr.Status.EndpointServiceName))
	eps, err := s.endpoints.List(ctx, filters)
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
	for _, extra := range live[1:] {
		ctrl.LoggerFrom(ctx).Info("Deleting a duplicate VPC endpoint", "endpoint", aws.ToString(extra.VpcEndpointId))
		if err := s.endpoints.Delete(ctx, aws.ToString(extra.VpcEndpointId)); err != nil {
			return nil, err
		}
	}
	ctrl.LoggerFrom(ctx).Info("Adopted VPC endpoint found by its tags", "endpoint", aws.ToString(live[0].VpcEndpointId))
	r.Events.Adopted(s.cr, "VPC endpoint", aws.ToString(live[0].VpcEndpointId))
	return &live[0], nil
}

// createEndpoint creates the endpoint with the CR's ClientToken and writes
// its ID to status at once.
func (r *Reconciler) createEndpoint(ctx context.Context, s *scope, subnets []ec2types.Subnet) (*ec2types.VpcEndpoint, error) {
	cr := s.cr
	ep, err := s.endpoints.Create(ctx, awscloud.EndpointSpec{
		VPCID:            cr.Status.VPCID,
		ServiceName:      cr.Status.EndpointServiceName,
		SubnetIDs:        subnetIDs(subnets),
		SecurityGroupIDs: []string{cr.Status.SecurityGroupID},
		ClientToken:      awscloud.ClientToken(clientTokenPurpose, string(cr.UID), s.tokenGeneration()),
		Tags:             s.desiredTags(nil),
	})
	if err != nil {
		return nil, err
	}
	cr.Status.EndpointID = aws.ToString(ep.VpcEndpointId)
	ctrl.LoggerFrom(ctx).Info("Created VPC endpoint", "endpoint", cr.Status.EndpointID, "subnets", subnetIDs(subnets))
	r.Events.Created(cr, "VPC endpoint", cr.Status.EndpointID)
	if err := s.persist(ctx); err != nil {
		return nil, err
	}
	if err := s.patchAnnotation(ctx, EndpointCreatedAtAnnotation, r.now().UTC().Format(time.RFC3339)); err != nil {
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

func (r *Reconciler) modifyEndpoint(ctx context.Context, s *scope, ep *ec2types.VpcEndpoint, subnets []ec2types.Subnet) error {
	var haveGroups []string
	for _, g := range ep.Groups {
		haveGroups = append(haveGroups, aws.ToString(g.GroupId))
	}
	add, remove, groups := EndpointModification(ep.SubnetIds, subnetIDs(subnets), haveGroups, s.cr.Status.SecurityGroupID)
	if len(add)+len(remove)+len(groups) == 0 {
		return nil
	}
	id := aws.ToString(ep.VpcEndpointId)
	if err := s.endpoints.Modify(ctx, id, add, remove, groups); err != nil {
		return err
	}
	ctrl.LoggerFrom(ctx).Info("Modified VPC endpoint", "endpoint", id, "addSubnets", add, "removeSubnets", remove, "addSecurityGroups", groups)
	ep.SubnetIds = subnetIDs(subnets)
	return nil
}
