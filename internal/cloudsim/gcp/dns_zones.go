package gcp

import (
	"net/http"
	"sort"
	"strings"
	"time"

	dns "google.golang.org/api/dns/v1"
)

// Cloud DNS managed zones (https://cloud.google.com/dns/docs/reference/rest/v1/managedZones):
// a dnsName ending in a dot, public or private — a private zone is visible
// to the VPC networks of its privateVisibilityConfig, which must exist and
// which the caller must be allowed to bind (dns.networks.bindPrivateDNSZone).
// Cloud DNS creates the zone's SOA and NS record sets; a zone holding any
// other record set cannot be deleted (400 containerNotEmpty). Zones are
// created and deleted at once (no operation to wait for).

// Cloud DNS's system limits (https://cloud.google.com/dns/quotas).
const (
	maxRecordSetsPerZone  = 10000
	maxRecordsPerSet      = 100
	maxAdditionsPerChange = 1000
	maxDeletionsPerChange = 1000
)

type managedZone struct {
	zone    *dns.ManagedZone
	records map[string]*dns.ResourceRecordSet // by name + " " + type
	changes []*zoneChange
}

type zoneChange struct {
	change *dns.Change
	doneAt time.Time
}

func recordKey(name, typ string) string { return name + " " + typ }

func (z *managedZone) sortedRecords() []*dns.ResourceRecordSet {
	out := make([]*dns.ResourceRecordSet, 0, len(z.records))
	for _, r := range z.records {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		return recordKey(out[i].Name, out[i].Type) < recordKey(out[j].Name, out[j].Type)
	})
	return out
}

func (c *Cloud) registerDNS(mux *http.ServeMux) {
	const zones = "/dns/v1/projects/{project}/managedZones"
	const zone = zones + "/{zone}"
	c.handle(mux, "POST "+zones, dnsAPI("managedZones.create", "dns.managedZones.create"), createZone)
	c.handle(mux, "GET "+zones, dnsAPI("managedZones.list", "dns.managedZones.list"), listZones)
	c.handle(mux, "GET "+zone, dnsAPI("managedZones.get", "dns.managedZones.get"), getZone)
	c.handle(mux, "DELETE "+zone, dnsAPI("managedZones.delete", "dns.managedZones.delete"), deleteZone)
	c.handle(mux, "PATCH "+zone, dnsAPI("managedZones.patch", "dns.managedZones.update"), patchZone)
	c.handle(mux, "POST "+zone+"/changes", dnsAPI("changes.create", "dns.changes.create"), createChange)
	c.handle(mux, "GET "+zone+"/changes", dnsAPI("changes.list", "dns.changes.list"), listChanges)
	c.handle(mux, "GET "+zone+"/changes/{change}", dnsAPI("changes.get", "dns.changes.get"), getChange)
	c.handle(mux, "GET "+zone+"/rrsets", dnsAPI("resourceRecordSets.list", "dns.resourceRecordSets.list"), listRecordSets)
	c.handle(mux, "POST "+zone+"/rrsets", dnsAPI("resourceRecordSets.create", "dns.resourceRecordSets.create"), createRecordSet)
	c.handle(mux, "GET "+zone+"/rrsets/{name}/{type}", dnsAPI("resourceRecordSets.get", "dns.resourceRecordSets.get"), getRecordSet)
	c.handle(mux, "DELETE "+zone+"/rrsets/{name}/{type}", dnsAPI("resourceRecordSets.delete", "dns.resourceRecordSets.delete"), deleteRecordSet)
}

func dnsAPI(method, permission string) api {
	return api{service: dnsService, method: method, permission: permission}
}

func zoneKey(project, name string) string { return "projects/" + project + "/managedZones/" + name }

// zone finds the path's zone by name or numeric id.
func (x *call) zone() (*managedZone, *Error) {
	ref := x.r.PathValue("zone")
	if z := x.c.st.zones[zoneKey(x.project.ID, ref)]; z != nil {
		return z, nil
	}
	for k, z := range x.c.st.zones {
		if projectOf(k) == x.project.ID && itoa(z.zone.Id) == ref {
			return z, nil
		}
	}
	return nil, &Error{Code: http.StatusNotFound, Reason: "notFound",
		Message: "The 'parameters.managedZone' resource named '" + ref + "' does not exist."}
}

