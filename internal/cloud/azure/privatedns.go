package azure

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
)

// PrivateDNS is the customer subscription's Private DNS: the cluster's
// zone (created by hcplink and tagged as ours; a zone we did not create is
// never deleted), its link to the guest VNet, the A records and the SOA's
// negative TTL. Every error it returns is a classified *cloud.Error;
// long-running operations take and return a resume token.
type PrivateDNS struct {
	Zones    PrivateZonesAPI
	Links    VirtualNetworkLinksAPI
	Records  RecordSetsAPI
	Timeouts Timeouts
}

// NewPrivateDNS returns the provider on one subscription's clients.
func NewPrivateDNS(f *armprivatedns.ClientFactory) *PrivateDNS {
	return &PrivateDNS{Zones: f.NewPrivateZonesClient(), Links: f.NewVirtualNetworkLinksClient(), Records: f.NewRecordSetsClient()}
}

// globalLocation is where Private DNS zones and links live.
const globalLocation = "global"

// soaRecordName is the zone apex, where the SOA record is.
const soaRecordName = "@"

// Zone reads a private zone; nil when it does not exist.
func (p *PrivateDNS) Zone(ctx context.Context, resourceGroup, zone string) (*armprivatedns.PrivateZone, error) {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	resp, err := p.Zones.Get(ctx, resourceGroup, zone, nil)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("reading the private DNS zone", err)
	}
	return &resp.PrivateZone, nil
}

// CreateZone creates the zone with tags only if it does not exist yet
// (If-None-Match: *, so no read comes first): an existing zone, ours or
// not, is read and returned as it is, never overwritten (CreatedByHcplink
// tells the caller whose it is). While the creation runs it returns the
// token to resume with. A creation that ends on its operation's status
// returns the zone as it was created (name, location, tags; no ID):
// reading it back would tell nothing new.
func (p *PrivateDNS) CreateZone(ctx context.Context, resourceGroup, zone string, tags map[string]*string, resumeToken string) (*armprivatedns.PrivateZone, string, error) {
	body := armprivatedns.PrivateZone{Location: to.Ptr(globalLocation), Tags: tags}
	callCtx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	r, token, err := beginToStatus(callCtx, resumeToken, func(tok string) (*runtime.Poller[armprivatedns.PrivateZonesClientCreateOrUpdateResponse], error) {
		return p.Zones.BeginCreateOrUpdate(callCtx, resourceGroup, zone, body, &armprivatedns.PrivateZonesClientBeginCreateOrUpdateOptions{IfNoneMatch: to.Ptr("*"), ResumeToken: tok})
	})
	if ErrorCode(err) == CodePreconditionFailed || statusCode(err) == 412 {
		// It exists: theirs or ours, it is read, not overwritten.
		z, err := p.Zone(ctx, resourceGroup, zone)
		return z, "", err
	}
	if err != nil || r == nil {
		return nil, token, Wrap("creating the private DNS zone", err)
	}
	if r.PrivateZone.Name == nil {
		body.Name = to.Ptr(zone)
		return &body, "", nil
	}
	return &r.PrivateZone, "", nil
}

// DeleteZone deletes the zone only if hcplink created it (CreatedByTagKey)
// and nobody changed it since it was read (If-Match on its ETag); a zone
// that is absent or not ours is left alone and counts as done. While the
// deletion runs it returns the token to resume with.
func (p *PrivateDNS) DeleteZone(ctx context.Context, resourceGroup, zone, resumeToken string) (string, error) {
	callCtx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	start := func(etag *string) func(tok string) (*runtime.Poller[armprivatedns.PrivateZonesClientDeleteResponse], error) {
		return func(tok string) (*runtime.Poller[armprivatedns.PrivateZonesClientDeleteResponse], error) {
			return p.Zones.BeginDelete(callCtx, resourceGroup, zone, &armprivatedns.PrivateZonesClientBeginDeleteOptions{IfMatch: etag, ResumeToken: tok})
		}
	}
	if resumeToken != "" {
		_, token, err := resume(callCtx, resumeToken, start(nil))
		if !errors.Is(err, errForgotten) {
			if IsNotFound(err) {
				return "", nil
			}
			return token, Wrap("deleting the private DNS zone", err)
		}
		// Forgotten: check again that the zone (if any) is ours.
	}
	existing, err := p.Zone(ctx, resourceGroup, zone)
	if err != nil || existing == nil || !CreatedByHcplink(existing.Tags) {
		return "", err
	}
	_, token, err := begin(callCtx, "", start(existing.Etag))
	if IsNotFound(err) {
		return "", nil
	}
	return token, Wrap("deleting the private DNS zone", err)
}

// Link reads a VNet link; nil when it (or the zone) does not exist.
func (p *PrivateDNS) Link(ctx context.Context, resourceGroup, zone, link string) (*armprivatedns.VirtualNetworkLink, error) {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	resp, err := p.Links.Get(ctx, resourceGroup, zone, link, nil)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("reading the private DNS zone's VNet link", err)
	}
	return &resp.VirtualNetworkLink, nil
}

