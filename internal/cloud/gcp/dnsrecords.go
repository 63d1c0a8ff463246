package gcp

import (
	"context"
	"slices"

	dns "google.golang.org/api/dns/v1"
)

// The A records of the cluster's private zone, api and *.apps, both to the
// PSC endpoint's IP (TTL RecordTTL). They are read once per pass and
// changed only when they differ, by one Cloud DNS change (deletions then
// additions, atomic: https://cloud.google.com/dns/docs/reference/rest/v1/changes).

// RecordsAPI is what the control-plane operator does with record sets.
type RecordsAPI interface {
	List(ctx context.Context, zone string) ([]*dns.ResourceRecordSet, error)
	Change(ctx context.Context, zone string, additions, deletions []*dns.ResourceRecordSet) (*dns.Change, error)
}

// Records is the control-plane side's RecordsAPI in the customer's project.
type Records struct {
	DNS      *dns.Service
	Project  string
	Timeouts Timeouts
}

var _ RecordsAPI = (*Records)(nil)

// List returns every record set of the zone.
func (r *Records) List(ctx context.Context, zone string) ([]*dns.ResourceRecordSet, error) {
	ctx, cancel := r.Timeouts.list(ctx)
	defer cancel()
	var out []*dns.ResourceRecordSet
	err := r.DNS.ResourceRecordSets.List(r.Project, zone).Context(ctx).Pages(ctx, func(page *dns.ResourceRecordSetsListResponse) error {
		out = append(out, page.Rrsets...)
		return nil
	})
	return out, Wrap("listing the records of DNS zone "+zone, err)
}

// Change applies deletions then additions at once. A deletion that no
// longer matches (the record changed meanwhile) answers an error
// IsDependency tells: list again.
func (r *Records) Change(ctx context.Context, zone string, additions, deletions []*dns.ResourceRecordSet) (*dns.Change, error) {
	ctx, cancel := r.Timeouts.call(ctx)
	defer cancel()
	ch, err := r.DNS.Changes.Create(r.Project, zone, &dns.Change{Additions: additions, Deletions: deletions}).Context(ctx).Do()
	return ch, Wrap("changing the records of DNS zone "+zone, err)
}

// DesiredRecords are the cluster's A records in the zone zoneDNSName, to ip.
func DesiredRecords(zoneDNSName, ip string) []*dns.ResourceRecordSet {
	var out []*dns.ResourceRecordSet
	for _, name := range RecordNames {
		out = append(out, &dns.ResourceRecordSet{Name: RecordFQDN(name, zoneDNSName), Type: "A", Ttl: RecordTTL, Rrdatas: []string{ip}})
	}
	return out
}

// RecordChanges compares the zone's record sets with want: a missing one
// is added; one that differs (data or TTL) is deleted as it is and added
// as wanted. Nothing to do is two empty lists.
func RecordChanges(have, want []*dns.ResourceRecordSet) (additions, deletions []*dns.ResourceRecordSet) {
	for _, w := range want {
		current := findRecord(have, w.Name, w.Type)
		switch {
		case current == nil:
			additions = append(additions, w)
		case current.Ttl != w.Ttl || !slices.Equal(sorted(current.Rrdatas), sorted(w.Rrdatas)):
			deletions = append(deletions, current)
			additions = append(additions, w)
		}
	}
	return additions, deletions
}

// OwnRecords are the record sets of have that hcplink writes (the A
// records of RecordNames): what is deleted before the zone.
func OwnRecords(have []*dns.ResourceRecordSet, zoneDNSName string) []*dns.ResourceRecordSet {
	var out []*dns.ResourceRecordSet
	for _, name := range RecordNames {
		if r := findRecord(have, RecordFQDN(name, zoneDNSName), "A"); r != nil {
			out = append(out, r)
		}
	}
	return out
}

func findRecord(have []*dns.ResourceRecordSet, name, typ string) *dns.ResourceRecordSet {
	for _, r := range have {
		if r.Name == name && r.Type == typ {
			return r
		}
	}
	return nil
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
