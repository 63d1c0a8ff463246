package aws

import (
	"encoding/base64"
	"hash/fnv"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Account is one AWS account: its regions and its global services.
type Account struct {
	ID      string             `json:"id"`
	Regions map[string]*Region `json:"regions"`
	IAM     *IAMState          `json:"iam"`
	Route53 *Route53State      `json:"route53"`
}

func newAccount(id string) *Account {
	return &Account{ID: id, Regions: map[string]*Region{}, IAM: newIAMState(), Route53: newRoute53State()}
}

// region returns the account's state in one region, creating it on first use.
func (a *Account) region(name string) *Region {
	r := a.Regions[name]
	if r == nil {
		r = &Region{
			Name:         name,
			AccountID:    a.ID,
			Zones:        availabilityZones(a.ID, name),
			Tags:         map[string]map[string]string{},
			ClientTokens: map[string]ClientTokenEntry{},
			EC2:          newEC2State(),
			PrivateLink:  newPrivateLinkState(),
			ELB:          newELBState(),
		}
		a.Regions[name] = r
	}
	return r
}

// Region is an account's state in one region.
type Region struct {
	Name      string `json:"name"`
	AccountID string `json:"accountId"`
	// Zones are this account's availability zones here; names map to zone
	// IDs differently in every account, as on AWS.
	Zones []AvailabilityZone `json:"zones"`
	// Tags of EC2 resources (by ID) and ELBv2 resources (by ARN).
	Tags         map[string]map[string]string `json:"tags"`
	ClientTokens map[string]ClientTokenEntry  `json:"clientTokens"`

	EC2         *EC2State         `json:"ec2"`
	PrivateLink *PrivateLinkState `json:"privateLink"`
	ELB         *ELBState         `json:"elb"`

	// readLag is EC2's eventual consistency (ec2_consistency.go).
	readLag *readLag
}

// advancers bring asynchronous states up to date (provisioning → active,
// deleting → gone). Each service file registers its own from init; they run
// under the cloud's lock before every request and dump.
var advancers []func(r *Region, now time.Time)

func registerAdvancer(f func(r *Region, now time.Time)) { advancers = append(advancers, f) }

func (r *Region) advance(now time.Time) {
	for _, f := range advancers {
		f(r, now)
	}
}

// AvailabilityZone is a zone name (an account's alias) and its zone ID (the
// physical zone, the same for every account).
type AvailabilityZone struct {
	Name string `json:"name"`
	ID   string `json:"id"`
}

// ZoneByName returns the zone this account calls name.
func (r *Region) ZoneByName(name string) (AvailabilityZone, bool) {
	for _, z := range r.Zones {
		if z.Name == name {
			return z, true
		}
	}
	return AvailabilityZone{}, false
}

// ZoneByID returns this account's zone with the given zone ID.
func (r *Region) ZoneByID(id string) (AvailabilityZone, bool) {
	for _, z := range r.Zones {
		if z.ID == id {
			return z, true
		}
	}
	return AvailabilityZone{}, false
}

// zoneCounts are the regions with other than three zones.
var zoneCounts = map[string]int{"us-east-1": 6, "us-west-2": 4, "ap-northeast-1": 3}

// availabilityZones gives an account its zones in a region: names a, b, c…
// mapped to the region's zone IDs by a permutation seeded from the account,
// so the same account always sees the same mapping and two accounts usually
// see different ones.
func availabilityZones(account, region string) []AvailabilityZone {
	n := zoneCounts[region]
	if n == 0 {
		n = 3
	}
	h := fnv.New64a()
	h.Write([]byte(account + "/" + region))
	perm := rand.New(rand.NewSource(int64(h.Sum64()))).Perm(n)
	zones := make([]AvailabilityZone, n)
	for i := range zones {
		zones[i] = AvailabilityZone{
			Name: region + string(rune('a'+i)),
			ID:   regionCode(region) + "-az" + itoa(perm[i]+1),
		}
	}
	return zones
}

// regionCode abbreviates a region as zone IDs do: us-east-1 → use1,
// ap-southeast-2 → apse2, eu-central-1 → euc1.
func regionCode(region string) string {
	parts := strings.Split(region, "-")
	if len(parts) < 3 {
		return region
	}
	dir := map[string]string{
		"east": "e", "west": "w", "north": "n", "south": "s", "central": "c",
		"northeast": "ne", "northwest": "nw", "southeast": "se", "southwest": "sw",
	}[parts[len(parts)-2]]
	return strings.Join(parts[:len(parts)-2], "") + dir + parts[len(parts)-1]
}

func itoa(n int) string { return strconv.Itoa(n) }

// ClientTokenEntry remembers what an idempotent create made with a token.
type ClientTokenEntry struct {
	Operation   string `json:"operation"`
	Fingerprint string `json:"fingerprint"`
	ResourceID  string `json:"resourceId"`
}

// IdempotentLookup checks a ClientToken: found reports a previous call with
// the same token and parameters (answer with resourceID); a previous call
// with different parameters is IdempotentParameterMismatch. An empty token
// never matches.
func (r *Region) IdempotentLookup(operation, token, fingerprint string) (resourceID string, found bool, err *APIError) {
	if token == "" {
		return "", false, nil
	}
	e, ok := r.ClientTokens[operation+"/"+token]
	if !ok {
		return "", false, nil
	}
	if e.Fingerprint != fingerprint {
		return "", false, errBadRequest("IdempotentParameterMismatch",
			"The client token %s was used before with different parameters.", token)
	}
	return e.ResourceID, true, nil
}

// RememberToken records what a create made with a token.
func (r *Region) RememberToken(operation, token, fingerprint, resourceID string) {
	if token == "" {
		return
	}
	r.ClientTokens[operation+"/"+token] = ClientTokenEntry{Operation: operation, Fingerprint: fingerprint, ResourceID: resourceID}
}

// Fingerprint summarises a request's parameters, less the ones named (the
// token itself, Action, Version), so a retried create can be recognised.
func (call *Call) Fingerprint(exclude ...string) string {
	skip := map[string]bool{"Action": true, "Version": true, "ClientToken": true}
	for _, e := range exclude {
		skip[e] = true
	}
	keys := make([]string, 0, len(call.Params))
	for k := range call.Params {
		if !skip[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + strings.Join(call.Params[k], ",") + "&")
	}
	return b.String()
}

// NewID returns a resource ID in AWS's format: prefix-<17 hex digits>.
func NewID(prefix string) string { return prefix + "-" + randomHex(9)[:17] }

// SetTags merges tags onto a resource; DeleteTagKeys removes keys.
func (r *Region) SetTags(resourceID string, tags map[string]string) {
	if len(tags) == 0 {
		return
	}
	m := r.Tags[resourceID]
	if m == nil {
		m = map[string]string{}
		r.Tags[resourceID] = m
	}
	for k, v := range tags {
		m[k] = v
	}
}

// TagsOf returns a resource's tags (nil when it has none).
func (r *Region) TagsOf(resourceID string) map[string]string { return r.Tags[resourceID] }

// ForgetTags drops a deleted resource's tags.
func (r *Region) ForgetTags(resourceID string) { delete(r.Tags, resourceID) }

// Paginate returns one page of items sorted by key, after the item named by
// token, and the token of the next page ("" on the last). maxResults <= 0
// means def.
func Paginate[T any](items []T, key func(T) string, token string, maxResults, def int) (page []T, next string, err *APIError) {
	if maxResults <= 0 {
		maxResults = def
	}
	sort.Slice(items, func(i, j int) bool { return key(items[i]) < key(items[j]) })
	start := 0
	if token != "" {
		after, decErr := base64.RawURLEncoding.DecodeString(token)
		if decErr != nil {
			return nil, "", errBadRequest("InvalidNextToken", "The token %q is invalid.", token)
		}
		start = sort.Search(len(items), func(i int) bool { return key(items[i]) > string(after) })
	}
	end := min(start+maxResults, len(items))
	page = items[start:end]
	if end < len(items) && end > start {
		next = base64.RawURLEncoding.EncodeToString([]byte(key(items[end-1])))
	}
	return page, next, nil
}

// MatchFilters applies EC2 filters to one resource. field answers a filter
// name with the resource's values for it (known=false: the filter is not
// supported for this resource, which is InvalidParameterValue). Tag filters
// (tag:<key>, tag-key, tag-value) are handled here from tags.
func MatchFilters(filters []Filter, tags map[string]string, field func(name string) (values []string, known bool)) (bool, *APIError) {
	for _, f := range filters {
		var have []string
		switch {
		case strings.HasPrefix(f.Name, "tag:"):
			if v, ok := tags[strings.TrimPrefix(f.Name, "tag:")]; ok {
				have = []string{v}
			}
		case f.Name == "tag-key":
			for k := range tags {
				have = append(have, k)
			}
		case f.Name == "tag-value":
			for _, v := range tags {
				have = append(have, v)
			}
		default:
			values, known := field(f.Name)
			if !known {
				return false, errBadRequest("InvalidParameterValue", "The filter '%s' is invalid", f.Name)
			}
			have = values
		}
		if !anyMatch(f.Values, have) {
			return false, nil
		}
	}
	return true, nil
}

func anyMatch(patterns, values []string) bool {
	for _, p := range patterns {
		for _, v := range values {
			if wildcardMatch(p, v) {
				return true
			}
		}
	}
	return false
}

// wildcardMatch is AWS filter matching: * is any run of characters, ? one.
func wildcardMatch(pattern, s string) bool {
	if !strings.ContainsAny(pattern, "*?") {
		return pattern == s
	}
	p, str := []rune(pattern), []rune(s)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		for i < len(p) {
			switch p[i] {
			case '*':
				for k := j; k <= len(str); k++ {
					if match(i+1, k) {
						return true
					}
				}
				return false
			case '?':
				if j >= len(str) {
					return false
				}
			default:
				if j >= len(str) || p[i] != str[j] {
					return false
				}
			}
			i++
			j++
		}
		return j == len(str)
	}
	return match(0, 0)
}
