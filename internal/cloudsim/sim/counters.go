package sim

import (
	"sort"
	"strings"
	"sync"
)

// CallCount is what the counters hold for one account and one operation.
type CallCount struct {
	Total     int64 `json:"total"`
	Mutating  int64 `json:"mutating"`
	Throttled int64 `json:"throttled"`
	Failed    int64 `json:"failed"` // answered with any error, throttling included
}

// CallKey names an operation: "ec2:CreateVpcEndpoint", "route53:ListHostedZones".
type CallKey struct {
	Service   string `json:"service"`
	Operation string `json:"operation"`
}

// String renders the key as service:Operation.
func (k CallKey) String() string { return k.Service + ":" + k.Operation }

// Counters count calls per account and operation. They are the instrument
// for tests and benchmarks ("zero mutating calls at steady state").
type Counters struct {
	mu    sync.Mutex
	calls map[string]map[CallKey]*CallCount
}

// NewCounters returns empty counters.
func NewCounters() *Counters { return &Counters{calls: map[string]map[CallKey]*CallCount{}} }

// Outcome is how a call ended, for the counters.
type Outcome int

const (
	Succeeded Outcome = iota
	Errored
	Throttled
)

// Record counts one call.
func (c *Counters) Record(account string, key CallKey, outcome Outcome) {
	c.mu.Lock()
	defer c.mu.Unlock()
	byKey := c.calls[account]
	if byKey == nil {
		byKey = map[CallKey]*CallCount{}
		c.calls[account] = byKey
	}
	cc := byKey[key]
	if cc == nil {
		cc = &CallCount{}
		byKey[key] = cc
	}
	cc.Total++
	if IsMutating(key) {
		cc.Mutating++
	}
	switch outcome {
	case Throttled:
		cc.Throttled++
		cc.Failed++
	case Errored:
		cc.Failed++
	}
}

// Snapshot returns a copy: account → "service:Operation" → counts.
func (c *Counters) Snapshot() map[string]map[string]CallCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]map[string]CallCount, len(c.calls))
	for account, byKey := range c.calls {
		m := make(map[string]CallCount, len(byKey))
		for k, v := range byKey {
			m[k.String()] = *v
		}
		out[account] = m
	}
	return out
}

// Reset forgets every count.
func (c *Counters) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = map[string]map[CallKey]*CallCount{}
}

// Totals sums a snapshot over accounts and operations.
func Totals(snapshot map[string]map[string]CallCount) CallCount {
	var t CallCount
	for _, byKey := range snapshot {
		t = t.plus(Sum(byKey))
	}
	return t
}

// Sum adds up one account's calls over all its operations.
func Sum(byKey map[string]CallCount) CallCount {
	var t CallCount
	for _, v := range byKey {
		t = t.plus(v)
	}
	return t
}

func (c CallCount) plus(o CallCount) CallCount {
	return CallCount{Total: c.Total + o.Total, Mutating: c.Mutating + o.Mutating, Throttled: c.Throttled + o.Throttled, Failed: c.Failed + o.Failed}
}

// SortedKeys lists a snapshot's operation names in order, for stable output.
func SortedKeys(byKey map[string]CallCount) []string {
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// readOnlyPrefixes are the verbs AWS counts as non-mutating.
var readOnlyPrefixes = []string{"Describe", "List", "Get", "Search", "Lookup"}

// tokenExchanges are STS operations that issue credentials and change no
// resource: a controller exchanging its web-identity token is not writing.
var tokenExchanges = map[string]bool{
	"AssumeRole":                true,
	"AssumeRoleWithWebIdentity": true,
	"AssumeRoleWithSAML":        true,
	"GetSessionToken":           true,
	"GetFederationToken":        true,
}

// googleReads are the method verbs of Google's APIs that change nothing
// ("compute.googleapis.com" "networks.get"); token exchanges included.
var googleReads = map[string]bool{"get": true, "list": true, "aggregatedList": true, "wait": true,
	"getIamPolicy": true, "token": true, "generateAccessToken": true}

// IsMutating tells whether an operation changes state, by AWS's own rule:
// Describe*, List*, Get* and the like do not, nor do STS token exchanges;
// everything else does. Azure operations (service "Microsoft.*") mutate
// unless their action string ends in /read.
func IsMutating(key CallKey) bool {
	if strings.HasPrefix(key.Service, "Microsoft.") {
		// Azure operations are action strings: "virtualNetworks/read" reads.
		return !strings.HasSuffix(key.Operation, "/read")
	}
	if strings.HasSuffix(key.Service, ".googleapis.com") {
		return !googleReads[key.Operation[strings.LastIndex(key.Operation, ".")+1:]]
	}
	if key.Service == "sts" && tokenExchanges[key.Operation] {
		return false
	}
	for _, p := range readOnlyPrefixes {
		if strings.HasPrefix(key.Operation, p) {
			return false
		}
	}
	return true
}
