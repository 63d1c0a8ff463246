package azure

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// The rules of Microsoft.Network/privateDnsZones as plain functions over
// plain values, so the handlers stay thin and each rule is table-tested alone.
//
// Facts and where they were checked:
//   - limits: learn.microsoft.com "What is an Azure Private DNS zone?" (Limits):
//     1000 zones per subscription, 25000 record sets per zone, 20 records per
//     record set, 1000 virtual network links per zone, 100 of them with
//     auto-registration, a virtual network in at most one registration zone;
//     a zone name has 2 to 34 labels; no NS delegation in a private zone.
//   - a new zone holds one record set, the SOA "@" (numberOfRecordSets 1 in
//     `az network private-dns zone show`, Azure/azure-cli#15010), with
//     host azureprivatedns.net, email azureprivatedns-host.microsoft.com,
//     serial 1, refresh 3600, retry 300, expire 2419200, minimumTtl 10, TTL 3600
//     (exported ARM templates of real zones).
//   - a second link of a virtual network to a zone of the same name fails its
//     long-running operation with BadRequest "A virtual network cannot be linked
//     to multiple zones with overlapping namespaces. ..." (AKS troubleshooting
//     article CreateOrUpdateVirtualNetworkLinkFailed; terraform polling output).
//   - a second registration link of one virtual network: Conflict "A virtual
//     network can only be linked to 1 Private DNS zone(s) with auto-registration
//     enabled; conflicting Private DNS zone is ..." (Azure/terraform-azurerm-caf-enterprise-scale#157).
//   - a CNAME beside other records: 409 Conflict "The CNAME record could not be
//     created because another record with the same name already exists in this
//     zone." (Azure DNS answer quoted in rcl-letsencrypt-auto-ssl/Lets-Encrypt-Auto#26);
//     a record beside a CNAME: 409 Conflict (kubernetes-sigs/external-dns#5358;
//     the message there is cut, ours is worded alike).
//   - an invalid name: 400 BadRequest "The domain name '...' is invalid."
//     (kubernetes-sigs/external-dns#4855).
//   - SOA record sets are updated, never created or deleted (the REST
//     reference of RecordSets CreateOrUpdate and Delete); the SOA host is
//     read-only (Azure/azure-xplat-cli#1796). The code of the refusal is not
//     documented: cloudsim answers BadRequest.
//   - a zone with virtual network links cannot be deleted (REST reference of
//     PrivateZones Delete); the real answer is a 409 (Azure/azure-cli#15010);
//     its body was not published, so the message is ours under code Conflict.

// Limits of a private DNS zone, published by Azure and reported on each zone.
const (
	maxRecordSetsPerZone               = 25000
	maxRecordsPerRecordSet             = 20
	maxLinksPerZone                    = 1000
	maxRegistrationLinksPerZone        = 100
	maxRegistrationZonesPerVNet        = 1
	minZoneLabels, maxZoneLabels       = 2, 34
	privateDNSLocation                 = "global"
	defaultRecordSetTTL          int64 = 3600
)

// The SOA record set Azure puts in every new private zone.
const (
	soaRecordSetName = "@"
	soaHost          = "azureprivatedns.net"
	soaEmail         = "azureprivatedns-host.microsoft.com"
	soaSerial        = 1
	soaRefresh       = 3600
	soaRetry         = 300
	soaExpire        = 2419200
	soaMinimumTTL    = 10
)

// Record types of a private zone, spelled as they appear in the URL path.
const (
	recordA     = "A"
	recordAAAA  = "AAAA"
	recordCNAME = "CNAME"
	recordMX    = "MX"
	recordPTR   = "PTR"
	recordSOA   = "SOA"
	recordSRV   = "SRV"
	recordTXT   = "TXT"
)

// privateDNSRecordTypes are the record types a private zone serves (no NS:
// a private zone cannot delegate).
var privateDNSRecordTypes = []string{recordA, recordAAAA, recordCNAME, recordMX, recordPTR, recordSOA, recordSRV, recordTXT}

// dnsRefusal is a rule's refusal: an HTTP status, an ARM code and a message.
type dnsRefusal struct {
	Status  int
	Code    string
	Message string
}

func (e *dnsRefusal) Error() string { return e.Code + ": " + e.Message }

func dnsBadRequest(format string, args ...any) *dnsRefusal {
	return &dnsRefusal{Status: http.StatusBadRequest, Code: "BadRequest", Message: fmt.Sprintf(format, args...)}
}

