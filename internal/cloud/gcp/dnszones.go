package gcp

import (
	"context"

	dns "google.golang.org/api/dns/v1"
)

// The cluster's private Cloud DNS zone, <name>.hypershift.local., visible
// to the customer's VPC network only
// (https://cloud.google.com/dns/docs/reference/rest/v1/managedZones). Zones
// are made and deleted at once (no operation). A zone holding records
// other than its SOA and NS cannot be deleted: delete the records first.
// Only a zone hcplink created (CreatedByHcplink) is ever deleted.

// ZonesAPI is what the control-plane operator does with managed zones.
type ZonesAPI interface {
	Get(ctx context.Context, name string) (*dns.ManagedZone, error)
	Create(ctx context.Context, spec ZoneSpec) (zone *dns.ManagedZone, made bool, err error)
	Delete(ctx context.Context, zone *dns.ManagedZone, owner Owner) error
	Bind(ctx context.Context, zone *dns.ManagedZone, network string, owner Owner) error
}

// ZoneSpec is what a private zone is created with; its name and labels
// (created-by included) come from Owner (names.go).
type ZoneSpec struct {
	Owner Owner
	// HCPName is the HostedControlPlane's name: the zone is
	// ZoneDNSName(HCPName).
	HCPName string
	// Network is the customer's VPC network the zone is visible to (link or
	// relative name).
	Network string
}

// Zones is the control-plane side's ZonesAPI in the customer's project.
type Zones struct {
	DNS      *dns.Service
	Project  string
	Timeouts Timeouts
}

var _ ZonesAPI = (*Zones)(nil)

// Get returns the zone, nil when it does not exist.
func (z *Zones) Get(ctx context.Context, name string) (*dns.ManagedZone, error) {
	ctx, cancel := z.Timeouts.call(ctx)
	defer cancel()
	zone, err := z.DNS.ManagedZones.Get(z.Project, name).Context(ctx).Do()
	if IsNotFound(err) {
		return nil, nil
	}
	return zone, Wrap("reading DNS zone "+name, err)
}

// Create makes the cluster's private zone and says whether it made it: a
// zone of the name hcplink created for the owner is adopted (returned as it
// is, made false); another is refused (CodeNotOurs).
func (z *Zones) Create(ctx context.Context, spec ZoneSpec) (zone *dns.ManagedZone, made bool, err error) {
	callCtx, cancel := z.Timeouts.call(ctx)
	defer cancel()
	name := ZoneName(spec.Owner.InfraID)
	want := &dns.ManagedZone{
		Name: name, DnsName: ZoneDNSName(spec.HCPName), Description: "The cluster's private zone, made by hcplink", Visibility: "private",
		Labels: spec.Owner.ZoneLabels(),
		PrivateVisibilityConfig: &dns.ManagedZonePrivateVisibilityConfig{
			Networks: []*dns.ManagedZonePrivateVisibilityConfigNetwork{{NetworkUrl: networkURL(spec.Network)}},
		},
	}
	created, err := z.DNS.ManagedZones.Create(z.Project, want).Context(callCtx).Do()
	if IsAlreadyExists(err) {
		existing, getErr := z.Get(ctx, name)
		ours := existing != nil && CreatedByHcplink(existing.Labels) && spec.Owner.OwnsLabels(existing.Labels)
		if _, err := adopt("creating DNS zone "+name, "DNS zone", name, err, getErr, existing != nil, ours, ""); err != nil {
			return nil, false, err
		}
		return existing, false, nil
	}
	if err != nil {
		return nil, false, Wrap("creating DNS zone "+name, err)
	}
	return created, true, nil
}

// Delete deletes zone, as the caller read it in this pass, when hcplink
// created it for owner (its labels); one already gone is done, another's is
// refused (CodeNotOurs). It takes the zone read rather than reading it
// again: Cloud DNS's rate quota counts each read per user and minute
// (https://cloud.google.com/dns/quotas), and a deletion pass that spent one
// read more than it needed could, under a small quota, never reach the
// delete.
func (z *Zones) Delete(ctx context.Context, zone *dns.ManagedZone, owner Owner) error {
	if !CreatedByHcplink(zone.Labels) || !owner.OwnsLabels(zone.Labels) {
		return notOurs("deleting DNS zone "+zone.Name, "DNS zone", zone.Name)
	}
	ctx, cancel := z.Timeouts.call(ctx)
	defer cancel()
	err := z.DNS.ManagedZones.Delete(z.Project, zone.Name).Context(ctx).Do()
	if IsNotFound(err) {
		return nil
	}
	return Wrap("deleting DNS zone "+zone.Name, err)
}

// Bind makes the zone, read as zone, visible to network again
// (managedZones.patch of its privateVisibilityConfig; the networks it is
// bound to besides are kept), when hcplink created it for owner; another's
// is refused (CodeNotOurs). Cloud DNS checks dns.networks.bindPrivateDNSZone
// on each network of the new binding.
func (z *Zones) Bind(ctx context.Context, zone *dns.ManagedZone, network string, owner Owner) error {
	doing := "making DNS zone " + zone.Name + " visible to network " + lastSegment(network)
	if !CreatedByHcplink(zone.Labels) || !owner.OwnsLabels(zone.Labels) {
		return notOurs(doing, "DNS zone", zone.Name)
	}
	networks := []*dns.ManagedZonePrivateVisibilityConfigNetwork{{NetworkUrl: networkURL(network)}}
	if zone.PrivateVisibilityConfig != nil {
		for _, n := range zone.PrivateVisibilityConfig.Networks {
			if !sameResource(n.NetworkUrl, network) {
				networks = append(networks, &dns.ManagedZonePrivateVisibilityConfigNetwork{NetworkUrl: n.NetworkUrl})
			}
		}
	}
	ctx, cancel := z.Timeouts.call(ctx)
	defer cancel()
	patch := &dns.ManagedZone{PrivateVisibilityConfig: &dns.ManagedZonePrivateVisibilityConfig{Networks: networks}}
	_, err := z.DNS.ManagedZones.Patch(z.Project, zone.Name, patch).Context(ctx).Do()
	return Wrap(doing, err)
}

// ZoneVisibleTo reports whether a private zone is bound to network.
func ZoneVisibleTo(zone *dns.ManagedZone, network string) bool {
	if zone.PrivateVisibilityConfig == nil {
		return false
	}
	for _, n := range zone.PrivateVisibilityConfig.Networks {
		if sameResource(n.NetworkUrl, network) {
			return true
		}
	}
	return false
}

// networkURL is the full link Cloud DNS takes for a network, from a link
// or a relative name.
func networkURL(network string) string {
	if len(network) > 0 && network[0] != 'h' {
		return "https://www.googleapis.com/compute/v1/" + RelativeName(network)
	}
	return network
}
