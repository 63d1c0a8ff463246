// Package aws emulates the AWS APIs hcplink uses — EC2, ELBv2, Route 53, IAM
// and STS — over their real wire protocols, so the real aws-sdk-go-v2 clients
// and the stock aws CLI work against it unmodified.
//
// One mutex guards all state: requests are short, and a single lock makes
// cross-account and cross-service rules (allowed principals, dependency
// violations) simple to get right.
package aws

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// DefaultAccount owns every request whose access key is not a 12-digit
// account number and was not issued by STS.
const DefaultAccount = "000000000000"

// Cloud is the emulated AWS: accounts, their regions and global services.
type Cloud struct {
	clock    sim.Clock
	faults   *sim.Faults
	counters *sim.Counters
	ledger   *sim.Ledger

	delaysMu sync.Mutex
	delays   sim.Delays

	mu       sync.Mutex
	accounts map[string]*Account
	keys     map[string]Principal // access key ID → principal, for STS-issued keys
}

// Deps are what a Cloud shares with the rest of cloudsim.
type Deps struct {
	Clock    sim.Clock
	Faults   *sim.Faults
	Counters *sim.Counters
	Delays   sim.Delays
	Ledger   *sim.Ledger // nil: no history kept
}

// New returns an empty cloud.
func New(deps Deps) *Cloud {
	c := &Cloud{clock: deps.Clock, faults: deps.Faults, counters: deps.Counters, delays: deps.Delays, ledger: deps.Ledger}
	c.Reset()
	return c
}

// Reset forgets every account, resource and issued key.
func (c *Cloud) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.accounts = map[string]*Account{}
	c.keys = map[string]Principal{}
}

// SetDelays changes how long asynchronous states last from now on.
func (c *Cloud) SetDelays(d sim.Delays) {
	c.delaysMu.Lock()
	defer c.delaysMu.Unlock()
	c.delays = d
}

// Delays returns the delays in force.
func (c *Cloud) Delays() sim.Delays {
	c.delaysMu.Lock()
	defer c.delaysMu.Unlock()
	return c.delays
}

// Snapshot returns every account's state as JSON, for the control API's
// dump. It is encoded under the lock, so it is one consistent picture.
func (c *Cloud) Snapshot() (json.RawMessage, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	for _, a := range c.accounts {
		for _, r := range a.Regions {
			r.advance(now)
		}
	}
	return json.Marshal(c.accounts)
}

// Inspect runs f under the cloud's lock with every asynchronous state
// brought up to date, for tests and tools in this module that need to look
// at the model directly. f must not keep references past its return.
func (c *Cloud) Inspect(f func(accounts map[string]*Account)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	for _, a := range c.accounts {
		for _, r := range a.Regions {
			r.advance(now)
		}
	}
	f(c.accounts)
}

// account returns the account, creating it on first use as AWS accounts
// simply exist. Callers hold c.mu.
func (c *Cloud) account(id string) *Account {
	a := c.accounts[id]
	if a == nil {
		a = newAccount(id)
		c.accounts[id] = a
	}
	return a
}

