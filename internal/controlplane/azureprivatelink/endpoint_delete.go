package azureprivatelink

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// reconcileDelete removes, in order, the records, the VNet link, the zone
// when we created it (never a zone someone else made), the ExternalName
// Services and the Private Endpoint (waiting until Azure no longer has it),
// then drops the finalizer. It works from the CR alone: the
// HostedControlPlane may be gone. The finalizer is never given up here:
// when the operator may give it up is decided in
// internal/operator/hostedcluster/hostedcluster_giveup.go (controlPlaneGiveUp).
func (r *Reconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	cr := s.cr
	if !controllerutil.ContainsFinalizer(cr, hcplinkv1beta1.ControlPlaneFinalizer) {
		r.forget(cr)
		return ctrl.Result{}, nil
	}
	s.infraID = cr.Annotations[InfraIDAnnotation]
	if s.infraID == "" {
		// Nothing was ever created: resources are created only after the
		// infraID is kept.
		return r.dropFinalizer(ctx, s)
	}
	var err error
	if s.endpoints, s.dns, err = r.Cloud.For(cr.Spec.SubscriptionID); err != nil {
		// A missing or broken identity configuration is said in the
		// condition, not only in the log.
		o := outcome.FromError(fmt.Errorf("building the Azure clients: %w", err))
		return r.finisher().Finish(ctx, s.target(), o)
	}
	passCtx, cancel := context.WithTimeout(ctx, passTimeout)
	defer cancel()
	o := r.deleteResources(passCtx, s)
	if o.Done() {
		return r.dropFinalizer(ctx, s)
	}
	return r.finisher().Finish(ctx, s.target(), reconcilekit.Deleting(o, hcplinkv1beta1.PrivateEndpointPendingReason, DNSProvisioningReason))
}

// deleteResources runs the deletion phases; Continue when all is gone.
func (r *Reconciler) deleteResources(ctx context.Context, s *scope) outcome.Outcome {
	cr, rg, zoneName := s.cr, s.cr.Spec.ResourceGroupName, s.cr.Status.DNSZoneName
	if zoneName != "" {
		if o := r.deleteDNS(ctx, s, rg, zoneName); !o.Done() {
			return o
		}
		cr.Status.PrivateDNSZoneID = ""
	}
	if err := s.externalNames(ctx, nil); err != nil {
		return outcome.FromError(fmt.Errorf("deleting the ExternalName Services: %w", err))
	}
	name := s.endpointName()
	next, err := s.endpoints.Delete(ctx, rg, name, r.token(cr, opEndpointDelete))
	r.keepToken(cr, opEndpointDelete, next)
	if err != nil {
		return outcome.FromError(fmt.Errorf("deleting the Private Endpoint: %w", err))
	}
	if next != "" {
		return outcome.Wait(hcplinkv1beta1.DeletingReason, "Waiting for Private Endpoint "+name+" to be deleted", r.poll())
	}
	// Gone only when Azure no longer lists it.
	if ep, err := s.endpoints.Get(ctx, rg, name); err != nil {
		return outcome.FromError(err)
	} else if ep != nil {
		return outcome.Wait(hcplinkv1beta1.DeletingReason, "Waiting for Private Endpoint "+name+" to be deleted", r.poll())
	}
	if cr.Status.PrivateEndpointID != "" {
		r.Events.Deleted(cr, "Private Endpoint", name)
	}
	cr.Status.PrivateEndpointID, cr.Status.PrivateEndpointIP = "", ""
	return outcome.Continue()
}

// deleteDNS removes our link, then our zone (its records go with it). A
// zone of the name that is not ours (another cluster's of the same name, or
// the customer's) is left as it is: none of its records, and no link but
// one carrying this cluster's tags, is ours to delete.
func (r *Reconciler) deleteDNS(ctx context.Context, s *scope, rg, zoneName string) outcome.Outcome {
	cr := s.cr
	zone, err := s.dns.Zone(ctx, rg, zoneName)
	if err != nil {
		return outcome.FromError(err)
	}
	if zone == nil {
		return outcome.Continue() // records and link went with it
	}
	ours := ZoneIsOurs(zone.Tags, s.infraID, cr.Name)
	if !ours && r.token(cr, opLinkDelete) == "" {
		link, err := s.dns.Link(ctx, rg, zoneName, s.linkName())
		if err != nil {
			return outcome.FromError(err)
		}
		if link == nil || !azurecloud.OwnedBy(link.Tags, s.infraID, cr.Name) {
			return outcome.Continue()
		}
	}
	next, err := s.dns.DeleteLink(ctx, rg, zoneName, s.linkName(), r.token(cr, opLinkDelete))
	r.keepToken(cr, opLinkDelete, next)
	if err != nil {
		return outcome.FromError(fmt.Errorf("deleting the zone's VNet link: %w", err))
	}
	if next != "" {
		return outcome.Wait(hcplinkv1beta1.DeletingReason, "Waiting for the VNet link of private DNS zone "+zoneName+" to be deleted", r.poll())
	}
	if !ours {
		return outcome.Continue()
	}
	next, err = s.dns.DeleteZone(ctx, rg, zoneName, r.token(cr, opZoneDelete))
	r.keepToken(cr, opZoneDelete, next)
	if err != nil {
		return outcome.FromError(fmt.Errorf("deleting private DNS zone %s: %w", zoneName, err))
	}
	if next != "" {
		return outcome.Wait(hcplinkv1beta1.DeletingReason, "Waiting for private DNS zone "+zoneName+" to be deleted", r.poll())
	}
	r.Events.Deleted(cr, "private DNS zone", zoneName)
	return outcome.Continue()
}

func (r *Reconciler) dropFinalizer(ctx context.Context, s *scope) (ctrl.Result, error) {
	if err := reconcilekit.RemoveFinalizer(ctx, r.Client, s.cr, hcplinkv1beta1.ControlPlaneFinalizer); err != nil {
		return ctrl.Result{}, err
	}
	r.forget(s.cr)
	ctrl.LoggerFrom(ctx).Info("Removed the Private Endpoint and DNS of AzurePrivateLinkService", "azurePrivateLinkService", s.cr.Name)
	return ctrl.Result{}, nil
}
