package aws

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/hcplink/hcplink/internal/cloud"
)

// ErrorClass is the shared class of a cloud error (internal/cloud); the
// names below keep this package's call sites short.
type ErrorClass = cloud.Class

const (
	ClassNone         = cloud.ClassNone
	ClassThrottled    = cloud.ClassThrottled
	ClassNotFound     = cloud.ClassNotFound
	ClassAccessDenied = cloud.ClassAccessDenied
	ClassInvalidInput = cloud.ClassInvalidInput
	ClassDependency   = cloud.ClassDependency
	ClassClientError  = cloud.ClassClientError
	ClassServerError  = cloud.ClassServerError
)

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
	"IncompleteSignature":                true,
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

// dependencyCodes say the request must wait for another resource's state:
// a security group still used by an endpoint's interfaces, a service that
// still has connections, an operation already under way.
var dependencyCodes = map[string]bool{
	CodeDependencyViolation:            true,
	CodeExistingVpcEndpointConnections: true,
	"IncorrectState":                   true,
	"InvalidState":                     true,
	"ResourceInUse":                    true,
	"ResourceInUseException":           true,
	"ConcurrentModification":           true,
	CodeConflictingDomainExists:        true,
}

// invalidInputCodes say a value in the request is wrong, beyond the
// general rule that codes starting with "Invalid" do (see IsInvalidInput).
var invalidInputCodes = map[string]bool{
	"ValidationError":            true,
	"DuplicateSubnetsInSameZone": true,
	"InvalidInput":               true,
	"InvalidChangeBatch":         true,
	"MalformedPolicyDocument":    true,
	"MissingParameter":           true,
	"UnknownParameter":           true,
	"InvalidDomainName":          true,
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

// IsDependency reports whether the request must wait for another
// resource's state (DependencyViolation and the like).
func IsDependency(err error) bool {
	return dependencyCodes[ErrorCode(err)]
}

// IsInvalidInput reports whether a value in the request is wrong: a known
// validation code, or an "Invalid…" code that is not a not-found, an
// access-denied or a dependency code (InvalidParameterValue,
// InvalidSubnetID.Malformed, InvalidVpcID.Malformed…).
func IsInvalidInput(err error) bool {
	code := ErrorCode(err)
	if invalidInputCodes[code] {
		return true
	}
	return strings.HasPrefix(code, "Invalid") && !IsNotFound(err) && !IsAccessDenied(err) && !dependencyCodes[code] && !throttlingCodes[code]
}

// IsServerError reports whether AWS failed or no answer came (network
// error, timeout): a transient error worth retrying soon. Throttling is not
// a server error; see IsThrottling.
func IsServerError(err error) bool {
	return Classify(err) == ClassServerError
}

// Classify puts err into one class. The code decides first (throttling,
// not found, access denied, dependency, invalid input); then the fault the SDK reports or the HTTP
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
	case IsDependency(err):
		return ClassDependency
	case IsInvalidInput(err):
		return ClassInvalidInput
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

// Wrap classifies an AWS error and says what hcplink was doing when it
// happened: the one way an AWS error leaves a provider. nil stays nil; an
// error already wrapped keeps its class and gains nothing.
func Wrap(doing string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := cloud.AsError(err); ok {
		return err
	}
	return &cloud.Error{Doing: doing, Class: Classify(err), Code: ErrorCode(err), Message: ErrorMessage(err), Err: err}
}
