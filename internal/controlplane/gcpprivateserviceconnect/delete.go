package gcpprivateserviceconnect

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// reconcileDelete removes, in order, our records and our zone, the
// ExternalName Services, the forwarding rule and the address (waiting on
// each operation), then drops the finalizer. It works from the CR alone
// when the HostedControlPlane is gone (the identity is kept on it). When
// no client can be built the finalizer stays and the condition says why;
// when the operator may give it up (from ValidCloudCredentials) is decided
// in internal/operator/hostedcluster/hostedcluster_giveup.go (controlPlaneGiveUp). Nothing that does not
// carry this cluster's labels is deleted.
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	cr := s.cr
	if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) {
		r.forget(cr)
		return ctrl.Result{}, nil
	}
	infraID := cr.Annotations[InfraIDAnnotation]
	if infraID == "" {
		// Nothing was ever created: resources are created only after the
		// infraID is kept.
		return r.dropFinalizer(ctx, s)
	}
	s.owner = gcpcloud.Owner{InfraID: infraID, Name: cr.Name}
	var err error
	if s.cloud, err = r.Cloud.For(identityForDeletion(s.hcp, cr), gcpcloud.Location{Project: cr.Spec.Project, Region: cr.Spec.Region}); err != nil {
		o := signInOutcome(err)
		o.Status = metav1.ConditionFalse
		return r.finish(ctx, s, []metav1.Condition{o.Condition(hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition)}, o)
	}
	passCtx, cancel := context.WithTimeout(ctx, passTimeout)
	defer cancel()
	o := r.deleteResources(passCtx, s)
	if o.Done() {
		return r.dropFinalizer(ctx, s)
	}
	o = reconcilekit.Deleting(o, ProvisioningReason)
	return r.finish(ctx, s, []metav1.Condition{o.Condition(hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition)}, o)
}

// deleteResources runs the deletion phases; Continue when all is gone. A
// pass that deleted something, or saw a deletion finish, before it had to
// wait says so (AfterProgress): the next resource's wait starts short,
// however long the last one's grew.
func (r *Reconciler) deleteResources(ctx context.Context, s *scope) outcome.Outcome {
	moved := false
	o := r.deleteEach(ctx, s, &moved)
	if !o.Done() && moved {
		o = o.AfterProgress()
	}
	return o
}

// deleteEach deletes the records and zone, the ExternalName Services, the
// endpoint and its address, in order; moved is set when it changed
// something.
func (r *Reconciler) deleteEach(ctx context.Context, s *scope, moved *bool) outcome.Outcome {
	cr := s.cr
	if o := r.deleteDNS(ctx, s, moved); !o.Done() {
		return o
	}
	cr.Status.DNSZoneName, cr.Status.DNSRecords = "", nil
	if err := reconcilekit.ExternalNames(ctx, r.Client, cr, "GCPPrivateServiceConnect", nil, ""); err != nil {
		return outcome.FromError(fmt.Errorf("deleting the ExternalName Services: %w", err))
	}
	ruleName := gcpcloud.EndpointName(s.owner)
	if o := r.deleteCompute(ctx, s, moved, opRuleDelete, "Private Service Connect endpoint", ruleName, func() (gcpcloud.Operation, error) {
		return s.cloud.Endpoints.Delete(ctx, ruleName, s.owner)
	}); !o.Done() {
		return o
	}
	cr.Status.EndpointName, cr.Status.EndpointIP = "", ""
	addrName := gcpcloud.EndpointAddressName(s.owner)
	return r.deleteCompute(ctx, s, moved, opAddressRelease, "address", addrName, func() (gcpcloud.Operation, error) {
		return s.cloud.Addresses.Delete(ctx, addrName, s.owner)
	})
}

// stepDNS names the records-and-zone step of a deletion (the Compute
// Engine steps are named by their operation's step).
const stepDNS = "dns"