func createZone(x *call) (any, *Error) {
	var z dns.ManagedZone
	if err := x.decode(&z); err != nil {
		return nil, err
	}
	if !validName(z.Name) {
		return nil, errInvalid("Invalid value for 'entity.managedZone.name': '%s'", z.Name)
	}
	if !strings.HasSuffix(z.DnsName, ".") || len(z.DnsName) < 2 {
		return nil, errInvalid("Invalid value for 'entity.managedZone.dnsName': '%s'. A zone's DNS name is fully qualified, ending with a dot.", z.DnsName)
	}
	key := zoneKey(x.project.ID, z.Name)
	if x.c.st.zones[key] != nil {
		return nil, &Error{Code: http.StatusConflict, Reason: "alreadyExists",
			Message: "The resource 'entity.managedZone' named '" + z.Name + "' already exists"}
	}
	if z.Visibility == "" {
		z.Visibility = "public"
	}
	switch z.Visibility {
	case "public":
		if z.PrivateVisibilityConfig != nil {
			return nil, errInvalid("Invalid value for 'entity.managedZone.privateVisibilityConfig': a public zone has none.")
		}
	case "private":
		if err := x.checkZoneNetworks(&z); err != nil {
			return nil, err
		}
	default:
		return nil, errInvalid("Invalid value for 'entity.managedZone.visibility': '%s'", z.Visibility)
	}
	z.Kind, z.Id, z.CreationTime = "dns#managedZone", x.c.newID(), x.now.UTC().Format(time.RFC3339Nano)
	z.NameServers = []string{"ns-gcp-private.googledomains.com."}
	if z.Visibility == "public" {
		z.NameServers = []string{"ns-cloud-a1.googledomains.com.", "ns-cloud-a2.googledomains.com.", "ns-cloud-a3.googledomains.com.", "ns-cloud-a4.googledomains.com."}
	}
	z.ForceSendFields, z.NullFields = nil, nil
	mz := &managedZone{zone: &z, records: map[string]*dns.ResourceRecordSet{}}
	ns := &dns.ResourceRecordSet{Kind: "dns#resourceRecordSet", Name: z.DnsName, Type: "NS", Ttl: 21600, Rrdatas: z.NameServers}
	soa := &dns.ResourceRecordSet{Kind: "dns#resourceRecordSet", Name: z.DnsName, Type: "SOA", Ttl: 21600,
		Rrdatas: []string{z.NameServers[0] + " cloud-dns-hostmaster.google.com. 1 21600 3600 259200 300"}}
	mz.records[recordKey(ns.Name, ns.Type)], mz.records[recordKey(soa.Name, soa.Type)] = ns, soa
	mz.changes = []*zoneChange{{change: &dns.Change{Kind: "dns#change", Id: "0", Status: "done", StartTime: z.CreationTime,
		Additions: []*dns.ResourceRecordSet{ns, soa}}, doneAt: x.now}}
	x.c.st.zones[key] = mz
	return &z, nil
}

// checkZoneNetworks requires each network of a private zone to exist and
// the caller to be allowed to bind it.
func (x *call) checkZoneNetworks(z *dns.ManagedZone) *Error {
	if z.PrivateVisibilityConfig == nil {
		z.PrivateVisibilityConfig = &dns.ManagedZonePrivateVisibilityConfig{}
	}
	z.PrivateVisibilityConfig.Kind = "dns#managedZonePrivateVisibilityConfig"
	for i, n := range z.PrivateVisibilityConfig.Networks {
		key := rel(n.NetworkUrl)
		if !strings.HasPrefix(key, "projects/") || x.c.network(key) == nil {
			return errInvalid("Invalid value for 'entity.managedZone.privateVisibilityConfig.networks[%d].networkUrl': '%s'", i, n.NetworkUrl)
		}
		if err := x.require("dns.networks.bindPrivateDNSZone", key); err != nil {
			return err
		}
		n.Kind, n.NetworkUrl = "dns#managedZonePrivateVisibilityConfigNetwork", x.c.network(key).SelfLink
	}
	return nil
}

func getZone(x *call) (any, *Error) {
	z, err := x.zone()
	if err != nil {
		return nil, err
	}
	return z.zone, nil
}

func listZones(x *call) (any, *Error) {
	dnsName := x.r.URL.Query().Get("dnsName")
	var items []any
	for _, k := range sortedKeys(x.c.st.zones) {
		if z := x.c.st.zones[k]; projectOf(k) == x.project.ID && (dnsName == "" || z.zone.DnsName == dnsName) {
			items = append(items, z.zone)
		}
	}
	return x.pageAs("dns#managedZonesListResponse", "managedZones", items)
}

func deleteZone(x *call) (any, *Error) {
	z, err := x.zone()
	if err != nil {
		return nil, err
	}
	for _, r := range z.records {
		if !(r.Name == z.zone.DnsName && (r.Type == "SOA" || r.Type == "NS")) {
			return nil, &Error{Code: http.StatusBadRequest, Reason: "containerNotEmpty",
				Message: "The resource named '" + z.zone.Name + "' cannot be deleted because it is not empty"}
		}
	}
	delete(x.c.st.zones, zoneKey(x.project.ID, z.zone.Name))
	return noContent{}, nil
}
