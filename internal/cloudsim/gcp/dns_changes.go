package gcp

import (
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	dns "google.golang.org/api/dns/v1"
)

// Cloud DNS changes (https://cloud.google.com/dns/docs/reference/rest/v1/changes):
// deletions then additions, applied atomically or not at all. A deletion
// must name an existing record set (404 notFound) and match it exactly,
// TTL and data (412 conditionNotMet); an addition must not collide with a
// record set that stays (409 alreadyExists); a CNAME shares its name with
// nothing. The change reads "pending" until it has propagated (DNSChange
// delay on the sim clock), then "done". rrsets.create and rrsets.delete are
// one-record-set changes.

var recordTypes = []string{"A", "AAAA", "CNAME", "TXT", "NS", "SOA", "MX", "PTR", "SRV", "CAA"}

func createChange(x *call) (any, *Error) {
	z, err := x.zone()
	if err != nil {
		return nil, err
	}
	var ch dns.Change
	if err := x.decode(&ch); err != nil {
		return nil, err
	}
	if len(ch.Additions) > maxAdditionsPerChange || len(ch.Deletions) > maxDeletionsPerChange {
		return nil, errInvalid("A change holds at most %d additions and %d deletions.", maxAdditionsPerChange, maxDeletionsPerChange)
	}
	if len(ch.Additions) > 0 {
		if err := x.require("dns.resourceRecordSets.create", zoneKey(x.project.ID, z.zone.Name)); err != nil {
			return nil, err
		}
	}
	if len(ch.Deletions) > 0 {
		if err := x.require("dns.resourceRecordSets.delete", zoneKey(x.project.ID, z.zone.Name)); err != nil {
			return nil, err
		}
	}
	return x.applyChange(z, ch.Additions, ch.Deletions)
}

// applyChange checks the whole change against the zone, then applies it.
func (x *call) applyChange(z *managedZone, additions, deletions []*dns.ResourceRecordSet) (*dns.Change, *Error) {
	if len(additions) == 0 && len(deletions) == 0 {
		return nil, errRequired("entity.change")
	}
	next := make(map[string]*dns.ResourceRecordSet, len(z.records))
	for k, r := range z.records {
		next[k] = r
	}
	for i, d := range deletions {
		field := fmt.Sprintf("entity.change.deletions[%d]", i)
		k := recordKey(d.Name, d.Type)
		current := next[k]
		if current == nil {
			return nil, &Error{Code: http.StatusNotFound, Reason: "notFound",
				Message: fmt.Sprintf("The '%s' resource named '%s (%s)' does not exist.", field, d.Name, d.Type)}
		}
		if current.Ttl != d.Ttl || !slices.Equal(current.Rrdatas, d.Rrdatas) {
			return nil, &Error{Code: http.StatusPreconditionFailed, Reason: "conditionNotMet",
				Message: fmt.Sprintf("Precondition not met for '%s'", field)}
		}
		delete(next, k)
	}
	for i, a := range additions {
		field := fmt.Sprintf("entity.change.additions[%d]", i)
		if err := checkRecordSet(z, a, field); err != nil {
			return nil, err
		}
		k := recordKey(a.Name, a.Type)
		if next[k] != nil {
			return nil, &Error{Code: http.StatusConflict, Reason: "alreadyExists",
				Message: fmt.Sprintf("The resource '%s' named '%s (%s)' already exists", field, a.Name, a.Type)}
		}
		for _, other := range next {
			if other.Name == a.Name && (other.Type == "CNAME") != (a.Type == "CNAME") {
				return nil, errInvalid("The resource '%s' named '%s (%s)' conflicts with '%s (%s)': a CNAME record set shares its name with no other.", field, a.Name, a.Type, other.Name, other.Type)
			}
		}
		copied := *a
		copied.Kind, copied.ForceSendFields, copied.NullFields = "dns#resourceRecordSet", nil, nil
		next[k] = &copied
	}
	if len(next) > maxRecordSetsPerZone {
		return nil, errInvalid("A managed zone holds at most %d record sets.", maxRecordSetsPerZone)
	}
	z.records = next
	ch := &dns.Change{Kind: "dns#change", Id: fmt.Sprint(len(z.changes)), StartTime: x.now.UTC().Format(time.RFC3339Nano),
		Additions: additions, Deletions: deletions, Status: "pending"}
	z.changes = append(z.changes, &zoneChange{change: ch, doneAt: x.now.Add(x.c.Delays().DNSChange.D())})
	return renderChange(z.changes[len(z.changes)-1], x.now), nil
}

