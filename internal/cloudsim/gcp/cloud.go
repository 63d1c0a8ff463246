package gcp

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/api/compute/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Regions cloudsim accepts in Compute Engine paths.
var Regions = []string{"us-central1", "us-east1", "us-east4", "us-west1", "europe-west1", "europe-west4", "asia-northeast1"}

// DefaultPageSize is how many items a list page holds when the caller
// sets no maxResults (Compute Engine's default and maximum is 500).
const DefaultPageSize = 500

// Cloud is the emulated Google Cloud: Compute Engine, Cloud DNS, Security
// Token Service, IAM Credentials, IAM's admin API and project IAM policies.
type Cloud struct {
	clock    sim.Clock
	faults   *sim.Faults
	counters *sim.Counters
	ledger   *sim.Ledger
	// byPrincipal counts calls per principal (the member string IAM
	// evaluates), beside counters' per-project counts.
	byPrincipal *sim.Counters
	quotas      *quotaWindows
	issuerKeys  *sim.StaticKeySource

	delaysMu sync.Mutex
	delays   Delays

	limits Limits

	// PageSize caps list pages for callers that ask for more; tests lower it.
	PageSize int

	mux *http.ServeMux

	// mu guards st; it is held while any handler runs.
	mu sync.Mutex
	st *state
}

// state is everything Reset forgets.
type state struct {
	projects        map[string]*Project // by project ID
	networks        map[string]*compute.Network
	subnetworks     map[string]*compute.Subnetwork
	addresses       map[string]*compute.Address
	forwardingRules map[string]*compute.ForwardingRule
	ruleAddress     map[string]string // forwarding rule → the address resource it uses
	attachments     map[string]*compute.ServiceAttachment
	zones           map[string]*managedZone // by "projects/{p}/managedZones/{name}"
	operations      map[string]*operation   // by relative self link
	// pending holds the keys of stored resources whose insert operation is
	// not DONE: they hold their name and addresses but are not yet seen.
	pending         map[string]bool
	serviceAccounts map[string]*ServiceAccount // by email
	providers       map[string]*Provider       // by full provider name
	pools           map[string]*Pool           // by full pool name
	lros            map[string]*lro            // IAM's long-running operations, by name
	customRoles     map[string]Role            // by "projects/{p}/roles/{id}"
	// notInCustomRoles are permissions whose custom-role support level is
	// NOT_SUPPORTED (SetCustomRolesSupport).
	notInCustomRoles map[string]bool
	tokens           map[string]*accessToken
	evaluations      sim.EvaluationLog
	nextID           uint64
	nextConnection   uint64
}

// Deps are what a Cloud shares with the rest of cloudsim.
type Deps struct {
	Clock    sim.Clock
	Faults   *sim.Faults
	Counters *sim.Counters
	Delays   *Delays
	Limits   Limits
	// Ledger keeps the history of resources (nil: none kept).
	Ledger *sim.Ledger
	// IssuerKeys finds a workload identity issuer's JWKS; nil fetches it
	// from the issuer's discovery document.
	IssuerKeys sim.KeySource
}

// Delays are how long asynchronous work lasts on the sim clock.
type Delays struct {
	// Operation is how long a Compute Engine operation takes from insert to
	// DONE; the resource changes when it is DONE.
	Operation sim.Duration `json:"operation"`
	// DNSChange is how long a Cloud DNS change stays "pending".
	DNSChange sim.Duration `json:"dnsChange"`
}

// FastDelays suit tests and the demo's fast mode.
func FastDelays() Delays {
	return Delays{Operation: sim.Duration(200 * time.Millisecond), DNSChange: sim.Duration(100 * time.Millisecond)}
}

// RealisticDelays are of the order Compute Engine and Cloud DNS take.
func RealisticDelays() Delays {
	return Delays{Operation: sim.Duration(15 * time.Second), DNSChange: sim.Duration(30 * time.Second)}
}

// New returns an empty cloud: no projects, the bootstrap administrator.
func New(deps Deps) *Cloud {
	c := &Cloud{clock: deps.Clock, faults: deps.Faults, counters: deps.Counters, ledger: deps.Ledger, PageSize: DefaultPageSize,
		byPrincipal: sim.NewCounters(), quotas: newQuotaWindows(), limits: deps.Limits}
	if c.clock == nil {
		c.clock = sim.RealClock{}
	}
	if c.faults == nil {
		c.faults = sim.NewFaults(c.clock)
	}
	if c.counters == nil {
		c.counters = sim.NewCounters()
	}
	c.issuerKeys = &sim.StaticKeySource{Next: deps.IssuerKeys}
	if deps.IssuerKeys == nil {
		c.issuerKeys.Next = sim.HTTPKeySource{}
	}
	c.delays = FastDelays()
	if deps.Delays != nil {
		c.delays = *deps.Delays
	}
	c.mux = c.routes()
	c.Reset()
	return c
}

