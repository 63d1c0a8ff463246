package azure

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Error is an ARM error as it goes on the wire:
//
//	{"error": {"code": "...", "message": "...", "target": "...", "details": [...]}}
//
// The codes are the ones the real services return; handlers build errors
// through the constructors below or, for codes of their own provider, with
// NewError.
type Error struct {
	Status  int      `json:"-"`
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Target  string   `json:"target,omitempty"`
	Details []*Error `json:"details,omitempty"`
	// RetryAfter, when set, becomes the Retry-After header (throttling).
	RetryAfter time.Duration `json:"-"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// NewError builds an error with a status, a code and a formatted message.
func NewError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// BadRequest is a 400 with the given code.
func BadRequest(code, format string, args ...any) *Error {
	return NewError(http.StatusBadRequest, code, format, args...)
}

// Conflict is a 409 with the given code.
func Conflict(code, format string, args ...any) *Error {
	return NewError(http.StatusConflict, code, format, args...)
}

// ErrResourceNotFound is ARM's answer for a resource that does not exist.
func ErrResourceNotFound(id ID) *Error {
	return NewError(http.StatusNotFound, "ResourceNotFound",
		"The Resource '%s' under resource group '%s' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix",
		shortType(id), id.ResourceGroup)
}

// shortType renders "Microsoft.Network/virtualNetworks/vnet1/subnets/a", the
// way ARM names a resource in ResourceNotFound.
func shortType(id ID) string {
	parts := []string{id.Namespace}
	for i, t := range id.Types {
		parts = append(parts, t)
		if i < len(id.Names) {
			parts = append(parts, id.Names[i])
		}
	}
	return strings.Join(parts, "/")
}

// ErrResourceGroupNotFound is ARM's answer for a missing resource group.
func ErrResourceGroupNotFound(rg string) *Error {
	return NewError(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", rg)
}

// ErrSubscriptionNotFound answers a request for a subscription that does not exist.
func ErrSubscriptionNotFound(sub string) *Error {
	return NewError(http.StatusNotFound, "SubscriptionNotFound", "The subscription '%s' could not be found.", sub)
}

// ErrInvalidResourceReference is what a resource provider answers when a
// request refers to another resource that does not exist.
func ErrInvalidResourceReference(referenced, referencedBy string) *Error {
	return BadRequest("InvalidResourceReference",
		"Resource %s referenced by resource %s was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.",
		referenced, referencedBy)
}

// ErrInvalidRequestContent answers a body that does not decode.
func ErrInvalidRequestContent(err error) *Error {
	return BadRequest("InvalidRequestContent", "The request content was invalid and could not be deserialized: '%v'.", err)
}

// ErrMissingAPIVersion answers a request without ?api-version=.
func ErrMissingAPIVersion() *Error {
	return BadRequest("MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
}

// ErrInvalidAPIVersion is ARM's own answer (Microsoft.Resources) for a version it does not serve.
func ErrInvalidAPIVersion(version string, supported []string) *Error {
	return BadRequest("InvalidApiVersionParameter", "The api-version '%s' is invalid. The supported versions are '%s'.",
		version, strings.Join(supported, ","))
}

// ErrNoRegisteredProvider is ARM's answer for a provider type asked with a version it does not serve.
func ErrNoRegisteredProvider(location, version, typ string, supported []string) *Error {
	last := typ[strings.Index(typ, "/")+1:]
	return BadRequest("NoRegisteredProviderFound",
		"No registered resource provider found for location '%s' and API version '%s' for type '%s'. The supported api-versions are '%s'. The supported locations are '%s'.",
		location, version, last, strings.Join(supported, ", "), strings.Join(Locations, ", "))
}

// ErrInvalidResourceType answers a path naming a type no provider serves.
func ErrInvalidResourceType(typ, namespace string) *Error {
	return BadRequest("InvalidResourceType", "The resource type '%s' could not be found in the namespace '%s' for api version.", typ, namespace)
}

// ErrMethodNotAllowed answers a method the type does not support.
func ErrMethodNotAllowed(method string) *Error {
	return NewError(http.StatusMethodNotAllowed, "MethodNotAllowed", "The requested resource does not support http method '%s'.", method)
}

// ErrInvalidResourceLocation answers a location that is not a region.
func ErrInvalidResourceLocation(location string) *Error {
	return BadRequest("LocationNotAvailableForResourceType",
		"The provided location '%s' is not available for resource type. List of available regions is '%s'.",
		location, strings.Join(Locations, ","))
}

// ErrPreconditionFailed answers an If-Match that does not match the ETag.
func ErrPreconditionFailed() *Error {
	return NewError(http.StatusPreconditionFailed, "PreconditionFailed",
		"The condition specified using HTTP conditional header(s) is not met.")
}

// ErrAnotherOperationInProgress answers a change to a resource still in a
// long-running operation, as the network provider does.
func ErrAnotherOperationInProgress(id ID, operation string) *Error {
	return Conflict("AnotherOperationInProgress",
		"Another operation on this or dependent resource is in progress. To retrieve status of the operation use uri: %s.", operation)
}

// injectedError turns a fault rule into the error it asks for.
// chaosError is a rate-drawn fault as ARM answers it: a throttling 429
// with Retry-After, a 500 InternalServerError, a 503 ServiceUnavailable.
func chaosError(kind string, f sim.ChaosFault) *Error {
	switch f {
	case sim.ChaosInternal:
		return &Error{Status: http.StatusInternalServerError, Code: "InternalServerError",
			Message: "Encountered internal server error. Please try again."}
	case sim.ChaosUnavailable:
		return &Error{Status: http.StatusServiceUnavailable, Code: "ServiceUnavailable",
			Message: "The server is currently unable to handle the request. Please try again later.", RetryAfter: time.Second}
	}
	return throttledError(kind, time.Second)
}

func injectedError(rule *sim.ErrorRule) *Error {
	status := rule.HTTPStatus
	if status == 0 {
		status = http.StatusBadRequest
		switch rule.Code {
		case "InternalServerError", "InternalError":
			status = http.StatusInternalServerError
		case "ServiceUnavailable":
			status = http.StatusServiceUnavailable
		case "TooManyRequests", "SubscriptionRequestsThrottled", "ResourceRequestsThrottled":
			status = http.StatusTooManyRequests
		}
	}
	msg := rule.Message
	if msg == "" {
		msg = "Injected by cloudsim: " + rule.Code
	}
	return &Error{Status: status, Code: rule.Code, Message: msg}
}
