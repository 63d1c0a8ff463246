// Package cloud holds what every cloud provider package (internal/cloud/aws,
// internal/cloud/azure) shares: the classes a cloud error falls into and
// the Error that carries one to the controller that decides what to do.
//
// A provider package classifies its SDK's typed errors by code (never by
// message text) and wraps them with what hcplink was doing; controllers and
// the shared outcome policy (internal/outcome) decide by Class alone, so
// that every cloud and both operators retry, back off and report alike.
package cloud

import (
	"errors"
	"time"
)

// Class is the kind of a cloud error. Every error falls into exactly one.
type Class string

const (
	// ClassNone: no error.
	ClassNone Class = ""
	// ClassThrottled: the cloud throttled the caller; back off with jitter
	// (and honour a Retry-After hint).
	ClassThrottled Class = "throttled"
	// ClassNotFound: the resource is absent; act on that.
	ClassNotFound Class = "not_found"
	// ClassAccessDenied: the credentials were refused or lack a permission;
	// only a person fixes it, so recheck rarely (growing).
	ClassAccessDenied Class = "access_denied"
	// ClassInvalidInput: a value hcplink sent (from the user's spec) is
	// wrong; only a person fixes it.
	ClassInvalidInput Class = "invalid_input"
	// ClassDependency: the request cannot proceed yet because of another
	// resource's state (DependencyViolation, an operation in progress);
	// retry after a delay that grows.
	ClassDependency Class = "dependency"
	// ClassClientError: the cloud refused the request for another reason;
	// usually permanent for the same input.
	ClassClientError Class = "client_error"
	// ClassServerError: the cloud failed, or no answer came (network error,
	// timeout); transient.
	ClassServerError Class = "server_error"
)

// Permanent reports whether only a person can clear errors of the class.
func (c Class) Permanent() bool {
	return c == ClassAccessDenied || c == ClassInvalidInput || c == ClassClientError
}

// Error is a classified cloud error: what hcplink was doing, the class and
// code the provider package read from the SDK's typed error, a sanitised
// message fit for a condition, and how long the cloud asked to wait.
type Error struct {
	// Doing says what failed, in words: "creating VPC endpoint".
	Doing string
	// Class decides the outcome.
	Class Class
	// Code is the cloud's error code ("" when it gave none).
	Code string
	// Message is the cloud's answer in plain words: service, operation,
	// code, an explanation; no request IDs, URLs, account numbers or raw
	// HTTP. Bounded.
	Message string
	// RetryAfter is the cloud's own hint (Azure's Retry-After); zero when
	// it gave none.
	RetryAfter time.Duration
	// QuotaWindow: a throttled call was refused by a rate quota that
	// counts calls in synchronized windows of this length and refills at
	// the start of the next (Google's per-minute quotas); zero when the
	// cloud says nothing of its windows.
	QuotaWindow time.Duration
	// Err is the SDK's error.
	Err error
}

func (e *Error) Error() string {
	if e.Doing == "" {
		return e.Message
	}
	return e.Doing + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// AsError returns the classified cloud error in err's chain.
func AsError(err error) (*Error, bool) {
	var ce *Error
	if errors.As(err, &ce) {
		return ce, true
	}
	return nil, false
}

// ClassOf returns the class of a classified cloud error in err's chain,
// ClassNone for nil, and ClassServerError for anything unclassified that
// is not nil (the caller could not tell; treat it as transient).
func ClassOf(err error) Class {
	if err == nil {
		return ClassNone
	}
	if ce, ok := AsError(err); ok {
		return ce.Class
	}
	return ClassServerError
}
