// Package awshttp holds the HTTP client hcplink gives the AWS SDK.
//
// It works around a known race between smithy-go and net/http
// (aws/aws-sdk-go-v2#1825, #2737): smithy closes a request's body as soon as
// the response headers arrive; if net/http's writer is still inside the
// body's WriteTo, the closed body answers io.EOF there, net/http takes that
// for a write error and closes the connection while the response is being
// read ("use of closed network connection"). The SDK's answer is to retry
// such errors, which hides them in production but not where retries are off
// (our tests) and costs a call each time. Hiding WriteTo makes net/http drain
// the body with Read, where io.EOF is the normal end.
package awshttp

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// DefaultResponseTimeout bounds one HTTP call to AWS, from sending the
// request to reading the whole response: AWS API answers come within
// seconds; the SDK retries a call that timed out.
const DefaultResponseTimeout = 30 * time.Second

// LoadClient is the HTTP client to load an SDK configuration with
// (config.WithHTTPClient; see internal/cloud/aws.LoadConfig), so that the
// clients the SDK builds while loading — the credential providers' STS
// client above all — have a response timeout too: the SDK's credential
// cache ignores the caller's cancellation while it retrieves, so a hung
// token exchange without one would block every call of the process until
// the server gives up. It is the SDK's own BuildableClient because loading
// adds a custom CA bundle (AWS_CA_BUNDLE) only to that type; Apply then
// wraps the loaded configuration's client as usual.
func LoadClient(timeout time.Duration) *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().WithTimeout(timeout)
}

// Apply wraps cfg's HTTP client (the SDK's default when none is set) with
// DefaultResponseTimeout.
func Apply(cfg *aws.Config) { ApplyTimeout(cfg, DefaultResponseTimeout) }

// ApplyTimeout wraps cfg's HTTP client with a response timeout of d. A
// client already wrapped is left as it is.
func ApplyTimeout(cfg *aws.Config, d time.Duration) {
	next := cfg.HTTPClient
	if next == nil {
		next = awshttp.NewBuildableClient()
	}
	if _, done := next.(client); done {
		return
	}
	cfg.HTTPClient = client{next: next, timeout: d}
}

type client struct {
	next    aws.HTTPClient
	timeout time.Duration
}

// bodyWithoutWriteTo exposes only Read and Close of a request body.
type bodyWithoutWriteTo struct{ io.ReadCloser }

func (c client) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = bodyWithoutWriteTo{r.Body}
	}
	if c.timeout <= 0 {
		return c.next.Do(r)
	}
	ctx, cancel := context.WithTimeout(r.Context(), c.timeout)
	resp, err := c.next.Do(r.WithContext(ctx))
	if err != nil {
		cancel()
		return resp, err
	}
	// The deadline covers reading the body too; closing it releases the
	// timer.
	resp.Body = cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelOnClose ends the call's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
