package azure

import (
	"net/http"
	"strings"
)

// dispatch runs a routed, authorized request against its type's handlers
// or the framework's defaults. The caller holds c.mu.
func (c *Cloud) dispatch(req *Request, rt *route) (*wireReply, *Error) {
	if err := c.checkContainer(req.ID, rt); err != nil {
		return nil, err
	}
	switch {
	case rt.list:
		return c.list(req, rt)
	case rt.action != "":
		return c.action(req, rt)
	}
	switch req.Method {
	case http.MethodGet:
		return c.get(req, rt.spec)
	case http.MethodHead:
		if c.store.Get(req.ID) == nil {
			return &wireReply{status: http.StatusNotFound}, nil
		}
		return &wireReply{status: http.StatusNoContent}, nil
	case http.MethodPut:
		return c.put(req, rt.spec)
	case http.MethodPatch:
		return c.patch(req, rt.spec)
	case http.MethodDelete:
		return c.delete(req, rt.spec)
	}
	return nil, ErrMethodNotAllowed(req.Method)
}

// checkContainer refuses a request whose resource group or parent
// resource does not exist, as ARM does before the provider sees it.
func (c *Cloud) checkContainer(id ID, rt *route) *Error {
	if rt.spec.Scope == ExtensionScoped || rt.spec.Virtual || id.IsResourceGroup() || id.IsSubscription() {
		return nil
	}
	if id.ResourceGroup != "" && c.store.Get(id.ResourceGroupID()) == nil {
		return ErrResourceGroupNotFound(id.ResourceGroup)
	}
	if rt.list && id.Namespace != "" && c.store.Get(id) == nil {
		return ErrResourceNotFound(id)
	}
	if !rt.list && len(id.Names) > 1 && c.store.Get(id.Parent()) == nil {
		return NewError(http.StatusNotFound, "ParentResourceNotFound",
			"Can not perform requested operation on nested resource. Parent resource '%s' not found.", strings.Join(id.Parent().Names, "/"))
	}
	return nil
}

func notFound(id ID) *Error {
	if id.IsResourceGroup() {
		return ErrResourceGroupNotFound(id.ResourceGroup)
	}
	return ErrResourceNotFound(id)
}

func (c *Cloud) get(req *Request, spec *TypeSpec) (*wireReply, *Error) {
	r := c.store.Get(req.ID)
	if r == nil && !(spec.Virtual && spec.Get != nil) {
		return nil, notFound(req.ID)
	}
	if spec.Get != nil {
		reply, err := spec.Get(req, r)
		if err != nil {
			return nil, err
		}
		return c.replyFor(req, reply, http.StatusOK)
	}
	return &wireReply{status: http.StatusOK, body: c.render(r)}, nil
}

func (c *Cloud) put(req *Request, spec *TypeSpec) (*wireReply, *Error) {
	if spec.Put == nil {
		return nil, ErrMethodNotAllowed(req.Method)
	}
	existing := c.store.Get(req.ID)
	if err := checkPreconditions(req.HTTP, existing); err != nil {
		return nil, err
	}
	reply, err := spec.Put(req, existing)
	if err != nil {
		return nil, err
	}
	res := reply.Resource
	res.ID, res.Type, res.ETag = req.ID, spec.Type, newETag(spec)
	if res.CreatedAt.IsZero() {
		res.CreatedAt, res.CreatedBy = req.Now, req.Principal.ObjectID
	}
	c.store.Put(res)
	status := http.StatusCreated
	if existing != nil {
		status = http.StatusOK
	}
	if reply.Transition == nil && res.ProvisioningState != "Failed" {
		res.ProvisioningState = "Succeeded"
	}
	return c.replyFor(req, reply, status)
}

// checkPreconditions applies If-Match and If-None-Match against the ETag.
func checkPreconditions(r *http.Request, existing *Resource) *Error {
	if m := r.Header.Get("If-Match"); m != "" && m != "*" && (existing == nil || !etagMatches(m, existing.ETag)) {
		return ErrPreconditionFailed()
	}
	if m := r.Header.Get("If-Match"); m == "*" && existing == nil {
		return ErrPreconditionFailed()
	}
	if m := r.Header.Get("If-None-Match"); m == "*" && existing != nil {
		return ErrPreconditionFailed()
	}
	return nil
}

