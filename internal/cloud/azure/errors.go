package azure

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/hcplink/hcplink/internal/cloud"
)

// Error codes callers and tests name.
const (
	CodeAuthorizationFailed        = "AuthorizationFailed"
	CodeLinkedAuthorizationFailed  = "LinkedAuthorizationFailed"
	CodeAnotherOperationInProgress = "AnotherOperationInProgress"
	CodeTooManyRequests            = "TooManyRequests"
	CodeResourceNotFound           = "ResourceNotFound"
	CodeResourceGroupNotFound      = "ResourceGroupNotFound"
	CodeSubscriptionNotFound       = "SubscriptionNotFound"
	CodeParentResourceNotFound     = "ParentResourceNotFound"
	CodePreconditionFailed         = "PreconditionFailed"
	// CodeAuthenticationFailed is ours: the credential could not get a token.
	CodeAuthenticationFailed = "AuthenticationFailed"
)

// accessDeniedCodes are refused credentials or missing role assignments.
var accessDeniedCodes = map[string]bool{
	CodeAuthorizationFailed:            true,
	CodeLinkedAuthorizationFailed:      true,
	"InvalidAuthenticationToken":       true,
	"AuthenticationFailed":             true,
	"ExpiredAuthenticationToken":       true,
	"InvalidAuthenticationTokenTenant": true,
	CodeSubscriptionNotFound:           false, // a 404 on the scope: invalid input (scopeNotFoundCodes)
	"PrivateLinkServiceNotVisible":     false,
}

// dependencyCodes say the request must wait for another resource or
// operation (beyond every 409, every code containing "InUse" and every
// "…CannotBeDeleted": something still uses the resource, such as a Private
// Link Service's connections).
var dependencyCodes = map[string]bool{
	CodeAnotherOperationInProgress:                     true,
	"RetryableError":                                   true,
	"ReferencedResourceNotProvisioned":                 true,
	"OperationNotAllowedOnResourceInProvisioningState": true,
	CodePreconditionFailed:                             true,
}

// ResponseError returns the SDK's typed Azure error in err's chain.
func ResponseError(err error) (*azcore.ResponseError, bool) {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re, true
	}
	return nil, false
}

// ErrorCode is Azure's error code of err ("ResourceNotFound",
// "AuthorizationFailed"…), CodeAuthenticationFailed when the credential
// failed, or "" when err carries none.
func ErrorCode(err error) string {
	if re, ok := ResponseError(err); ok {
		return re.ErrorCode
	}
	var authErr *azidentity.AuthenticationFailedError
	if errors.As(err, &authErr) {
		return CodeAuthenticationFailed
	}
	return ""
}

// statusCode is the HTTP status of Azure's answer: ARM's, or the identity
// platform's when getting a token failed; 0 without an answer.
func statusCode(err error) int {
	if re, ok := ResponseError(err); ok {
		return re.StatusCode
	}
	var authErr *azidentity.AuthenticationFailedError
	if errors.As(err, &authErr) && authErr.RawResponse != nil {
		return authErr.RawResponse.StatusCode
	}
	return 0
}

// goneCodes are the 404 codes that say the resource addressed is absent:
// ARM's ResourceNotFound, the "NotFound" resource providers answer for a
// child resource (a subnet, a record set), ParentResourceNotFound (the
// zone, VNet or service holding it is gone, so it is gone too) and
// OperationNotFound (a long-running operation the cloud forgot).
var goneCodes = map[string]bool{
	"":                         true, // a bare 404
	CodeResourceNotFound:       true,
	"NotFound":                 true,
	CodeParentResourceNotFound: true,
	"OperationNotFound":        true,
}

// scopeNotFoundCodes are the 404s of a missing subscription or resource
// group: the place the cluster names is wrong or gone, which says nothing
// of the resources that were in it (a subscription that is not visible
// hides them; a deleted group may take with it resources hcplink must
// account for). They are invalid input, never "gone": a delete path must
// not take them as done and drop its finalizer.
var scopeNotFoundCodes = map[string]bool{
	CodeResourceGroupNotFound: true,
	CodeSubscriptionNotFound:  true,
}

// IsNotFound reports whether the resource addressed does not exist (it, or
// the parent resource holding it, is gone). A missing subscription or
// resource group is not "not found" (IsScopeNotFound).
func IsNotFound(err error) bool {
	return statusCode(err) == http.StatusNotFound && goneCodes[ErrorCode(err)]
}

// IsScopeNotFound reports whether the subscription or resource group of
// the request does not exist (or is not visible to the caller).
func IsScopeNotFound(err error) bool {
	return scopeNotFoundCodes[ErrorCode(err)]
}

