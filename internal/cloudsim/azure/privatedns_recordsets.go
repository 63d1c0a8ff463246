package azure

import "strings"

// Record sets of a private zone (Microsoft.Network/privateDnsZones/{type}):
// synchronous writes, one resource per name and type, the type in the path
// ("A", or "a" as azure-cli spells it). A CNAME is alone at its name; the
// SOA record set exists from the zone's creation and is only updated.

const allRecordSetsType = privateZoneType + "/ALL"

func recordSetType(recordType string) string { return privateZoneType + "/" + recordType }

func isRecordSetType(typ string) bool {
	prefix := privateZoneType + "/"
	return len(typ) > len(prefix) && strings.EqualFold(typ[:len(prefix)], prefix) && canonicalRecordType(typ[len(prefix):]) != ""
}

func init() {
	for _, t := range privateDNSRecordTypes {
		Register(TypeSpec{
			Type:                recordSetType(t),
			APIVersions:         privateDNSAPIVersions,
			PlainETag:           true,
			NoProvisioningState: true,
			Put:                 putRecordSet,
			Patch:               patchRecordSet,
			Delete:              deleteRecordSet,
			Render:              renderRecordSet,
		})
	}
	Register(TypeSpec{
		Type:        allRecordSetsType,
		APIVersions: privateDNSAPIVersions,
		List:        listAllRecordSets,
	})
}

func putRecordSet(req *Request, existing *Resource) (*Reply, *Error) {
	zone := zoneOf(req.Store, req.ID)
	recordType, name := canonicalRecordType(req.ID.Types[1]), req.ID.Name()
	var props recordSetProperties
	if _, err := req.Envelope(&props); err != nil {
		return nil, err
	}
	if err := checkRecordSetName(name, zone.Name()); err != nil {
		return nil, refusal(err)
	}
	if err := checkRecordSetWrite(recordType, name, existing != nil); err != nil {
		return nil, refusal(err)
	}
	props.onlyType(recordType)
	if err := validateRecordSet(req.Store, zone, recordType, name, &props, existing == nil); err != nil {
		return nil, err
	}
	if recordType == recordSOA {
		props.SOARecord = mergeSOA(existing.Properties.(*recordSetProperties).SOARecord, props.SOARecord)
	}
	if existing != nil {
		existing.Properties = &props
		return &Reply{Resource: existing}, nil
	}
	return &Reply{Resource: &Resource{Properties: &props}}, nil
}

// validateRecordSet applies the record rules, the CNAME rule and, for a new
// record set, the zone's limit, then fills the read-only fields.
func validateRecordSet(store *Store, zone *Resource, recordType, name string, props *recordSetProperties, creating bool) *Error {
	if err := checkRecords(recordType, name, props); err != nil {
		return refusal(err)
	}
	if err := checkCNAMECoexistence(recordType, otherTypesAt(store, zone.ID, name, recordType)); err != nil {
		return refusal(err)
	}
	if creating {
		refreshZoneCounts(store, zone)
		if err := checkRecordSetLimit(zone.Name(), int(zone.Properties.(*zoneProperties).NumberOfRecordSets)); err != nil {
			return refusal(err)
		}
	}
	if props.TTL == nil {
		props.TTL = int64p(defaultRecordSetTTL)
	}
	props.FQDN = recordSetFQDN(name, zone.Name())
	props.IsAutoRegistered = false
	return nil
}

// otherTypesAt lists the record types other than except present at name.
func otherTypesAt(store *Store, zone ID, name, except string) []string {
	var types []string
	for _, t := range privateDNSRecordTypes {
		if t != except && store.Get(zone.Child(t, name)) != nil {
			types = append(types, t)
		}
	}
	return types
}

// patchRecordSet updates the fields the request names (RecordSets_Update).
func patchRecordSet(req *Request, rs *Resource) (*Reply, *Error) {
	zone := zoneOf(req.Store, rs.ID)
	recordType, name := canonicalRecordType(rs.ID.Types[1]), rs.ID.Name()
	var update recordSetProperties
	if _, err := req.Envelope(&update); err != nil {
		return nil, err
	}
	update.onlyType(recordType)
	merged := *rs.Properties.(*recordSetProperties)
	if update.TTL != nil {
		merged.TTL = update.TTL
	}
	if update.Metadata != nil {
		merged.Metadata = update.Metadata
	}
	if update.recordCount(recordType) > 0 {
		keep := merged.SOARecord
		metadata, ttl := merged.Metadata, merged.TTL
		merged = update
		merged.Metadata, merged.TTL = metadata, ttl
		if recordType == recordSOA {
			merged.SOARecord = mergeSOA(keep, update.SOARecord)
		}
	}
	if err := validateRecordSet(req.Store, zone, recordType, name, &merged, false); err != nil {
		return nil, err
	}
	rs.Properties = &merged
	return &Reply{Resource: rs}, nil
}

func deleteRecordSet(req *Request, rs *Resource) (*Reply, *Error) {
	if err := checkRecordSetDelete(canonicalRecordType(rs.ID.Types[1])); err != nil {
		return nil, refusal(err)
	}
	return nil, nil // the framework removes it: record set deletes are synchronous
}

// listAllRecordSets serves .../privateDnsZones/{zone}/ALL: every record set
// of the zone, SOA first as the service lists it.
func listAllRecordSets(req *Request, zone ID) ([]*Resource, *Error) {
	var out []*Resource
	for _, r := range req.Store.Under(zone) {
		if isRecordSetType(r.Type) {
			out = append(out, r)
		}
	}
	for i, r := range out {
		if strings.EqualFold(r.Type, recordSetType(recordSOA)) && i > 0 {
			out = append([]*Resource{r}, append(out[:i:i], out[i+1:]...)...)
			break
		}
	}
	return out, nil
}

// renderRecordSet spells the type in the ID as Azure does ("A", not "a").
func renderRecordSet(r *Resource, wire map[string]any) {
	id := r.ID
	id.Types = append([]string{}, r.ID.Types...)
	id.Types[1] = canonicalRecordType(id.Types[1])
	wire["id"] = id.String()
}
