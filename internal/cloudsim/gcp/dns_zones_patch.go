package gcp

import (
	"encoding/json"
	"time"

	dns "google.golang.org/api/dns/v1"
)

// managedZones.patch (https://cloud.google.com/dns/docs/reference/rest/v1/managedZones/patch):
// description, labels and a private zone's networks change; the name, DNS
// name and visibility do not. The answer is a Cloud DNS operation, done at
// once, holding the zone before and after.
func patchZone(x *call) (any, *Error) {
	z, err := x.zone()
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := x.decode(&fields); err != nil {
		return nil, err
	}
	next := *z.zone
	for name, raw := range fields {
		switch name {
		case "description", "labels", "privateVisibilityConfig":
			if name == "labels" {
				next.Labels = nil
			}
			patch, _ := json.Marshal(map[string]json.RawMessage{name: raw})
			if err := json.Unmarshal(patch, &next); err != nil {
				return nil, errInvalid("Invalid value for 'entity.managedZone.%s': %v", name, err)
			}
		case "name", "dnsName", "visibility":
			var v string
			_ = json.Unmarshal(raw, &v)
			current := map[string]string{"name": z.zone.Name, "dnsName": z.zone.DnsName, "visibility": z.zone.Visibility}[name]
			if v != current {
				return nil, errInvalid("Invalid value for 'entity.managedZone.%s': '%s'. It cannot be changed.", name, v)
			}
		case "kind", "id", "creationTime", "nameServers":
			// Read-only.
		default:
			return nil, errInvalid("Invalid value for 'entity.managedZone.%s': cloudsim patches description, labels and privateVisibilityConfig.", name)
		}
	}
	if next.Visibility == "private" {
		if err := x.checkZoneNetworks(&next); err != nil {
			return nil, err
		}
	}
	old := z.zone
	z.zone = &next
	return &dns.Operation{Kind: "dns#operation", Id: itoa(x.c.newID()), Status: "done", Type: "UPDATE",
		User: principalEmail(x.principal), StartTime: x.now.UTC().Format(time.RFC3339Nano),
		ZoneContext: &dns.OperationManagedZoneContext{OldValue: old, NewValue: &next}}, nil
}
