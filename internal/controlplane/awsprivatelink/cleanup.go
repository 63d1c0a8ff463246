package awsprivatelink

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// CleanupFieldOwner is the field manager of the final sweep's condition
// (CloudCleanupComplete on the HostedControlPlane).
const CleanupFieldOwner = "hcplink-aws-cloud-cleanup"

// CleanupReconciler is the customer-side final sweep of a deleting
// cluster. Once the HostedControlPlane is deleting and no
// AWSEndpointService is left in the namespace (their finalizers cleaned
// what they knew), it removes everything still tagged for the cluster in
// its region and VPC — records first, then endpoints (waiting until they
// are gone), then security groups — without a grace period, and reports
// CloudCleanupComplete. It also catches what a force-deleted namespace
// left behind, and, being a controller on the HostedControlPlane, runs
// again when the operator restarts mid-deletion.
// When the operator stops waiting for it is decided in
// internal/operator/hostedcluster/hostedcluster_giveup.go (controlPlaneGiveUp).
type CleanupReconciler struct {
	Client  client.Client
	EC2     awscloud.EC2API
	Route53 awscloud.Route53API
	// Tracker grows the delays of repeated trouble; nil uses a private one.
	Tracker *outcome.Tracker

	initOnce sync.Once
	tracker  *outcome.Tracker
}

// SetupWithManager registers the sweep on the HostedControlPlane (its
// deletion) and on AWSEndpointServices (the last one going).
func (r *CleanupReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	deleting := predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool { return !e.Object.GetDeletionTimestamp().IsZero() },
		UpdateFunc: func(e event.UpdateEvent) bool {
			return !e.ObjectNew.GetDeletionTimestamp().IsZero() && e.ObjectOld.GetDeletionTimestamp().IsZero()
		},
		DeleteFunc: func(event.DeleteEvent) bool { return false },
	}
	crGone := predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(event.UpdateEvent) bool { return false },
		DeleteFunc: func(event.DeleteEvent) bool { return true },
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("awscloudcleanup").
		For(&hcplinkv1beta1.HostedControlPlane{}, builder.WithPredicates(deleting)).
		Watches(&hcplinkv1beta1.AWSEndpointService{}, handler.EnqueueRequestsFromMapFunc(reconcilekit.AllInNamespace(mgr.GetClient(), &hcplinkv1beta1.HostedControlPlaneList{})), builder.WithPredicates(crGone)).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(r)
}

func (r *CleanupReconciler) outcomes() *outcome.Tracker {
	r.initOnce.Do(func() { r.tracker = trackerOr(r.Tracker) })
	return r.tracker
}

// Reconcile sweeps the customer account of a deleting cluster.
func (r *CleanupReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if err := r.Client.Get(ctx, req.NamespacedName, hcp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if hcp.DeletionTimestamp.IsZero() || hcp.Spec.Platform.Type != hcplinkv1beta1.AWSPlatform || hcp.Spec.Platform.AWS == nil {
		return ctrl.Result{}, nil
	}
	key := string(hcp.UID) + "/cleanup"
	var o outcome.Outcome
	if left, err := r.endpointServicesLeft(ctx, hcp.Namespace); err != nil {
		return ctrl.Result{}, err
	} else if len(left) > 0 {
		o = outcome.WaitForEvent(hcplinkv1beta1.DeletingReason,
			"Waiting for AWSEndpointServices "+strings.Join(left, ", ")+" to clean up their VPC endpoints before the final sweep of the customer account")
	} else {
		passCtx, cancel := context.WithTimeout(ctx, passTimeout)
		o = r.sweep(passCtx, hcp)
		cancel()
	}
	finisher := reconcilekit.Finisher{Tracker: r.outcomes(), Type: hcplinkv1beta1.CloudCleanupCompleteCondition,
		Writer: conditions.Writer{Client: r.Client, FieldOwner: CleanupFieldOwner, Types: []string{hcplinkv1beta1.CloudCleanupCompleteCondition}}}
	return finisher.Finish(ctx, reconcilekit.Target{Object: hcp, Conditions: &hcp.Status.Conditions, Key: key}, o)
}

func (r *CleanupReconciler) endpointServicesLeft(ctx context.Context, namespace string) ([]string, error) {
	var list hcplinkv1beta1.AWSEndpointServiceList
	if err := r.Client.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return nil, fmt.Errorf("listing AWSEndpointServices: %w", err)
	}
	var names []string
	for _, cr := range list.Items {
		names = append(names, cr.Name)
	}
	slices.Sort(names)
	return names, nil
}

