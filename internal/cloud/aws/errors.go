package aws

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Error classes. Every AWS error falls into exactly one; controllers decide
// what to do by class, never by message text.
type ErrorClass string

const (
	// ClassNone: no error.
	ClassNone ErrorClass = ""
	// ClassThrottled: AWS throttled the caller; back off with jitter.
	ClassThrottled ErrorClass = "throttled"
	// ClassNotFound: the resource is absent; act on that.
	ClassNotFound ErrorClass = "not_found"
	// ClassAccessDenied: the credentials were refused or lack a permission;
	// permanent until someone fixes IAM, so retry rarely.
	ClassAccessDenied ErrorClass = "access_denied"
	// ClassClientError: AWS refused the request (invalid parameter,
	// dependency, conflict); usually permanent for the same input.
	ClassClientError ErrorClass = "client_error"
	// ClassServerError: AWS failed, or the request never got an answer
	// (network error, timeout); transient.
	ClassServerError ErrorClass = "server_error"
)

// throttlingCodes are the codes AWS services answer when they throttle.
var throttlingCodes = map[string]bool{
	"Throttling":                             true,
	"ThrottlingException":                    true,
	"ThrottledException":                     true,
	"RequestThrottledException":              true,
	"RequestThrottled":                       true,
	"RequestLimitExceeded":                   true,
	"TooManyRequestsException":               true,
	"PriorRequestNotComplete":                true,
	"SlowDown":                               true,
	"EC2ThrottledException":                  true,
	"BandwidthLimitExceeded":                 true,
	"ProvisionedThroughputExceededException": true,
	"TransactionInProgressException":         true,
}

// notFoundCodes are the not-found codes that do not follow EC2's
// "<Thing>.NotFound" pattern.
var notFoundCodes = map[string]bool{
	"NotFound":                             true,
	"ResourceNotFoundException":            true,
	"NoSuchEntity":                         true, // IAM
	"NoSuchHostedZone":                     true, // Route 53
	"NoSuchHealthCheck":                    true,
	"LoadBalancerNotFound":                 true, // ELBv2
	"TargetGroupNotFound":                  true,
	"ListenerNotFound":                     true,
	"InvalidVpcEndpointId.NotFound":        true,
	"InvalidVpcEndpointServiceId.NotFound": true,
	"InvalidVpcEndpointService.NotFound":   true,
}

// accessDeniedCodes are the codes of refused credentials or missing
// permissions.
var accessDeniedCodes = map[string]bool{
	"AccessDenied":                       true,
	"AccessDeniedException":              true,
	"UnauthorizedOperation":              true, // EC2
	"AuthFailure":                        true, // EC2: credentials not valid
	"InvalidClientTokenId":               true, // STS, IAM: unknown access key
	"UnrecognizedClientException":        true,
	"SignatureDoesNotMatch":              true,
	"ExpiredToken":                       true,
	"ExpiredTokenException":              true,
	"RequestExpired":                     true,
	"InvalidIdentityToken":               true, // STS web identity
	"IDPRejectedClaim":                   true,
	"OptInRequired":                      true,
	"UnauthorizedAccess":                 true,
	"MissingAuthenticationToken":         true,
	"InvalidAccessKeyId":                 true,
	"NotAuthorized":                      true,
	"UnauthorizedException":              true,
	"AccessDeniedForDependencyException": true,
}

// ErrorCode returns the AWS error code of err ("InvalidVpcEndpointId.NotFound",
// "Throttling", ...) or "" when err carries none (nil, network errors).
func ErrorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

// IsThrottling reports whether AWS throttled the request.
func IsThrottling(err error) bool {
	return throttlingCodes[ErrorCode(err)]
}

// IsNotFound reports whether err says the resource does not exist: one of
// the known not-found codes or any EC2 "<Thing>.NotFound" code (for example
// InvalidGroup.NotFound, InvalidSubnetID.NotFound).
func IsNotFound(err error) bool {
	code := ErrorCode(err)
	return notFoundCodes[code] || strings.HasSuffix(code, ".NotFound")
}

// IsAccessDenied reports whether the credentials were refused or lack a
// permission.
func IsAccessDenied(err error) bool {
	return accessDeniedCodes[ErrorCode(err)]
}

// IsServerError reports whether AWS failed or no answer came (network
// error, timeout): a transient error worth retrying soon. Throttling is not
// a server error; see IsThrottling.
func IsServerError(err error) bool {
	return Classify(err) == ClassServerError
}

// Classify puts err into one class. The code decides first (throttling,
// not found, access denied); then the fault the SDK reports or the HTTP
// status (5xx: server error); an error without an AWS code or an HTTP answer
// (connection refused, timeout) is a server error. A cancelled context is a
// client error: the caller gave up.
func Classify(err error) ErrorClass {
	if err == nil {
		return ClassNone
	}
	switch {
	case IsThrottling(err):
		return ClassThrottled
	case IsNotFound(err):
		return ClassNotFound
	case IsAccessDenied(err):
		return ClassAccessDenied
	}
	var sendErr *smithyhttp.RequestSendError
	if errors.As(err, &sendErr) {
		return ClassServerError // no answer: connection refused, reset, DNS
	}
	var respErr *smithyhttp.ResponseError
	if errors.As(err, &respErr) && respErr.Response != nil && respErr.Response.Response != nil && respErr.HTTPStatusCode() > 0 {
		if respErr.HTTPStatusCode() >= http.StatusInternalServerError {
			return ClassServerError
		}
		return ClassClientError
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		if apiErr.ErrorFault() == smithy.FaultServer {
			return ClassServerError
		}
		return ClassClientError
	}
	if errors.Is(err, context.Canceled) {
		return ClassClientError
	}
	return ClassServerError
}
