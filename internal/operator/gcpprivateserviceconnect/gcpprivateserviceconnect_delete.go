package gcpprivateserviceconnect

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/kubepatch"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// reconcileDelete removes the service attachment once the control-plane
// operator has removed the customer side (its finalizer is gone): reject
// the pending connections of foreign projects left, delete the attachment
// (Google closes the connections of its endpoints), then drop the
// finalizer. While Google refuses (credentials, quota) the finalizer stays,
// looked at again after growing delays: only the HostedCluster's
// per-component escape hatch gives it up. hcplink makes no NAT
// subnetwork on GCP (it takes them from the management network's pool),
// so none is deleted.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	cr := s.cr
	if res, over := reconcilekit.DeletionStart(cr, s.hc, r.Now(), func() { r.forget(cr) }); over {
		return res, nil
	}
	if reconcilekit.WaitsForControlPlane(cr) {
		return r.finish(ctx, s, waitingForControlPlane())
	}
	if o := r.waitPending(ctx, s); !o.Done() {
		return r.finish(ctx, s, o)
	}
	if o := r.deleteAttachment(ctx, s); !o.Done() {
		return r.finish(ctx, s, o)
	}
	if err := r.writeStatus(ctx, s); err != nil {
		return r.finish(ctx, s, outcome.FromError(err))
	}
	if err := kubepatch.Finalizers(ctx, r.Client, cr, func() { controllerutil.RemoveFinalizer(cr, hcplinkv1beta1.OperatorFinalizer) }); err != nil {
		return r.finish(ctx, s, outcome.FromError(err))
	}
	r.forget(cr)
	ctrl.LoggerFrom(ctx).Info("service attachment removed; finalizer dropped")
	return ctrl.Result{}, nil
}

// forget drops what the controller remembers of a deleted object.
func (r *Reconciler) forget(cr *hcplinkv1beta1.GCPPrivateServiceConnect) {
	r.Tracker.Forget(string(cr.UID))
	r.rules.Delete(cr.UID)
	r.pending.Delete(cr.UID)
	r.created.Delete(cr.UID)
	r.fresh.Delete(cr.UID)
	r.claims.release(cr.UID)
}

// deleteAttachment deletes the object's attachment (the one in status,
// else the name hcplink gives it) unless it is not ours. Pending
// connections of projects off the accept list are rejected first, so that
// their owners see why.
func (r *Reconciler) deleteAttachment(ctx context.Context, s *scope) outcome.Outcome {
	log := ctrl.LoggerFrom(ctx)
	name := r.attachmentName(s)
	if name == "" {
		log.Info("no service attachment recorded or findable; nothing to delete")
		return outcome.Continue()
	}
	sa, err := r.Cloud.ServiceAttachments.Get(ctx, name)
	if err != nil {
		return outcome.FromError(err)
	}
	if sa == nil {
		s.status.ServiceAttachmentName, s.status.ServiceAttachmentURI, s.status.NATSubnets = "", "", nil
		return outcome.Continue()
	}
	if why := r.notOursBecause(sa, s); why != "" {
		log.Info("not deleting a service attachment that is not this object's", "serviceAttachment", name, "why", why)
		return outcome.Continue()
	}
	if foreign := gcpcloud.ForeignProjects(sa); len(foreign) > 0 {
		r.attachments.forget(name)
		op, err := r.Cloud.ServiceAttachments.RejectProjects(ctx, sa, foreign)
		if err != nil {
			return outcome.FromError(err)
		}
		log.Info("rejected pending connections before deleting the service attachment", "serviceAttachment", name, "projects", foreign)
		r.Events.Warning(s.cr, hcplinkv1beta1.ConnectionNotAllowedReason, "RejectConnection", rejectedNote(name, foreign))
		r.keep(s, op)
		return deleting("rejecting the pending connections of service attachment " + name)
	}
	r.attachments.forget(name)
	op, err := r.Cloud.ServiceAttachments.Delete(ctx, name, r.ManagementClusterID)
	if err != nil {
		return outcome.FromError(err)
	}
	log.Info("deleting the service attachment", "serviceAttachment", name)
	r.Events.Deleted(s.cr, "service attachment", name)
	r.keep(s, op)
	return deleting("service attachment " + name + " is being deleted")
}
