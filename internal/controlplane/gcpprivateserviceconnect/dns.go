package gcpprivateserviceconnect

import (
	"context"
	"fmt"

	dns "google.golang.org/api/dns/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/outcome"
)

// reconcileDNS makes the cluster's private zone exist, ours and visible to
// the customer's network, and its api and *.apps A records point at ip:
// the zone is read, its record sets listed once, and one change writes
// only what differs.
func (r *Reconciler) reconcileDNS(ctx context.Context, s *scope, ip string) outcome.Outcome {
	cr := s.cr
	name := gcpcloud.ZoneName(s.owner.InfraID)
	// A zone the status does not name yet is made straight away (Create
	// adopts one that exists and is ours, after a restart before the
	// status was written): the read before it would find nothing on
	// every new cluster.
	var zone *dns.ManagedZone
	if cr.Status.DNSZoneName == name {
		var err error
		if zone, err = s.cloud.Zones.Get(ctx, name); err != nil {
			return outcome.FromError(err)
		}
	}
	cr.Status.DNSZoneName = name
	var err error
	created := false
	if zone == nil {
		if zone, created, err = s.cloud.Zones.Create(ctx, gcpcloud.ZoneSpec{Owner: s.owner, HCPName: s.hcp.Name, Network: s.network()}); err != nil {
			if isNotOurs(err) {
				return zoneConflict(name)
			}
			return outcome.FromError(err)
		}
		if created {
			r.Events.Created(cr, "private DNS zone", name)
		}
	}
	if !ZoneIsOurs(zone, s.owner) {
		return zoneConflict(name)
	}
	if !gcpcloud.ZoneVisibleTo(zone, s.network()) {
		// The zone is ours (above): its binding to the cluster's network was
		// removed or changed behind hcplink's back. Bound again, with any
		// network someone added kept.
		if err := s.cloud.Zones.Bind(ctx, zone, s.network(), s.owner); err != nil {
			return outcome.FromError(err)
		}
		r.Events.Repaired(cr, "private DNS zone", name, "its visibility to network "+cr.Spec.Network)
	}
	// A zone just made holds only its SOA and NS: nothing to list.
	var have []*dns.ResourceRecordSet
	if !created {
		if have, err = s.cloud.Records.List(ctx, name); err != nil {
			return outcome.FromError(err)
		}
	}
	want := gcpcloud.DesiredRecords(zone.DnsName, ip)
	if additions, deletions := gcpcloud.RecordChanges(have, want); len(additions)+len(deletions) > 0 {
		if _, err := s.cloud.Records.Change(ctx, name, additions, deletions); err != nil {
			return outcome.FromError(fmt.Errorf("writing the api and *.apps records: %w", err))
		}
	}
	cr.Status.DNSRecords = nil
	for _, rr := range want {
		cr.Status.DNSRecords = append(cr.Status.DNSRecords, rr.Name)
	}
	return outcome.Continue()
}

// ZoneIsOurs reports whether hcplink created the zone for this cluster's
// object: only such a zone is ever written to or deleted.
func ZoneIsOurs(zone *dns.ManagedZone, owner gcpcloud.Owner) bool {
	return zone != nil && gcpcloud.CreatedByHcplink(zone.Labels) && owner.OwnsLabels(zone.Labels)
}

func zoneConflict(name string) outcome.Outcome {
	return outcome.WaitOnPerson(hcplinkv1beta1.DNSZoneConflictReason,
		"A Cloud DNS zone named "+name+" exists in the cluster's project but was not made by hcplink for this cluster; hcplink neither writes to it nor deletes it: remove or rename it")
}

// externalNameTarget is the name the ExternalName Services of a Private
// cluster point at: the api record of its private zone.
func externalNameTarget(hcpName string) string { return gcpcloud.ExternalNameTarget(hcpName) }
