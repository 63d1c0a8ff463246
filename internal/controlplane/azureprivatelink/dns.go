package azureprivatelink

import (
	"context"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/outcome"
)

// ZoneIsOurs reports whether the zone was created by hcplink for this CR
// of this cluster (its infraID): only such a zone is ever written to or
// deleted.
func ZoneIsOurs(tags map[string]*string, infraID, crName string) bool {
	return azurecloud.CreatedByHcplink(tags) && azurecloud.OwnedBy(tags, infraID, crName)
}

// LinkNeedsWrite reports whether the VNet link must be written: absent,
// failed, pointing elsewhere, or registering the VNet's hosts (ours never
// does).
func LinkNeedsWrite(link *armprivatedns.VirtualNetworkLink, vnetID string) bool {
	if link == nil || link.Properties == nil || link.Properties.VirtualNetwork == nil {
		return true
	}
	p := link.Properties
	failed := p.ProvisioningState != nil && *p.ProvisioningState == armprivatedns.ProvisioningStateFailed
	return failed || !strings.EqualFold(deref(p.VirtualNetwork.ID), vnetID) || p.RegistrationEnabled == nil || *p.RegistrationEnabled
}

// reconcileZoneAndLink makes the cluster's zone exist, created by hcplink
// and tagged for this cluster, and linked to the guest VNet without
// registration. Neither depends on the endpoint's address, so they are
// made while the endpoint provisions.
func (r *Reconciler) reconcileZoneAndLink(ctx context.Context, s *scope) outcome.Outcome {
	if o := r.reconcileZone(ctx, s); !o.Done() {
		return o
	}
	cr := s.cr
	if _, ok := r.proven(cr, stepLink, cr.Spec.GuestVNetID); ok {
		return outcome.Continue()
	}
	if o := r.reconcileLink(ctx, s); !o.Done() {
		return o
	}
	r.prove(cr, stepLink, cr.Spec.GuestVNetID, "")
	return outcome.Continue()
}

// reconcileZone makes the zone exist and be ours. status.privateDNSZoneID
// is set only for a zone of ours, so a pass that has it skips this step;
// the records' listing notices a zone deleted behind our back.
func (r *Reconciler) reconcileZone(ctx context.Context, s *scope) outcome.Outcome {
	cr, rg, zoneName := s.cr, s.cr.Spec.ResourceGroupName, s.cr.Status.DNSZoneName
	if cr.Status.PrivateDNSZoneID != "" && r.token(cr, opZoneCreate) == "" {
		return outcome.Continue()
	}
	tok := r.token(cr, opZoneCreate)
	if _, conflict := r.provenOnce(cr, stepZoneConflict); conflict && tok == "" {
		// A recheck of a conflict reads (no refused write) until the name
		// is free.
		zone, err := s.dns.Zone(ctx, rg, zoneName)
		if err != nil {
			return outcome.FromError(err)
		}
		if zone != nil && !ZoneIsOurs(zone.Tags, s.infraID, cr.Name) {
			return zoneConflict(s)
		}
		r.forgetProof(cr, stepZoneConflict)
	}
	// CreateZone creates only when absent (If-None-Match, no read first),
	// so an existing zone, ours or not, is never overwritten.
	callCtx, retryAfter := capturing(ctx)
	zone, next, err := s.dns.CreateZone(callCtx, rg, zoneName, azurecloud.ZoneTags(s.infraID, cr.Name), tok)
	r.keepToken(cr, opZoneCreate, next)
	if err != nil {
		return outcome.FromError(err)
	}
	if zone == nil {
		if tok == "" {
			r.Events.Created(cr, "private DNS zone", zoneName)
		}
		// A zone being created has no link yet: the link is created
		// without a read first.
		r.prove(cr, stepZoneCreated, zoneName, "")
		return r.operationPoll(DNSProvisioningReason, "Creating private DNS zone "+zoneName, retryAfter())
	}
	if !ZoneIsOurs(zone.Tags, s.infraID, cr.Name) {
		r.prove(cr, stepZoneConflict, zoneName, "")
		return zoneConflict(s)
	}
	cr.Status.PrivateDNSZoneID = deref(zone.ID)
	if cr.Status.PrivateDNSZoneID == "" {
		// Created and seen done on its operation: not read back.
		cr.Status.PrivateDNSZoneID = azurecloud.PrivateZoneID(cr.Spec.SubscriptionID, rg, zoneName)
	}
	return outcome.Continue()
}

// zoneConflict: a zone of the cluster's name that hcplink did not create
// for this cluster. Writing our records to it would break its owner's
// names (or another cluster's path), so nothing is written, nothing is
// deleted, and a person decides.
func zoneConflict(s *scope) outcome.Outcome {
	zoneName := s.cr.Status.DNSZoneName
	return outcome.WaitOnPerson(hcplinkv1beta1.PrivateDNSZoneNameConflictReason,
		"Private DNS zone "+zoneName+" already exists in resource group "+s.cr.Spec.ResourceGroupName+
			" and was not created by hcplink for this cluster (another cluster of the same name, or a zone of your own); hcplink does not touch it. "+
			"Delete that zone or create this cluster in another resource group; the Private Endpoint is kept and the zone is made once the name is free.")
}