func etagMatches(header, etag string) bool {
	norm := func(s string) string { return strings.Trim(strings.TrimPrefix(strings.TrimSpace(s), "W/"), `"`) }
	return norm(header) == norm(etag)
}

func (c *Cloud) patch(req *Request, spec *TypeSpec) (*wireReply, *Error) {
	r := c.store.Get(req.ID)
	if r == nil {
		return nil, notFound(req.ID)
	}
	if err := checkPreconditions(req.HTTP, r); err != nil {
		return nil, err
	}
	if spec.Patch != nil {
		reply, err := spec.Patch(req, r)
		if err != nil {
			return nil, err
		}
		r.ETag = newETag(spec)
		return c.replyFor(req, reply, http.StatusOK)
	}
	var body struct {
		Tags map[string]string `json:"tags"`
	}
	if err := req.Decode(&body); err != nil {
		return nil, err
	}
	if body.Tags != nil {
		r.Tags = body.Tags
	}
	r.ETag = newETag(spec)
	return &wireReply{status: http.StatusOK, body: c.render(r)}, nil
}

func (c *Cloud) delete(req *Request, spec *TypeSpec) (*wireReply, *Error) {
	r := c.store.Get(req.ID)
	if r == nil {
		if req.ID.IsResourceGroup() {
			return nil, ErrResourceGroupNotFound(req.ID.ResourceGroup)
		}
		return &wireReply{status: http.StatusNoContent}, nil
	}
	if err := checkPreconditions(req.HTTP, r); err != nil {
		return nil, err
	}
	if spec.Delete == nil {
		c.Remove(r.ID)
		return &wireReply{status: http.StatusOK}, nil
	}
	reply, err := spec.Delete(req, r)
	if err != nil {
		return nil, err
	}
	if reply == nil || reply.Transition == nil {
		// Synchronous: answer (the handler may return the deleted resource), then remove.
		w, _ := c.replyFor(req, reply, http.StatusOK)
		c.Remove(r.ID)
		return w, nil
	}
	reply.Transition.Remove = true
	reply.Resource = r
	return c.replyFor(req, reply, http.StatusOK)
}

func (c *Cloud) action(req *Request, rt *route) (*wireReply, *Error) {
	var r *Resource
	if !rt.spec.Virtual {
		if r = c.store.Get(req.ID); r == nil {
			return nil, notFound(req.ID)
		}
	}
	reply, err := rt.spec.Actions[rt.action](req, r)
	if err != nil {
		return nil, err
	}
	if reply == nil {
		return &wireReply{status: http.StatusOK}, nil
	}
	if reply.Transition != nil && reply.Resource == nil {
		reply.Resource = r
	}
	return c.replyFor(req, reply, http.StatusOK)
}

// replyFor turns a handler's Reply into the wire reply, starting the
// long-running operation it asks for.
func (c *Cloud) replyFor(req *Request, reply *Reply, status int) (*wireReply, *Error) {
	if reply == nil {
		return &wireReply{status: status}, nil
	}
	w := &wireReply{status: status}
	if reply.Transition != nil && reply.Resource != nil {
		op := c.startOperation(req, reply.Resource, reply.Transition)
		w.headers = operationHeaders(req, op)
		if req.Method == http.MethodDelete || req.Method == http.MethodPost {
			w.status = http.StatusAccepted
		}
	}
	if reply.Status != 0 {
		w.status = reply.Status
	}
	switch {
	case reply.Body != nil:
		w.body = reply.Body
	case reply.Resource != nil:
		w.body = c.render(reply.Resource)
	}
	if req.Method == http.MethodDelete && w.status == http.StatusAccepted {
		w.body = nil
	}
	return w, nil
}

// Remove drops a resource and everything beneath it, telling each type's
// Removed hook. Handlers and transitions call it under the lock.
func (c *Cloud) Remove(id ID) {
	doomed := append(c.store.Under(id), c.store.Get(id))
	c.store.Delete(id)
	for _, r := range doomed {
		if r == nil {
			continue
		}
		if spec := lookupType(r.Type); spec != nil && spec.Removed != nil {
			spec.Removed(c, r)
		}
	}
}

func (c *Cloud) list(req *Request, rt *route) (*wireReply, *Error) {
	var items []*Resource
	if rt.spec.List != nil {
		var err *Error
		if items, err = rt.spec.List(req, req.ID); err != nil {
			return nil, err
		}
	} else {
		items = c.store.List(req.ID, rt.spec.Type)
	}
	return c.page(req, items)
}
