package awsprivatelink

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// reconcileDelete removes, in order, the DNS records, the VPC endpoint
// (waiting until AWS no longer lists it) and the security group, then
// drops the finalizer. It works from status alone: the HostedControlPlane
// may be gone.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (_ ctrl.Result, reterr error) {
	cr := s.cr
	if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) {
		return ctrl.Result{}, nil
	}
	if cr.Status.InfraID == "" && s.hcp != nil {
		cr.Status.InfraID = s.hcp.Spec.InfraID
	}
	if cr.Status.Region == "" && s.hcp != nil && s.hcp.Spec.Platform.AWS != nil {
		cr.Status.Region = s.hcp.Spec.Platform.AWS.Region
	}
	s.ec2Region = regionOption(cr.Status.Region)

	out := outcome{status: metav1.ConditionFalse, reason: hcplinkv1beta1.DeletingReason}
	done := false
	defer func() {
		if done {
			return
		}
		if err := r.persist(ctx, s); err != nil {
			reterr = errors.Join(reterr, err)
			return
		}
		if err := r.applyCondition(ctx, cr, out.condition()); err != nil {
			reterr = errors.Join(reterr, err)
		}
	}()

	if cr.Status.InfraID == "" {
		// Nothing was ever created: resources are created only after the
		// infraID is kept in status.
		return r.dropFinalizer(ctx, s, &done)
	}

	if err := r.deleteRecords(ctx, s); err != nil {
		out = errorOutcome(fmt.Errorf("deleting DNS records: %w", err))
		out.reason, out.status = deletingReason(out), metav1.ConditionFalse
		return ctrl.Result{RequeueAfter: out.requeue}, nil
	}
	gone, err := r.deleteEndpoints(ctx, s)
	if err != nil {
		out = errorOutcome(fmt.Errorf("deleting the VPC endpoint: %w", err))
		out.reason, out.status = deletingReason(out), metav1.ConditionFalse
		return ctrl.Result{RequeueAfter: out.requeue}, nil
	}
	if !gone {
		out.message = "Waiting for VPC endpoint " + cr.Status.EndpointID + " to be deleted before its security group"
		out.requeue = waitRequeue * 2
		return ctrl.Result{RequeueAfter: out.requeue}, nil
	}
	sgGone, err := r.deleteSecurityGroups(ctx, s)
	if err != nil {
		out = errorOutcome(fmt.Errorf("deleting the security group: %w", err))
		out.reason, out.status = deletingReason(out), metav1.ConditionFalse
		return ctrl.Result{RequeueAfter: out.requeue}, nil
	}
	if !sgGone {
		out.message = "Waiting for AWS to release security group " + cr.Status.SecurityGroupID + " (the endpoint's network interfaces are going)"
		out.requeue = waitRequeue
		return ctrl.Result{RequeueAfter: out.requeue}, nil
	}
	return r.dropFinalizer(ctx, s, &done)
}

// deletingReason keeps the error's own reason (Throttled, AccessDenied...)
// so the user sees why deletion is stuck.
func deletingReason(o outcome) string { return o.reason }

func (r *Reconciler) dropFinalizer(ctx context.Context, s *scope, done *bool) (ctrl.Result, error) {
	patch := client.MergeFrom(s.cr.DeepCopy())
	controllerutil.RemoveFinalizer(s.cr, hcplinkv1beta1.ControlPlaneFinalizer)
	if err := r.Client.Patch(ctx, s.cr, patch); client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, fmt.Errorf("removing the finalizer: %w", err)
	}
	*done = true
	ctrl.LoggerFrom(ctx).Info("Cleaned up the VPC endpoint, its security group and DNS records")
	return ctrl.Result{}, nil
}