func dnsConflict(format string, args ...any) *dnsRefusal {
	return &dnsRefusal{Status: http.StatusConflict, Code: "Conflict", Message: fmt.Sprintf(format, args...)}
}

// checkZoneName accepts a private zone name: 2 to 34 labels of 1 to 63
// letters, digits, hyphens or underscores, 253 characters at most, no
// trailing dot (the API names zones without one).
func checkZoneName(name string) *dnsRefusal {
	labels := strings.Split(name, ".")
	if len(name) > 253 || len(labels) < minZoneLabels || len(labels) > maxZoneLabels || !validLabels(labels) {
		return dnsBadRequest("The domain name '%s' is invalid.", name)
	}
	return nil
}

// checkRecordSetName accepts a record set name relative to its zone: "@"
// for the apex, otherwise labels (a leading "*" label for a wildcard).
func checkRecordSetName(name, zone string) *dnsRefusal {
	if name == soaRecordSetName {
		return nil
	}
	labels := strings.Split(name, ".")
	if labels[0] == "*" {
		labels = labels[1:]
	}
	if len(name)+1+len(zone) > 253 || !validLabels(labels) {
		return dnsBadRequest("The domain name '%s.%s' is invalid.", name, zone)
	}
	return nil
}

func validLabels(labels []string) bool {
	for _, l := range labels {
		if l == "" || len(l) > 63 || strings.Trim(l, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
			return false
		}
	}
	return true
}

// recordSetFQDN is the fully qualified name Azure reports, with the root dot.
func recordSetFQDN(name, zone string) string {
	if name == soaRecordSetName {
		return zone + "."
	}
	return name + "." + zone + "."
}

// canonicalRecordType returns the path's record type in Azure's spelling,
// or "" when a private zone has no such type.
func canonicalRecordType(t string) string {
	for _, known := range privateDNSRecordTypes {
		if strings.EqualFold(t, known) {
			return known
		}
	}
	return ""
}

// checkCNAMECoexistence enforces the DNS rule that a CNAME is alone at its
// name: existing are the record types already present at the name (other
// than the one being written).
func checkCNAMECoexistence(recordType string, existing []string) *dnsRefusal {
	if len(existing) == 0 {
		return nil
	}
	if recordType == recordCNAME {
		return dnsConflict("The CNAME record could not be created because another record with the same name already exists in this zone.")
	}
	for _, t := range existing {
		if t == recordCNAME {
			return dnsConflict("The %s record could not be created because a CNAME record with the same name already exists in this zone.", recordType)
		}
	}
	return nil
}

// checkRecords validates the records of one record set of the given type.
func checkRecords(recordType, name string, p *recordSetProperties) *dnsRefusal {
	if p.TTL != nil && (*p.TTL < 0 || *p.TTL > 2147483647) {
		return dnsBadRequest("The TTL of record set '%s' must be between 0 and 2147483647.", name)
	}
	if n := p.recordCount(recordType); n > maxRecordsPerRecordSet {
		return dnsBadRequest("The record set '%s' has %d records; a record set holds at most %d.", name, n, maxRecordsPerRecordSet)
	}
	switch recordType {
	case recordA:
		return checkAddresses(p.ARecords, name, func(a netip.Addr) bool { return a.Is4() })
	case recordAAAA:
		return checkAAAAAddresses(p.AAAARecords, name)
	case recordCNAME:
		return checkCNAME(p.CNAMERecord, name)
	case recordSOA:
		return checkSOA(p.SOARecord)
	}
	return nil
}

func checkAddresses(records []aRecord, name string, family func(netip.Addr) bool) *dnsRefusal {
	for _, r := range records {
		if a, err := netip.ParseAddr(r.IPv4Address); err != nil || !family(a) {
			return dnsBadRequest("The IPv4 address '%s' of record set '%s' is invalid.", r.IPv4Address, name)
		}
	}
	return nil
}

func checkAAAAAddresses(records []aaaaRecord, name string) *dnsRefusal {
	for _, r := range records {
		if a, err := netip.ParseAddr(r.IPv6Address); err != nil || !a.Is6() || a.Is4In6() {
			return dnsBadRequest("The IPv6 address '%s' of record set '%s' is invalid.", r.IPv6Address, name)
		}
	}
	return nil
}

