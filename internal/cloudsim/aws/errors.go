package aws

import (
	"fmt"
	"net/http"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// APIError is an AWS error as it goes on the wire: HTTP status, code, message.
type APIError struct {
	Status  int
	Code    string
	Message string
	// Messages carries Route 53's InvalidChangeBatch list of problems.
	Messages []string
}

func (e *APIError) Error() string { return e.Code + ": " + e.Message }

// errBadRequest builds the most common kind of error: a 400 with a code.
func errBadRequest(code, format string, args ...any) *APIError {
	return &APIError{Status: http.StatusBadRequest, Code: code, Message: fmt.Sprintf(format, args...)}
}

// errNotFound builds a not-found error; EC2 and the query services answer 400,
// Route 53 answers 404 (its handlers set Status themselves).
func errNotFound(code, format string, args ...any) *APIError {
	return errBadRequest(code, format, args...)
}

// errMissingParameter is the error every query service returns for a
// required parameter left out.
func errMissingParameter(name string) *APIError {
	return errBadRequest("MissingParameter", "The request must contain the parameter %s", name)
}

// throttlingCodes are the codes AWS uses when it throttles a caller.
var throttlingCodes = map[string]bool{
	"Throttling": true, "ThrottlingException": true, "RequestLimitExceeded": true,
	"TooManyRequestsException": true, "PriorRequestNotComplete": true,
}

// IsThrottlingCode reports whether code is one of AWS's throttling codes.
func IsThrottlingCode(code string) bool { return throttlingCodes[code] }

// throttlingError is what each service answers when its bucket is empty.
func throttlingError(service string) *APIError {
	if service == "ec2" {
		return &APIError{Status: http.StatusServiceUnavailable, Code: "RequestLimitExceeded", Message: "Request limit exceeded."}
	}
	return &APIError{Status: http.StatusBadRequest, Code: "Throttling", Message: "Rate exceeded"}
}

// chaosError is a rate-drawn fault in the service's own words: EC2 says
// InternalError and Unavailable, the other services InternalFailure and
// ServiceUnavailable (the common errors of their API references).
func chaosError(service string, f sim.ChaosFault) *APIError {
	switch f {
	case sim.ChaosInternal:
		if service == "ec2" {
			return &APIError{Status: http.StatusInternalServerError, Code: "InternalError", Message: "An internal error has occurred."}
		}
		return &APIError{Status: http.StatusInternalServerError, Code: "InternalFailure", Message: "The request processing has failed because of an unknown error, exception or failure."}
	case sim.ChaosUnavailable:
		if service == "ec2" {
			return &APIError{Status: http.StatusServiceUnavailable, Code: "Unavailable", Message: "The server is overloaded and can't handle the request."}
		}
		return &APIError{Status: http.StatusServiceUnavailable, Code: "ServiceUnavailable", Message: "The request has failed due to a temporary failure of the server."}
	}
	return throttlingError(service)
}

func injectedError(rule *sim.ErrorRule) *APIError {
	status := rule.HTTPStatus
	if status == 0 {
		status = http.StatusBadRequest
		if rule.Code == "RequestLimitExceeded" || rule.Code == "ServiceUnavailable" || rule.Code == "Unavailable" {
			status = http.StatusServiceUnavailable
		} else if rule.Code == "InternalError" || rule.Code == "InternalFailure" {
			status = http.StatusInternalServerError
		}
	}
	msg := rule.Message
	if msg == "" {
		msg = "Injected by cloudsim: " + rule.Code
	}
	return &APIError{Status: status, Code: rule.Code, Message: msg}
}