// ServeHTTP answers one AWS API request.
func (c *Cloud) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 10<<20))
	if err != nil {
		http.Error(w, "reading request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	scope := parseCredentialScope(r)
	call := &Call{
		Cloud:     c,
		Request:   r,
		Body:      body,
		Service:   scope.service,
		RegionID:  scope.region,
		RequestID: newRequestID(),
	}
	if call.Service != "route53" {
		call.Params = queryParams(r, body)
		call.Action = call.Params.Get("Action")
		// AssumeRoleWithWebIdentity is sent unsigned: the web identity token is the credential.
		if call.Service == "" && call.Action == "AssumeRoleWithWebIdentity" {
			call.Service = "sts"
		}
	}
	proto, ok := protocols[call.Service]
	if !ok {
		writeQueryError(w, call, &APIError{Status: http.StatusBadRequest, Code: "MissingAuthenticationToken",
			Message: "Request is missing a SigV4 Authorization header naming a service this emulator knows (ec2, elasticloadbalancing, route53, iam, sts)."})
		return
	}
	handler, apiErr := proto.resolve(call)
	if apiErr != nil {
		proto.writeError(w, call, apiErr)
		return
	}
	if perr := c.resolvePrincipal(call, scope.accessKeyID); perr != nil {
		c.count(call, sim.Errored)
		proto.writeError(w, call, perr)
		return
	}
	if global[call.Service] {
		call.RegionID = ""
	} else if call.RegionID == "" {
		call.RegionID = "us-east-1"
	}

	decision := c.faults.Decide(sim.Call{Account: call.Principal.Account, Region: call.RegionID, Key: call.key()})
	if decision.Latency > 0 {
		if !sim.SleepContext(r.Context(), decision.Latency) {
			return
		}
	}
	if decision.Error != nil {
		c.count(call, outcomeOf(decision.Error.Code))
		proto.writeError(w, call, injectedError(decision.Error))
		return
	}
	if decision.Chaos != sim.NoChaos {
		apiErr := chaosError(call.Service, decision.Chaos)
		c.count(call, outcomeOf(apiErr.Code))
		proto.writeError(w, call, apiErr)
		return
	}
	if decision.Throttled {
		c.count(call, sim.Throttled)
		proto.writeError(w, call, throttlingError(call.Service))
		return
	}

	result, apiErr := c.run(call, handler)
	if apiErr != nil {
		c.count(call, sim.Errored)
		proto.writeError(w, call, apiErr)
		return
	}
	c.count(call, sim.Succeeded)
	proto.writeResult(w, call, result)
}

// run executes a handler under the cloud's lock with the call's account and
// region resolved and their asynchronous states brought up to date.
func (c *Cloud) run(call *Call, h Handler) (result any, apiErr *APIError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	call.Now = c.clock.Now()
	call.Account = c.account(call.Principal.Account)
	if call.RegionID != "" {
		call.Region = call.Account.region(call.RegionID)
	}
	if denied := c.authorize(call); denied != nil {
		return nil, denied
	}
	for _, a := range c.accounts {
		if r := a.Regions[call.RegionID]; r != nil {
			r.advance(call.Now)
		}
	}
	result, apiErr = h(call)
	if apiErr == nil {
		c.record(call)
	}
	return result, apiErr
}

func (c *Cloud) count(call *Call, outcome sim.Outcome) {
	c.counters.Record(call.Principal.Account, call.key(), outcome)
}

func outcomeOf(code string) sim.Outcome {
	if IsThrottlingCode(code) {
		return sim.Throttled
	}
	return sim.Errored
}

// global services keep one state per account, not per region.
var global = map[string]bool{"iam": true, "route53": true}

// Call is one request on its way through a handler.
type Call struct {
	Cloud     *Cloud
	Request   *http.Request
	Body      []byte
	Service   string     // SigV4 service name: ec2, elasticloadbalancing, route53, iam, sts
	Action    string     // the operation, e.g. CreateVpc or ListHostedZones
	Params    url.Values // Query-protocol parameters
	PathVars  map[string]string
	RegionID  string // empty for global services
	RequestID string
	Principal Principal
	Now       time.Time

	// Set under the lock before the handler runs.
	Account *Account
	Region  *Region // nil for global services
}

func (call *Call) key() sim.CallKey {
	return sim.CallKey{Service: call.Service, Operation: call.Action}
}

// Handler performs one operation under the cloud's lock and returns the
// value to encode as the result, or an AWS error.
type Handler func(call *Call) (any, *APIError)

// credentialScope is what the SigV4 signature says about the caller.
type credentialScope struct {
	accessKeyID, region, service string
}

// parseCredentialScope reads "Credential=AKID/20260101/us-east-1/ec2/aws4_request"
// from the Authorization header, or X-Amz-Credential from a presigned URL.
func parseCredentialScope(r *http.Request) credentialScope {
	cred := ""
	if auth := r.Header.Get("Authorization"); auth != "" {
		if i := strings.Index(auth, "Credential="); i >= 0 {
			cred = auth[i+len("Credential="):]
			if j := strings.IndexAny(cred, ", "); j >= 0 {
				cred = cred[:j]
			}
		}
	} else {
		cred = r.URL.Query().Get("X-Amz-Credential")
	}
	parts := strings.Split(cred, "/")
	if len(parts) < 5 {
		return credentialScope{}
	}
	return credentialScope{accessKeyID: parts[0], region: parts[2], service: parts[3]}
}

func queryParams(r *http.Request, body []byte) url.Values {
	params := r.URL.Query()
	if len(body) > 0 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		if form, err := url.ParseQuery(string(body)); err == nil {
			for k, v := range form {
				params[k] = append(params[k], v...)
			}
		}
	}
	return params
}