// Reset forgets every project, resource, identity and token.
func (c *Cloud) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st = &state{
		projects: map[string]*Project{}, networks: map[string]*compute.Network{},
		subnetworks: map[string]*compute.Subnetwork{}, addresses: map[string]*compute.Address{},
		forwardingRules: map[string]*compute.ForwardingRule{}, ruleAddress: map[string]string{}, attachments: map[string]*compute.ServiceAttachment{},
		zones: map[string]*managedZone{}, operations: map[string]*operation{}, pending: map[string]bool{},
		serviceAccounts: map[string]*ServiceAccount{}, providers: map[string]*Provider{},
		pools: map[string]*Pool{}, lros: map[string]*lro{},
		customRoles: map[string]Role{}, tokens: map[string]*accessToken{}, evaluations: sim.EvaluationLog{},
		nextID: 1_000_000_000_000_000, nextConnection: 10_000_000,
	}
	c.quotas.forget()
	c.byPrincipal.Reset()
	c.bootstrapAdmin()
}

// SetDelays replaces the delays.
func (c *Cloud) SetDelays(d Delays) {
	c.delaysMu.Lock()
	defer c.delaysMu.Unlock()
	c.delays = d
}

// Delays returns the delays in force.
func (c *Cloud) Delays() Delays {
	c.delaysMu.Lock()
	defer c.delaysMu.Unlock()
	return c.delays
}

// PrincipalCalls returns per-principal, per-operation call counts.
func (c *Cloud) PrincipalCalls() map[string]map[string]sim.CallCount { return c.byPrincipal.Snapshot() }

// IsGCPPath tells whether a request path belongs to the GCP half. Each API
// has its own prefix, the path its real host serves under: Compute Engine
// /compute/v1/, Cloud DNS /dns/v1/; the APIs served at the root of their
// own hosts take the host's name as prefix: /sts/v1/, /iamcredentials/v1/,
// /iam/v1/ (IAM's admin API: roles, service accounts, keys, pools),
// /cloudresourcemanager/v1/ and v3/, /oauth2/ (oauth2.googleapis.com's
// token endpoint for service account keys).
func IsGCPPath(path string) bool {
	for _, p := range apiPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

var apiPrefixes = []string{"/compute/v1/", "/dns/v1/", "/sts/v1/", "/iamcredentials/v1/", "/iam/v1/",
	"/cloudresourcemanager/v1/", "/cloudresourcemanager/v3/", "/oauth2/"}

// Snapshot returns the state as JSON for the control API's dump:
// {"resources": {project: [resource...]}, "projects": [...],
// "serviceAccounts": [...], "providers": [...], "operations": [...]}.
// A scenario that cleaned up leaves "resources" empty.
func (c *Cloud) Snapshot() (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	c.advance(now)
	resources := map[string][]any{}
	add := func(key string, v any) {
		project := strings.Split(key, "/")[1]
		resources[project] = append(resources[project], v)
	}
	for _, k := range sortedKeys(c.st.networks) {
		add(k, c.st.networks[k])
	}
	for _, k := range sortedKeys(c.st.subnetworks) {
		add(k, c.st.subnetworks[k])
	}
	for _, k := range sortedKeys(c.st.addresses) {
		add(k, c.st.addresses[k])
	}
	for _, k := range sortedKeys(c.st.forwardingRules) {
		add(k, c.renderForwardingRule(c.st.forwardingRules[k]))
	}
	for _, k := range sortedKeys(c.st.attachments) {
		add(k, c.renderAttachment(c.st.attachments[k]))
	}
	for _, k := range sortedKeys(c.st.zones) {
		z := c.st.zones[k]
		add(k, map[string]any{"managedZone": z.zone, "rrsets": z.sortedRecords()})
	}
	var ops []any
	for _, k := range sortedKeys(c.st.operations) {
		ops = append(ops, c.st.operations[k].render(now))
	}
	var projects, accounts, providers, pools []any
	for _, k := range sortedKeys(c.st.projects) {
		projects = append(projects, c.st.projects[k])
	}
	for _, k := range sortedKeys(c.st.serviceAccounts) {
		accounts = append(accounts, c.st.serviceAccounts[k])
	}
	for _, k := range sortedKeys(c.st.providers) {
		providers = append(providers, c.st.providers[k])
	}
	for _, k := range sortedKeys(c.st.pools) {
		pools = append(pools, c.st.pools[k])
	}
	return json.Marshal(map[string]any{"resources": resources, "projects": projects,
		"serviceAccounts": accounts, "providers": providers, "pools": pools, "operations": ops})
}

// ServeHTTP answers one GCP request.
func (c *Cloud) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mux.ServeHTTP(w, r)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