// sweep makes one pass: records, endpoints, security groups. It returns a
// True outcome when nothing tagged for the cluster remains.
func (r *CleanupReconciler) sweep(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane) outcome.Outcome {
	aws := hcp.Spec.Platform.AWS
	if hcp.Spec.InfraID == "" {
		return cleanupDone("The cluster has no infraID, so hcplink never created anything in the customer account")
	}
	if !hcp.Spec.Platform.IsPrivate() && (aws.RolesRef == nil || aws.RolesRef.ControlPlaneOperatorARN == "") {
		return cleanupDone("The cluster has no private path and no control-plane operator role, so hcplink never created anything in the customer account")
	}
	vpc := ""
	if aws.CloudProviderConfig != nil {
		vpc = aws.CloudProviderConfig.VPC
	}
	sw := clusterSweep{
		infraID:   hcp.Spec.InfraID,
		vpc:       vpc,
		zoneName:  awscloud.PrivateZoneName(hcp.Name),
		endpoints: awscloud.VPCEndpoints{EC2: r.EC2, Region: aws.Region},
		groups:    awscloud.SecurityGroups{EC2: r.EC2, Region: aws.Region},
		records:   awscloud.Records{Route53: r.Route53},
	}
	where := fmt.Sprintf("region %s", aws.Region)
	if vpc != "" {
		where += ", VPC " + vpc
	}
	eps, err := sw.endpoints.List(ctx, sw.filters())
	if err != nil {
		return outcome.FromError(fmt.Errorf("final sweep: %w", err))
	}
	if err := sw.deleteRecords(ctx, eps); err != nil {
		return outcome.FromError(fmt.Errorf("final sweep: %w", err))
	}
	toDelete, remaining := endpointsToDelete(eps)
	if err := sw.endpoints.Delete(ctx, toDelete...); err != nil {
		return outcome.FromError(fmt.Errorf("final sweep: %w", err))
	}
	if len(toDelete) > 0 {
		ctrl.LoggerFrom(ctx).Info("Final sweep: deleting VPC endpoints tagged for the cluster", "endpoints", toDelete)
	}
	if len(remaining) > 0 {
		return outcome.Wait(hcplinkv1beta1.DeletingReason, fmt.Sprintf(
			"Waiting for VPC endpoints %s (tagged for cluster %s in %s) to finish deleting before their security groups", strings.Join(remaining, ", "), sw.infraID, where), deletingRequeue)
	}
	groups, err := sw.groups.List(ctx, sw.filters())
	if err != nil {
		return outcome.FromError(fmt.Errorf("final sweep: %w", err))
	}
	for _, sg := range groups {
		if err := sw.groups.Delete(ctx, sg); err != nil {
			// DependencyViolation while AWS releases the endpoints'
			// interfaces: retried after a growing delay.
			return outcome.FromError(fmt.Errorf("final sweep: %w", err))
		}
		ctrl.LoggerFrom(ctx).Info("Final sweep: deleted security group", "securityGroup", aws2str(sg.GroupId))
	}
	return cleanupDone(fmt.Sprintf("Nothing hcplink made for cluster %s remains in the customer account (%s): no VPC endpoint, security group or DNS record", sw.infraID, where))
}

// cleanupDone is True with no further look: the cluster is going.
func cleanupDone(message string) outcome.Outcome {
	return outcome.Ready(hcplinkv1beta1.AsExpectedReason, message, 0)
}

func aws2str(s *string) string { return aws.ToString(s) }

// clusterSweep is the final sweep's view of one cluster in the customer
// account.
type clusterSweep struct {
	infraID, vpc, zoneName string
	endpoints              awscloud.VPCEndpoints
	groups                 awscloud.SecurityGroups
	records                awscloud.Records
}

// filters select everything hcplink tagged for the cluster, in its VPC.
func (c clusterSweep) filters() []ec2types.Filter {
	f := awscloud.ClusterFilters(c.infraID)
	if c.vpc != "" {
		f = append(f, awscloud.Filter("vpc-id", c.vpc))
	}
	return f
}

// deleteRecords deletes, in the cluster's private zone, the CNAMEs
// hcplink writes (api and *.apps) that are provably ours: see
// SweepableRecord.
func (c clusterSweep) deleteRecords(ctx context.Context, eps []ec2types.VpcEndpoint) error {
	zoneID, err := c.records.FindPrivateZone(ctx, c.zoneName, c.vpc)
	if err != nil || zoneID == "" {
		return err
	}
	have, err := c.records.CNAMEs(ctx, zoneID)
	if awscloud.IsNoSuchHostedZone(err) {
		return nil
	}
	if err != nil {
		return err
	}
	tagged := map[string]bool{}
	for _, ep := range eps {
		for _, n := range awscloud.EndpointDNSNames(ep) {
			tagged[n] = true
		}
	}
	var changes []r53types.Change
	for _, name := range []string{"api." + c.zoneName, "*.apps." + c.zoneName} {
		rs, ok := have[name]
		if !ok {
			continue
		}
		value := awscloud.CNAMEValue(rs)
		exists := true
		if id := awscloud.EndpointIDOfDNSName(value); id != "" && !tagged[value] {
			ep, err := c.endpoints.Get(ctx, id)
			if err != nil {
				return err
			}
			exists = ep != nil
		}
		if SweepableRecord(value, tagged, exists) {
			changes = append(changes, r53types.Change{Action: r53types.ChangeActionDelete, ResourceRecordSet: &rs})
		}
	}
	err = c.records.ChangeRecords(ctx, zoneID, "hcplink: final sweep of cluster "+c.infraID, changes)
	if awscloud.IsNoSuchHostedZone(err) {
		return nil
	}
	if err == nil && len(changes) > 0 {
		ctrl.LoggerFrom(ctx).Info("Final sweep: deleted DNS records", "zone", zoneID, "records", len(changes))
	}
	return err
}

// SweepableRecord decides whether the final sweep may delete a CNAME named
// api or *.apps in the cluster's private zone, given its single value. It
// may when the value is a DNS name of a VPC endpoint tagged for the cluster
// (taggedNames), or when the value is a VPC endpoint DNS name whose endpoint
// no longer exists (endpointExists false): such a record resolves to
// nothing and only hcplink writes those names in that zone. A record with
// any other value (a customer's own name, a live endpoint not tagged for
// the cluster, several values) is never touched.
func SweepableRecord(value string, taggedNames map[string]bool, endpointExists bool) bool {
	if value == "" {
		return false
	}
	if taggedNames[value] {
		return true
	}
	return awscloud.EndpointIDOfDNSName(value) != "" && !endpointExists
}

// CloudCleanupComplete reports the HostedControlPlane's condition, nil
// when it has none.
func CloudCleanupComplete(hcp *hcplinkv1beta1.HostedControlPlane) *metav1.Condition {
	return meta.FindStatusCondition(hcp.Status.Conditions, hcplinkv1beta1.CloudCleanupCompleteCondition)
}
