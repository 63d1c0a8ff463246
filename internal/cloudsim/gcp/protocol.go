package gcp

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// api describes one REST method: the service and method ID Google's
// discovery documents give it (the counters' and fault rules' key), and the
// IAM permission the caller needs on the resource the path names.
type api struct {
	service string // "compute.googleapis.com"
	method  string // "serviceAttachments.insert"
	// permission is checked on the path's resource by the framework; ""
	// leaves the check to the handler (service accounts, project policies).
	permission string
	// anonymous methods take no bearer token (STS's token exchange).
	anonymous bool
	// before runs without the lock ahead of the call: operations.wait's
	// wait, STS's fetch of the issuer's keys.
	before func(x *call) *Error
}

// call is one request on its way through the framework.
type call struct {
	c         *Cloud
	r         *http.Request
	api       api
	body      []byte
	now       time.Time
	base      string   // scheme://host of the listener, for self links
	project   *Project // the path's {project}, when it has one
	principal string   // the IAM member the bearer token stands for
	keys      sim.JWKS // an issuer's keys, fetched by before
	keysErr   error
}

// handler runs under the cloud's lock and returns the answer's body (a
// resource, list, *operation, or noContent) or an error.
type handler func(x *call) (any, *Error)

type noContent struct{}

// handle registers one method. The framework, in order: reads the body;
// authenticates the bearer token (401 otherwise); applies sim.Faults' latency
// and error rules; takes the project's rate quota (quota.go); takes the lock
// and completes due operations; resolves the path's project (404); checks
// the permission on the named resource, recording the decision (403); runs
// the handler; counts the call per project and per principal; writes JSON.
func (c *Cloud) handle(mux *http.ServeMux, pattern string, a api, h handler) {
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		x := &call{c: c, r: r, api: a, base: baseURL(r)}
		if strings.Contains(a.method, "{action}") { // a custom method named after the colon
			_, action, _ := strings.Cut(r.URL.Path[strings.LastIndex(r.URL.Path, "/"):], ":")
			x.api.method = strings.ReplaceAll(a.method, "{action}", action)
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		if err != nil {
			writeError(w, errInvalid("reading the request body: %v", err))
			return
		}
		x.body = body
		if a.before != nil {
			if aerr := a.before(x); aerr != nil {
				writeError(w, aerr)
				return
			}
		}
		reply, aerr := c.serve(x, h)
		if aerr != nil {
			writeError(w, aerr)
			return
		}
		c.writeReply(w, x, reply)
	})
}

func (c *Cloud) serve(x *call, h handler) (any, *Error) {
	key := sim.CallKey{Service: x.api.service, Operation: x.api.method}
	projectID := x.r.PathValue("project")
	if !x.api.anonymous {
		principal, err := c.authenticate(x.r)
		if err != nil {
			c.count(projectID, "", key, sim.Errored)
			return nil, err
		}
		x.principal = principal
	}
	decision := c.faults.Decide(sim.Call{Account: projectID, Region: x.r.PathValue("region"), Key: key})
	if decision.Latency > 0 && !sim.SleepContext(x.r.Context(), decision.Latency) {
		return nil, &Error{Code: 499, Reason: "cancelled", Message: "The request was cancelled."}
	}
	if decision.Error != nil {
		err := injectedError(decision.Error)
		c.count(projectID, x.principal, key, outcomeOf(err))
		return nil, err
	}
	if decision.Chaos != sim.NoChaos {
		err := chaosError(decision.Chaos)
		c.count(projectID, x.principal, key, outcomeOf(err))
		return nil, err
	}
	// decision.Throttled is not used: Google's rate quotas are per-minute
	// windows per quota group (quota.go), not sim's token buckets.
	if err := c.takeQuota(x, projectID); err != nil {
		c.count(projectID, x.principal, key, sim.Throttled)
		return nil, err
	}
	reply, err := c.run(x, h)
	outcome := sim.Succeeded
	if err != nil {
		outcome = outcomeOf(err)
	}
	c.count(projectID, x.principal, key, outcome)
	return reply, err
}

