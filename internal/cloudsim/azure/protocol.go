package azure

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Request is one ARM request on its way through a handler. Handlers run
// under the cloud's lock and may read and change Store freely.
type Request struct {
	HTTP       *http.Request
	Method     string
	ID         ID // the resource; for a list, the collection's parent
	Action     string
	APIVersion string
	Body       []byte
	Principal  *Principal
	Now        time.Time
	Store      *Store
	RequestID  string
	Cloud      *Cloud

	spec      *TypeSpec
	operation string // the action string being authorized, e.g. Microsoft.Network/virtualNetworks/write
}

// Decode decodes the JSON body into v, answering ARM's InvalidRequestContent.
func (req *Request) Decode(v any) *Error {
	if len(req.Body) == 0 {
		return BadRequest("InvalidRequestContent", "The request content was invalid and could not be deserialized: 'the request body is empty'.")
	}
	if err := json.Unmarshal(req.Body, v); err != nil {
		return ErrInvalidRequestContent(err)
	}
	return nil
}

// Envelope is the part of a PUT body every tracked resource shares.
type Envelope struct {
	Location   string            `json:"location"`
	Tags       map[string]string `json:"tags"`
	Properties json.RawMessage   `json:"properties"`
}

// Envelope decodes the body's envelope and checks its location when the
// type requires one. properties, if non-nil, receives the decoded
// "properties" object.
func (req *Request) Envelope(properties any) (Envelope, *Error) {
	var env Envelope
	if err := req.Decode(&env); err != nil {
		return env, err
	}
	if req.spec != nil && req.spec.RequiresLocation {
		if env.Location == "" {
			return env, BadRequest("LocationRequired", "The location property is required for this definition.")
		}
		if !ValidLocation(env.Location) {
			return env, ErrInvalidResourceLocation(env.Location)
		}
	}
	if properties != nil && len(env.Properties) > 0 && string(env.Properties) != "null" {
		if err := json.Unmarshal(env.Properties, properties); err != nil {
			return env, ErrInvalidRequestContent(err)
		}
	}
	return env, nil
}

// NewResource starts a resource for the request's ID with the envelope's
// location and tags, owned by the caller.
func (req *Request) NewResource(env Envelope, properties any) *Resource {
	return &Resource{
		ID: req.ID, Type: req.spec.Type, Location: NormalizeLocation(env.Location), Tags: env.Tags,
		Properties: properties, CreatedBy: req.Principal.ObjectID, CreatedAt: req.Now,
	}
}

// Delay is a named delay in force (see RegisterDelay).
func (req *Request) Delay(name string) time.Duration { return req.Cloud.delay(name) }

// ValidLocation tells whether a location is one cloudsim serves.
func ValidLocation(loc string) bool {
	n := NormalizeLocation(loc)
	if n == "global" {
		return true
	}
	for _, l := range Locations {
		if l == n {
			return true
		}
	}
	return false
}

// NormalizeLocation turns "East US" into "eastus", as ARM stores it.
func NormalizeLocation(loc string) string {
	return strings.ToLower(strings.ReplaceAll(loc, " ", ""))
}

// serveARM answers one Resource Manager request.
func (c *Cloud) serveARM(w http.ResponseWriter, r *http.Request) {
	requestID := newGUID()
	w.Header().Set("x-ms-request-id", requestID)
	w.Header().Set("x-ms-correlation-request-id", requestID)
	body, err := io.ReadAll(io.LimitReader(r.Body, 10<<20))
	if err != nil {
		writeError(w, BadRequest("InvalidRequestContent", "reading the request body: %v", err))
		return
	}
	rt, aerr := resolveRoute(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	req := &Request{HTTP: r, Method: r.Method, ID: rt.id, Action: rt.action, Body: body, RequestID: requestID,
		Cloud: c, spec: rt.spec, APIVersion: r.URL.Query().Get("api-version")}
	if aerr := rt.checkAPIVersion(req.APIVersion); aerr != nil {
		writeError(w, aerr)
		return
	}
	principal, aerr := c.authenticate(r)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	req.Principal = principal
	req.operation = rt.operationName(r.Method)
	c.serveAuthenticated(w, req, rt)
}

func (c *Cloud) serveAuthenticated(w http.ResponseWriter, req *Request, rt *route) {
	sub := req.ID.Subscription
	key := callKey(req.operation)
	kind := operationKind(req.Method)
	decision := c.faults.Decide(sim.Call{Account: sub, Key: key})
	if decision.Latency > 0 && !sim.SleepContext(req.HTTP.Context(), decision.Latency) {
		return
	}
	if decision.Error != nil {
		c.count(sub, req.Principal.ObjectID, key, outcomeOf(decision.Error.Code))
		writeError(w, injectedError(decision.Error))
		return
	}
	if decision.Chaos != sim.NoChaos {
		aerr := chaosError(kind, decision.Chaos)
		c.count(sub, req.Principal.ObjectID, key, outcomeOf(aerr.Code))
		writeError(w, aerr)
		return
	}
	remaining, throttled := c.takeToken(sub, req.Principal.ObjectID, kind)
	if throttled != nil {
		c.count(sub, req.Principal.ObjectID, key, sim.Throttled)
		writeError(w, throttled)
		return
	}
	if remaining >= 0 && sub != "" {
		w.Header().Set("x-ms-ratelimit-remaining-subscription-"+kind, itoa(remaining))
	}
	reply, aerr := c.run(req, rt)
	if aerr != nil {
		c.count(sub, req.Principal.ObjectID, key, sim.Errored)
		writeError(w, aerr)
		return
	}
	c.count(sub, req.Principal.ObjectID, key, sim.Succeeded)
	writeReply(w, reply)
}

// run executes the routed handler under the cloud's lock.
func (c *Cloud) run(req *Request, rt *route) (*wireReply, *Error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	req.Now = c.now()
	req.Store = c.store
	c.advance(req.Now)
	if rt.special != nil {
		return rt.special(c, req)
	}
	if err := c.checkSubscriptionTenant(req.ID.Subscription, req.Principal); err != nil {
		return nil, err
	}
	if err := c.authorize(req.Principal, req.operation, rt.authorizationScope()); err != nil {
		return nil, err
	}
	reply, aerr := c.dispatch(req, rt)
	if aerr == nil {
		c.record(req)
	}
	return reply, aerr
}

// callKey names an operation for the counters and fault rules: service
// "Microsoft.Network", operation "virtualNetworks/write".
func callKey(action string) sim.CallKey {
	ns, op, _ := strings.Cut(action, "/")
	return sim.CallKey{Service: ns, Operation: op}
}

// operationKind is the ARM throttling category of a method.
func operationKind(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "reads"
	case http.MethodDelete:
		return "deletes"
	}
	return "writes"
}

// count records a call per subscription, and per caller: ARM's buckets
// are per principal (the token's object ID), so the bench's bound is too.
func (c *Cloud) count(sub, principal string, key sim.CallKey, outcome sim.Outcome) {
	if sub == "" {
		sub = "tenant"
	}
	c.counters.RecordAs(sub, principal, key, outcome)
}

func outcomeOf(code string) sim.Outcome {
	if code == "TooManyRequests" || code == "SubscriptionRequestsThrottled" || code == "ResourceRequestsThrottled" {
		return sim.Throttled
	}
	return sim.Errored
}
