package awsprivatelink

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// reconcileDelete removes, in order, the DNS records, the VPC endpoint
// (waiting until AWS no longer lists it) and the security group, then
// drops the finalizer. It works from status alone: the HostedControlPlane
// may be gone. The pass has the same deadline as a normal one. The
// finalizer is never given up here: when the operator may give it up is
// decided in internal/operator/hostedcluster/hostedcluster_giveup.go (controlPlaneGiveUp).
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	cr := s.cr
	if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) {
		r.outcomes().Forget(string(cr.UID))
		return ctrl.Result{}, nil
	}
	if cr.Status.InfraID == "" && s.hcp != nil {
		cr.Status.InfraID = s.hcp.Spec.InfraID
	}
	if cr.Status.Region == "" && s.hcp != nil && s.hcp.Spec.Platform.AWS != nil {
		cr.Status.Region = s.hcp.Spec.Platform.AWS.Region
	}
	r.useRegion(s)
	if cr.Status.InfraID == "" {
		// Nothing was ever created: resources are created only after the
		// infraID is kept in status.
		return r.dropFinalizer(ctx, s)
	}

	passCtx, cancel := context.WithTimeout(ctx, passTimeout)
	defer cancel()
	o := r.deleteResources(passCtx, s)
	if o.Done() {
		return r.dropFinalizer(ctx, s)
	}
	return r.finisher().Finish(ctx, s.target(), reconcilekit.Deleting(o, hcplinkv1beta1.EndpointPendingReason))
}

// deleteResources runs the deletion phases; Continue when all is gone.
func (r *Reconciler) deleteResources(ctx context.Context, s *scope) outcome.Outcome {
	cr := s.cr
	if err := r.deleteRecords(ctx, s); err != nil {
		return outcome.FromError(fmt.Errorf("deleting DNS records: %w", err))
	}
	remaining, err := r.deleteEndpoints(ctx, s)
	if err != nil {
		return outcome.FromError(fmt.Errorf("deleting the VPC endpoint: %w", err))
	}
	if len(remaining) > 0 {
		return outcome.Wait(hcplinkv1beta1.DeletingReason, "Waiting for VPC endpoint "+strings.Join(remaining, ", ")+" to be deleted before its security group", deletingRequeue)
	}
	if err := r.deleteSecurityGroups(ctx, s); err != nil {
		// DependencyViolation while AWS releases the endpoint's network
		// interfaces: the dependency class, retried after a growing delay.
		return outcome.FromError(fmt.Errorf("deleting security group %s: %w", cr.Status.SecurityGroupID, err))
	}
	return outcome.Continue()
}

func (r *Reconciler) dropFinalizer(ctx context.Context, s *scope) (ctrl.Result, error) {
	if err := reconcilekit.RemoveFinalizer(ctx, r.Client, s.cr, hcplinkv1beta1.ControlPlaneFinalizer); err != nil {
		return ctrl.Result{}, err
	}
	r.outcomes().Forget(string(s.cr.UID))
	r.zonesMu.Lock()
	delete(r.refused, s.cr.UID)
	r.zonesMu.Unlock()
	r.forget(s.cr.UID)
	ctrl.LoggerFrom(ctx).Info("Cleaned up the VPC endpoint, its security group and DNS records")
	return ctrl.Result{}, nil
}