func checkRecordSet(z *managedZone, r *dns.ResourceRecordSet, field string) *Error {
	if !strings.HasSuffix(r.Name, ".") || !(r.Name == z.zone.DnsName || strings.HasSuffix(r.Name, "."+z.zone.DnsName)) {
		return errInvalid("Invalid value for '%s.name': '%s'. The name must be fully qualified and within the zone's DNS name '%s'.", field, r.Name, z.zone.DnsName)
	}
	if !slices.Contains(recordTypes, r.Type) {
		return errInvalid("Invalid value for '%s.type': '%s'", field, r.Type)
	}
	if len(r.Rrdatas) == 0 || len(r.Rrdatas) > maxRecordsPerSet {
		return errInvalid("Invalid value for '%s.rrdatas': a record set holds 1 to %d records.", field, maxRecordsPerSet)
	}
	if r.Ttl < 0 {
		return errInvalid("Invalid value for '%s.ttl': '%d'", field, r.Ttl)
	}
	for _, d := range r.Rrdatas {
		if ip, err := netip.ParseAddr(d); r.Type == "A" && (err != nil || !ip.Is4()) {
			return errInvalid("Invalid value for '%s.rrdata': '%s'", field, d)
		}
	}
	return nil
}

func renderChange(zc *zoneChange, now time.Time) *dns.Change {
	out := *zc.change
	if !now.Before(zc.doneAt) {
		out.Status = "done"
	}
	return &out
}

func getChange(x *call) (any, *Error) {
	z, err := x.zone()
	if err != nil {
		return nil, err
	}
	for _, zc := range z.changes {
		if zc.change.Id == x.r.PathValue("change") {
			return renderChange(zc, x.now), nil
		}
	}
	return nil, &Error{Code: http.StatusNotFound, Reason: "notFound",
		Message: "The 'parameters.changeId' resource named '" + x.r.PathValue("change") + "' does not exist."}
}

func listChanges(x *call) (any, *Error) {
	z, err := x.zone()
	if err != nil {
		return nil, err
	}
	var items []any
	for _, zc := range z.changes {
		items = append(items, renderChange(zc, x.now))
	}
	return x.pageAs("dns#changesListResponse", "changes", items)
}

func listRecordSets(x *call) (any, *Error) {
	z, err := x.zone()
	if err != nil {
		return nil, err
	}
	q := x.r.URL.Query()
	var items []any
	for _, r := range z.sortedRecords() {
		if (q.Get("name") == "" || r.Name == q.Get("name")) && (q.Get("type") == "" || r.Type == q.Get("type")) {
			items = append(items, r)
		}
	}
	return x.pageAs("dns#resourceRecordSetsListResponse", "rrsets", items)
}

func createRecordSet(x *call) (any, *Error) {
	z, err := x.zone()
	if err != nil {
		return nil, err
	}
	var r dns.ResourceRecordSet
	if err := x.decode(&r); err != nil {
		return nil, err
	}
	if _, err := x.applyChange(z, []*dns.ResourceRecordSet{&r}, nil); err != nil {
		return nil, err
	}
	return z.records[recordKey(r.Name, r.Type)], nil
}

func getRecordSet(x *call) (any, *Error) {
	z, err := x.zone()
	if err != nil {
		return nil, err
	}
	r := z.records[recordKey(x.r.PathValue("name"), x.r.PathValue("type"))]
	if r == nil {
		return nil, &Error{Code: http.StatusNotFound, Reason: "notFound",
			Message: fmt.Sprintf("The 'parameters.name' resource named '%s (%s)' does not exist.", x.r.PathValue("name"), x.r.PathValue("type"))}
	}
	return r, nil
}

func deleteRecordSet(x *call) (any, *Error) {
	z, err := x.zone()
	if err != nil {
		return nil, err
	}
	r := z.records[recordKey(x.r.PathValue("name"), x.r.PathValue("type"))]
	if r == nil {
		return nil, &Error{Code: http.StatusNotFound, Reason: "notFound",
			Message: fmt.Sprintf("The 'parameters.name' resource named '%s (%s)' does not exist.", x.r.PathValue("name"), x.r.PathValue("type"))}
	}
	if _, err := x.applyChange(z, nil, []*dns.ResourceRecordSet{r}); err != nil {
		return nil, err
	}
	return map[string]string{"kind": "dns#resourceRecordSetsDeleteResponse"}, nil
}
