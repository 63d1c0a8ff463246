package gcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// The sign-in's own errors (STS refusing the ServiceAccount token, IAM
// Credentials refusing the impersonation) reach hcplink from
// golang.org/x/oauth2 as untyped text. So that they are classified by
// status and code like every other Google answer, the sign-in's HTTP client
// records the last refusal it received, and the token source returns it as
// a SignInError.

// SignInError is a refused sign-in: the service that refused (sts,
// iamcredentials, oauth2), its HTTP status, its code (an OAuth error such
// as invalid_grant, or Google's reason such as forbidden) and message.
type SignInError struct {
	Service string
	Status  int
	Code    string
	Message string
	// Err is the error the credentials library returned.
	Err error
}

func (e *SignInError) Error() string {
	return fmt.Sprintf("signing in to Google Cloud: %s answered %d %s: %s", e.Service, e.Status, e.Code, e.Message)
}

func (e *SignInError) Unwrap() error { return e.Err }

// signInRecorder is the sign-in client's transport: it keeps the last
// refusal.
type signInRecorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	last *SignInError
}

func (r *signInRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil || resp.StatusCode < http.StatusBadRequest {
		return resp, err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	service, _ := RequestName(req.Method, req.URL.Host, req.URL.Path)
	refusal := &SignInError{Service: service, Status: resp.StatusCode}
	refusal.Code, refusal.Message = signInAnswer(body)
	r.mu.Lock()
	r.last = refusal
	r.mu.Unlock()
	return resp, nil
}

func (r *signInRecorder) take() *SignInError {
	r.mu.Lock()
	defer r.mu.Unlock()
	last := r.last
	r.last = nil
	return last
}

// signInAnswer reads an OAuth 2.0 error (RFC 6749 §5.2: error,
// error_description), as STS answers, or Google's envelope, as IAM
// Credentials does.
func signInAnswer(body []byte) (code, message string) {
	var answer struct {
		Error            json.RawMessage `json:"error"`
		ErrorDescription string          `json:"error_description"`
	}
	if json.Unmarshal(body, &answer) != nil {
		return "", ""
	}
	var oauthCode string
	if json.Unmarshal(answer.Error, &oauthCode) == nil {
		return oauthCode, answer.ErrorDescription
	}
	var envelope struct {
		Message string `json:"message"`
		Status  string `json:"status"`
		Errors  []struct {
			Reason string `json:"reason"`
		} `json:"errors"`
	}
	if json.Unmarshal(answer.Error, &envelope) != nil {
		return "", ""
	}
	code = envelope.Status
	if len(envelope.Errors) > 0 && envelope.Errors[0].Reason != "" {
		code = envelope.Errors[0].Reason
	}
	return code, envelope.Message
}

// signInTokens returns the recorded refusal when the credentials library
// fails to get a token.
type signInTokens struct {
	source   oauth2.TokenSource
	recorder *signInRecorder
	mu       sync.Mutex
}

func (s *signInTokens) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recorder.take()
	tok, err := s.source.Token()
	if err != nil {
		if refusal := s.recorder.take(); refusal != nil {
			refusal.Err = err
			return nil, refusal
		}
	}
	return tok, err
}

// boundedTransport gives each request at most timeout, reading the body
// included.
type boundedTransport struct {
	next    http.RoundTripper
	timeout time.Duration
}

func (t boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
