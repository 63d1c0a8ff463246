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
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// Apply wraps cfg's HTTP client (the SDK's default when none is set).
func Apply(cfg *aws.Config) {
	next := cfg.HTTPClient
	if next == nil {
		next = awshttp.NewBuildableClient()
	}
	if _, done := next.(client); done {
		return
	}
	cfg.HTTPClient = client{next: next}
}

type client struct{ next aws.HTTPClient }

// bodyWithoutWriteTo exposes only Read and Close of a request body.
type bodyWithoutWriteTo struct{ io.ReadCloser }

func (c client) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = bodyWithoutWriteTo{r.Body}
	}
	return c.next.Do(r)
}