// checkCNAME refuses a CNAME at the apex (it would sit beside the SOA) and a
// target that is not a domain name.
func checkCNAME(r *cnameRecord, name string) *dnsRefusal {
	if name == soaRecordSetName {
		return dnsBadRequest("A CNAME record set cannot be created at the zone apex '@'.")
	}
	if r == nil || r.CNAME == "" {
		return nil // an empty CNAME record set is allowed, as in Azure DNS
	}
	target := strings.TrimSuffix(r.CNAME, ".")
	if !validLabels(strings.Split(target, ".")) {
		return dnsBadRequest("The domain name '%s' is invalid.", r.CNAME)
	}
	return nil
}

func checkSOA(r *soaRecord) *dnsRefusal {
	if r == nil {
		return nil
	}
	for _, v := range []*int64{r.ExpireTime, r.MinimumTTL, r.RefreshTime, r.RetryTime, r.SerialNumber} {
		if v != nil && *v < 0 {
			return dnsBadRequest("The values of an SOA record must not be negative.")
		}
	}
	return nil
}

// checkRecordSetWrite refuses what cannot be written at all: SOA record sets
// are created with the zone and only updated, always at "@".
func checkRecordSetWrite(recordType, name string, exists bool) *dnsRefusal {
	if recordType != recordSOA {
		return nil
	}
	if name != soaRecordSetName || !exists {
		return dnsBadRequest("Record sets of type SOA cannot be created; the zone's SOA record set '@' can only be updated.")
	}
	return nil
}

// checkRecordSetDelete refuses deleting the SOA record set.
func checkRecordSetDelete(recordType string) *dnsRefusal {
	if recordType == recordSOA {
		return dnsBadRequest("Record sets of type SOA cannot be deleted; they are deleted with the zone.")
	}
	return nil
}

// checkZoneDelete refuses deleting a zone that still has virtual network links.
func checkZoneDelete(zone string, links int) *dnsRefusal {
	if links > 0 {
		return dnsConflict("The Private DNS zone '%s' cannot be deleted because it has %d virtual network link(s). Delete all virtual network links to the zone and try again.", zone, links)
	}
	return nil
}

// vnetLink is what the link rules need to know of an existing link.
type vnetLink struct {
	ZoneID       string // canonical ID of the zone the link belongs to
	ZoneName     string
	LinkID       string
	VNetID       string
	Registration bool
}

// checkLinkPlacement applies the rules a new or changed link must satisfy
// against the links that already exist (all subscriptions): a virtual
// network is linked once to a zone name, and is a registration network of at
// most one zone. The refusals are those of the link's long-running operation.
func checkLinkPlacement(link vnetLink, existing []vnetLink) *dnsRefusal {
	for _, other := range existing {
		if strings.EqualFold(other.LinkID, link.LinkID) || !strings.EqualFold(other.VNetID, link.VNetID) {
			continue
		}
		if strings.EqualFold(other.ZoneName, link.ZoneName) {
			return dnsBadRequest("A virtual network cannot be linked to multiple zones with overlapping namespaces. You tried to link virtual network with '%s' and '%s' zones.",
				link.ZoneName, other.ZoneName)
		}
		if link.Registration && other.Registration {
			return dnsConflict("A virtual network can only be linked to %d Private DNS zone(s) with auto-registration enabled; conflicting Private DNS zone is '%s'.",
				maxRegistrationZonesPerVNet, other.ZoneName)
		}
	}
	return nil
}

// checkLinkLimits refuses a link beyond a zone's published limits; links and
// registrationLinks count the zone's other links.
func checkLinkLimits(zone string, registration bool, links, registrationLinks int) *dnsRefusal {
	if links >= maxLinksPerZone {
		return dnsBadRequest("The Private DNS zone '%s' already has the maximum of %d virtual network links.", zone, maxLinksPerZone)
	}
	if registration && registrationLinks >= maxRegistrationLinksPerZone {
		return dnsBadRequest("The Private DNS zone '%s' already has the maximum of %d virtual network links with auto-registration enabled.", zone, maxRegistrationLinksPerZone)
	}
	return nil
}

// checkRecordSetLimit refuses a new record set beyond the zone's limit.
func checkRecordSetLimit(zone string, recordSets int) *dnsRefusal {
	if recordSets >= maxRecordSetsPerZone {
		return dnsBadRequest("The Private DNS zone '%s' already has the maximum of %d record sets.", zone, maxRecordSetsPerZone)
	}
	return nil
}