// CreateOrUpdateLink links the zone to vnetID with auto-registration off;
// while the operation runs it returns the token to resume with. A link
// whose operation ends on its status is returned as it was written (no
// ID, no link state): the drift check reads it.
func (p *PrivateDNS) CreateOrUpdateLink(ctx context.Context, resourceGroup, zone, link, vnetID string, tags map[string]*string, resumeToken string) (*armprivatedns.VirtualNetworkLink, string, error) {
	body := VNetLinkBody(vnetID, tags)
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	r, token, err := beginToStatus(ctx, resumeToken, func(tok string) (*runtime.Poller[armprivatedns.VirtualNetworkLinksClientCreateOrUpdateResponse], error) {
		return p.Links.BeginCreateOrUpdate(ctx, resourceGroup, zone, link, body, &armprivatedns.VirtualNetworkLinksClientBeginCreateOrUpdateOptions{ResumeToken: tok})
	})
	if err != nil || r == nil {
		return nil, token, Wrap("linking the private DNS zone to the VNet", err)
	}
	if r.VirtualNetworkLink.Properties == nil {
		body.Name = to.Ptr(link)
		return &body, "", nil
	}
	return &r.VirtualNetworkLink, "", nil
}

// CodeBadRequest is ARM's code of a request, or an operation, it refuses.
const CodeBadRequest = "BadRequest"

// IsVNetLinkConflict reports whether a VNet link's operation failed
// because the VNet is already linked to another zone of the same name
// (another resource group's): Azure accepts the PUT and fails the
// operation with BadRequest "A virtual network cannot be linked to multiple
// zones with overlapping namespaces" (learn.microsoft.com, AKS
// troubleshooting "CreateOrUpdateVirtualNetworkLinkFailed";
// MicrosoftDocs/azure-aks-docs#212). The request itself was accepted, so a
// BadRequest of the operation has this one documented cause.
func IsVNetLinkConflict(err error) bool {
	return OperationFailed(err) && ErrorCode(err) == CodeBadRequest
}

// VNetLinkBody is a VNet link: global, registration off.
func VNetLinkBody(vnetID string, tags map[string]*string) armprivatedns.VirtualNetworkLink {
	return armprivatedns.VirtualNetworkLink{
		Location: to.Ptr(globalLocation),
		Tags:     tags,
		Properties: &armprivatedns.VirtualNetworkLinkProperties{
			VirtualNetwork:      &armprivatedns.SubResource{ID: to.Ptr(vnetID)},
			RegistrationEnabled: to.Ptr(false),
		},
	}
}

// DeleteLink deletes a VNet link (absent counts as deleted); while the
// deletion runs it returns the token to resume with.
func (p *PrivateDNS) DeleteLink(ctx context.Context, resourceGroup, zone, link, resumeToken string) (string, error) {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	_, token, err := begin(ctx, resumeToken, func(tok string) (*runtime.Poller[armprivatedns.VirtualNetworkLinksClientDeleteResponse], error) {
		return p.Links.BeginDelete(ctx, resourceGroup, zone, link, &armprivatedns.VirtualNetworkLinksClientBeginDeleteOptions{ResumeToken: tok})
	})
	if IsNotFound(err) {
		return "", nil
	}
	return token, Wrap("deleting the private DNS zone's VNet link", err)
}

// ARecord reads an A record set; nil when it (or the zone) does not exist.
func (p *PrivateDNS) ARecord(ctx context.Context, resourceGroup, zone, name string) (*armprivatedns.RecordSet, error) {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	resp, err := p.Records.Get(ctx, resourceGroup, zone, armprivatedns.RecordTypeA, name, nil)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("reading the A record "+name, err)
	}
	return &resp.RecordSet, nil
}

// ARecordIPs are the addresses of an A record set, sorted.
func ARecordIPs(rs *armprivatedns.RecordSet) []string {
	if rs == nil || rs.Properties == nil {
		return nil
	}
	var out []string
	for _, a := range rs.Properties.ARecords {
		if a != nil && deref(a.IPv4Address) != "" {
			out = append(out, *a.IPv4Address)
		}
	}
	slices.Sort(out)
	return out
}

// ARecordTTL is an A record set's TTL (0 when unknown).
func ARecordTTL(rs *armprivatedns.RecordSet) int64 {
	if rs == nil || rs.Properties == nil || rs.Properties.TTL == nil {
		return 0
	}
	return *rs.Properties.TTL
}

// SetARecord writes the A record name → ip with ttl, but only when it
// differs (read first: a record that is right costs no write). It reports
// whether it wrote. A controller that listed the zone's record sets uses
// ARecordIsCurrent and PutARecord instead, without the read.
func (p *PrivateDNS) SetARecord(ctx context.Context, resourceGroup, zone, name, ip string, ttl int64, metadata map[string]*string) (bool, error) {
	current, err := p.ARecord(ctx, resourceGroup, zone, name)
	if err != nil {
		return false, err
	}
	if ARecordIsCurrent(current, ip, ttl, metadata) {
		return false, nil
	}
	return true, p.PutARecord(ctx, resourceGroup, zone, name, ip, ttl, metadata)
}

