package azure

import (
	"strings"
	"time"
)

// Private DNS zones (Microsoft.Network/privateDnsZones): always in location
// "global", created and deleted as long-running operations, created with
// their SOA record set, and not deletable while virtual network links remain.

const privateZoneType = "Microsoft.Network/privateDnsZones"

// privateDNSAPIVersions are the versions of the Private DNS API: every
// stable one, as specification/privatedns/resource-manager/Microsoft.Network/PrivateDns
// in github.com/Azure/azure-rest-api-specs lists them (checked 2026-11;
// 2026-06-01-preview is not GA). armprivatedns sends 2024-06-01, azure-cli
// 2.45 (azure-mgmt-privatedns) 2020-06-01.
var privateDNSAPIVersions = []string{"2018-09-01", "2020-01-01", "2020-06-01", "2024-06-01"}

// privateDNSOperations are where Private DNS serves its long-running
// operations: Azure-AsyncOperation .../resourceGroups/{rg}/providers/Microsoft.Network/privateDnsOperationStatuses/{id}
// and Location .../privateDnsOperationResults/{id}, as the 202 answers of
// specification/privatedns/resource-manager/Microsoft.Network/PrivateDns/stable/2024-06-01/examples
// (PrivateZonePatch.json) in github.com/Azure/azure-rest-api-specs show.
var privateDNSOperations = &OperationKinds{Status: "privateDnsOperationStatuses", Result: "privateDnsOperationResults"}

// Delays of the zone's and the link's long-running operations.
const (
	DelayPrivateZoneCreating = "privateDnsZoneCreating"
	DelayPrivateZoneDeleting = "privateDnsZoneDeleting"
	DelayPrivateLinkCreating = "privateDnsLinkCreating"
	DelayPrivateLinkDeleting = "privateDnsLinkDeleting"
)

func init() {
	RegisterDelay(DelayPrivateZoneCreating, 100*time.Millisecond, 30*time.Second)
	RegisterDelay(DelayPrivateZoneDeleting, 100*time.Millisecond, 30*time.Second)
	RegisterDelay(DelayPrivateLinkCreating, 100*time.Millisecond, 30*time.Second)
	RegisterDelay(DelayPrivateLinkDeleting, 100*time.Millisecond, 30*time.Second)
	Register(TypeSpec{
		Type:             privateZoneType,
		OperationKinds:   privateDNSOperations,
		APIVersions:      privateDNSAPIVersions,
		RequiresLocation: true,
		PlainETag:        true,
		Put:              putPrivateZone,
		Get:              getPrivateZone,
		Patch:            patchPrivateZone,
		Delete:           deletePrivateZone,
		List:             listPrivateZones,
	})
}

func putPrivateZone(req *Request, existing *Resource) (*Reply, *Error) {
	if err := checkZoneName(req.ID.Name()); err != nil {
		return nil, refusal(err)
	}
	env, err := req.Envelope(nil)
	if err != nil {
		return nil, err
	}
	if err := checkGlobalLocation(env.Location); err != nil {
		return nil, err
	}
	if existing != nil {
		// An update changes tags only; links and record sets are untouched.
		if err := notInTransition(existing); err != nil {
			return nil, err
		}
		existing.Tags = env.Tags
		refreshZoneCounts(req.Store, existing)
		return &Reply{Resource: existing}, nil
	}
	zone := req.NewResource(env, &zoneProperties{InternalID: NewGUID()})
	zone.Location = privateDNSLocation
	putSOARecordSet(req, zone.ID)
	refreshZoneCounts(req.Store, zone)
	return &Reply{Resource: zone, Transition: &Transition{State: "Creating", Duration: req.Delay(DelayPrivateZoneCreating)}}, nil
}

// checkGlobalLocation refuses a region: ARM knows privateDnsZones only in "global".
func checkGlobalLocation(location string) *Error {
	if NormalizeLocation(location) == privateDNSLocation {
		return nil
	}
	return BadRequest("LocationNotAvailableForResourceType",
		"The provided location '%s' is not available for resource type '%s'. List of available regions for the resource type is 'global'.",
		location, privateZoneType)
}

