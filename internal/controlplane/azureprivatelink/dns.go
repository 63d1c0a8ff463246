package azureprivatelink

import (
	"context"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/outcome"
)

// PrivateDNSZoneName is the cluster's private zone.
func PrivateDNSZoneName(hcpName string) string {
	return azurecloud.PrivateDNSZoneName(strings.ToLower(hcpName))
}

func (s *scope) linkName() string { return azurecloud.VNetLinkName(s.infraID) }

// ZoneIsOurs reports whether the zone was created by hcplink for this CR
// of this cluster: only such a zone is ever changed beyond our records and
// link, or deleted.
func ZoneIsOurs(tags map[string]*string, infraID, crName string) bool {
	return azurecloud.CreatedByHcplink(tags) && azurecloud.OwnedBy(tags, infraID, crName)
}

// LinkNeedsWrite reports whether the VNet link must be written: absent,
// pointing elsewhere, or registering the VNet's hosts (ours never does).
func LinkNeedsWrite(link *armprivatedns.VirtualNetworkLink, vnetID string) bool {
	if link == nil || link.Properties == nil || link.Properties.VirtualNetwork == nil {
		return true
	}
	p := link.Properties
	return !strings.EqualFold(deref(p.VirtualNetwork.ID), vnetID) || p.RegistrationEnabled == nil || *p.RegistrationEnabled
}

// reconcileDNS makes the private zone exist (created by us, tagged as
// ours, unless one with its name exists already), linked to the guest VNet
// without registration, with the api and *.apps records for ip and, in a
// zone of ours, the SOA's negative TTL.
func (r *Reconciler) reconcileDNS(ctx context.Context, s *scope, ip string) outcome.Outcome {
	cr, rg, zoneName := s.cr, s.cr.Spec.ResourceGroupName, s.cr.Status.DNSZoneName
	ours, o := r.reconcileZone(ctx, s)
	if !o.Done() {
		return o
	}
	if _, ok := r.proven(cr, stepSOA, zoneName); ours && !ok {
		if err := r.reconcileSOA(ctx, s); err != nil {
			return outcome.FromError(err)
		}
		r.prove(cr, stepSOA, zoneName, "")
	}
	if _, ok := r.proven(cr, stepLink, cr.Spec.GuestVNetID); !ok {
		if o := r.reconcileLink(ctx, s); !o.Done() {
			return o
		}
		r.prove(cr, stepLink, cr.Spec.GuestVNetID, "")
	}
	for _, name := range RecordNames {
		if _, ok := r.proven(cr, stepRecord+name, ip); ok {
			continue
		}
		if _, err := s.dns.SetARecord(ctx, rg, zoneName, name, ip, azurecloud.RecordTTL, nil); err != nil {
			return outcome.FromError(err)
		}
		r.prove(cr, stepRecord+name, ip, "")
	}
	return outcome.Continue()
}

// reconcileZone makes the private zone exist: created by us and tagged as
// ours unless one with its name exists already. It reports whether the
// zone is ours.
func (r *Reconciler) reconcileZone(ctx context.Context, s *scope) (ours bool, o outcome.Outcome) {
	cr, rg, zoneName := s.cr, s.cr.Spec.ResourceGroupName, s.cr.Status.DNSZoneName
	if v, ok := r.proven(cr, stepZone, zoneName); ok && cr.Status.PrivateDNSZoneID != "" {
		return v == "ours", outcome.Continue()
	}
	zone, err := s.dns.Zone(ctx, rg, zoneName)
	if err != nil {
		return false, outcome.FromError(err)
	}
	if tok := r.token(cr, opZoneCreate); zone == nil || tok != "" {
		z, next, err := s.dns.CreateZone(ctx, rg, zoneName, azurecloud.ZoneTags(s.infraID, cr.Name), tok)
		r.keepToken(cr, opZoneCreate, next)
		if err != nil {
			return false, outcome.FromError(err)
		}
		if tok == "" {
			r.Events.Created(cr, "private DNS zone", zoneName)
		}
		if z == nil {
			return false, outcome.Poll(DNSProvisioningReason, "Creating private DNS zone "+zoneName, r.poll(), pendingMostPoll)
		}
		zone = z
	}
	cr.Status.PrivateDNSZoneID = deref(zone.ID)
	ours = ZoneIsOurs(zone.Tags, s.infraID, cr.Name)
	value := "theirs"
	if ours {
		value = "ours"
	}
	r.prove(cr, stepZone, zoneName, value)
	return ours, outcome.Continue()
}

// reconcileSOA sets the zone's negative-cache TTL, so that a name looked
// up before its record existed is asked again within a minute.
func (r *Reconciler) reconcileSOA(ctx context.Context, s *scope) error {
	_, err := s.dns.EnsureSOANegativeTTL(ctx, s.cr.Spec.ResourceGroupName, s.cr.Status.DNSZoneName, azurecloud.SOANegativeTTL)
	return err
}

// reconcileLink links the zone to the guest VNet, registration off.
func (r *Reconciler) reconcileLink(ctx context.Context, s *scope) outcome.Outcome {
	cr, rg, zoneName, name := s.cr, s.cr.Spec.ResourceGroupName, s.cr.Status.DNSZoneName, s.linkName()
	link, err := s.dns.Link(ctx, rg, zoneName, name)
	if err != nil {
		return outcome.FromError(err)
	}
	if tok := r.token(cr, opLinkCreate); tok != "" || LinkNeedsWrite(link, cr.Spec.GuestVNetID) {
		l, next, err := s.dns.CreateOrUpdateLink(ctx, rg, zoneName, name, cr.Spec.GuestVNetID, azurecloud.OwnershipTags(s.infraID, cr.Name), tok)
		r.keepToken(cr, opLinkCreate, next)
		if err != nil {
			return outcome.FromError(err)
		}
		if l == nil {
			return outcome.Poll(DNSProvisioningReason, "Linking private DNS zone "+zoneName+" to the cluster's VNet", r.poll(), pendingMostPoll)
		}
		link = l
	}
	if st := link.Properties.VirtualNetworkLinkState; st != nil && *st != armprivatedns.VirtualNetworkLinkStateCompleted {
		return outcome.Poll(DNSProvisioningReason, "Waiting for the link of private DNS zone "+zoneName+" to the cluster's VNet", r.poll(), pendingMostPoll)
	}
	return outcome.Continue()
}

// DNSProvisioningReason: Azure is creating the private zone or its VNet
// link. (Local to the control-plane operator: the API's reasons name no
// DNS wait.)
const DNSProvisioningReason = "PrivateDNSProvisioning"
