package azure_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// dnsEnv is one subscription's Private DNS clients, logged in through
// azidentity at cloudsim's token endpoint.
type dnsEnv struct {
	t       *testing.T
	ctx     context.Context
	sub     string
	groups  *armresources.ResourceGroupsClient
	vnets   *armnetwork.VirtualNetworksClient
	zones   *armprivatedns.PrivateZonesClient
	links   *armprivatedns.VirtualNetworkLinksClient
	records *armprivatedns.RecordSetsClient
}

func newDNSEnv(t *testing.T, f *cloudsimtest.Fixture, cred azcore.TokenCredential, sub string) *dnsEnv {
	t.Helper()
	opts := f.AzureClientOptions()
	e := &dnsEnv{t: t, ctx: context.Background(), sub: sub}
	var err error
	must := func(e error) {
		if e != nil {
			t.Fatal(e)
		}
	}
	e.groups, err = armresources.NewResourceGroupsClient(sub, cred, opts)
	must(err)
	e.vnets, err = armnetwork.NewVirtualNetworksClient(sub, cred, opts)
	must(err)
	e.zones, err = armprivatedns.NewPrivateZonesClient(sub, cred, opts)
	must(err)
	e.links, err = armprivatedns.NewVirtualNetworkLinksClient(sub, cred, opts)
	must(err)
	e.records, err = armprivatedns.NewRecordSetsClient(sub, cred, opts)
	must(err)
	return e
}

// pollFast polls a long-running operation at the pace of cloudsim's fast delays.
var pollFast = &runtime.PollUntilDoneOptions{Frequency: 20 * time.Millisecond}

func (e *dnsEnv) group(name string) {
	e.t.Helper()
	if _, err := e.groups.CreateOrUpdate(e.ctx, name, armresources.ResourceGroup{Location: to.Ptr(cloudsimtest.AzureLocation)}, nil); err != nil {
		e.t.Fatalf("creating resource group %s: %v", name, err)
	}
}

func (e *dnsEnv) vnet(rg, name, prefix string) string {
	e.t.Helper()
	p, err := e.vnets.BeginCreateOrUpdate(e.ctx, rg, name, armnetwork.VirtualNetwork{
		Location:   to.Ptr(cloudsimtest.AzureLocation),
		Properties: &armnetwork.VirtualNetworkPropertiesFormat{AddressSpace: &armnetwork.AddressSpace{AddressPrefixes: []*string{to.Ptr(prefix)}}},
	}, nil)
	if err != nil {
		e.t.Fatalf("creating virtual network %s: %v", name, err)
	}
	res, err := p.PollUntilDone(e.ctx, pollFast)
	if err != nil {
		e.t.Fatalf("creating virtual network %s: %v", name, err)
	}
	return *res.ID
}

func (e *dnsEnv) zone(rg, name string, tags map[string]*string) armprivatedns.PrivateZone {
	e.t.Helper()
	p, err := e.zones.BeginCreateOrUpdate(e.ctx, rg, name, armprivatedns.PrivateZone{Location: to.Ptr("global"), Tags: tags}, nil)
	if err != nil {
		e.t.Fatalf("creating zone %s: %v", name, err)
	}
	res, err := p.PollUntilDone(e.ctx, pollFast)
	if err != nil {
		e.t.Fatalf("creating zone %s: %v", name, err)
	}
	return res.PrivateZone
}

// link creates a virtual network link and returns the poller's outcome.
func (e *dnsEnv) link(rg, zone, name, vnetID string, registration bool) (armprivatedns.VirtualNetworkLink, error) {
	e.t.Helper()
	p, err := e.links.BeginCreateOrUpdate(e.ctx, rg, zone, name, armprivatedns.VirtualNetworkLink{
		Location: to.Ptr("global"),
		Tags:     map[string]*string{"owner": to.Ptr("dns-test")},
		Properties: &armprivatedns.VirtualNetworkLinkProperties{
			VirtualNetwork:      &armprivatedns.SubResource{ID: to.Ptr(vnetID)},
			RegistrationEnabled: to.Ptr(registration),
		},
	}, nil)
	if err != nil {
		return armprivatedns.VirtualNetworkLink{}, err
	}
	res, err := p.PollUntilDone(e.ctx, pollFast)
	return res.VirtualNetworkLink, err
}

