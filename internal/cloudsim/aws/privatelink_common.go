package aws

import (
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Shared pieces of the PrivateLink operations: XML shapes, lookups across
// accounts and the rules of who may see an endpoint service.

type plTagXML struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

type plServiceTypeXML struct {
	ServiceType string `xml:"serviceType"`
}

type plDNSEntryXML struct {
	DNSName      string `xml:"dnsName"`
	HostedZoneID string `xml:"hostedZoneId"`
}

type plUnsuccessfulXML struct {
	Error      plUnsuccessfulErrorXML `xml:"error"`
	ResourceID string                 `xml:"resourceId"`
}

type plUnsuccessfulErrorXML struct {
	Code    string `xml:"code"`
	Message string `xml:"message"`
}

// plUnsuccessfulResult is the answer of the batch operations that report
// per-item failures instead of failing the call.
type plUnsuccessfulResult struct {
	Unsuccessful []plUnsuccessfulXML `xml:"unsuccessful>item"`
}

func plUnsuccessful(id, code, message string) plUnsuccessfulXML {
	return plUnsuccessfulXML{ResourceID: id, Error: plUnsuccessfulErrorXML{Code: code, Message: message}}
}

func plTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func plTags(r *Region, id string) []plTagXML {
	tags := r.TagsOf(id)
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]plTagXML, 0, len(keys))
	for _, k := range keys {
		out = append(out, plTagXML{Key: k, Value: tags[k]})
	}
	return out
}

// plDryRun answers DryRun=true once a request has been validated.
func plDryRun(call *Call) *APIError {
	if dry, _ := call.Bool("DryRun", false); dry {
		return &APIError{Status: http.StatusPreconditionFailed, Code: "DryRunOperation",
			Message: "Request would have succeeded, but DryRun flag is set."}
	}
	return nil
}

// plMaxResults reads MaxResults (EC2 caps pages at 1000).
func plMaxResults(call *Call) (int, *APIError) {
	n, err := call.Int("MaxResults", 1000)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, errBadRequest("InvalidParameterValue", "Value (%d) for parameter maxResults is invalid. Expecting a value greater than 0.", n)
	}
	return min(n, 1000), nil
}

// plVpceHostedZoneIDs are the Route 53 zones of interface endpoint DNS
// names, per region.
var plVpceHostedZoneIDs = map[string]string{
	"us-east-1": "Z7HUB22UULQXV", "us-east-2": "ZC8PG0KIFKBRI",
	"us-west-1": "Z12I86A8N7VCZO", "us-west-2": "Z1YSA3EXCYUU9Z",
	"eu-west-1": "Z38GZ743OKFT7T", "eu-central-1": "Z273ZU8SZ5RJPC",
	"ap-southeast-2": "Z2KVTB3ZLFM7JR", "ap-northeast-1": "Z2E726K9Y6RL4W",
}

// plDNSLabel is the random part of an endpoint's DNS names: 8 lowercase
// letters and digits.
func plDNSLabel() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte(randomHex(8))
	out := make([]byte, 8)
	for i := range out {
		out[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(out)
}

// endpointServiceName is the name consumers use for a service.
func endpointServiceName(region, serviceID string) string {
	return "com.amazonaws.vpce." + region + "." + serviceID
}

// findEndpointService resolves a service name to the service and its
// owner's region, in whichever account owns it. It does not check that the
// caller may see it.
func findEndpointService(call *Call, name string) (*Region, *EndpointService) {
	prefix := "com.amazonaws.vpce." + call.RegionID + "."
	id, ok := strings.CutPrefix(name, prefix)
	if !ok || !strings.HasPrefix(id, "vpce-svc-") {
		return nil, nil
	}
	for _, a := range call.Cloud.accounts {
		r := a.Regions[call.RegionID]
		if r == nil {
			continue
		}
		if svc := r.PrivateLink.Services[id]; svc != nil {
			return r, svc
		}
	}
	return nil, nil
}

// serviceVisibleTo is the cross-account rule: a service is visible to (and
// usable by) its owner and the principals it allows; to anyone else it does
// not exist.
func serviceVisibleTo(svc *EndpointService, p Principal) bool {
	if svc.OwnerID == p.Account {
		return true
	}
	for _, allowed := range svc.AllowedPrincipals {
		if PrincipalAllowed(p, allowed) {
			return true
		}
	}
	return false
}

func errInvalidServiceName(name string) *APIError {
	return errBadRequest("InvalidServiceName", "The Vpc Endpoint Service '%s' does not exist", name)
}

// regionOf returns an account's existing state in a region (nil when the
// account never used it), without creating anything.
func regionOf(call *Call, account, region string) *Region {
	a := call.Cloud.accounts[account]
	if a == nil {
		return nil
	}
	return a.Regions[region]
}

// zoneNamesFor translates zone IDs into the names a viewer's account uses,
// sorted by name.
func zoneNamesFor(viewer *Region, zoneIDs []string) (names, ids []string) {
	type zone struct{ name, id string }
	var zones []zone
	for _, id := range zoneIDs {
		if z, ok := viewer.ZoneByID(id); ok {
			zones = append(zones, zone{z.Name, z.ID})
		}
	}
	sort.Slice(zones, func(i, j int) bool { return zones[i].name < zones[j].name })
	for _, z := range zones {
		names = append(names, z.name)
		ids = append(ids, z.id)
	}
	return names, ids
}

var plPrincipalPattern = regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:(root|role/.+|user/.+)$`)

// principalType classifies an allowed principal as AWS reports it; ""
// means AWS would reject it as InvalidPrincipal (an assumed-role session
// ARN, for one).
func principalType(p string) string {
	switch {
	case p == "*":
		return "All"
	case !plPrincipalPattern.MatchString(p):
		return ""
	case strings.HasSuffix(p, ":root"):
		return "Account"
	case strings.Contains(p, ":role/"):
		return "Role"
	default:
		return "User"
	}
}