// IsThrottled reports whether Azure throttled the request.
func IsThrottled(err error) bool {
	return statusCode(err) == http.StatusTooManyRequests || ErrorCode(err) == CodeTooManyRequests
}

// IsAccessDenied reports whether the credentials were refused or lack a
// role assignment.
func IsAccessDenied(err error) bool {
	var authErr *azidentity.AuthenticationFailedError
	if errors.As(err, &authErr) {
		return tokenRefused(authErr)
	}
	if accessDeniedCodes[ErrorCode(err)] {
		return true
	}
	s := statusCode(err)
	return s == http.StatusForbidden || s == http.StatusUnauthorized
}

// tokenRefused: the identity platform refused the credential. azidentity
// reports every failure to get a token as AuthenticationFailedError, the
// platform's own trouble included: a 429 is throttling and a 5xx a server
// fault (Classify sees their status), not a refusal — reporting them as
// AccessDenied would tell the user to fix a credential that works. Without
// an answer there is nothing to tell the two apart by, and a credential
// that cannot be used (its token file missing) fails that way too: refused.
func tokenRefused(e *azidentity.AuthenticationFailedError) bool {
	if e.RawResponse == nil {
		return true
	}
	s := e.RawResponse.StatusCode
	return s != http.StatusTooManyRequests && s < http.StatusInternalServerError
}

// IsDependency reports whether the request must wait: a conflict, a
// resource in use, another operation in progress.
func IsDependency(err error) bool {
	code := ErrorCode(err)
	return dependencyCodes[code] || strings.Contains(code, "InUse") || strings.HasSuffix(code, "CannotBeDeleted") || statusCode(err) == http.StatusConflict ||
		statusCode(err) == http.StatusPreconditionFailed
}

// Classify puts err into one class: an error already classified keeps its
// class; otherwise by code and status, in the order
// throttled, not found, missing subscription or resource group (invalid
// input), access denied, dependency, invalid input (400),
// server error (5xx), other client errors (4xx). An error without an Azure
// answer (connection refused, timeout) is a server error; a cancelled
// context a client error (the caller gave up).
func Classify(err error) cloud.Class {
	if err == nil {
		return cloud.ClassNone
	}
	if ce, ok := cloud.AsError(err); ok {
		return ce.Class
	}
	switch {
	case IsThrottled(err):
		return cloud.ClassThrottled
	case IsNotFound(err):
		return cloud.ClassNotFound
	case IsScopeNotFound(err):
		return cloud.ClassInvalidInput
	case IsAccessDenied(err):
		return cloud.ClassAccessDenied
	case IsDependency(err):
		return cloud.ClassDependency
	}
	return cloud.ClassOfStatus(statusCode(err), err)
}

// RetryAfter is the wait Azure asked for (Retry-After in seconds or as an
// HTTP date, or retry-after-ms / x-ms-retry-after-ms), zero when none.
func RetryAfter(err error) time.Duration {
	re, ok := ResponseError(err)
	if !ok || re.RawResponse == nil {
		return 0
	}
	return retryAfterHeader(re.RawResponse.Header, time.Now())
}

func retryAfterHeader(h http.Header, now time.Time) time.Duration {
	for _, name := range []string{"retry-after-ms", "x-ms-retry-after-ms"} {
		if v := h.Get(name); v != "" {
			if ms, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && ms > 0 {
				return time.Duration(ms) * time.Millisecond
			}
		}
	}
	return cloud.RetryAfter(h.Get("Retry-After"), now)
}

// armMessage is ARM's own message from the error body, "" when the body is
// not ARM's error JSON.
func armMessage(err error) string {
	re, ok := ResponseError(err)
	if !ok || re.RawResponse == nil {
		return ""
	}
	body, readErr := runtime.Payload(re.RawResponse)
	if readErr != nil || len(body) == 0 {
		return ""
	}
	var envelope struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &envelope) != nil {
		return ""
	}
	if envelope.Error.Message != "" {
		return envelope.Error.Message
	}
	return envelope.Message
}

// Wrap classifies an Azure error and says what hcplink was doing: the one
// way an Azure error leaves a provider. nil stays nil; an error already
// classified keeps its class and gains nothing.
func Wrap(doing string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := cloud.AsError(err); ok {
		return err
	}
	class := Classify(err)
	var retryAfter time.Duration
	if class == cloud.ClassThrottled {
		retryAfter = RetryAfter(err)
	}
	return &cloud.Error{Doing: doing, Class: class, Code: ErrorCode(err), Message: ErrorMessage(err), RetryAfter: retryAfter, Err: err}
}
