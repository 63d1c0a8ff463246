package azure

import (
	"net/http"
	"strings"
)

// route is what a request path resolves to: a registered type and the ID
// it addresses (a resource, or for a list the collection's parent), or a
// special endpoint of ARM itself (subscriptions, providers, operation status).
type route struct {
	spec   *TypeSpec
	id     ID
	list   bool
	action string

	special   func(c *Cloud, req *Request) (*wireReply, *Error)
	specialOp string   // the action string a special endpoint is counted as
	versions  []string // api-versions a special endpoint accepts (nil: any)
}

// resolveRoute maps a request to its route.
func resolveRoute(r *http.Request) (*route, *Error) {
	segs, err := splitPath(r.URL.EscapedPath())
	if err != nil {
		return nil, BadRequest("InvalidResourceId", "%v", err)
	}
	if rt := specialRoute(r.Method, segs); rt != nil {
		return rt, nil
	}
	if len(segs) == 3 && strings.EqualFold(segs[0], "subscriptions") && strings.EqualFold(segs[2], "resourceGroups") {
		return &route{spec: lookupType(resourceGroupType), id: SubscriptionID(segs[1]), list: true}, nil
	}
	id, perr := ParseID(r.URL.EscapedPath())
	if perr != nil {
		return nil, BadRequest("InvalidResourceId", "%v", perr)
	}
	if id.IsResourceGroup() {
		return &route{spec: lookupType(resourceGroupType), id: id}, nil
	}
	if id.Namespace == "" || len(id.Types) == 0 {
		return nil, NewError(http.StatusNotFound, "InvalidResourceNamespace", "The request path '%s' names no resource provider.", r.URL.Path)
	}
	return typedRoute(r.Method, id)
}

// typedRoute resolves a path under /providers/{namespace}: a resource, a
// collection, or a POST action on a resource.
func typedRoute(method string, id ID) (*route, *Error) {
	if len(id.Names) == len(id.Types) {
		spec := lookupType(id.Type())
		if spec == nil {
			return nil, unknownType(id)
		}
		return &route{spec: spec, id: id}, nil
	}
	parent := id
	parent.Types = id.Types[:len(id.Names)]
	last := id.Types[len(id.Types)-1]
	if method == http.MethodPost && len(parent.Types) > 0 {
		if spec := lookupType(parent.Type()); spec != nil && spec.Actions[last] != nil {
			return &route{spec: spec, id: parent, action: last}, nil
		}
		if spec := lookupType(parent.Type()); spec != nil {
			for name := range spec.Actions {
				if strings.EqualFold(name, last) {
					return &route{spec: spec, id: parent, action: name}, nil
				}
			}
		}
	}
	spec := lookupType(id.Type())
	if spec == nil {
		return nil, unknownType(id)
	}
	if len(parent.Types) == 0 {
		parent.Namespace = ""
		if parent.Scope != "" {
			if p, err := ParseID(parent.Scope); err == nil {
				parent = p
			}
		}
	}
	return &route{spec: spec, id: parent, list: true}, nil
}

func unknownType(id ID) *Error {
	if !knownNamespace(id.Namespace) {
		return BadRequest("InvalidResourceNamespace", "The resource namespace '%s' is invalid.", id.Namespace)
	}
	return ErrInvalidResourceType(strings.Join(id.Types, "/"), id.Namespace)
}

func knownNamespace(ns string) bool {
	registryMu.RLock()
	defer registryMu.RUnlock()
	for _, s := range registry {
		if strings.EqualFold(s.namespace(), ns) {
			return true
		}
	}
	return false
}

// checkAPIVersion refuses a request without api-version, or with one the
// type does not serve, with ARM's own error for each case.
func (rt *route) checkAPIVersion(v string) *Error {
	if v == "" {
		return ErrMissingAPIVersion()
	}
	if rt.special != nil {
		if len(rt.versions) == 0 || contains(rt.versions, v) {
			return nil
		}
		return ErrInvalidAPIVersion(v, rt.versions)
	}
	if rt.spec.acceptsVersion(v) {
		return nil
	}
	if strings.EqualFold(rt.spec.namespace(), "Microsoft.Resources") {
		return ErrInvalidAPIVersion(v, rt.spec.APIVersions)
	}
	return ErrNoRegisteredProvider("eastus", v, rt.spec.Type, rt.spec.APIVersions)
}

// operationName is the action string the request is authorized, counted
// and throttled as: Microsoft.Network/virtualNetworks/write.
func (rt *route) operationName(method string) string {
	if rt.special != nil {
		return rt.specialOp
	}
	at := rt.spec.actionType()
	if rt.action != "" {
		return at + "/" + rt.action + "/action"
	}
	switch method {
	case http.MethodGet, http.MethodHead:
		return at + "/read"
	case http.MethodDelete:
		return at + "/delete"
	case http.MethodPost:
		return at + "/action"
	}
	return at + "/write"
}

// authorizationScope is the scope an action is checked at: the resource
// itself, or for a list the scope being listed.
func (rt *route) authorizationScope() string { return rt.id.String() }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