// ARecordIsCurrent reports whether the record set rs (nil when absent)
// holds exactly ip with ttl and carries metadata.
func ARecordIsCurrent(rs *armprivatedns.RecordSet, ip string, ttl int64, metadata map[string]*string) bool {
	return rs != nil && slices.Equal(ARecordIPs(rs), []string{ip}) && ARecordTTL(rs) == ttl && TagsContain(metadataOf(rs), metadata)
}

// PutARecord writes the A record set name → ip with ttl and metadata.
func (p *PrivateDNS) PutARecord(ctx context.Context, resourceGroup, zone, name, ip string, ttl int64, metadata map[string]*string) error {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	body := armprivatedns.RecordSet{Properties: &armprivatedns.RecordSetProperties{
		TTL:      to.Ptr(ttl),
		ARecords: []*armprivatedns.ARecord{{IPv4Address: to.Ptr(ip)}},
		Metadata: metadata,
	}}
	_, err := p.Records.CreateOrUpdate(ctx, resourceGroup, zone, armprivatedns.RecordTypeA, name, body, nil)
	return Wrap("writing the A record "+name, err)
}

// RecordSets lists every record set of the zone (its SOA and A records) in
// one paged call: what a drift check compares. found is false when the
// zone does not exist.
func (p *PrivateDNS) RecordSets(ctx context.Context, resourceGroup, zone string) (sets []*armprivatedns.RecordSet, found bool, err error) {
	ctx, cancel := p.Timeouts.list(ctx)
	defer cancel()
	pager := p.Records.NewListPager(resourceGroup, zone, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if IsNotFound(err) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, Wrap("listing the private DNS zone's records", err)
		}
		sets = append(sets, page.Value...)
	}
	return sets, true, nil
}

// FindRecordSet is the record set of recordType named name among sets (as
// RecordSets lists them); nil when absent.
func FindRecordSet(sets []*armprivatedns.RecordSet, recordType armprivatedns.RecordType, name string) *armprivatedns.RecordSet {
	for _, rs := range sets {
		if rs != nil && strings.EqualFold(deref(rs.Name), name) && strings.EqualFold(path.Base(deref(rs.Type)), string(recordType)) {
			return rs
		}
	}
	return nil
}

func metadataOf(rs *armprivatedns.RecordSet) map[string]*string {
	if rs == nil || rs.Properties == nil {
		return nil
	}
	return rs.Properties.Metadata
}

// DeleteARecord deletes an A record set (absent counts as deleted).
func (p *PrivateDNS) DeleteARecord(ctx context.Context, resourceGroup, zone, name string) error {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	_, err := p.Records.Delete(ctx, resourceGroup, zone, armprivatedns.RecordTypeA, name, nil)
	if IsNotFound(err) {
		return nil
	}
	return Wrap("deleting the A record "+name, err)
}

// SOAMinimumTTL is the SOA record set's minimum TTL (how long resolvers
// cache "no such name"); 0 when rs holds none.
func SOAMinimumTTL(rs *armprivatedns.RecordSet) int64 {
	if rs == nil || rs.Properties == nil || rs.Properties.SoaRecord == nil || rs.Properties.SoaRecord.MinimumTTL == nil {
		return 0
	}
	return *rs.Properties.SoaRecord.MinimumTTL
}

// LowerSOANegativeTTL lowers the zone's SOA minimum TTL to most when soa
// (as listed) holds more, and never raises it: a zone's own shorter
// negative caching is kept. The write carries the listed ETag, so a
// concurrent change is not overwritten. It reports whether it wrote.
func (p *PrivateDNS) LowerSOANegativeTTL(ctx context.Context, resourceGroup, zone string, soa *armprivatedns.RecordSet, most int64) (bool, error) {
	if soa == nil || soa.Properties == nil || soa.Properties.SoaRecord == nil || SOAMinimumTTL(soa) <= most {
		return false, nil
	}
	record := *soa.Properties.SoaRecord
	record.MinimumTTL = to.Ptr(most)
	record.Host = nil // read-only
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	body := armprivatedns.RecordSet{Etag: soa.Etag, Properties: &armprivatedns.RecordSetProperties{TTL: soa.Properties.TTL, Metadata: soa.Properties.Metadata, SoaRecord: &record}}
	_, err := p.Records.CreateOrUpdate(ctx, resourceGroup, zone, armprivatedns.RecordTypeSOA, soaRecordName, body, &armprivatedns.RecordSetsClientCreateOrUpdateOptions{IfMatch: soa.Etag})
	return err == nil, Wrap("writing the zone's SOA record", err)
}