// reconcileLink links the zone to the guest VNet, registration off.
func (r *Reconciler) reconcileLink(ctx context.Context, s *scope) outcome.Outcome {
	cr, rg, zoneName, name := s.cr, s.cr.Spec.ResourceGroupName, s.cr.Status.DNSZoneName, s.linkName()
	tok := r.token(cr, opLinkCreate)
	var link *armprivatedns.VirtualNetworkLink
	if _, newZone := r.proven(cr, stepZoneCreated, zoneName); tok == "" && !newZone {
		var err error
		if link, err = s.dns.Link(ctx, rg, zoneName, name); err != nil {
			return outcome.FromError(err)
		}
	}
	if tok != "" || LinkNeedsWrite(link, cr.Spec.GuestVNetID) {
		callCtx, retryAfter := capturing(ctx)
		l, next, err := s.dns.CreateOrUpdateLink(callCtx, rg, zoneName, name, cr.Spec.GuestVNetID, azurecloud.OwnershipTags(s.infraID, cr.Name), tok)
		r.keepToken(cr, opLinkCreate, next)
		if azurecloud.IsVNetLinkConflict(err) {
			r.prove(cr, stepLinkConflict, cr.Spec.GuestVNetID, "")
			return linkConflict(zoneName)
		}
		if err != nil {
			return outcome.FromError(err)
		}
		if l == nil {
			if _, retrying := r.proven(cr, stepLinkConflict, cr.Spec.GuestVNetID); retrying {
				// A retry of a refused link: the same condition, so that
				// its rechecks keep growing.
				return linkConflict(zoneName)
			}
			return r.operationPoll(DNSProvisioningReason, "Linking private DNS zone "+zoneName+" to the cluster's VNet", retryAfter())
		}
		link = l
	}
	if st := link.Properties.VirtualNetworkLinkState; st != nil && *st != armprivatedns.VirtualNetworkLinkStateCompleted {
		return outcome.Poll(DNSProvisioningReason, "Waiting for the link of private DNS zone "+zoneName+" to the cluster's VNet", r.poll(), pendingMostPoll)
	}
	r.forgetProof(cr, stepLinkConflict)
	return outcome.Continue()
}

// linkConflict: Azure links a VNet to at most one zone of a name, and the
// guest VNet is linked to another zone named like ours (the customer's own
// in another resource group, or another cluster's). The link is retried at
// growing intervals until that link is removed.
func linkConflict(zoneName string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.PrivateDNSZoneLinkConflictReason,
		"Azure refused to link private DNS zone "+zoneName+" to the cluster's VNet: the VNet is already linked to another zone named "+zoneName+
			" (a zone of your own in another resource group, or another cluster's). Remove that link so that workers resolve the cluster through hcplink's zone; the link is retried.")
}

// reconcileRecords lists the zone's record sets once and writes only what
// differs: the api and *.apps A records for ip, carrying the cluster's
// ownership as metadata, and the SOA's negative TTL, lowered to at most a
// minute (never raised).
func (r *Reconciler) reconcileRecords(ctx context.Context, s *scope, ip string) outcome.Outcome {
	cr, rg, zoneName := s.cr, s.cr.Spec.ResourceGroupName, s.cr.Status.DNSZoneName
	// A zone this convergence created holds only Azure's SOA (whose
	// negative TTL is below ours): nothing to list.
	sets, found := []*armprivatedns.RecordSet(nil), true
	if _, newZone := r.proven(cr, stepZoneCreated, zoneName); !newZone {
		var err error
		if sets, found, err = s.dns.RecordSets(ctx, rg, zoneName); err != nil {
			return outcome.FromError(err)
		}
	}
	if !found {
		// Deleted behind our back: made again (and linked) by the next pass.
		cr.Status.PrivateDNSZoneID = ""
		r.forgetProof(cr, stepLink)
		return outcome.Wait(DNSProvisioningReason, "Private DNS zone "+zoneName+" is gone; it is being created again", r.poll())
	}
	soa := azurecloud.FindRecordSet(sets, armprivatedns.RecordTypeSOA, "@")
	if _, err := s.dns.LowerSOANegativeTTL(ctx, rg, zoneName, soa, azurecloud.MaxSOANegativeTTL); err != nil {
		return outcome.FromError(err)
	}
	owner := azurecloud.OwnershipTags(s.infraID, cr.Name)
	for _, name := range azurecloud.RecordNames {
		if azurecloud.ARecordIsCurrent(azurecloud.FindRecordSet(sets, armprivatedns.RecordTypeA, name), ip, azurecloud.RecordTTL, owner) {
			continue
		}
		if err := s.dns.PutARecord(ctx, rg, zoneName, name, ip, azurecloud.RecordTTL, owner); err != nil {
			return outcome.FromError(err)
		}
	}
	return outcome.Continue()
}

// DNSProvisioningReason: Azure is creating the private zone or its VNet
// link. (Local to the control-plane operator: the API's reasons name no
// DNS wait.)
const DNSProvisioningReason = "PrivateDNSProvisioning"