func (e *dnsEnv) aRecord(rg, zone, name string, opts *armprivatedns.RecordSetsClientCreateOrUpdateOptions, ips ...string) (armprivatedns.RecordSet, error) {
	var records []*armprivatedns.ARecord
	for _, ip := range ips {
		records = append(records, &armprivatedns.ARecord{IPv4Address: to.Ptr(ip)})
	}
	res, err := e.records.CreateOrUpdate(e.ctx, rg, zone, armprivatedns.RecordTypeA, name, armprivatedns.RecordSet{
		Properties: &armprivatedns.RecordSetProperties{TTL: to.Ptr[int64](300), ARecords: records},
	}, opts)
	return res.RecordSet, err
}

// wantARMError fails unless err is an ARM error with the status and code.
func wantARMError(t *testing.T, what string, err error, status int, code string) *azcore.ResponseError {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("%s: got %v, want %d %s", what, err, status, code)
	}
	if re.StatusCode != status || re.ErrorCode != code {
		t.Fatalf("%s: got %d %s (%v), want %d %s", what, re.StatusCode, re.ErrorCode, err, status, code)
	}
	return re
}

// wantFailedOperation fails unless err is the error of a long-running
// operation that ended Failed with code (the poller reports the status
// poll's 200 with the operation's error).
func wantFailedOperation(t *testing.T, what string, err error, code string) *azcore.ResponseError {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.ErrorCode != code {
		t.Fatalf("%s: got %v, want a failed operation with code %s", what, err, code)
	}
	return re
}

func startDNS(t *testing.T) (*cloudsimtest.Fixture, *dnsEnv) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	e := newDNSEnv(t, f, f.AzureAdminCredential(t), cloudsimtest.CustomerSubscription)
	e.group("dns")
	return f, e
}