// deleteRecords deletes each record in status.dnsNames that still points
// at our endpoint.
func (r *Reconciler) deleteRecords(ctx context.Context, s *scope) error {
	cr := s.cr
	if len(cr.Status.DNSNames) == 0 || cr.Status.DNSZoneID == "" {
		cr.Status.DNSNames = nil
		return nil
	}
	have, err := r.listRecords(ctx, cr.Status.DNSZoneID)
	if awscloud.ErrorCode(err) == "NoSuchHostedZone" {
		cr.Status.DNSNames, cr.Status.DNSZoneID = nil, ""
		return nil
	}
	if err != nil {
		return err
	}
	changes := RecordChanges(nil, have, cr.Status.DNSNames, endpointOwnsValue(cr.Status.EndpointID))
	if len(changes) > 0 {
		_, err := r.Route53.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{
			HostedZoneId: aws.String(cr.Status.DNSZoneID),
			ChangeBatch:  &r53types.ChangeBatch{Changes: changes},
		})
		if err != nil && awscloud.ErrorCode(err) != "NoSuchHostedZone" {
			return err
		}
	}
	cr.Status.DNSNames = nil
	return nil
}

// deleteEndpoints deletes our endpoint(s) — the one in status and any
// found by tags — and reports whether they are all gone (not just
// deleting).
func (r *Reconciler) deleteEndpoints(ctx context.Context, s *scope) (bool, error) {
	eps, err := r.listEndpoints(ctx, s, ownFilters(s))
	if err != nil {
		return false, err
	}
	if id := s.cr.Status.EndpointID; id != "" {
		out, err := r.EC2.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{id}}, s.ec2Region)
		switch {
		case awscloud.IsNotFound(err):
		case err != nil:
			return false, fmt.Errorf("describing VPC endpoint %s: %w", id, err)
		default:
			eps = append(eps, out.VpcEndpoints...)
		}
	}
	var toDelete []string
	remaining := 0
	seen := map[string]bool{}
	for _, ep := range eps {
		id := aws.ToString(ep.VpcEndpointId)
		if seen[id] || stateIs(ep.State, "deleted") {
			continue
		}
		seen[id] = true
		remaining++
		if !stateIs(ep.State, "deleting") {
			toDelete = append(toDelete, id)
		}
	}
	if len(toDelete) > 0 {
		if _, err := r.EC2.DeleteVpcEndpoints(ctx, &ec2.DeleteVpcEndpointsInput{VpcEndpointIds: toDelete}, s.ec2Region); err != nil && !awscloud.IsNotFound(err) {
			return false, err
		}
		ctrl.LoggerFrom(ctx).Info("Deleting VPC endpoints", "endpoints", toDelete)
	}
	if remaining == 0 {
		s.cr.Status.EndpointID = ""
		return true, nil
	}
	return false, nil
}

// deleteSecurityGroups revokes the rules of our group(s) and deletes them;
// false while AWS still holds a group (DependencyViolation).
func (r *Reconciler) deleteSecurityGroups(ctx context.Context, s *scope) (bool, error) {
	groups, err := r.listSecurityGroups(ctx, s, ownFilters(s))
	if err != nil {
		return false, err
	}
	if id := s.cr.Status.SecurityGroupID; id != "" {
		out, err := r.EC2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{id}}, s.ec2Region)
		if err != nil && !awscloud.IsNotFound(err) {
			return false, err
		}
		if err == nil {
			groups = append(groups, out.SecurityGroups...)
		}
	}
	seen := map[string]bool{}
	for _, sg := range groups {
		id := aws.ToString(sg.GroupId)
		if seen[id] {
			continue
		}
		seen[id] = true
		if len(sg.IpPermissions) > 0 {
			if _, err := r.EC2.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(id), IpPermissions: sg.IpPermissions}, s.ec2Region); err != nil && !awscloud.IsNotFound(err) {
				return false, err
			}
		}
		_, err := r.EC2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(id)}, s.ec2Region)
		switch {
		case awscloud.ErrorCode(err) == "DependencyViolation":
			return false, nil
		case err != nil && !awscloud.IsNotFound(err):
			return false, err
		}
		ctrl.LoggerFrom(ctx).Info("Deleted security group", "securityGroup", id)
	}
	s.cr.Status.SecurityGroupID = ""
	return true, nil
}