// putSOARecordSet stores the SOA record set every new zone starts with.
func putSOARecordSet(req *Request, zone ID) {
	soa := &Resource{
		ID: zone.Child(recordSOA, soaRecordSetName), Type: recordSetType(recordSOA),
		Properties: defaultSOA(zone.Name()), ETag: NewGUID(), ProvisioningState: "Succeeded",
		CreatedBy: req.Principal.ObjectID, CreatedAt: req.Now,
	}
	req.Store.Put(soa)
}

func getPrivateZone(req *Request, zone *Resource) (*Reply, *Error) {
	refreshZoneCounts(req.Store, zone)
	return &Reply{Resource: zone}, nil
}

// patchPrivateZone updates tags, as PrivateZones_Update does (a long-running
// operation in the API; it completes at once here).
func patchPrivateZone(req *Request, zone *Resource) (*Reply, *Error) {
	var body struct {
		Tags map[string]string `json:"tags"`
	}
	if err := req.Decode(&body); err != nil {
		return nil, err
	}
	if err := notInTransition(zone); err != nil {
		return nil, err
	}
	if body.Tags != nil {
		zone.Tags = body.Tags
	}
	refreshZoneCounts(req.Store, zone)
	return &Reply{Resource: zone}, nil
}

func deletePrivateZone(req *Request, zone *Resource) (*Reply, *Error) {
	if zone.ProvisioningState == "Deleting" && zone.Operation != nil {
		return &Reply{Transition: &Transition{State: "Deleting", Duration: zone.Operation.End.Sub(req.Now), Remove: true}}, nil
	}
	links := req.Store.List(zone.ID, privateLinkType)
	if err := checkZoneDelete(zone.Name(), len(links)); err != nil {
		return nil, refusal(err)
	}
	return &Reply{Transition: &Transition{State: "Deleting", Duration: req.Delay(DelayPrivateZoneDeleting), Remove: true}}, nil
}

func listPrivateZones(req *Request, parent ID) ([]*Resource, *Error) {
	zones := req.Store.List(parent, privateZoneType)
	for _, z := range zones {
		refreshZoneCounts(req.Store, z)
	}
	return zones, nil
}

// refreshZoneCounts recomputes the zone's read-only counters from the store.
func refreshZoneCounts(store *Store, zone *Resource) {
	p, ok := zone.Properties.(*zoneProperties)
	if !ok {
		return
	}
	var recordSets, links, registration int64
	for _, r := range store.Under(zone.ID) {
		switch {
		case strings.EqualFold(r.Type, privateLinkType):
			links++
			if lp, ok := r.Properties.(*linkProperties); ok && lp.RegistrationEnabled {
				registration++
			}
		case isRecordSetType(r.Type):
			recordSets++
		}
	}
	p.NumberOfRecordSets, p.NumberOfVirtualNetworkLinks, p.NumberOfVirtualNetworkLinksWithRegistration = recordSets, links, registration
	p.MaxNumberOfRecordSets = maxRecordSetsPerZone
	p.MaxNumberOfVirtualNetworkLinks = maxLinksPerZone
	p.MaxNumberOfVirtualNetworkLinksWithRegistration = maxRegistrationLinksPerZone
}

// notInTransition refuses changing a resource while its operation runs.
func notInTransition(r *Resource) *Error {
	if r.Operation == nil {
		return nil
	}
	return Conflict("AnotherOperationInProgress",
		"Another operation on this or dependent resource is in progress. To retrieve status of the operation use uri: %s.", r.Operation.ID)
}

// refusal turns a rule's refusal into the framework's ARM error.
func refusal(e *dnsRefusal) *Error {
	if e == nil {
		return nil
	}
	return NewError(e.Status, e.Code, "%s", e.Message)
}

// zoneOf returns the stored zone a child ID belongs to.
func zoneOf(store *Store, child ID) *Resource {
	if len(child.Names) < 2 {
		return nil
	}
	zone := child
	zone.Types, zone.Names = child.Types[:1], child.Names[:1]
	return store.Get(zone)
}
