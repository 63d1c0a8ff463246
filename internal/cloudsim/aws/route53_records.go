package aws

import (
	"encoding/xml"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// route53Types are the record types cloudsim stores. Only A, AAAA, CNAME,
// TXT, SPF and SOA values are checked; the others are kept as given.
var route53Types = map[string]bool{
	"A": true, "AAAA": true, "CAA": true, "CNAME": true, "DS": true, "MX": true,
	"NAPTR": true, "NS": true, "PTR": true, "SOA": true, "SPF": true, "SRV": true, "TXT": true,
}

// normalizeDNSName puts a name in the form Route 53 stores and returns:
// lower case, a trailing dot, and every character other than a-z, 0-9, '-'
// and '_' written as a \ooo octal escape (so "*" reads "\052"). Escapes in
// the input are decoded first, so both spellings name the same record.
func normalizeDNSName(name string) (string, bool) {
	name = strings.TrimSpace(name)
	var raw []byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '\\' && i+3 < len(name) && isOctal(name[i+1]) && isOctal(name[i+2]) && isOctal(name[i+3]) {
			n, _ := strconv.ParseUint(name[i+1:i+4], 8, 8)
			raw = append(raw, byte(n))
			i += 3
			continue
		}
		raw = append(raw, c)
	}
	s := string(raw)
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	if s == "." || len(s) > 255 {
		return "", false
	}
	labels := strings.Split(strings.TrimSuffix(s, "."), ".")
	var b strings.Builder
	for i, l := range labels {
		if l == "" || len(l) > 63 {
			return "", false
		}
		if i > 0 {
			b.WriteByte('.')
		}
		for j := 0; j < len(l); j++ {
			c := l[j]
			switch {
			case c >= 'A' && c <= 'Z':
				b.WriteByte(c + 'a' - 'A')
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
				b.WriteByte(c)
			default:
				fmt.Fprintf(&b, "\\%03o", c)
			}
		}
	}
	b.WriteByte('.')
	return b.String(), true
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func normalizeZoneName(name string) (string, *APIError) {
	n, ok := normalizeDNSName(name)
	if !ok {
		return "", route53Err(http.StatusBadRequest, "InvalidDomainName", "%s is not a valid domain name.", name)
	}
	return n, nil
}

// compareDNSNames orders names as Route 53 lists them: label by label from
// the right, so a zone's apex comes before its subdomains.
func compareDNSNames(a, b string) int {
	la := strings.Split(strings.TrimSuffix(a, "."), ".")
	lb := strings.Split(strings.TrimSuffix(b, "."), ".")
	for i := 1; i <= len(la) && i <= len(lb); i++ {
		if c := strings.Compare(la[len(la)-i], lb[len(lb)-i]); c != 0 {
			return c
		}
	}
	return len(la) - len(lb)
}

func recordKey(name, typ string) string { return name + " " + typ }

func sortRecordSets(sets []*RecordSet) {
	sort.Slice(sets, func(i, j int) bool {
		if c := compareDNSNames(sets[i].Name, sets[j].Name); c != 0 {
			return c < 0
		}
		return sets[i].Type < sets[j].Type
	})
}

// inZone reports whether name is the zone's apex or below it.
func inZone(name, zone string) bool { return name == zone || strings.HasSuffix(name, "."+zone) }

// Wire shapes for record sets.

type r53ResourceRecordSetXML struct {
	Name          string              `xml:"Name"`
	Type          string              `xml:"Type"`
	SetIdentifier string              `xml:"SetIdentifier,omitempty"`
	Weight        *int64              `xml:"Weight,omitempty"`
	Region        string              `xml:"Region,omitempty"`
	Failover      string              `xml:"Failover,omitempty"`
	MultiValue    *bool               `xml:"MultiValueAnswer,omitempty"`
	TTL           *int64              `xml:"TTL,omitempty"`
	Records       *r53ResourceRecords `xml:"ResourceRecords,omitempty"`
	AliasTarget   *r53AliasTargetXML  `xml:"AliasTarget,omitempty"`
	HealthCheckID string              `xml:"HealthCheckId,omitempty"`
	TrafficPolicy string              `xml:"TrafficPolicyInstanceId,omitempty"`
	GeoLocation   *struct{}           `xml:"GeoLocation,omitempty"`
	GeoProximity  *struct{}           `xml:"GeoProximityLocation,omitempty"`
	CidrRouting   *struct{}           `xml:"CidrRoutingConfig,omitempty"`
}

// r53ResourceRecords is a pointer in record sets so alias records leave the
// element out (encoding/xml writes an empty parent for a>b,omitempty).
type r53ResourceRecords struct {
	Items []r53ResourceRecordXML `xml:"ResourceRecord"`
}

type r53ResourceRecordXML struct {
	Value string `xml:"Value"`
}

type r53AliasTargetXML struct {
	HostedZoneID         string `xml:"HostedZoneId"`
	DNSName              string `xml:"DNSName"`
	EvaluateTargetHealth bool   `xml:"EvaluateTargetHealth"`
}

func (rs *RecordSet) wire() r53ResourceRecordSetXML {
	w := r53ResourceRecordSetXML{Name: rs.Name, Type: rs.Type}
	if rs.Alias != nil {
		w.AliasTarget = &r53AliasTargetXML{HostedZoneID: rs.Alias.HostedZoneID, DNSName: rs.Alias.DNSName, EvaluateTargetHealth: rs.Alias.EvaluateTargetHealth}
		return w
	}
	ttl := rs.TTL
	w.TTL = &ttl
	w.Records = &r53ResourceRecords{}
	for _, v := range rs.Values {
		w.Records.Items = append(w.Records.Items, r53ResourceRecordXML{Value: v})
	}
	return w
}

// ChangeResourceRecordSets

type changeResourceRecordSetsRequest struct {
	ChangeBatch struct {
		Comment string `xml:"Comment"`
		Changes []struct {
			Action            string                  `xml:"Action"`
			ResourceRecordSet r53ResourceRecordSetXML `xml:"ResourceRecordSet"`
		} `xml:"Changes>Change"`
	} `xml:"ChangeBatch"`
}

// changeResourceRecordSets validates the whole batch against the zone as it
// would be after each change in turn, and applies it only when every change
// is valid: a batch is atomic on Route 53.
func changeResourceRecordSets(call *Call) (any, *APIError) {
	z, err := zoneFromPath(call, "Id")
	if err != nil {
		return nil, err
	}
	var req changeResourceRecordSetsRequest
	if err := decodeRoute53Body(call, &req); err != nil {
		return nil, err
	}
	changes := req.ChangeBatch.Changes
	if len(changes) == 0 {
		return nil, invalidInput("1 validation error detected: Value '[]' at 'changeBatch.changes' failed to satisfy constraint: Member must have length greater than or equal to 1")
	}
	work := make(map[string]*RecordSet, len(z.Records))
	for k, v := range z.Records {
		work[k] = v
	}
	actions := map[string]string{} // record key → the action already applied in this batch
	var problems []string
	for i, ch := range changes {
		rrs := ch.ResourceRecordSet
		proposed, perr := recordSetFromWire(i+1, ch.Action, rrs)
		if perr != nil {
			return nil, perr
		}
		if proposed == nil {
			problems = append(problems, fmt.Sprintf("Invalid Resource Record: 'FATAL problem: DomainLabelEmpty (Domain label is empty) encountered with '%s''", rrs.Name))
			continue
		}
		name, typ := proposed.Name, proposed.Type
		if !inZone(name, z.Name) {
			problems = append(problems, fmt.Sprintf("RRSet with DNS name %s is not permitted in zone %s", name, z.Name))
			continue
		}
		key := recordKey(name, typ)
		// A record set may be changed once per batch, or deleted and then re-created.
		if prev, seen := actions[key]; seen && (prev != "DELETE" || ch.Action == "DELETE") {
			problems = append(problems, fmt.Sprintf("The request contains an invalid set of changes for a resource record set '%s %s'", typ, name))
			continue
		}
		actions[key] = ch.Action
		existing := work[key]
		if ch.Action == "DELETE" {
			switch {
			case existing == nil:
				problems = append(problems, fmt.Sprintf("Tried to delete resource record set [name='%s', type='%s'] but it was not found", name, typ))
			case !sameRecordSet(existing, proposed):
				problems = append(problems, fmt.Sprintf("Tried to delete resource record set [name='%s', type='%s'] but the values provided do not match the current values", name, typ))
			case name == z.Name && typ == "SOA":
				problems = append(problems, "A HostedZone must contain exactly one SOA record.")
			case name == z.Name && typ == "NS":
				problems = append(problems, "A HostedZone must contain at least one NS record for the zone itself.")
			default:
				delete(work, key)
			}
			continue
		}
		if msgs := validateRecordValues(proposed); len(msgs) > 0 {
			problems = append(problems, msgs...)
			continue
		}
		if ch.Action == "CREATE" && existing != nil {
			problems = append(problems, fmt.Sprintf("Tried to create resource record set [name='%s', type='%s'] but it already exists", name, typ))
			continue
		}
		if msg := cnameConflict(work, proposed, z.Name); msg != "" {
			problems = append(problems, msg)
			continue
		}
		work[key] = proposed
	}
	if len(problems) > 0 {
		// Route 53 answers a rejected batch with one InvalidChangeBatch whose
		// message lists every problem in brackets.
		return nil, route53Err(http.StatusBadRequest, "InvalidChangeBatch", "[%s]", strings.Join(problems, ", "))
	}
	z.Records = work
	return changeInfoResult(call.Action, submitChange(call, req.ChangeBatch.Comment)), nil
}

// recordSetFromWire checks one change's shape (errors here are InvalidInput,
// not part of the batch report) and builds the record set it describes. A
// nil set with no error means the name is not a valid DNS name.
func recordSetFromWire(n int, action string, rrs r53ResourceRecordSetXML) (*RecordSet, *APIError) {
	switch action {
	case "CREATE", "DELETE", "UPSERT":
	default:
		return nil, invalidInput("1 validation error detected: Value '%s' at 'changeBatch.changes.%d.member.action' failed to satisfy constraint: Member must satisfy enum value set: [CREATE, DELETE, UPSERT]", action, n)
	}
	if !route53Types[rrs.Type] {
		return nil, invalidInput("1 validation error detected: Value '%s' at 'changeBatch.changes.%d.member.resourceRecordSet.type' failed to satisfy constraint: Member must satisfy enum value set: [SOA, A, TXT, NS, CNAME, MX, NAPTR, PTR, SRV, SPF, AAAA, CAA, DS]", rrs.Type, n)
	}
	if rrs.SetIdentifier != "" || rrs.Weight != nil || rrs.Region != "" || rrs.Failover != "" || rrs.MultiValue != nil ||
		rrs.GeoLocation != nil || rrs.GeoProximity != nil || rrs.CidrRouting != nil || rrs.HealthCheckID != "" {
		return nil, invalidInput("Invalid request: cloudsim supports simple routing only (no SetIdentifier, weights, regions, failover, geolocation, CIDR routing, multivalue answers or health checks).")
	}
	basic := rrs.TTL != nil && rrs.Records != nil && len(rrs.Records.Items) > 0
	alias := rrs.AliasTarget != nil
	traffic := rrs.TrafficPolicy != ""
	count := 0
	for _, b := range []bool{basic, alias, traffic} {
		if b {
			count++
		}
	}
	if count != 1 {
		found := "none"
		if count > 1 {
			found = "more than one"
		}
		return nil, invalidInput("Invalid request: Expected exactly one of [AliasTarget, all of [TTL, and ResourceRecords], or TrafficPolicyInstanceId], but found %s in Change with [Action=%s, Name=%s, Type=%s, SetIdentifier=null]",
			found, action, rrs.Name, rrs.Type)
	}
	if traffic {
		return nil, invalidInput("Invalid request: cloudsim does not support traffic policy instances.")
	}
	name, ok := normalizeDNSName(rrs.Name)
	if !ok {
		return nil, nil
	}
	rs := &RecordSet{Name: name, Type: rrs.Type}
	if alias {
		target, ok := normalizeDNSName(rrs.AliasTarget.DNSName)
		if !ok {
			target = rrs.AliasTarget.DNSName
		}
		rs.Alias = &Alias{HostedZoneID: bareZoneID(rrs.AliasTarget.HostedZoneID), DNSName: target, EvaluateTargetHealth: rrs.AliasTarget.EvaluateTargetHealth}
		return rs, nil
	}
	if *rrs.TTL < 0 || *rrs.TTL > 2147483647 {
		return nil, invalidInput("1 validation error detected: Value '%d' at 'changeBatch.changes.%d.member.resourceRecordSet.tTL' failed to satisfy constraint: Member must have value between 0 and 2147483647", *rrs.TTL, n)
	}
	rs.TTL = *rrs.TTL
	for _, r := range rrs.Records.Items {
		rs.Values = append(rs.Values, strings.TrimSpace(r.Value))
	}
	return rs, nil
}

// validateRecordValues checks values the way Route 53's record parser does
// for the types hcplink writes.
func validateRecordValues(rs *RecordSet) []string {
	var msgs []string
	fatal := func(problem, value string) {
		msgs = append(msgs, fmt.Sprintf("Invalid Resource Record: 'FATAL problem: %s encountered with '%s''", problem, value))
	}
	if rs.Alias != nil {
		if rs.Type == "CNAME" || rs.Type == "NS" || rs.Type == "SOA" {
			return []string{fmt.Sprintf("RRSet of type %s with DNS name %s cannot be an alias", rs.Type, rs.Name)}
		}
		return nil
	}
	seen := map[string]bool{}
	for _, v := range rs.Values {
		if seen[v] {
			msgs = append(msgs, fmt.Sprintf("Duplicate Resource Record: '%s'", v))
		}
		seen[v] = true
		switch rs.Type {
		case "A":
			if ip := net.ParseIP(v); ip == nil || ip.To4() == nil || strings.Contains(v, ":") {
				fatal("ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address)", v)
			}
		case "AAAA":
			if ip := net.ParseIP(v); ip == nil || !strings.Contains(v, ":") {
				fatal("AAAARRDATAIllegalIPv6Address (Value is not a valid IPv6 address)", v)
			}
		case "TXT", "SPF":
			if len(v) < 2 || !strings.HasPrefix(v, `"`) || !strings.HasSuffix(v, `"`) {
				fatal("InvalidCharacterString (Value should be enclosed in quotation marks)", v)
			}
		case "CNAME":
			if _, ok := normalizeDNSName(v); !ok {
				fatal("DomainLabelEmpty (Domain label is empty)", v)
			}
		case "SOA":
			if f := strings.Fields(v); len(f) != 7 {
				fatal("SOARRDATAIllegal (SOA record must have 7 fields)", v)
			} else {
				for _, num := range f[2:] {
					if _, err := strconv.ParseUint(num, 10, 32); err != nil {
						fatal("SOARRDATAIllegal (SOA serial and timers must be unsigned integers)", v)
						break
					}
				}
			}
		}
	}
	if (rs.Type == "CNAME" || rs.Type == "SOA") && len(rs.Values) > 1 {
		msgs = append(msgs, fmt.Sprintf("RRSet of type %s with DNS name %s has more than one resource record", rs.Type, rs.Name))
	}
	return msgs
}

// cnameConflict applies DNS's rule that a CNAME is alone at its name (and
// never at the apex). The double space before CNAME is Route 53's own.
func cnameConflict(work map[string]*RecordSet, rs *RecordSet, zone string) string {
	if rs.Type == "CNAME" {
		if rs.Name == zone {
			return fmt.Sprintf("RRSet of type CNAME with DNS name %s is not permitted at apex in zone %s", rs.Name, zone)
		}
		for _, other := range work {
			if other.Name == rs.Name && other.Type != "CNAME" {
				return fmt.Sprintf("RRSet of type CNAME with DNS name %s is not permitted as it conflicts with other records with the same DNS name in zone %s", rs.Name, zone)
			}
		}
		return ""
	}
	if work[recordKey(rs.Name, "CNAME")] != nil {
		return fmt.Sprintf("RRSet of type %s with DNS name %s is not permitted because a conflicting RRSet of type  CNAME with the same DNS name already exists in zone %s", rs.Type, rs.Name, zone)
	}
	return ""
}

// sameRecordSet is DELETE's check: the TTL and the set of values (or the
// alias target) must match what is stored.
func sameRecordSet(a, b *RecordSet) bool {
	if (a.Alias == nil) != (b.Alias == nil) {
		return false
	}
	if a.Alias != nil {
		return *a.Alias == *b.Alias
	}
	if a.TTL != b.TTL || len(a.Values) != len(b.Values) {
		return false
	}
	x, y := append([]string(nil), a.Values...), append([]string(nil), b.Values...)
	sort.Strings(x)
	sort.Strings(y)
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// ListResourceRecordSets

type listResourceRecordSetsResponse struct {
	XMLName        xml.Name         `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ListResourceRecordSetsResponse"`
	RecordSets     r53RecordSetList `xml:"ResourceRecordSets"`
	IsTruncated    bool             `xml:"IsTruncated"`
	NextRecordName string           `xml:"NextRecordName,omitempty"`
	NextRecordType string           `xml:"NextRecordType,omitempty"`
	MaxItems       int              `xml:"MaxItems"`
}

// r53RecordSetList always encodes its element, empty or not, as Route 53 does.
type r53RecordSetList struct {
	Items []r53ResourceRecordSetXML `xml:"ResourceRecordSet"`
}

func listResourceRecordSets(call *Call) (any, *APIError) {
	z, err := zoneFromPath(call, "Id")
	if err != nil {
		return nil, err
	}
	q := call.Request.URL.Query()
	maxItems, err := route53MaxItems(call, 300, 300)
	if err != nil {
		return nil, err
	}
	startName, startType := q.Get("name"), q.Get("type")
	if startType != "" {
		if startName == "" {
			return nil, invalidInput("The input is not valid: StartRecordType requires StartRecordName.")
		}
		if !route53Types[startType] {
			return nil, invalidInput("1 validation error detected: Value '%s' at 'startRecordType' failed to satisfy constraint: Member must satisfy enum value set: [SOA, A, TXT, NS, CNAME, MX, NAPTR, PTR, SRV, SPF, AAAA, CAA, DS]", startType)
		}
	}
	if q.Get("identifier") != "" {
		return nil, invalidInput("Invalid request: cloudsim supports simple routing only; StartRecordIdentifier is not used.")
	}
	if startName != "" {
		n, ok := normalizeDNSName(startName)
		if !ok {
			return nil, invalidInput("The input is not valid: %s is not a valid DNS name.", startName)
		}
		startName = n
	}
	sets := make([]*RecordSet, 0, len(z.Records))
	for _, rs := range z.Records {
		if startName != "" {
			c := compareDNSNames(rs.Name, startName)
			if c < 0 || (c == 0 && rs.Type < startType) {
				continue
			}
		}
		sets = append(sets, rs)
	}
	sortRecordSets(sets)
	resp := listResourceRecordSetsResponse{MaxItems: maxItems}
	for i, rs := range sets {
		if i == maxItems {
			resp.IsTruncated = true
			resp.NextRecordName = rs.Name
			resp.NextRecordType = rs.Type
			break
		}
		resp.RecordSets.Items = append(resp.RecordSets.Items, rs.wire())
	}
	return &RestResult{Body: resp}, nil
}
