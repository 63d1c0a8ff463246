package awsendpointservice

import (
	"context"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/kubepatch"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// reconcileDelete removes the endpoint service once the control-plane
// operator has removed the VPC endpoint (its finalizer is gone): reject
// the connections left, delete the service, then drop the finalizer. While
// AWS refuses (credentials, throttling) the finalizer stays, looked at
// again after growing delays.
func (r *Reconciler) reconcileDelete(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, hc *hcplinkv1beta1.HostedCluster) (ctrl.Result, error) {
	if res, over := reconcilekit.DeletionStart(cr, hc, r.now(), func() { r.forget(cr) }); over {
		return res, nil
	}
	if reconcilekit.WaitsForControlPlane(cr) {
		return r.finish(ctx, cr, outcome.Wait(hcplinkv1beta1.WaitingForControlPlaneCleanupReason,
			"Deleting: waiting for the control-plane operator to remove the VPC endpoint, its security group and DNS records (finalizer "+
				hcplinkv1beta1.ControlPlaneFinalizer+") before the endpoint service is deleted.", controlPlaneCleanupPoll))
	}
	infraID := cr.Status.InfraID
	if hc != nil {
		infraID = hc.Spec.InfraID
	}
	if infraID == "" {
		infraID = cr.Annotations[ServiceInfraIDAnnotation]
	}
	if o := r.deleteServices(ctx, cr, infraID); !o.Done() {
		return r.finish(ctx, cr, o)
	}
	if err := kubepatch.Finalizers(ctx, r.Client, cr, func() { controllerutil.RemoveFinalizer(cr, hcplinkv1beta1.OperatorFinalizer) }); err != nil {
		return r.finish(ctx, cr, outcome.FromError(err))
	}
	r.forget(cr)
	ctrl.LoggerFrom(ctx).Info("endpoint service removed; finalizer dropped")
	return ctrl.Result{}, nil
}

// forget drops what the controller remembers of a deleted object.
func (r *Reconciler) forget(cr *hcplinkv1beta1.AWSEndpointService) {
	r.forgetVerification(cr.UID)
	r.Tracker.Forget(string(cr.UID))
}

// deleteServices deletes the object's endpoint service: the one in status,
// else those tagged for it; when neither shows and the controller asked
// for a create within serviceVisibilityGrace, it waits for EC2 to show it. Reads are targeted (not from the batched
// listing): deletion must see the present. A service tagged for another
// management cluster is left alone (as in the normal pass: the one in
// status only when this management cluster's ID is known; one found by
// tags also when it is not).
func (r *Reconciler) deleteServices(ctx context.Context, cr *hcplinkv1beta1.AWSEndpointService, infraID string) outcome.Outcome {
	var found []ec2types.ServiceConfiguration
	if name := cr.Status.EndpointServiceName; name != "" {
		svc, err := r.Provider.ServiceByName(ctx, name)
		if err != nil {
			return outcome.FromError(err)
		}
		if svc != nil && (r.ManagementClusterID == "" || managementClaim(svc.Tags, r.ManagementClusterID) != claimedByAnother) {
			found = append(found, *svc)
		}
	}
	if len(found) == 0 && infraID != "" {
		tagged, err := r.Provider.ServicesByOwner(ctx, infraID, cr.Name)
		if err != nil {
			return outcome.FromError(err)
		}
		for _, svc := range tagged {
			if managementClaim(svc.Tags, r.ManagementClusterID) == claimedByAnother {
				ctrl.LoggerFrom(ctx).Info("not deleting an endpoint service tagged for another management cluster",
					"endpointServiceName", awssdk.ToString(svc.ServiceName), "managementCluster", managementClusterOf(&svc))
				continue
			}
			found = append(found, svc)
		}
	}
	if len(found) == 0 && serviceJustCreated(cr, r.now()) {
		// Created moments ago and not shown yet: concluding "nothing to
		// delete" now would drop the finalizer and leak it.
		return serviceNotShownYet(cr.Status.EndpointServiceName)
	}
	for i := range found {
		if o := r.retireService(ctx, cr, &found[i], "Deleting"); !o.Done() {
			return o
		}
	}
	return outcome.Continue()
}
