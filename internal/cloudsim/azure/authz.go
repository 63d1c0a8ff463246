package azure

import (
	"net/http"
)

// authorize checks that the principal may perform action at scope.
// The caller holds c.mu.
func (c *Cloud) authorize(p *Principal, action, scope string) *Error {
	return nil
}

// hasAnyRoleIn tells whether the principal holds any role assignment that
// applies at scope. The caller holds c.mu.
func (c *Cloud) hasAnyRoleIn(scope string, p *Principal) bool { return true }

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