// deleteRecords deletes each record in status.dnsNames that still points
// at one of our endpoints (the current one, one we had before, or one
// tagged for this CR).
func (r *Reconciler) deleteRecords(ctx context.Context, s *scope) error {
	cr := s.cr
	if len(cr.Status.DNSNames) == 0 || cr.Status.DNSZoneID == "" {
		cr.Status.DNSNames = nil
		return nil
	}
	have, err := s.records.CNAMEs(ctx, cr.Status.DNSZoneID)
	if awscloud.IsNoSuchHostedZone(err) {
		cr.Status.DNSNames, cr.Status.DNSZoneID = nil, ""
		return nil
	}
	if err != nil {
		return err
	}
	var values []string
	for _, n := range staleNames(nil, have, cr.Status.DNSNames) {
		values = append(values, awscloud.CNAMEValue(have[n]))
	}
	owned, err := r.ownedEndpoints(ctx, s, values)
	if err != nil {
		return err
	}
	changes := RecordChanges(nil, have, cr.Status.DNSNames, endpointOwnsValue(owned...))
	if err := s.records.ChangeRecords(ctx, cr.Status.DNSZoneID, "", changes); err != nil && !awscloud.IsNoSuchHostedZone(err) {
		return err
	}
	cr.Status.DNSNames = nil
	return nil
}

// deleteEndpoints deletes our endpoint(s) — the one in status and any
// found by tags — and reports whether they are all gone (not just
// deleting): the IDs of those still there.
func (r *Reconciler) deleteEndpoints(ctx context.Context, s *scope) ([]string, error) {
	eps, err := s.endpoints.List(ctx, s.ownFilters())
	if err != nil {
		return nil, err
	}
	if id := s.cr.Status.EndpointID; id != "" {
		ep, err := s.endpoints.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if ep != nil {
			eps = append(eps, *ep)
		}
	}
	toDelete, remaining := endpointsToDelete(eps)
	for _, ep := range eps {
		r.shownAtDeletion.Store(aws.ToString(ep.VpcEndpointId), struct{}{})
	}
	id := s.cr.Status.EndpointID
	if _, shown := r.shownAtDeletion.Load(id); len(eps) == 0 && id != "" && !shown && justCreated(s.cr, r.now()) {
		// Created moments ago and not shown yet (eventual consistency):
		// finding nothing is not "gone"; dropping the finalizer now would
		// leak it. One this deletion saw and deleted is gone.
		remaining = append(remaining, id)
	}
	if err := s.endpoints.Delete(ctx, toDelete...); err != nil {
		return nil, err
	}
	if len(toDelete) > 0 {
		ctrl.LoggerFrom(ctx).Info("Deleting VPC endpoints", "endpoints", toDelete)
	}
	for _, id := range toDelete {
		r.Events.Deleted(s.cr, "VPC endpoint", id)
	}
	if len(remaining) == 0 {
		r.shownAtDeletion.Delete(id)
		s.cr.Status.EndpointID = ""
	}
	return remaining, nil
}

// endpointsToDelete: the endpoints not yet deleting (to delete) and those
// not yet deleted (to wait for).
func endpointsToDelete(eps []ec2types.VpcEndpoint) (toDelete, remaining []string) {
	seen := map[string]bool{}
	for _, ep := range eps {
		id := aws.ToString(ep.VpcEndpointId)
		if seen[id] || stateIs(ep.State, "deleted") {
			continue
		}
		seen[id] = true
		remaining = append(remaining, id)
		if !stateIs(ep.State, "deleting") {
			toDelete = append(toDelete, id)
		}
	}
	return toDelete, remaining
}

// deleteSecurityGroups revokes the rules of our group(s) and deletes them.
func (r *Reconciler) deleteSecurityGroups(ctx context.Context, s *scope) error {
	groups, err := s.groups.List(ctx, s.ownFilters())
	if err != nil {
		return err
	}
	if id := s.cr.Status.SecurityGroupID; id != "" {
		sg, err := s.groups.Get(ctx, id)
		if err != nil {
			return err
		}
		if sg != nil {
			groups = append(groups, *sg)
		}
	}
	seen := map[string]bool{}
	for _, sg := range groups {
		id := aws.ToString(sg.GroupId)
		if seen[id] {
			continue
		}
		seen[id] = true
		if err := s.groups.Delete(ctx, sg); err != nil {
			return err
		}
		ctrl.LoggerFrom(ctx).Info("Deleted security group", "securityGroup", id)
		r.Events.Deleted(s.cr, "security group", id)
	}
	s.cr.Status.SecurityGroupID = ""
	return nil
}
