package azure

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Operation is a long-running operation: a resource in a transition that
// completes on the sim clock. Its status is served at
//
//	/subscriptions/{sub}/providers/{ns}/locations/{loc}/operations/{id}        (Azure-AsyncOperation)
//	/subscriptions/{sub}/providers/{ns}/locations/{loc}/operationResults/{id}  (Location)
type Operation struct {
	ID           string    `json:"id"`
	Subscription string    `json:"subscription"`
	Namespace    string    `json:"namespace"`
	Location     string    `json:"location"`
	Resource     ID        `json:"-"`
	ResourceID   string    `json:"resourceId"`
	Method       string    `json:"method"`
	Status       string    `json:"status"` // InProgress, Succeeded, Failed
	Start        time.Time `json:"startTime"`
	End          time.Time `json:"endTime"`
	Error        *Error    `json:"error,omitempty"`
	// Result is what the Location URL answers once a POST action succeeds.
	Result any `json:"-"`

	transition *Transition
}

// startOperation puts a resource into its transition state and records the
// operation that ends it. The caller holds c.mu.
func (c *Cloud) startOperation(req *Request, res *Resource, t *Transition) *Operation {
	op := &Operation{
		ID: newGUID(), Subscription: res.ID.Subscription, Namespace: req.spec.namespace(),
		Location: c.operationLocation(res), Resource: res.ID, ResourceID: res.ID.String(), Method: req.Method,
		Status: "InProgress", Start: req.Now, End: req.Now.Add(t.Duration), Result: t.Result, transition: t,
	}
	if t.Fail != nil && t.Fail.Status == 0 {
		t.Fail.Status = http.StatusBadRequest
	}
	if t.State != "" {
		res.ProvisioningState = t.State
	}
	res.Operation = op
	c.operations[op.ID] = op
	if t.Duration <= 0 {
		c.complete(op, req.Now)
	}
	return op
}

// operationLocation is the region an operation is filed under: the
// resource's, or its nearest parent's, or "global".
func (c *Cloud) operationLocation(res *Resource) string {
	for r := res; r != nil; {
		if r.Location != "" {
			return r.Location
		}
		parent := r.ID.Parent()
		if parent.Key() == r.ID.Key() || (parent.Namespace == "" && !parent.IsResourceGroup()) {
			break
		}
		r = c.store.Get(parent)
	}
	return "global"
}

// advance completes every operation whose time has come, oldest first.
// Every request calls it under the lock before its handler runs.
func (c *Cloud) advance(now time.Time) {
	var due []*Operation
	for _, op := range c.operations {
		if op.Status == "InProgress" && !op.End.After(now) {
			due = append(due, op)
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i].End.Before(due[j].End) })
	for _, op := range due {
		c.complete(op, now)
	}
}

// complete ends an operation: failed, removed, or Succeeded.
func (c *Cloud) complete(op *Operation, now time.Time) {
	t := op.transition
	res := c.store.Get(op.Resource)
	if res != nil && res.Operation == op {
		res.Operation = nil
	}
	switch {
	case t.Fail != nil:
		op.Status, op.Error = "Failed", t.Fail
		if res != nil {
			res.ProvisioningState = "Failed"
		}
	default:
		op.Status = "Succeeded"
		if t.Done != nil {
			t.Done(c, now)
		}
		if t.Remove {
			c.Remove(op.Resource)
		} else if res != nil && res.Operation == nil {
			res.ProvisioningState = "Succeeded"
		}
	}
}

// operationHeaders are the headers a long-running operation's first answer
// carries: Azure-AsyncOperation for every operation, Location for deletes
// and actions (what the SDK pollers' final-state rules read).
func operationHeaders(req *Request, op *Operation) map[string]string {
	query := "?api-version=" + req.APIVersion
	h := map[string]string{}
	for k, v := range retryHeaders(op, req.Now) {
		h[k] = v
	}
	if kinds := req.spec.OperationKinds; kinds != nil {
		base := baseURL(req.HTTP) + "/subscriptions/" + op.Subscription + "/resourceGroups/" + op.Resource.ResourceGroup + "/providers/" + op.Namespace
		h["Azure-AsyncOperation"] = base + "/" + kinds.Status + "/" + op.ID + query
		h["Location"] = base + "/" + kinds.Result + "/" + op.ID + query
		return h
	}
	base := baseURL(req.HTTP) + "/subscriptions/" + op.Subscription + "/providers/" + op.Namespace + "/locations/" + op.Location
	if !(req.Method == http.MethodDelete && req.spec.DeleteWithLocationOnly) {
		h["Azure-AsyncOperation"] = base + "/operations/" + op.ID + query
	}
	if req.Method == http.MethodDelete || req.Method == http.MethodPost {
		h["Location"] = base + "/operationResults/" + op.ID + query
	}
	return h
}

