package awsendpointservice

import (
	"context"
	"fmt"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// reconcileDelete removes the endpoint service once the control-plane
// operator has removed the VPC endpoint (its finalizer is gone): reject
// the connections left, delete the service, then drop the finalizer. While
// AWS refuses (credentials, throttling) the finalizer stays; only the
// HostedCluster's bounded escape hatch ever removes it otherwise.
func (r *Reconciler) reconcileDelete(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.OperatorFinalizer) {
		r.forgetVerification(cr.UID)
		return ctrl.Result{}, nil
	}
	if hc != nil {
		if paused, remaining := hcplinkv1beta1.PausedFor(hc.Spec.PausedUntil, r.now()); paused {
			return ctrl.Result{RequeueAfter: remaining}, nil
		}
	}
	if controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) {
		return r.finish(ctx, cr, waiting(WaitingForControlPlaneCleanupReason,
			"Deleting: waiting for the control-plane operator to remove the VPC endpoint, its security group and DNS records (finalizer "+
				hcplinkv1beta1.ControlPlaneFinalizer+") before the endpoint service is deleted.", controlPlaneCleanupPoll))
	}
	infraID := cr.Status.InfraID
	if hc != nil {
		infraID = hc.Spec.InfraID
	}
	if o := r.deleteService(ctx, cr, infraID); !o.done() {
		return r.finish(ctx, cr, o)
	}
	if err := r.patchFinalizers(ctx, cr, func() { controllerutil.RemoveFinalizer(cr, hcplinkv1beta1.OperatorFinalizer) }); err != nil {
		return r.finish(ctx, cr, outcome{err: err})
	}
	r.forgetVerification(cr.UID)
	ctrl.LoggerFrom(ctx).Info("endpoint service removed; finalizer dropped")
	return ctrl.Result{}, nil
}

// deleteService deletes the object's endpoint service: the one in status,
// else the one tagged for it. Reads are targeted (not from the batched
// listing): deletion must see the present.
func (r *Reconciler) deleteService(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, infraID string) outcome {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var found []ec2types.ServiceConfiguration
	var err error
	if name := cr.Status.EndpointServiceName; name != "" {
		found, err = awscloud.ListEndpointServiceConfigurations(cctx, r.EC2, filter("service-name", name))
		if err != nil {
			return errorOutcome(cloud("describing endpoint service "+name, err), defaultBackoff, r.Rand)
		}
	}
	if len(found) == 0 && infraID != "" {
		found, err = awscloud.ListEndpointServiceConfigurations(cctx, r.EC2,
			filter("tag:"+hcplinkv1beta1.ClusterTagKey(infraID), hcplinkv1beta1.ClusterTagValueOwned),
			filter("tag:"+hcplinkv1beta1.EndpointServiceTagKey, cr.Name))
		if err != nil {
			return errorOutcome(cloud("listing the endpoint services tagged for "+cr.Name, err), defaultBackoff, r.Rand)
		}
	}
	for i := range found {
		if o := r.deleteOne(ctx, &found[i]); !o.done() {
			return o
		}
	}
	return outcome{}
}

// deleteOne rejects a service's live connections and deletes it; done when
// it is gone.
func (r *Reconciler) deleteOne(ctx context.Context, svc *ec2types.ServiceConfiguration) outcome {
	name, id := awssdk.ToString(svc.ServiceName), awssdk.ToString(svc.ServiceId)
	gone, waitingFor, err := removeService(ctx, r.EC2, id)
	if err != nil {
		return errorOutcome(err, defaultBackoff, r.Rand)
	}
	if !gone {
		return waiting(ConnectionsPendingReason, fmt.Sprintf(
			"Deleting: endpoint service %s still has %d consumer endpoint connections; they were rejected and deletion is retried.", name, waitingFor), connectionsPoll)
	}
	r.Cache.ForgetService(name)
	ctrl.LoggerFrom(ctx).Info("deleted the endpoint service", "endpointServiceName", name)
	return outcome{}
}

// removeService deletes the endpoint service id. When consumers are still
// connected it rejects those that hold it and tries once more; gone is
// false while connections remain (connections is how many). Errors are
// cloud errors.
func removeService(ctx context.Context, api awscloud.EC2API, id string) (gone bool, connections int, err error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	err = awscloud.DeleteEndpointService(cctx, api, id)
	if err == nil || awscloud.IsNotFound(err) {
		return true, 0, nil
	}
	if awscloud.ErrorCode(err) != awscloud.CodeExistingVpcEndpointConnections {
		return false, 0, cloud("deleting endpoint service "+id, err)
	}
	conns, err := awscloud.ListEndpointConnections(cctx, api, id)
	if err != nil {
		return false, 0, cloud("reading the connections of endpoint service "+id, err)
	}
	var reject []string
	for _, c := range conns {
		if awscloud.ConnectionNeedsRejection(c.VpcEndpointState) {
			reject = append(reject, awssdk.ToString(c.VpcEndpointId))
		}
	}
	if len(reject) > 0 {
		if err := awscloud.RejectEndpointConnections(cctx, api, id, reject); err != nil && !awscloud.IsNotFound(err) {
			return false, 0, cloud("rejecting the connections of endpoint service "+id, err)
		}
		ctrl.LoggerFrom(ctx).Info("rejected consumer endpoint connections to delete the endpoint service", "serviceID", id, "endpoints", reject)
	}
	err = awscloud.DeleteEndpointService(cctx, api, id)
	if err == nil || awscloud.IsNotFound(err) {
		return true, 0, nil
	}
	if awscloud.ErrorCode(err) == awscloud.CodeExistingVpcEndpointConnections {
		return false, len(conns), nil
	}
	return false, 0, cloud("deleting endpoint service "+id, err)
}

func filter(name, value string) ec2types.Filter {
	return ec2types.Filter{Name: awssdk.String(name), Values: []string{value}}
}
