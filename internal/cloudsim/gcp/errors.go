package gcp

import (
	"fmt"
	"net/http"
)

// Error is Google's JSON error envelope:
//
//	{"error": {"code": 404, "message": "...", "status": "NOT_FOUND",
//	           "errors": [{"domain": "global", "reason": "notFound", "message": "..."}]}}
//
// Reasons are those Google documents for its v1 REST APIs
// (https://cloud.google.com/compute/docs/troubleshooting/troubleshoot-api-errors,
// https://cloud.google.com/apis/design/errors): notFound, alreadyExists,
// resourceInUseByAnotherResource, invalid, forbidden, rateLimitExceeded,
// conditionNotMet, containerNotEmpty, required.
type Error struct {
	Code    int
	Reason  string
	Message string
	// Location names the header or field at fault (e.g. "If-Match" for a
	// stale fingerprint, "Authorization" for a missing token).
	Location string
	// OAuth, when set, makes the answer an OAuth 2.0 error as STS gives
	// (RFC 6749 §5.2): {"error": OAuth, "error_description": Message}.
	OAuth string
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Code, e.Reason, e.Message) }

// status is the google.rpc.Code name that goes with an HTTP status.
func (e *Error) status() string {
	if e.Reason == "rateLimitExceeded" {
		return "RESOURCE_EXHAUSTED"
	}
	switch e.Code {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusConflict:
		if e.Reason == "aborted" {
			return "ABORTED"
		}
		return "ALREADY_EXISTS"
	case http.StatusPreconditionFailed:
		return "FAILED_PRECONDITION"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	}
	return "INTERNAL"
}

func (e *Error) envelope() map[string]any {
	if e.OAuth != "" {
		return map[string]any{"error": e.OAuth, "error_description": e.Message}
	}
	item := map[string]any{"domain": "global", "reason": e.Reason, "message": e.Message}
	if e.Location != "" {
		item["location"] = e.Location
		item["locationType"] = "header"
	}
	return map[string]any{"error": map[string]any{
		"code": e.Code, "message": e.Message, "status": e.status(), "errors": []any{item},
	}}
}

func errNotFound(resource string) *Error {
	return &Error{Code: http.StatusNotFound, Reason: "notFound", Message: fmt.Sprintf("The resource '%s' was not found", resource)}
}

func errAlreadyExists(resource string) *Error {
	return &Error{Code: http.StatusConflict, Reason: "alreadyExists", Message: fmt.Sprintf("The resource '%s' already exists", resource)}
}

func errInUse(resource, user string) *Error {
	return &Error{Code: http.StatusBadRequest, Reason: "resourceInUseByAnotherResource",
		Message: fmt.Sprintf("The resource '%s' is already being used by '%s'", resource, user)}
}

func errInvalid(format string, args ...any) *Error {
	return &Error{Code: http.StatusBadRequest, Reason: "invalid", Message: fmt.Sprintf(format, args...)}
}

func errRequired(field string) *Error {
	return &Error{Code: http.StatusBadRequest, Reason: "required", Message: fmt.Sprintf("Required field '%s' not specified", field)}
}

func errFingerprint() *Error {
	return &Error{Code: http.StatusPreconditionFailed, Reason: "conditionNotMet", Location: "If-Match",
		Message: "Supplied fingerprint does not match current metadata fingerprint."}
}

// errPermission is the 403 Compute Engine answers for a missing permission.
func errPermission(permission, resource string) *Error {
	return &Error{Code: http.StatusForbidden, Reason: "forbidden",
		Message: fmt.Sprintf("Required '%s' permission for '%s'", permission, resource)}
}

func errUnauthenticated(message string) *Error {
	return &Error{Code: http.StatusUnauthorized, Reason: "authError", Location: "Authorization", Message: message}
}