// retryHeaders tell a poller when to look again: Retry-After in whole
// seconds as ARM sends it, and retry-after-ms (which azcore prefers) so
// that sub-second fast delays are not stretched to a second.
func retryHeaders(op *Operation, now time.Time) map[string]string {
	left := op.End.Sub(now)
	if op.Status != "InProgress" || left <= 0 {
		return nil
	}
	wait := min(left, 10*time.Second)
	return map[string]string{
		"Retry-After":    strconv.FormatInt(ceilSeconds(wait), 10),
		"retry-after-ms": strconv.FormatInt(max(wait.Milliseconds(), 50), 10),
	}
}

// baseURL is the scheme and host the client reached us on.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// operationRoute serves the status endpoints of long-running operations:
// ARM's subscriptions/{sub}/providers/{ns}/locations/{loc}/{kind}/{id}, and
// a provider's own subscriptions/{sub}/resourceGroups/{rg}/providers/{ns}/{kind}/{id}
// (OperationKinds).
func operationRoute(segs []string) *route {
	if len(segs) != 8 || !strings.EqualFold(segs[0], "subscriptions") {
		return nil
	}
	var kind, id, ns, op string
	var result bool
	switch {
	case strings.EqualFold(segs[2], "providers") && strings.EqualFold(segs[4], "locations"):
		kind, id, ns = strings.ToLower(segs[6]), segs[7], segs[3]
		if kind != "operations" && kind != "operationresults" && kind != "operationstatuses" && kind != "asyncoperations" {
			return nil
		}
		op, result = ns+"/locations/operations/read", kind == "operationresults"
	case strings.EqualFold(segs[2], "resourceGroups") && strings.EqualFold(segs[4], "providers"):
		kind, id, ns = segs[6], segs[7], segs[5]
		status, isResult := providerOperationKind(ns, kind)
		if !status && !isResult {
			return nil
		}
		op, result = ns+"/"+kind+"/read", isResult
	default:
		return nil
	}
	return &route{
		id: SubscriptionID(segs[1]), specialOp: op,
		special: func(c *Cloud, req *Request) (*wireReply, *Error) {
			op := c.operations[id]
			if op == nil || !strings.EqualFold(op.Subscription, segs[1]) {
				return nil, NewError(http.StatusNotFound, "OperationNotFound", "The operation '%s' could not be found.", id)
			}
			if result {
				return operationResult(req, op), nil
			}
			return &wireReply{status: http.StatusOK, body: operationStatus(op), headers: retryHeaders(op, req.Now)}, nil
		},
	}
}

// providerOperationKind reports whether kind is a registered type's
// operation status or result collection in namespace ns.
func providerOperationKind(ns, kind string) (status, result bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	for _, s := range registry {
		k := s.OperationKinds
		if k == nil || !strings.EqualFold(s.namespace(), ns) {
			continue
		}
		if strings.EqualFold(kind, k.Status) {
			return true, false
		}
		if strings.EqualFold(kind, k.Result) {
			return false, true
		}
	}
	return false, false
}

// operationStatus is the Azure-AsyncOperation body.
func operationStatus(op *Operation) map[string]any {
	body := map[string]any{"id": op.ID, "name": op.ID, "status": op.Status, "startTime": op.Start.UTC().Format(time.RFC3339Nano)}
	if op.Status != "InProgress" {
		body["endTime"] = op.End.UTC().Format(time.RFC3339Nano)
	}
	if op.Error != nil {
		body["error"] = op.Error
	}
	return body
}

// operationResult is what the Location URL answers: 202 while in progress,
// the operation's error once failed, and 200 with the action's result, or
// 204 for a completed delete.
func operationResult(req *Request, op *Operation) *wireReply {
	switch op.Status {
	case "InProgress":
		h := retryHeaders(op, req.Now)
		if h == nil {
			h = map[string]string{}
		}
		h["Location"] = baseURL(req.HTTP) + req.HTTP.URL.RequestURI()
		return &wireReply{status: http.StatusAccepted, headers: h}
	case "Failed":
		return &wireReply{status: op.Error.Status, body: map[string]*Error{"error": op.Error}}
	}
	if op.Result != nil {
		return &wireReply{status: http.StatusOK, body: op.Result}
	}
	return &wireReply{status: http.StatusNoContent}
}

func (c *Cloud) operationsSnapshot() []*Operation {
	out := make([]*Operation, 0, len(c.operations))
	for _, op := range c.operations {
		out = append(out, op)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}
