package azure

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// Azure RBAC: every ARM request is authorized by an action string derived
// from the type and method ("Microsoft.Network/virtualNetworks/write") at
// the scope it addresses. A principal may perform it when one of its role
// assignments at that scope or above (the resource, its resource group, its
// subscription, or the root "/") has a role whose actions match the action
// and whose notActions do not.

// authorize checks that the principal may perform action at scope.
// The caller holds c.mu.
// Every decision is recorded for the principal (Evaluations).
func (c *Cloud) authorize(p *Principal, action, scope string) *Error {
	for _, a := range c.assignmentsOf(p.ObjectID) {
		if !IsUnder(scope, a.Scope) {
			continue
		}
		if role := c.roleDefinition(a.RoleDefinitionID); role != nil && role.permits(action) {
			c.evaluations.Record(strings.ToLower(p.ObjectID), action, true)
			return nil
		}
	}
	c.evaluations.Record(strings.ToLower(p.ObjectID), action, false)
	return c.authorizationFailed(p, action, scope)
}

// hasAnyRoleIn tells whether the principal holds a role assignment at,
// above or beneath scope (what makes a subscription visible to it).
// The caller holds c.mu.
func (c *Cloud) hasAnyRoleIn(scope string, p *Principal) bool {
	for _, a := range c.assignmentsOf(p.ObjectID) {
		if IsUnder(scope, a.Scope) || IsUnder(a.Scope, scope) {
			return true
		}
	}
	return false
}

// authorizationFailed is ARM's 403 for an action the principal may not perform.
func (c *Cloud) authorizationFailed(p *Principal, action, scope string) *Error {
	return NewError(http.StatusForbidden, "AuthorizationFailed",
		"The client '%s' with object id '%s' does not have authorization to perform action '%s' over scope '%s' or the scope is invalid. If access was recently granted, please refresh your credentials.",
		p.ObjectID, p.ObjectID, action, scope)
}

// AuthorizeLinked checks an action on a resource the request refers to but
// does not address (a subnet a NIC joins, a load balancer frontend a
// Private Link Service sits behind), answering LinkedAuthorizationFailed
// as ARM does. Handlers call it for every reference they accept.
func (req *Request) AuthorizeLinked(action, linkedScope string) *Error {
	if req.Cloud.authorize(req.Principal, action, linkedScope) == nil {
		return nil
	}
	return NewError(http.StatusForbidden, "LinkedAuthorizationFailed",
		"The client '%s' with object id '%s' has permission to perform action '%s' on scope '%s'; however, it does not have permission to perform action(s) '%s' on the linked scope(s) '%s' (respectively) or the linked scope(s) are invalid.",
		req.Principal.ObjectID, req.Principal.ObjectID, req.operation, req.ID.String(), action, linkedScope)
}

// Operation is the action string the request is authorized as, e.g.
// "Microsoft.Network/privateEndpoints/write".
func (req *Request) Operation() string { return req.operation }

// permits applies a role's actions and notActions to an action string.
func (r *RoleDefinition) permits(action string) bool {
	for _, perm := range r.Permissions {
		if matchesAny(perm.Actions, action) && !matchesAny(perm.NotActions, action) {
			return true
		}
	}
	return false
}

func matchesAny(patterns []string, action string) bool {
	for _, p := range patterns {
		if actionPattern(p).MatchString(action) {
			return true
		}
	}
	return false
}

var (
	patternMu    sync.Mutex
	patternCache = map[string]*regexp.Regexp{}
)

// actionPattern compiles an action pattern: '*' matches any run of
// characters (slashes included), and matching ignores case, as ARM's does.
func actionPattern(p string) *regexp.Regexp {
	patternMu.Lock()
	defer patternMu.Unlock()
	if re := patternCache[p]; re != nil {
		return re
	}
	parts := strings.Split(p, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	re := regexp.MustCompile("(?i)^" + strings.Join(parts, ".*") + "$")
	patternCache[p] = re
	return re
}
