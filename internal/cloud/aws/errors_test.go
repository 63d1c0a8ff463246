package aws

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/hcplink/hcplink/internal/cloud"
)

// apiError builds an error the way the SDK returns one: an operation error
// wrapping a response error wrapping the typed API error.
func apiError(status int, code string, fault smithy.ErrorFault) error {
	api := &smithy.GenericAPIError{Code: code, Message: "message text that must not matter", Fault: fault}
	resp := &awshttp.ResponseError{
		ResponseError: &smithyhttp.ResponseError{
			Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
			Err:      api,
		},
		RequestID: "req-1",
	}
	return &smithy.OperationError{ServiceID: "EC2", OperationName: "DescribeVpcEndpoints", Err: resp}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name                               string
		err                                error
		code                               string
		class                              ErrorClass
		throttling, notFound, accessDenied bool
		serverError                        bool
		outcome                            string
	}{
		{name: "nil", err: nil, class: ClassNone, outcome: OutcomeSuccess},
		{name: "EC2 throttling on 503", err: apiError(503, "RequestLimitExceeded", smithy.FaultClient), code: "RequestLimitExceeded", class: ClassThrottled, throttling: true, outcome: OutcomeThrottled},
		{name: "query throttling", err: apiError(400, "Throttling", smithy.FaultClient), code: "Throttling", class: ClassThrottled, throttling: true, outcome: OutcomeThrottled},
		{name: "Route 53 prior request", err: apiError(400, "PriorRequestNotComplete", smithy.FaultClient), code: "PriorRequestNotComplete", class: ClassThrottled, throttling: true, outcome: OutcomeThrottled},
		{name: "TooManyRequestsException", err: apiError(429, "TooManyRequestsException", smithy.FaultClient), code: "TooManyRequestsException", class: ClassThrottled, throttling: true, outcome: OutcomeThrottled},
		{name: "EC2 dotted not found", err: apiError(400, "InvalidVpcEndpointId.NotFound", smithy.FaultClient), code: "InvalidVpcEndpointId.NotFound", class: ClassNotFound, notFound: true, outcome: OutcomeNotFound},
		{name: "EC2 security group not found", err: apiError(400, "InvalidGroup.NotFound", smithy.FaultClient), code: "InvalidGroup.NotFound", class: ClassNotFound, notFound: true, outcome: OutcomeNotFound},
		{name: "Route 53 zone not found", err: apiError(404, "NoSuchHostedZone", smithy.FaultClient), code: "NoSuchHostedZone", class: ClassNotFound, notFound: true, outcome: OutcomeNotFound},
		{name: "ELBv2 load balancer not found", err: apiError(400, "LoadBalancerNotFound", smithy.FaultClient), code: "LoadBalancerNotFound", class: ClassNotFound, notFound: true, outcome: OutcomeNotFound},
		{name: "IAM no such entity", err: apiError(404, "NoSuchEntity", smithy.FaultClient), code: "NoSuchEntity", class: ClassNotFound, notFound: true, outcome: OutcomeNotFound},
		{name: "EC2 unauthorized", err: apiError(403, "UnauthorizedOperation", smithy.FaultClient), code: "UnauthorizedOperation", class: ClassAccessDenied, accessDenied: true, outcome: OutcomeClientError},
		{name: "STS unknown key", err: apiError(403, "InvalidClientTokenId", smithy.FaultClient), code: "InvalidClientTokenId", class: ClassAccessDenied, accessDenied: true, outcome: OutcomeClientError},
		{name: "AccessDenied", err: apiError(403, "AccessDenied", smithy.FaultClient), code: "AccessDenied", class: ClassAccessDenied, accessDenied: true, outcome: OutcomeClientError},
		{name: "expired token", err: apiError(400, "ExpiredToken", smithy.FaultClient), code: "ExpiredToken", class: ClassAccessDenied, accessDenied: true, outcome: OutcomeClientError},
		{name: "invalid parameter", err: apiError(400, "InvalidParameter", smithy.FaultClient), code: "InvalidParameter", class: ClassInvalidInput, outcome: OutcomeClientError},
		{name: "malformed subnet", err: apiError(400, "InvalidSubnetID.Malformed", smithy.FaultClient), code: "InvalidSubnetID.Malformed", class: ClassInvalidInput, outcome: OutcomeClientError},
		{name: "dependency violation", err: apiError(400, "DependencyViolation", smithy.FaultClient), code: "DependencyViolation", class: ClassDependency, outcome: OutcomeClientError},
		{name: "existing connections", err: apiError(400, "ExistingVpcEndpointConnections", smithy.FaultClient), code: "ExistingVpcEndpointConnections", class: ClassDependency, outcome: OutcomeClientError},
		{name: "other refusal", err: apiError(400, "VpcEndpointLimitExceeded", smithy.FaultClient), code: "VpcEndpointLimitExceeded", class: ClassClientError, outcome: OutcomeClientError},
		{name: "internal error on 500", err: apiError(500, "InternalError", smithy.FaultServer), code: "InternalError", class: ClassServerError, serverError: true, outcome: OutcomeServerError},
		{name: "unavailable on 503", err: apiError(503, "ServiceUnavailable", smithy.FaultServer), code: "ServiceUnavailable", class: ClassServerError, serverError: true, outcome: OutcomeServerError},
		{name: "server fault without HTTP response", err: &smithy.GenericAPIError{Code: "InternalFailure", Fault: smithy.FaultServer}, code: "InternalFailure", class: ClassServerError, serverError: true, outcome: OutcomeServerError},
		{name: "client fault without HTTP response", err: &smithy.GenericAPIError{Code: "ValidationError", Fault: smithy.FaultClient}, code: "ValidationError", class: ClassInvalidInput, outcome: OutcomeClientError},
		{name: "wrapped by us", err: fmt.Errorf("describing endpoints: %w", apiError(400, "InvalidVpcEndpointId.NotFound", smithy.FaultClient)), code: "InvalidVpcEndpointId.NotFound", class: ClassNotFound, notFound: true, outcome: OutcomeNotFound},
		{name: "network error", err: &smithy.OperationError{ServiceID: "STS", OperationName: "GetCallerIdentity", Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}, class: ClassServerError, serverError: true, outcome: OutcomeServerError},
		{name: "request never sent", err: &smithy.OperationError{ServiceID: "STS", OperationName: "GetCallerIdentity", Err: &awshttp.ResponseError{
			ResponseError: &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{}}, Err: &smithyhttp.RequestSendError{Err: errors.New("connection refused")}},
		}}, class: ClassServerError, serverError: true, outcome: OutcomeServerError},
		{name: "cancelled", err: fmt.Errorf("calling: %w", context.Canceled), class: ClassClientError, outcome: OutcomeClientError},
		// A message that talks about throttling decides nothing: codes do.
		{name: "message text ignored", err: &smithy.GenericAPIError{Code: "InvalidParameterValue", Message: "Throttling NotFound AccessDenied"}, code: "InvalidParameterValue", class: ClassInvalidInput, outcome: OutcomeClientError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ErrorCode(tt.err); got != tt.code {
				t.Errorf("ErrorCode = %q, want %q", got, tt.code)
			}
			if got := Classify(tt.err); got != tt.class {
				t.Errorf("Classify = %q, want %q", got, tt.class)
			}
			if got := IsThrottling(tt.err); got != tt.throttling {
				t.Errorf("IsThrottling = %v, want %v", got, tt.throttling)
			}
			if got := IsNotFound(tt.err); got != tt.notFound {
				t.Errorf("IsNotFound = %v, want %v", got, tt.notFound)
			}
			if got := IsAccessDenied(tt.err); got != tt.accessDenied {
				t.Errorf("IsAccessDenied = %v, want %v", got, tt.accessDenied)
			}
			if got := IsServerError(tt.err); got != tt.serverError {
				t.Errorf("IsServerError = %v, want %v", got, tt.serverError)
			}
			if got := Outcome(tt.err); got != tt.outcome {
				t.Errorf("Outcome = %q, want %q", got, tt.outcome)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	if Wrap("doing", nil) != nil {
		t.Fatal("Wrap(nil) must be nil")
	}
	err := Wrap("creating VPC endpoint", apiError(400, "DependencyViolation", smithy.FaultClient))
	ce, ok := cloud.AsError(err)
	if !ok {
		t.Fatalf("Wrap returned %T, want *cloud.Error", err)
	}
	if ce.Class != cloud.ClassDependency || ce.Code != "DependencyViolation" || ce.Doing != "creating VPC endpoint" {
		t.Errorf("got %+v", ce)
	}
	if strings.Contains(ce.Error(), "req-1") {
		t.Errorf("the message carries the request ID: %q", ce.Error())
	}
	if again := Wrap("other", err); again != err {
		t.Errorf("wrapping twice changed the error: %v", again)
	}
	if ErrorCode(err) != "DependencyViolation" {
		t.Errorf("ErrorCode through the wrapper = %q", ErrorCode(err))
	}
}
