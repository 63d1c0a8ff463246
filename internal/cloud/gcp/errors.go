package gcp

import (
	"errors"
	"net/http"
	"regexp"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"

	"github.com/hcplink/hcplink/internal/cloud"
)

// Google's error reasons (the "reason" of each item of the error envelope,
// https://cloud.google.com/compute/docs/troubleshooting/troubleshoot-api-errors
// and https://cloud.google.com/apis/design/errors) that callers and tests name.
const (
	ReasonNotFound              = "notFound"
	ReasonAlreadyExists         = "alreadyExists"
	ReasonRateLimitExceeded     = "rateLimitExceeded"
	ReasonUserRateLimitExceeded = "userRateLimitExceeded"
	ReasonQuotaExceeded         = "quotaExceeded"
	ReasonForbidden             = "forbidden"
	ReasonInsufficientPerms     = "insufficientPermissions"
	ReasonResourceInUse         = "resourceInUseByAnotherResource"
	ReasonResourceNotReady      = "resourceNotReady"
	ReasonConditionNotMet       = "conditionNotMet"
	ReasonContainerNotEmpty     = "containerNotEmpty"
	ReasonInvalid               = "invalid"
	ReasonRequired              = "required"
	ReasonBackendError          = "backendError"
)

// throttledReasons are rate quotas: Compute Engine answers 403
// rateLimitExceeded per project (https://cloud.google.com/compute/api-quota),
// other APIs 429 or 403 userRateLimitExceeded.
var throttledReasons = map[string]bool{
	ReasonRateLimitExceeded:     true,
	ReasonUserRateLimitExceeded: true,
}

// accessDeniedReasons are refused credentials or a missing IAM permission.
var accessDeniedReasons = map[string]bool{
	ReasonForbidden:         true,
	ReasonInsufficientPerms: true,
	"accessNotConfigured":   true, // the API is not enabled in the project: a person enables it
	"authError":             true,
	"required_permission":   true,
}

// dependencyReasons say the request must wait for another resource or a
// newer read: something still uses the resource, it is not ready, or the
// fingerprint sent is stale.
var dependencyReasons = map[string]bool{
	ReasonAlreadyExists:     true,
	ReasonResourceInUse:     true,
	ReasonResourceNotReady:  true,
	ReasonConditionNotMet:   true,
	ReasonContainerNotEmpty: true,
	"aborted":               true,
}

// Compute Engine operation error codes
// (https://cloud.google.com/compute/docs/reference/rest/v1/regionOperations:
// error.errors[].code) that decide a class.
var operationCodeClasses = map[string]cloud.Class{
	"RESOURCE_NOT_FOUND":                  cloud.ClassNotFound,
	"RESOURCE_ALREADY_EXISTS":             cloud.ClassDependency,
	"RESOURCE_IN_USE_BY_ANOTHER_RESOURCE": cloud.ClassDependency,
	"RESOURCE_NOT_READY":                  cloud.ClassDependency,
	"QUOTA_EXCEEDED":                      cloud.ClassClientError,
	"IP_SPACE_EXHAUSTED":                  cloud.ClassClientError,
	"INVALID_USAGE":                       cloud.ClassInvalidInput,
	"INVALID_FIELD_VALUE":                 cloud.ClassInvalidInput,
	"REQUIRED_FIELD_MISSING":              cloud.ClassInvalidInput,
	"PERMISSIONS_ERROR":                   cloud.ClassAccessDenied,
	"RATE_LIMIT_EXCEEDED":                 cloud.ClassThrottled,
}

// OperationError is a Compute Engine operation that finished (DONE) with an
// error: the change it stood for was not made.
type OperationError struct {
	Operation string // the operation's name
	Code      string // the first error's code (RESOURCE_IN_USE_BY_ANOTHER_RESOURCE, ...)
	Message   string
	// HTTPStatus is the status the operation's error would have had.
	HTTPStatus int
}

func (e *OperationError) Error() string {
	return "operation " + e.Operation + " failed: " + e.Code + ": " + e.Message
}

// APIError returns Google's typed error in err's chain.
func APIError(err error) (*googleapi.Error, bool) {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge, true
	}
	return nil, false
}