// TestPrivateZoneAsAzureCreatesIt: a new zone is global, holds the SOA
// record set Azure creates, reports the published limits, and refuses a region.
func TestPrivateZoneAsAzureCreatesIt(t *testing.T) {
	_, e := startDNS(t)
	zone := e.zone("dns", "demo.hypershift.local", map[string]*string{"hcplink.io/cluster": to.Ptr("demo")})
	if *zone.Location != "global" || *zone.Properties.ProvisioningState != armprivatedns.ProvisioningStateSucceeded || zone.Etag == nil {
		t.Errorf("zone = location %v state %v etag %v", *zone.Location, *zone.Properties.ProvisioningState, zone.Etag)
	}
	if *zone.Tags["hcplink.io/cluster"] != "demo" {
		t.Errorf("tags = %v", zone.Tags)
	}
	p := zone.Properties
	if *p.NumberOfRecordSets != 1 || *p.MaxNumberOfRecordSets != 25000 || *p.MaxNumberOfVirtualNetworkLinks != 1000 ||
		*p.MaxNumberOfVirtualNetworkLinksWithRegistration != 100 || *p.NumberOfVirtualNetworkLinks != 0 {
		t.Errorf("zone counters/limits = %+v", p)
	}

	var sets []*armprivatedns.RecordSet
	for pager := e.records.NewListPager("dns", "demo.hypershift.local", nil); pager.More(); {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, page.Value...)
	}
	if len(sets) != 1 || *sets[0].Name != "@" || *sets[0].Type != "Microsoft.Network/privateDnsZones/SOA" {
		t.Fatalf("record sets of a new zone = %v", sets)
	}
	soa := sets[0].Properties
	if *soa.SoaRecord.Host != "azureprivatedns.net" || *soa.SoaRecord.MinimumTTL != 10 || *soa.TTL != 3600 || *soa.Fqdn != "demo.hypershift.local." {
		t.Errorf("SOA = %+v %+v", soa, soa.SoaRecord)
	}
	if !strings.HasSuffix(*sets[0].ID, "/privateDnsZones/demo.hypershift.local/SOA/@") {
		t.Errorf("SOA id = %s", *sets[0].ID)
	}

	_, err := e.zones.BeginCreateOrUpdate(e.ctx, "dns", "regional.local", armprivatedns.PrivateZone{Location: to.Ptr(cloudsimtest.AzureLocation)}, nil)
	wantARMError(t, "a zone in a region", err, http.StatusBadRequest, "LocationNotAvailableForResourceType")
	_, err = e.zones.BeginCreateOrUpdate(e.ctx, "dns", "local", armprivatedns.PrivateZone{Location: to.Ptr("global")}, nil)
	wantARMError(t, "a single-label zone", err, http.StatusBadRequest, "BadRequest")

	// Tags change through PATCH (a long-running update in the API).
	up, err := e.zones.BeginUpdate(e.ctx, "dns", "demo.hypershift.local", armprivatedns.PrivateZone{Tags: map[string]*string{"k": to.Ptr("v")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	updated, err := up.PollUntilDone(e.ctx, pollFast)
	if err != nil || *updated.Tags["k"] != "v" || *updated.Etag == *zone.Etag {
		t.Errorf("zone update: %v, tags %v, etag %v (was %v)", err, updated.Tags, updated.Etag, *zone.Etag)
	}
}

// TestSOANegativeCacheTTL: the SOA record set is updated in place (its
// minimumTtl is the zone's negative-cache TTL), never created or deleted.
func TestSOANegativeCacheTTL(t *testing.T) {
	_, e := startDNS(t)
	e.zone("dns", "demo.hypershift.local", nil)
	res, err := e.records.Update(e.ctx, "dns", "demo.hypershift.local", armprivatedns.RecordTypeSOA, "@", armprivatedns.RecordSet{
		Properties: &armprivatedns.RecordSetProperties{SoaRecord: &armprivatedns.SoaRecord{MinimumTTL: to.Ptr[int64](300), Host: to.Ptr("elsewhere.example")}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if soa := res.Properties.SoaRecord; *soa.MinimumTTL != 300 || *soa.Host != "azureprivatedns.net" || *soa.RefreshTime != 3600 {
		t.Errorf("SOA after update = %+v", soa)
	}
	got, err := e.records.Get(e.ctx, "dns", "demo.hypershift.local", armprivatedns.RecordTypeSOA, "@", nil)
	if err != nil || *got.Properties.SoaRecord.MinimumTTL != 300 {
		t.Errorf("SOA read back: %v %v", err, got.Properties)
	}
	_, err = e.records.CreateOrUpdate(e.ctx, "dns", "demo.hypershift.local", armprivatedns.RecordTypeSOA, "other", armprivatedns.RecordSet{
		Properties: &armprivatedns.RecordSetProperties{SoaRecord: &armprivatedns.SoaRecord{}},
	}, nil)
	wantARMError(t, "creating a second SOA", err, http.StatusBadRequest, "BadRequest")
	_, err = e.records.Delete(e.ctx, "dns", "demo.hypershift.local", armprivatedns.RecordTypeSOA, "@", nil)
	wantARMError(t, "deleting the SOA", err, http.StatusBadRequest, "BadRequest")
}

// TestRecordSetETagsAndCNAMEConflicts: If-None-Match "*" creates only,
// If-Match writes only the version read, and a CNAME stays alone at its name.
func TestRecordSetETagsAndCNAMEConflicts(t *testing.T) {
	_, e := startDNS(t)
	const zone = "demo.hypershift.local"
	e.zone("dns", zone, nil)

	created, err := e.aRecord("dns", zone, "api", &armprivatedns.RecordSetsClientCreateOrUpdateOptions{IfNoneMatch: to.Ptr("*")}, "10.1.0.4")
	if err != nil {
		t.Fatal(err)
	}
	if *created.Properties.Fqdn != "api."+zone+"." || *created.Properties.TTL != 300 || *created.Etag == "" {
		t.Errorf("created = %+v etag %v", created.Properties, created.Etag)
	}
	_, err = e.aRecord("dns", zone, "api", &armprivatedns.RecordSetsClientCreateOrUpdateOptions{IfNoneMatch: to.Ptr("*")}, "10.1.0.5")
	wantARMError(t, "If-None-Match * on an existing record set", err, http.StatusPreconditionFailed, "PreconditionFailed")

	updated, err := e.aRecord("dns", zone, "api", &armprivatedns.RecordSetsClientCreateOrUpdateOptions{IfMatch: created.Etag}, "10.1.0.6", "10.1.0.7")
	if err != nil {
		t.Fatalf("If-Match with the current ETag: %v", err)
	}
	if len(updated.Properties.ARecords) != 2 || *updated.Etag == *created.Etag {
		t.Errorf("updated = %v records, etag %s (was %s)", len(updated.Properties.ARecords), *updated.Etag, *created.Etag)
	}
	_, err = e.aRecord("dns", zone, "api", &armprivatedns.RecordSetsClientCreateOrUpdateOptions{IfMatch: created.Etag}, "10.1.0.8")
	wantARMError(t, "If-Match with a stale ETag", err, http.StatusPreconditionFailed, "PreconditionFailed")
	_, err = e.records.Delete(e.ctx, "dns", zone, armprivatedns.RecordTypeA, "api", &armprivatedns.RecordSetsClientDeleteOptions{IfMatch: created.Etag})
	wantARMError(t, "deleting with a stale ETag", err, http.StatusPreconditionFailed, "PreconditionFailed")

	_, err = e.records.CreateOrUpdate(e.ctx, "dns", zone, armprivatedns.RecordTypeCNAME, "api", armprivatedns.RecordSet{
		Properties: &armprivatedns.RecordSetProperties{TTL: to.Ptr[int64](300), CnameRecord: &armprivatedns.CnameRecord{Cname: to.Ptr("pe.privatelink.example.com")}},
	}, nil)
	re := wantARMError(t, "a CNAME beside an A record", err, http.StatusConflict, "Conflict")
	if !strings.Contains(re.Error(), "another record with the same name already exists") {
		t.Errorf("message: %v", re)
	}
	if _, err := e.records.CreateOrUpdate(e.ctx, "dns", zone, armprivatedns.RecordTypeCNAME, "console", armprivatedns.RecordSet{
		Properties: &armprivatedns.RecordSetProperties{TTL: to.Ptr[int64](300), CnameRecord: &armprivatedns.CnameRecord{Cname: to.Ptr("router.example.com")}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	_, err = e.aRecord("dns", zone, "console", nil, "10.1.0.9")
	wantARMError(t, "an A record beside a CNAME", err, http.StatusConflict, "Conflict")
	_, err = e.aRecord("dns", zone, "bad", nil, "10.1.0.300")
	wantARMError(t, "an invalid IPv4 address", err, http.StatusBadRequest, "BadRequest")

	zoneNow, err := e.zones.Get(e.ctx, "dns", zone, nil)
	if err != nil || *zoneNow.Properties.NumberOfRecordSets != 3 {
		t.Errorf("numberOfRecordSets = %v (%v), want SOA + api + console", zoneNow.Properties.NumberOfRecordSets, err)
	}
	if _, err := e.records.Delete(e.ctx, "dns", zone, armprivatedns.RecordTypeA, "api", &armprivatedns.RecordSetsClientDeleteOptions{IfMatch: updated.Etag}); err != nil {
		t.Fatalf("deleting with the current ETag: %v", err)
	}
	_, err = e.records.Get(e.ctx, "dns", zone, armprivatedns.RecordTypeA, "api", nil)
	wantARMError(t, "reading a deleted record set", err, http.StatusNotFound, "ResourceNotFound")
}

// TestVirtualNetworkLinks: a link needs an existing virtual network; a
// virtual network is linked once per zone name and registers in one zone;
// a zone keeps its links' count and cannot be deleted while it has links.
func TestVirtualNetworkLinks(t *testing.T) {
	_, e := startDNS(t)
	const zone = "demo.hypershift.local"
	e.zone("dns", zone, nil)
	e.zone("dns", "other.local", nil)
	e.group("dns2")
	e.zone("dns2", zone, nil) // the same name in another group
	vnet := e.vnet("dns", "guest", "10.1.0.0/16")

	link, err := e.link("dns", zone, "guest-link", vnet, false)
	if err != nil {
		t.Fatalf("linking: %v", err)
	}
	if *link.Properties.VirtualNetworkLinkState != armprivatedns.VirtualNetworkLinkStateCompleted ||
		*link.Properties.ProvisioningState != armprivatedns.ProvisioningStateSucceeded || *link.Location != "global" ||
		!strings.EqualFold(*link.Properties.VirtualNetwork.ID, vnet) || *link.Tags["owner"] != "dns-test" {
		t.Errorf("link = %+v", link.Properties)
	}
	z, _ := e.zones.Get(e.ctx, "dns", zone, nil)
	if *z.Properties.NumberOfVirtualNetworkLinks != 1 || *z.Properties.NumberOfVirtualNetworkLinksWithRegistration != 0 {
		t.Errorf("zone link counts = %d/%d", *z.Properties.NumberOfVirtualNetworkLinks, *z.Properties.NumberOfVirtualNetworkLinksWithRegistration)
	}

	_, err = e.link("dns", zone, "again", vnet, false)
	re := wantFailedOperation(t, "linking the VNet to the zone twice", err, "BadRequest")
	if !strings.Contains(re.Error(), "cannot be linked to multiple zones with overlapping namespaces") {
		t.Errorf("message: %v", re)
	}
	_, err = e.link("dns2", zone, "same-name", vnet, false)
	wantFailedOperation(t, "linking the VNet to another zone of the same name", err, "BadRequest")

	if _, err := e.link("dns", "other.local", "registration", vnet, true); err != nil {
		t.Fatalf("a first registration link: %v", err)
	}
	e.zone("dns", "third.local", nil)
	_, err = e.link("dns", "third.local", "registration", vnet, true)
	re = wantFailedOperation(t, "a second registration zone for the VNet", err, "Conflict")
	if !strings.Contains(re.Error(), "can only be linked to 1 Private DNS zone(s) with auto-registration enabled") {
		t.Errorf("message: %v", re)
	}
	if _, err := e.link("dns", "third.local", "resolution", vnet, false); err != nil {
		t.Errorf("a resolution link beside the registration one: %v", err)
	}

	_, err = e.link("dns", zone, "nowhere", strings.Replace(vnet, "/guest", "/missing", 1), false)
	wantARMError(t, "a link to a missing VNet", err, http.StatusBadRequest, "BadRequest")

	_, err = e.zones.BeginDelete(e.ctx, "dns", zone, nil)
	wantARMError(t, "deleting a zone with links", err, http.StatusConflict, "Conflict")

	// Unlink (only the failed links are left, then none), then delete.
	for pager := e.links.NewListPager("dns", zone, nil); pager.More(); {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range page.Value {
			p, err := e.links.BeginDelete(e.ctx, "dns", zone, *l.Name, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.PollUntilDone(e.ctx, pollFast); err != nil {
				t.Fatal(err)
			}
		}
	}
	p, err := e.zones.BeginDelete(e.ctx, "dns", zone, nil)
	if err != nil {
		t.Fatalf("deleting the unlinked zone: %v", err)
	}
	if _, err := p.PollUntilDone(e.ctx, pollFast); err != nil {
		t.Fatal(err)
	}
	_, err = e.zones.Get(e.ctx, "dns", zone, nil)
	wantARMError(t, "reading the deleted zone", err, http.StatusNotFound, "ResourceNotFound")
	_, err = e.records.Get(e.ctx, "dns", zone, armprivatedns.RecordTypeSOA, "@", nil)
	var respErr *azcore.ResponseError
	if !errors.As(err, &respErr) || respErr.StatusCode != http.StatusNotFound {
		t.Errorf("the SOA outlived its zone: %v", err)
	}
}

// TestVirtualNetworkLinkNeedsJoinOnTheVNet: linking asks, beyond the right
// on the zone, Microsoft.Network/virtualNetworks/join/action on the virtual
// network (LinkedAuthorizationFailed without it), as the built-in Private
// DNS Zone Contributor role grants where it is assigned.
func TestVirtualNetworkLinkNeedsJoinOnTheVNet(t *testing.T) {
	f, admin := startDNS(t)
	admin.group("net")
	vnet := admin.vnet("net", "guest", "10.2.0.0/16")
	groupScope := func(rg string) string { return "/subscriptions/" + admin.sub + "/resourceGroups/" + rg }
	sp := f.AzureServicePrincipalWithRole(t, "dns-operator", "Private DNS Zone Contributor", groupScope("dns"))
	if _, err := f.Server.Azure.AssignRole(sp.ObjectID, "Reader", groupScope("net")); err != nil {
		t.Fatal(err)
	}
	op := newDNSEnv(t, f, f.AzureCredential(t, sp), admin.sub)
	op.zone("dns", "demo.hypershift.local", nil)

	_, err := op.link("dns", "demo.hypershift.local", "guest-link", vnet, false)
	re := wantARMError(t, "linking a VNet the principal may only read", err, http.StatusForbidden, "LinkedAuthorizationFailed")
	if !strings.Contains(re.Error(), "Microsoft.Network/virtualNetworks/join/action") {
		t.Errorf("message: %v", re)
	}
	if _, err := f.Server.Azure.AssignRole(sp.ObjectID, "Private DNS Zone Contributor", groupScope("net")); err != nil {
		t.Fatal(err)
	}
	if _, err := op.link("dns", "demo.hypershift.local", "guest-link", vnet, false); err != nil {
		t.Fatalf("linking once join is granted on the VNet: %v", err)
	}
}