// run executes the handler under the lock.
func (c *Cloud) run(x *call, h handler) (any, *Error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	x.now = c.clock.Now()
	c.advance(x.now)
	if id := x.r.PathValue("project"); id != "" {
		p := c.project(id)
		if p == nil {
			return nil, errNotFound("projects/" + id)
		}
		x.project = p
	}
	if x.api.permission != "" && x.project != nil {
		if err := x.require(x.api.permission, x.resourceName()); err != nil {
			return nil, err
		}
	}
	reply, err := h(x)
	if err == nil {
		x.c.record(x)
	}
	return reply, err
}

// resourceName is the resource a permission is checked on, as Google names
// it in its messages: the path below the API's version, with the new
// resource's name appended for an insert.
func (x *call) resourceName() string {
	path := x.r.URL.Path
	for _, p := range apiPrefixes {
		path = strings.TrimPrefix(path, p)
	}
	path, _, _ = strings.Cut(path, ":")
	if x.r.Method == http.MethodPost && (strings.HasSuffix(x.api.method, ".insert") || strings.HasSuffix(x.api.method, ".create")) {
		var named struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(x.body, &named) == nil && named.Name != "" {
			path += "/" + named.Name
		}
	}
	return path
}

// decode reads the JSON body into v.
func (x *call) decode(v any) *Error {
	if len(x.body) == 0 {
		return errInvalid("The request has no body.")
	}
	if err := json.Unmarshal(x.body, v); err != nil {
		return errInvalid("Invalid JSON payload received. %v", err)
	}
	return nil
}

func (c *Cloud) count(project, principal string, key sim.CallKey, outcome sim.Outcome) {
	if project == "" {
		project = "global"
	}
	c.counters.Record(project, key, outcome)
	if principal != "" {
		c.byPrincipal.Record(principal, key, outcome)
	}
}

func outcomeOf(err *Error) sim.Outcome {
	if err.Reason == "rateLimitExceeded" {
		return sim.Throttled
	}
	return sim.Errored
}

// chaosError is a rate-drawn fault as Google answers it: 429
// rateLimitExceeded, 500 backendError, 503 backendError (the reasons of
// https://cloud.google.com/compute/docs/troubleshooting/troubleshoot-api-errors).
func chaosError(f sim.ChaosFault) *Error {
	switch f {
	case sim.ChaosInternal:
		return &Error{Code: http.StatusInternalServerError, Reason: "backendError", Message: "Internal error. Please try again."}
	case sim.ChaosUnavailable:
		return &Error{Code: http.StatusServiceUnavailable, Reason: "backendError", Message: "The service is currently unavailable."}
	}
	return &Error{Code: http.StatusTooManyRequests, Reason: "rateLimitExceeded", Message: "Rate Limit Exceeded"}
}

// injectedError turns a fault rule into Google's envelope: the rule's code
// is the reason (e.g. "backendError", "rateLimitExceeded").
func injectedError(rule *sim.ErrorRule) *Error {
	status := rule.HTTPStatus
	if status == 0 {
		status = http.StatusServiceUnavailable
	}
	msg := rule.Message
	if msg == "" {
		msg = "Injected by cloudsim: " + rule.Code
	}
	return &Error{Code: status, Reason: rule.Code, Message: msg}
}

func baseURL(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

func (c *Cloud) writeReply(w http.ResponseWriter, x *call, reply any) {
	switch v := reply.(type) {
	case noContent:
		w.WriteHeader(http.StatusNoContent)
		return
	case *operation:
		c.mu.Lock()
		reply = v.render(c.clock.Now())
		c.mu.Unlock()
	}
	writeJSON(w, http.StatusOK, reply)
}

func writeError(w http.ResponseWriter, err *Error) {
	writeJSON(w, err.Code, err.envelope())
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