// Reason is the reason of Google's error ("notFound", "rateLimitExceeded",
// ...), the code of a failed operation, the OAuth error of a refused sign-in
// ("invalid_grant"), or "" when err carries none.
func Reason(err error) string {
	if ge, ok := APIError(err); ok {
		for _, item := range ge.Errors {
			if item.Reason != "" {
				return item.Reason
			}
		}
		return ""
	}
	var oe *OperationError
	if errors.As(err, &oe) {
		return oe.Code
	}
	var se *SignInError
	if errors.As(err, &se) {
		return se.Code
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return ""
}

func statusCode(err error) int {
	if ge, ok := APIError(err); ok {
		return ge.Code
	}
	var oe *OperationError
	if errors.As(err, &oe) {
		return oe.HTTPStatus
	}
	var se *SignInError
	if errors.As(err, &se) {
		return se.Status
	}
	return 0
}

// IsNotFound reports whether the resource addressed does not exist.
func IsNotFound(err error) bool {
	if code := operationCode(err); code != "" {
		return code == "RESOURCE_NOT_FOUND"
	}
	return statusCode(err) == http.StatusNotFound
}

// IsAlreadyExists reports whether a resource of the name exists already
// (an insert that an earlier pass made, or a name taken).
func IsAlreadyExists(err error) bool {
	return Reason(err) == ReasonAlreadyExists || operationCode(err) == "RESOURCE_ALREADY_EXISTS"
}

// IsThrottled reports whether a rate quota refused the request.
func IsThrottled(err error) bool {
	return throttledReasons[Reason(err)] || operationCode(err) == "RATE_LIMIT_EXCEEDED" ||
		(statusCode(err) == http.StatusTooManyRequests && operationCode(err) == "")
}

// IsQuotaExceeded reports whether a resource quota (forwarding rules,
// addresses, service attachments per project or network) refused the
// request: only a person raises it.
func IsQuotaExceeded(err error) bool {
	return Reason(err) == ReasonQuotaExceeded || operationCode(err) == "QUOTA_EXCEEDED"
}

// IsAccessDenied reports whether the credentials were refused or lack a
// permission.
func IsAccessDenied(err error) bool {
	if accessDeniedReasons[Reason(err)] || operationCode(err) == "PERMISSIONS_ERROR" {
		return true
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return true // the token endpoint refused the sign-in
	}
	var se *SignInError
	if errors.As(err, &se) && se.Status >= http.StatusBadRequest && se.Status < http.StatusInternalServerError && se.Status != http.StatusTooManyRequests {
		return true // STS or IAM Credentials refused the sign-in: only a person fixes it
	}
	s := statusCode(err)
	return (s == http.StatusForbidden || s == http.StatusUnauthorized) && !IsThrottled(err) && !IsQuotaExceeded(err)
}

// IsDependency reports whether the request must wait: the name is taken by
// an insert in flight, the resource is in use or not ready, or the
// fingerprint was stale.
func IsDependency(err error) bool {
	if operationCodeClasses[operationCode(err)] == cloud.ClassDependency {
		return true
	}
	s := statusCode(err)
	return dependencyReasons[Reason(err)] || s == http.StatusConflict || s == http.StatusPreconditionFailed
}

func operationCode(err error) string {
	var oe *OperationError
	if errors.As(err, &oe) {
		return oe.Code
	}
	return ""
}

// Classify puts err into one class: an error already classified keeps its
// class; otherwise by reason and status, in the order throttled, not found,
// quota exceeded (a person raises it), access denied, dependency, invalid
// input (400), server error (5xx), other client errors (4xx). An error
// without Google's answer (connection refused, timeout) is a server error;
// a cancelled context a client error (the caller gave up).
func Classify(err error) cloud.Class {
	if err == nil {
		return cloud.ClassNone
	}
	if ce, ok := cloud.AsError(err); ok {
		return ce.Class
	}
	if class, ok := operationCodeClasses[operationCode(err)]; ok {
		return class
	}
	switch {
	case IsThrottled(err):
		return cloud.ClassThrottled
	case IsNotFound(err):
		return cloud.ClassNotFound
	case IsQuotaExceeded(err):
		return cloud.ClassClientError
	case IsAccessDenied(err):
		return cloud.ClassAccessDenied
	case IsDependency(err):
		return cloud.ClassDependency
	}
	return cloud.ClassOfStatus(statusCode(err), err)
}

// RetryAfter is the wait Google asked for in a Retry-After header (seconds
// or an HTTP date), zero when none. Compute Engine's rate quotas refill per
// minute and seldom say so; QuotaWindow covers that.
func RetryAfter(err error) time.Duration {
	ge, ok := APIError(err)
	if !ok || ge.Header == nil {
		return 0
	}
	return cloud.RetryAfter(ge.Header.Get("Retry-After"), time.Now())
}

// permissionPattern finds the permission Google names in a denial:
// "Required 'compute.serviceAttachments.create' permission for '...'" and
// IAM's "Permission 'iam.serviceAccounts.getAccessToken' denied on ...".
var permissionPattern = regexp.MustCompile(`(?:Required|Permission) '([a-z]+(?:\.[A-Za-z]+)+)'`)

// MissingPermission is the IAM permission a denial names ("" when none).
func MissingPermission(err error) string {
	var text string
	if ge, ok := APIError(err); ok {
		text = ge.Message
		for _, item := range ge.Errors {
			text += " " + item.Message
		}
	} else if se := (*SignInError)(nil); errors.As(err, &se) {
		text = se.Message
	} else if err != nil {
		text = err.Error()
	}
	if m := permissionPattern.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// Wrap classifies a Google error and says what hcplink was doing: the one
// way a Google error leaves a provider. nil stays nil; an error already
// classified keeps its class and gains nothing.
func Wrap(doing string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := cloud.AsError(err); ok {
		return err
	}
	class := Classify(err)
	var retryAfter, window time.Duration
	if class == cloud.ClassThrottled {
		retryAfter, window = RetryAfter(err), QuotaWindow(err)
	}
	return &cloud.Error{Doing: doing, Class: class, Code: Reason(err), Message: ErrorMessage(err), RetryAfter: retryAfter,
		QuotaWindow: window, Err: err}
}

// rateQuotaWindow is the window of Google's rate quotas. Compute Engine
// counts each quota group per project per minute and refills it "at the
// start of the next synchronized interval": a limit reached at 10:00:15
// refills at 10:01:00 (https://cloud.google.com/compute/api-quota). Cloud
// DNS counts per IAM user "within a one-minute time period"
// (https://cloud.google.com/dns/quotas).
const rateQuotaWindow = time.Minute

// QuotaWindow is the window of the rate quota that refused err (Google's
// rateLimitExceeded and userRateLimitExceeded answers, and an operation's
// RATE_LIMIT_EXCEEDED), zero for any other answer, a 429 without a reason
// above all: nothing says how that one refills.
func QuotaWindow(err error) time.Duration {
	if throttledReasons[Reason(err)] || operationCode(err) == "RATE_LIMIT_EXCEEDED" {
		return rateQuotaWindow
	}
	return 0
}