// gone reports whether an earlier pass of this deletion found step's
// resource gone, and so it is not asked again: under a rate quota each
// read counts, and a fleet's deletion otherwise spends one per finished
// step per pass. A restart forgets it, which costs one read.
func (r *Reconciler) gone(s *scope, step string) bool {
	_, ok := r.deleted.Load(opKey{s.cr.UID, step})
	return ok
}

// foundGone records that step's resource is gone (or is not ours, and
// left alone) for the rest of the deletion.
func (r *Reconciler) foundGone(s *scope, step string) {
	r.deleted.Store(opKey{s.cr.UID, step}, struct{}{})
}

// deleteCompute deletes one Compute Engine resource of ours through del
// (which answers the zero Operation once it is gone) and waits on the
// operation. One of the name that is not ours is left alone.
func (r *Reconciler) deleteCompute(ctx context.Context, s *scope, moved *bool, step, what, name string, del func() (gcpcloud.Operation, error)) outcome.Outcome {
	if r.gone(s, step) {
		return outcome.Continue()
	}
	waiting := "Waiting for " + what + " " + name + " to be deleted"
	_, wasRunning := r.kept(s.cr, step)
	if o, still := r.awaitKept(ctx, s, step, hcplinkv1beta1.DeletingReason, waiting); still {
		return o
	}
	*moved = *moved || wasRunning // the deletion an earlier pass started finished
	op, err := del()
	if isNotOurs(err) {
		ctrl.LoggerFrom(ctx).Info("Left a resource of our name that is not ours", "kind", what, "name", name)
		r.foundGone(s, step)
		return outcome.Continue()
	}
	if err != nil {
		return outcome.FromError(err)
	}
	if op.IsZero() {
		r.foundGone(s, step)
		return outcome.Continue()
	}
	*moved = true
	done, err := r.await(ctx, s, step, op)
	if err != nil {
		return outcome.FromError(err)
	}
	if !done {
		return outcome.Poll(hcplinkv1beta1.DeletingReason, waiting, r.poll(), mostPoll)
	}
	r.foundGone(s, step)
	r.Events.Deleted(s.cr, what, name)
	return outcome.Continue()
}

// deleteDNS deletes our A records, then our zone. A zone of the name that
// is not ours is left as it is, records and all.
func (r *Reconciler) deleteDNS(ctx context.Context, s *scope, moved *bool) outcome.Outcome {
	if r.gone(s, stepDNS) {
		return outcome.Continue()
	}
	name := gcpcloud.ZoneName(s.owner.InfraID)
	zone, err := s.cloud.Zones.Get(ctx, name)
	if err != nil {
		return outcome.FromError(err)
	}
	if zone == nil || !ZoneIsOurs(zone, s.owner) {
		r.foundGone(s, stepDNS)
		return outcome.Continue()
	}
	have, err := s.cloud.Records.List(ctx, name)
	if err != nil {
		return outcome.FromError(err)
	}
	if own := gcpcloud.OwnRecords(have, zone.DnsName); len(own) > 0 {
		if _, err := s.cloud.Records.Change(ctx, name, nil, own); err != nil {
			return outcome.FromError(fmt.Errorf("deleting the api and *.apps records: %w", err))
		}
		*moved = true
	}
	if err := s.cloud.Zones.Delete(ctx, zone, s.owner); err != nil {
		return outcome.FromError(err)
	}
	*moved = true
	r.foundGone(s, stepDNS)
	r.Events.Deleted(s.cr, "private DNS zone", name)
	return outcome.Continue()
}

func (r *Reconciler) dropFinalizer(ctx context.Context, s *scope) (ctrl.Result, error) {
	if err := reconcilekit.RemoveFinalizer(ctx, r.Client, s.cr, hcplinkv1beta1.ControlPlaneFinalizer); err != nil {
		return ctrl.Result{}, err
	}
	r.forget(s.cr)
	ctrl.LoggerFrom(ctx).Info("Removed the Private Service Connect endpoint and DNS of GCPPrivateServiceConnect", "gcpPrivateServiceConnect", s.cr.Name)
	return ctrl.Result{}, nil
}
