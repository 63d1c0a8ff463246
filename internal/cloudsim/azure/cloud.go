package azure

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Locations are the regions cloudsim accepts ("global" is accepted too, for
// types such as private DNS zones).
var Locations = []string{"eastus", "eastus2", "westus", "westus2", "westus3", "centralus", "northeurope", "westeurope", "uksouth", "japaneast"}

// DefaultPageSize is how many items a list answers before a nextLink.
const DefaultPageSize = 100

// Cloud is the emulated Azure: Resource Manager, its resource providers,
// and Entra ID.
type Cloud struct {
	clock    sim.Clock
	faults   *sim.Faults
	counters *sim.Counters
	ledger   *sim.Ledger

	delaysMu sync.Mutex
	delays   Delays

	// PageSize is how many items a list page holds; tests lower it to see nextLink.
	PageSize int

	// mu guards everything below, and is held while any handler runs.
	mu         sync.Mutex
	store      *Store
	operations map[string]*Operation
	directory  *Directory
	throttle   *armThrottle
	// evaluations are the authorization decisions, per principal.
	evaluations sim.EvaluationLog

	signerOnce sync.Once
	signer     *sim.Signer          // signs the access tokens the token endpoint issues; see tokenSigner
	issuerKeys *sim.StaticKeySource // workload identity issuers' keys
}

// Deps are what a Cloud shares with the rest of cloudsim.
type Deps struct {
	Clock    sim.Clock
	Faults   *sim.Faults
	Counters *sim.Counters
	Delays   Delays
	// IssuerKeys finds the JWKS of a workload identity issuer; nil fetches
	// it over HTTPS from the issuer's discovery document.
	IssuerKeys sim.KeySource
	// Ledger keeps the history of resources (nil: none kept).
	Ledger *sim.Ledger
}

// New returns a cloud holding one tenant and its bootstrap administrator.
func New(deps Deps) *Cloud {
	c := &Cloud{clock: deps.Clock, faults: deps.Faults, counters: deps.Counters, ledger: deps.Ledger, PageSize: DefaultPageSize}
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
	c.evaluations = sim.EvaluationLog{}
	if deps.IssuerKeys == nil {
		c.issuerKeys.Next = sim.HTTPKeySource{}
	}
	c.throttle = newARMThrottle()
	c.SetDelays(deps.Delays)
	c.Reset()
	return c
}

// Reset forgets every resource, operation, tenant and role assignment, and
// starts again from the bootstrap directory.
func (c *Cloud) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.store = newStore()
	c.operations = map[string]*Operation{}
	c.directory = newDirectory()
	c.throttle.reset()
	c.evaluations = sim.EvaluationLog{}
	c.bootstrapAdmin()
}

// Inspect runs f under the cloud's lock with every operation brought up to
// date, for tests and tools in this module that look at the model directly.
// f must not keep references past its return.
func (c *Cloud) Inspect(f func(s *Store)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(c.clock.Now())
	f(c.store)
}

// Snapshot returns the state as JSON for the control API's dump:
// {"resources": {subscription: [resource...]}, "authorization": [...],
// "tenants": [...], "operations": [...]}.
func (c *Cloud) Snapshot() (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(c.clock.Now())
	// Role assignments and definitions are listed apart, so that "nothing
	// remains" reads as an empty resources map after a scenario's cleanup.
	resources := map[string][]map[string]any{}
	var authorization []map[string]any
	for _, r := range c.store.All() {
		// What a resource shows of others (a subnet's endpoints and IP
		// configurations) is computed on reads; a snapshot is a read.
		refreshNetworkViews(c.store, r)
		if strings.HasPrefix(strings.ToLower(r.Type), "microsoft.authorization/") {
			authorization = append(authorization, c.render(r))
			continue
		}
		sub := r.ID.Subscription
		resources[sub] = append(resources[sub], c.render(r))
	}
	return json.Marshal(map[string]any{
		"resources":     resources,
		"authorization": authorization,
		"tenants":       c.directory.snapshot(),
		"operations":    c.operationsSnapshot(),
	})
}

// IsAzurePath tells whether a request path belongs to the Azure half: ARM
// (/subscriptions, /providers, /tenants) or Entra ID (/{tenant}/oauth2/...,
// /{tenant}/v2.0/..., /common/discovery/...).
func IsAzurePath(path string) bool {
	lower := strings.ToLower(path)
	for _, p := range []string{"/subscriptions", "/providers/", "/tenants"} {
		if lower == p || strings.HasPrefix(lower, p+"/") || strings.HasPrefix(lower, p+"?") || (strings.HasSuffix(p, "/") && strings.HasPrefix(lower, p)) {
			return true
		}
	}
	return isIdentityPath(lower)
}

// ServeHTTP answers one Azure request.
func (c *Cloud) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isIdentityPath(strings.ToLower(r.URL.Path)) {
		c.serveIdentity(w, r)
		return
	}
	c.serveARM(w, r)
}

// tokenSigner returns the key that signs access tokens, generated on first
// use so that servers that never see an Azure call do not pay for an RSA key.
func (c *Cloud) tokenSigner() *sim.Signer {
	c.signerOnce.Do(func() { c.signer = sim.NewSigner() })
	return c.signer
}

// now is the sim clock's time.
func (c *Cloud) now() time.Time { return c.clock.Now() }
