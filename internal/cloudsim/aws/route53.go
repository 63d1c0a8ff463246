package aws

import (
	"crypto/rand"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// route53APIVersion is the first path segment of every Route 53 request.
const route53APIVersion = "2013-04-01"

// route53Route maps a method and a path pattern (segments after the API
// version; "{X}" captures a path variable) to an operation.
type route53Route struct {
	method  string
	pattern []string
	action  string
	handler Handler
}

var route53Routes []route53Route

func init() {
	route := func(method, path, action string, h Handler) {
		route53Routes = append(route53Routes, route53Route{method: method, pattern: strings.Split(path, "/"), action: action, handler: h})
	}
	route("POST", "hostedzone", "CreateHostedZone", createHostedZone)
	route("GET", "hostedzone", "ListHostedZones", listHostedZones)
	route("GET", "hostedzone/{Id}", "GetHostedZone", getHostedZone)
	route("DELETE", "hostedzone/{Id}", "DeleteHostedZone", deleteHostedZone)
	route("POST", "hostedzone/{Id}", "UpdateHostedZoneComment", updateHostedZoneComment)
	route("POST", "hostedzone/{Id}/rrset", "ChangeResourceRecordSets", changeResourceRecordSets)
	route("GET", "hostedzone/{Id}/rrset", "ListResourceRecordSets", listResourceRecordSets)
	route("POST", "hostedzone/{Id}/associatevpc", "AssociateVPCWithHostedZone", associateVPCWithHostedZone)
	route("POST", "hostedzone/{Id}/disassociatevpc", "DisassociateVPCFromHostedZone", disassociateVPCFromHostedZone)
	route("GET", "hostedzonesbyname", "ListHostedZonesByName", listHostedZonesByName)
	route("GET", "hostedzonesbyvpc", "ListHostedZonesByVPC", listHostedZonesByVPC)
	route("GET", "hostedzonecount", "GetHostedZoneCount", getHostedZoneCount)
	route("GET", "change/{Id}", "GetChange", getChange)
	route("POST", "tags/{ResourceType}/{ResourceId}", "ChangeTagsForResource", changeTagsForResource)
	route("GET", "tags/{ResourceType}/{ResourceId}", "ListTagsForResource", listTagsForResource)
	route("POST", "tags/{ResourceType}", "ListTagsForResources", listTagsForResources)
}

// resolveRoute53 maps a Route 53 REST request (method and path) to its
// operation and handler, and sets call.Action and call.PathVars.
func resolveRoute53(call *Call) (Handler, *APIError) {
	segments := splitEscapedPath(call.Request.URL.EscapedPath())
	if len(segments) > 0 && segments[0] == route53APIVersion {
		segments = segments[1:]
		for _, r := range route53Routes {
			vars, ok := matchRoute53Path(r.pattern, segments)
			if !ok || r.method != call.Request.Method {
				continue
			}
			call.Action = r.action
			call.PathVars = vars
			return r.handler, nil
		}
	}
	call.Action = "Unknown"
	return nil, &APIError{Status: http.StatusNotFound, Code: "UnknownOperationException",
		Message: "No Route 53 operation matches " + call.Request.Method + " " + call.Request.URL.Path}
}

// splitEscapedPath splits a path into unescaped segments, so an ID sent
// escaped ("%2Fhostedzone%2FZ123") stays one segment. Empty segments (a
// trailing slash, as older SDKs send after rrset) are dropped.
func splitEscapedPath(escaped string) []string {
	var out []string
	for _, s := range strings.Split(escaped, "/") {
		if s == "" {
			continue
		}
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
		out = append(out, s)
	}
	return out
}

func matchRoute53Path(pattern, segments []string) (map[string]string, bool) {
	if len(pattern) != len(segments) {
		return nil, false
	}
	vars := map[string]string{}
	for i, p := range pattern {
		if strings.HasPrefix(p, "{") {
			vars[strings.Trim(p, "{}")] = segments[i]
		} else if p != segments[i] {
			return nil, false
		}
	}
	return vars, true
}

// route53Err builds a Route 53 error; Route 53 uses 404 for its NoSuch…
// errors and 400 for most others.
func route53Err(status int, code, format string, args ...any) *APIError {
	return &APIError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func invalidInput(format string, args ...any) *APIError {
	return route53Err(http.StatusBadRequest, "InvalidInput", format, args...)
}

func noSuchHostedZone(id string) *APIError {
	return route53Err(http.StatusNotFound, "NoSuchHostedZone", "No hosted zone found with ID: %s", id)
}

// bareZoneID accepts both "Z123" and "/hostedzone/Z123".
func bareZoneID(id string) string {
	id = strings.TrimPrefix(id, "/")
	return strings.TrimPrefix(id, "hostedzone/")
}

// zoneFromPath returns the caller's zone named by the {Id} path variable.
func zoneFromPath(call *Call, variable string) (*HostedZone, *APIError) {
	id := bareZoneID(call.PathVars[variable])
	z := call.Account.Route53.HostedZones[id]
	if z == nil {
		return nil, noSuchHostedZone(id)
	}
	return z, nil
}

func decodeRoute53Body(call *Call, v any) *APIError {
	if err := xml.Unmarshal(call.Body, v); err != nil {
		return invalidInput("Invalid XML ; %v", err)
	}
	return nil
}

// route53MaxItems reads the maxitems query parameter: def when absent, at
// most limit.
func route53MaxItems(call *Call, def, limit int) (int, *APIError) {
	s := call.Request.URL.Query().Get("maxitems")
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, invalidInput("1 validation error detected: Value '%s' at 'maxItems' failed to satisfy constraint: Member must be a valid integer", s)
	}
	if n == 0 || n > limit {
		n = limit
	}
	return n, nil
}

// newRoute53ID returns an ID like Route 53's: a letter and 20 upper-case
// letters and digits.
func newRoute53ID(prefix string) string { return prefix + randomUpperAlnum(20) }

// randomUpperAlnum returns n random upper-case letters and digits, the
// alphabet of Route 53 and IAM identifiers.
func randomUpperAlnum(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func route53Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Wire shapes shared by several operations.

type r53HostedZoneXML struct {
	ID                     string               `xml:"Id"`
	Name                   string               `xml:"Name"`
	CallerReference        string               `xml:"CallerReference"`
	Config                 r53HostedZoneConfig  `xml:"Config"`
	ResourceRecordSetCount int                  `xml:"ResourceRecordSetCount"`
	LinkedService          *r53LinkedServiceXML `xml:"LinkedService,omitempty"`
}

type r53HostedZoneConfig struct {
	Comment     string `xml:"Comment,omitempty"`
	PrivateZone bool   `xml:"PrivateZone"`
}

type r53LinkedServiceXML struct {
	ServicePrincipal string `xml:"ServicePrincipal,omitempty"`
	Description      string `xml:"Description,omitempty"`
}

type r53ChangeInfoXML struct {
	ID          string `xml:"Id"`
	Status      string `xml:"Status"`
	SubmittedAt string `xml:"SubmittedAt"`
	Comment     string `xml:"Comment,omitempty"`
}

type r53DelegationSetXML struct {
	NameServers []string `xml:"NameServers>NameServer"`
}

type r53VPCXML struct {
	VPCRegion string `xml:"VPCRegion,omitempty"`
	VPCId     string `xml:"VPCId,omitempty"`
}

func (z *HostedZone) wire() r53HostedZoneXML {
	return r53HostedZoneXML{
		ID:                     "/hostedzone/" + z.ID,
		Name:                   z.Name,
		CallerReference:        z.CallerReference,
		Config:                 r53HostedZoneConfig{Comment: z.Comment, PrivateZone: z.PrivateZone},
		ResourceRecordSetCount: len(z.Records),
	}
}

func (z *HostedZone) vpcsWire() []r53VPCXML {
	out := make([]r53VPCXML, 0, len(z.VPCs))
	for _, v := range z.VPCs {
		out = append(out, r53VPCXML{VPCRegion: v.Region, VPCId: v.ID})
	}
	return out
}

// submitChange records a change that becomes INSYNC after the configured
// propagation delay, and forgets changes long since in sync.
func submitChange(call *Call, comment string) r53ChangeInfoXML {
	state := call.Account.Route53
	for id, c := range state.Changes {
		if call.Now.Sub(c.InsyncAt) > 24*time.Hour {
			delete(state.Changes, id)
		}
	}
	c := &Route53Change{
		ID:          newRoute53ID("C"),
		Comment:     comment,
		SubmittedAt: call.Now,
		InsyncAt:    call.Now.Add(call.Cloud.Delays().Route53ChangePropagation.D()),
	}
	state.Changes[c.ID] = c
	return c.wire(call.Now)
}

func (c *Route53Change) wire(now time.Time) r53ChangeInfoXML {
	return r53ChangeInfoXML{ID: "/change/" + c.ID, Status: c.Status(now), SubmittedAt: route53Time(c.SubmittedAt), Comment: c.Comment}
}

// CreateHostedZone

type createHostedZoneRequest struct {
	Name             string     `xml:"Name"`
	CallerReference  string     `xml:"CallerReference"`
	VPC              *r53VPCXML `xml:"VPC"`
	DelegationSetID  string     `xml:"DelegationSetId"`
	HostedZoneConfig *struct {
		Comment     string `xml:"Comment"`
		PrivateZone bool   `xml:"PrivateZone"`
	} `xml:"HostedZoneConfig"`
}

type createHostedZoneResponse struct {
	XMLName       xml.Name             `xml:"https://route53.amazonaws.com/doc/2013-04-01/ CreateHostedZoneResponse"`
	HostedZone    r53HostedZoneXML     `xml:"HostedZone"`
	ChangeInfo    r53ChangeInfoXML     `xml:"ChangeInfo"`
	DelegationSet *r53DelegationSetXML `xml:"DelegationSet,omitempty"`
	VPC           *r53VPCXML           `xml:"VPC,omitempty"`
}

func createHostedZone(call *Call) (any, *APIError) {
	var req createHostedZoneRequest
	if err := decodeRoute53Body(call, &req); err != nil {
		return nil, err
	}
	if req.CallerReference == "" {
		return nil, invalidInput("1 validation error detected: Value null at 'callerReference' failed to satisfy constraint: Member must not be null")
	}
	name, err := normalizeZoneName(req.Name)
	if err != nil {
		return nil, err
	}
	state := call.Account.Route53
	if _, used := state.CallerReferences[req.CallerReference]; used {
		return nil, route53Err(http.StatusConflict, "HostedZoneAlreadyExists",
			"A hosted zone has already been created with the specified caller reference.")
	}
	if req.DelegationSetID != "" {
		return nil, route53Err(http.StatusBadRequest, "NoSuchDelegationSet", "A reusable delegation set with the specified ID does not exist: %s", req.DelegationSetID)
	}
	zone := &HostedZone{
		ID:              newRoute53ID("Z"),
		Name:            name,
		CallerReference: req.CallerReference,
		CreatedAt:       call.Now,
		Records:         map[string]*RecordSet{},
	}
	if req.HostedZoneConfig != nil {
		zone.Comment = req.HostedZoneConfig.Comment
	}
	wantPrivate := req.HostedZoneConfig != nil && req.HostedZoneConfig.PrivateZone
	if req.VPC != nil {
		vpc, verr := validateZoneVPC(call, *req.VPC)
		if verr != nil {
			return nil, verr
		}
		if other := zoneWithNameOnVPC(call, name, vpc); other != nil {
			return nil, conflictingDomain(vpc, other)
		}
		zone.PrivateZone = true
		zone.VPCs = []ZoneVPC{vpc}
	} else if wantPrivate {
		return nil, invalidInput("When you're creating a private hosted zone (when you specify true for PrivateZone), you must also specify values for VPCId and VPCRegion.")
	}
	zone.NameServers = nameServers(zone.PrivateZone)
	zone.Records[recordKey(name, "SOA")] = &RecordSet{Name: name, Type: "SOA", TTL: 900,
		Values: []string{zone.NameServers[0] + " awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400"}}
	zone.Records[recordKey(name, "NS")] = &RecordSet{Name: name, Type: "NS", TTL: 172800,
		Values: append([]string(nil), zone.NameServers...)}
	state.HostedZones[zone.ID] = zone
	state.CallerReferences[req.CallerReference] = zone.ID

	resp := createHostedZoneResponse{HostedZone: zone.wire(), ChangeInfo: submitChange(call, "")}
	if zone.PrivateZone {
		resp.VPC = &r53VPCXML{VPCRegion: zone.VPCs[0].Region, VPCId: zone.VPCs[0].ID}
	} else {
		resp.DelegationSet = &r53DelegationSetXML{NameServers: zone.NameServers}
	}
	header := http.Header{}
	header.Set("Location", "https://route53.amazonaws.com/"+route53APIVersion+"/hostedzone/"+zone.ID)
	return &RestResult{Status: http.StatusCreated, Header: header, Body: resp}, nil
}

// nameServers are the zone's delegation set. Private zones get the fixed
// placeholder set AWS shows for them; public zones four servers in the
// four awsdns TLDs, as a delegation set has.
func nameServers(private bool) []string {
	if private {
		return []string{"ns-0.awsdns-00.com.", "ns-512.awsdns-00.net.", "ns-1024.awsdns-00.org.", "ns-1536.awsdns-00.co.uk."}
	}
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	var out []string
	for i, tld := range []string{"com", "net", "org", "co.uk"} {
		out = append(out, fmt.Sprintf("ns-%d.awsdns-%02d.%s.", i*512+int(b[2*i])*2, int(b[2*i+1])%64, tld))
	}
	return out
}

// validateZoneVPC checks a VPC named for a private zone: both fields set and
// the VPC present in the caller's account in that region.
func validateZoneVPC(call *Call, v r53VPCXML) (ZoneVPC, *APIError) {
	if v.VPCId == "" || v.VPCRegion == "" {
		return ZoneVPC{}, invalidInput("Invalid request: a VPC needs both VPCId and VPCRegion.")
	}
	if r := call.Account.Regions[v.VPCRegion]; r != nil {
		if _, ok := r.EC2.VPCs[v.VPCId]; ok {
			return ZoneVPC{Region: v.VPCRegion, ID: v.VPCId}, nil
		}
	}
	return ZoneVPC{}, route53Err(http.StatusBadRequest, "InvalidVPCId",
		"The VPC ID '%s' either isn't a valid ID or the current account is not authorized to access this VPC in region %s.", v.VPCId, v.VPCRegion)
}

// zoneWithNameOnVPC finds the caller's private zone with this name already
// associated with the VPC.
func zoneWithNameOnVPC(call *Call, name string, vpc ZoneVPC) *HostedZone {
	for _, z := range call.Account.Route53.HostedZones {
		if z.Name == name && z.PrivateZone && z.hasVPC(vpc) {
			return z
		}
	}
	return nil
}

func (z *HostedZone) hasVPC(vpc ZoneVPC) bool {
	for _, v := range z.VPCs {
		if v == vpc {
			return true
		}
	}
	return false
}

func conflictingDomain(vpc ZoneVPC, other *HostedZone) *APIError {
	return route53Err(http.StatusBadRequest, "ConflictingDomainExists",
		"The VPC %s in %s region has already been associated with the hosted zone %s with the same domain name.", vpc.ID, vpc.Region, other.ID)
}

// GetHostedZone

// r53VPCList is a private zone's VPCs element; public zones leave it out.
// (encoding/xml writes an empty parent for a>b,omitempty, hence the pointer.)
type r53VPCList struct {
	Items []r53VPCXML `xml:"VPC"`
}

type getHostedZoneResponse struct {
	XMLName       xml.Name             `xml:"https://route53.amazonaws.com/doc/2013-04-01/ GetHostedZoneResponse"`
	HostedZone    r53HostedZoneXML     `xml:"HostedZone"`
	DelegationSet *r53DelegationSetXML `xml:"DelegationSet,omitempty"`
	VPCs          *r53VPCList          `xml:"VPCs,omitempty"`
}

func getHostedZone(call *Call) (any, *APIError) {
	z, err := zoneFromPath(call, "Id")
	if err != nil {
		return nil, err
	}
	resp := getHostedZoneResponse{HostedZone: z.wire()}
	if z.PrivateZone {
		resp.VPCs = &r53VPCList{Items: z.vpcsWire()}
	} else {
		resp.DelegationSet = &r53DelegationSetXML{NameServers: z.NameServers}
	}
	return &RestResult{Body: resp}, nil
}

// GetHostedZoneCount

type getHostedZoneCountResponse struct {
	XMLName         xml.Name `xml:"https://route53.amazonaws.com/doc/2013-04-01/ GetHostedZoneCountResponse"`
	HostedZoneCount int      `xml:"HostedZoneCount"`
}

func getHostedZoneCount(call *Call) (any, *APIError) {
	return &RestResult{Body: getHostedZoneCountResponse{HostedZoneCount: len(call.Account.Route53.HostedZones)}}, nil
}

// r53HostedZoneList always encodes its element, empty or not, as Route 53 does.
type r53HostedZoneList struct {
	Items []r53HostedZoneXML `xml:"HostedZone"`
}

// ListHostedZones: in zone-ID order; Marker and NextMarker are zone IDs.

type listHostedZonesResponse struct {
	XMLName     xml.Name          `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ListHostedZonesResponse"`
	HostedZones r53HostedZoneList `xml:"HostedZones"`
	Marker      string            `xml:"Marker"`
	IsTruncated bool              `xml:"IsTruncated"`
	NextMarker  string            `xml:"NextMarker,omitempty"`
	MaxItems    int               `xml:"MaxItems"`
}

func listHostedZones(call *Call) (any, *APIError) {
	q := call.Request.URL.Query()
	maxItems, err := route53MaxItems(call, 100, 100)
	if err != nil {
		return nil, err
	}
	zoneType := q.Get("hostedzonetype")
	if zoneType != "" && zoneType != "PrivateHostedZone" {
		return nil, invalidInput("1 validation error detected: Value '%s' at 'hostedZoneType' failed to satisfy constraint: Member must satisfy enum value set: [PrivateHostedZone]", zoneType)
	}
	if q.Get("delegationsetid") != "" {
		return nil, route53Err(http.StatusBadRequest, "NoSuchDelegationSet", "A reusable delegation set with the specified ID does not exist: %s", q.Get("delegationsetid"))
	}
	marker := bareZoneID(q.Get("marker"))
	var zones []*HostedZone
	for _, z := range call.Account.Route53.HostedZones {
		if (zoneType == "" || z.PrivateZone) && z.ID >= marker {
			zones = append(zones, z)
		}
	}
	sortZones(zones, func(a, b *HostedZone) bool { return a.ID < b.ID })
	resp := listHostedZonesResponse{Marker: q.Get("marker"), MaxItems: maxItems}
	for i, z := range zones {
		if i == maxItems {
			resp.IsTruncated = true
			resp.NextMarker = z.ID
			break
		}
		resp.HostedZones.Items = append(resp.HostedZones.Items, z.wire())
	}
	return &RestResult{Body: resp}, nil
}

// ListHostedZonesByName: ordered by name with labels reversed, then ID.

type listHostedZonesByNameResponse struct {
	XMLName          xml.Name          `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ListHostedZonesByNameResponse"`
	HostedZones      r53HostedZoneList `xml:"HostedZones"`
	DNSName          string            `xml:"DNSName,omitempty"`
	HostedZoneID     string            `xml:"HostedZoneId,omitempty"`
	IsTruncated      bool              `xml:"IsTruncated"`
	NextDNSName      string            `xml:"NextDNSName,omitempty"`
	NextHostedZoneID string            `xml:"NextHostedZoneId,omitempty"`
	MaxItems         int               `xml:"MaxItems"`
}

func listHostedZonesByName(call *Call) (any, *APIError) {
	q := call.Request.URL.Query()
	maxItems, err := route53MaxItems(call, 100, 100)
	if err != nil {
		return nil, err
	}
	dnsName, startID := q.Get("dnsname"), bareZoneID(q.Get("hostedzoneid"))
	if startID != "" && dnsName == "" {
		return nil, invalidInput("Invalid request: a HostedZoneId requires a DNSName.")
	}
	startName := ""
	if dnsName != "" {
		if startName, err = normalizeZoneName(dnsName); err != nil {
			return nil, err
		}
	}
	var zones []*HostedZone
	for _, z := range call.Account.Route53.HostedZones {
		zones = append(zones, z)
	}
	byName := func(a, b *HostedZone) bool {
		if c := compareDNSNames(a.Name, b.Name); c != 0 {
			return c < 0
		}
		return a.ID < b.ID
	}
	sortZones(zones, byName)
	resp := listHostedZonesByNameResponse{DNSName: dnsName, HostedZoneID: q.Get("hostedzoneid"), MaxItems: maxItems}
	n := 0
	for _, z := range zones {
		if startName != "" {
			c := compareDNSNames(z.Name, startName)
			if c < 0 || (c == 0 && z.ID < startID) {
				continue
			}
		}
		if n == maxItems {
			resp.IsTruncated = true
			resp.NextDNSName = z.Name
			resp.NextHostedZoneID = z.ID
			break
		}
		resp.HostedZones.Items = append(resp.HostedZones.Items, z.wire())
		n++
	}
	return &RestResult{Body: resp}, nil
}

// ListHostedZonesByVPC: every account's private zones on the VPC.

type listHostedZonesByVPCResponse struct {
	XMLName   xml.Name `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ListHostedZonesByVPCResponse"`
	Summaries struct {
		Items []r53HostedZoneSummary `xml:"HostedZoneSummary"`
	} `xml:"HostedZoneSummaries"`
	MaxItems  int    `xml:"MaxItems"`
	NextToken string `xml:"NextToken,omitempty"`
}

type r53HostedZoneSummary struct {
	HostedZoneID  string `xml:"HostedZoneId"`
	Name          string `xml:"Name"`
	OwningAccount string `xml:"Owner>OwningAccount"`
}

func listHostedZonesByVPC(call *Call) (any, *APIError) {
	q := call.Request.URL.Query()
	vpc := ZoneVPC{ID: q.Get("vpcid"), Region: q.Get("vpcregion")}
	if vpc.ID == "" || vpc.Region == "" {
		return nil, invalidInput("Invalid request: VPCId and VPCRegion are required.")
	}
	maxItems, err := route53MaxItems(call, 100, 100)
	if err != nil {
		return nil, err
	}
	type owned struct {
		account string
		zone    *HostedZone
	}
	var found []owned
	for id, a := range call.Cloud.accounts {
		for _, z := range a.Route53.HostedZones {
			if z.PrivateZone && z.hasVPC(vpc) {
				found = append(found, owned{id, z})
			}
		}
	}
	page, next, perr := Paginate(found, func(o owned) string { return o.zone.ID }, q.Get("nexttoken"), maxItems, 100)
	if perr != nil {
		return nil, route53Err(http.StatusBadRequest, "InvalidPaginationToken", "The value that you specified for NextToken in a List request isn't valid.")
	}
	resp := listHostedZonesByVPCResponse{MaxItems: maxItems, NextToken: next}
	for _, o := range page {
		resp.Summaries.Items = append(resp.Summaries.Items, r53HostedZoneSummary{HostedZoneID: o.zone.ID, Name: o.zone.Name, OwningAccount: o.account})
	}
	return &RestResult{Body: resp}, nil
}

// DeleteHostedZone

type changeInfoResponse struct {
	XMLName    xml.Name
	ChangeInfo r53ChangeInfoXML `xml:"ChangeInfo"`
}

func changeInfoResult(action string, info r53ChangeInfoXML) *RestResult {
	return &RestResult{Body: changeInfoResponse{XMLName: xml.Name{Space: route53Namespace, Local: action + "Response"}, ChangeInfo: info}}
}

func deleteHostedZone(call *Call) (any, *APIError) {
	z, err := zoneFromPath(call, "Id")
	if err != nil {
		return nil, err
	}
	for _, rs := range z.Records {
		if !(rs.Name == z.Name && (rs.Type == "SOA" || rs.Type == "NS")) {
			return nil, route53Err(http.StatusBadRequest, "HostedZoneNotEmpty",
				"The specified hosted zone contains non-required resource record sets and so cannot be deleted.")
		}
	}
	delete(call.Account.Route53.HostedZones, z.ID)
	return changeInfoResult(call.Action, submitChange(call, "")), nil
}

// UpdateHostedZoneComment

type updateHostedZoneCommentResponse struct {
	XMLName    xml.Name         `xml:"https://route53.amazonaws.com/doc/2013-04-01/ UpdateHostedZoneCommentResponse"`
	HostedZone r53HostedZoneXML `xml:"HostedZone"`
}

func updateHostedZoneComment(call *Call) (any, *APIError) {
	z, err := zoneFromPath(call, "Id")
	if err != nil {
		return nil, err
	}
	var req struct {
		Comment string `xml:"Comment"`
	}
	if err := decodeRoute53Body(call, &req); err != nil {
		return nil, err
	}
	z.Comment = req.Comment
	return &RestResult{Body: updateHostedZoneCommentResponse{HostedZone: z.wire()}}, nil
}

// AssociateVPCWithHostedZone / DisassociateVPCFromHostedZone

type vpcAssociationRequest struct {
	VPC     r53VPCXML `xml:"VPC"`
	Comment string    `xml:"Comment"`
}

func associateVPCWithHostedZone(call *Call) (any, *APIError) {
	z, err := zoneFromPath(call, "Id")
	if err != nil {
		return nil, err
	}
	var req vpcAssociationRequest
	if err := decodeRoute53Body(call, &req); err != nil {
		return nil, err
	}
	if !z.PrivateZone {
		return nil, route53Err(http.StatusBadRequest, "PublicZoneVPCAssociation",
			"Attempting to associate public zone: %s with vpc: %s", z.ID, req.VPC.VPCId)
	}
	vpc, err := validateZoneVPC(call, req.VPC)
	if err != nil {
		return nil, err
	}
	if other := zoneWithNameOnVPC(call, z.Name, vpc); other != nil {
		return nil, conflictingDomain(vpc, other)
	}
	z.VPCs = append(z.VPCs, vpc)
	return changeInfoResult(call.Action, submitChange(call, req.Comment)), nil
}

func disassociateVPCFromHostedZone(call *Call) (any, *APIError) {
	z, err := zoneFromPath(call, "Id")
	if err != nil {
		return nil, err
	}
	var req vpcAssociationRequest
	if err := decodeRoute53Body(call, &req); err != nil {
		return nil, err
	}
	vpc := ZoneVPC{Region: req.VPC.VPCRegion, ID: req.VPC.VPCId}
	if vpc.ID == "" || vpc.Region == "" {
		return nil, invalidInput("Invalid request: a VPC needs both VPCId and VPCRegion.")
	}
	if !z.hasVPC(vpc) {
		return nil, route53Err(http.StatusNotFound, "VPCAssociationNotFound",
			"The specified VPC %s and hosted zone %s are not currently associated.", vpc.ID, z.ID)
	}
	if len(z.VPCs) == 1 {
		return nil, route53Err(http.StatusBadRequest, "LastVPCAssociation",
			"The VPC that you're trying to disassociate from the private hosted zone is the last VPC that is associated with the hosted zone. Amazon Route 53 doesn't support disassociating the last VPC from a hosted zone.")
	}
	kept := z.VPCs[:0]
	for _, v := range z.VPCs {
		if v != vpc {
			kept = append(kept, v)
		}
	}
	z.VPCs = kept
	return changeInfoResult(call.Action, submitChange(call, req.Comment)), nil
}

// GetChange

func getChange(call *Call) (any, *APIError) {
	id := strings.TrimPrefix(strings.TrimPrefix(call.PathVars["Id"], "/"), "change/")
	c := call.Account.Route53.Changes[id]
	if c == nil {
		return nil, route53Err(http.StatusNotFound, "NoSuchChange", "A change with the specified change ID does not exist: %s", id)
	}
	return changeInfoResult(call.Action, c.wire(call.Now)), nil
}

func sortZones(zones []*HostedZone, less func(a, b *HostedZone) bool) {
	sort.Slice(zones, func(i, j int) bool { return less(zones[i], zones[j]) })
}
