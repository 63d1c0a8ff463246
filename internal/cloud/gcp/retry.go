package gcp

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"time"
)

// The Google API clients hcplink uses (google.golang.org/api) try each call
// once: a 5xx or a reset connection fails the reconcile's whole pass, and
// under a fleet's steady background of such answers a pass of several calls
// fails often and the outcome policy's delays grow (the soak showed GCP
// clusters minutes from converging where the AWS and Azure SDKs, which
// retry within the call, were not). So, as Google asks of its clients, a
// call answered 500 or 503 (and 502, 504, or not at all) is sent again
// after at least a second, with exponential intervals plus randomness
// (https://cloud.google.com/service-usage/docs/troubleshooting: "1 second
// for 500 ... 1 second for 503"). A 429 is not: Google asks for 30 s at
// least, nor is Compute Engine's rate quota 403 rateLimitExceeded, whose
// quota refills at the start of the next minute
// (https://cloud.google.com/compute/api-quota): both are the outcome
// policy's waits, not a call's.
const (
	// callAttempts is how many times one call is sent at most.
	callAttempts = 3
	// retryFirstWait is the least wait before the second attempt; it
	// doubles for the next, each with up to half again of randomness.
	retryFirstWait = time.Second
)

// retryingTransport sends a call again when its answer says trying again
// soon may work. Each attempt goes through next (and is counted there).
type retryingTransport struct {
	next http.RoundTripper
	// wait is how long to wait before attempt n (from 2); nil: retryWait.
	wait func(n int, resp *http.Response) time.Duration
}

func (t retryingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	wait := t.wait
	if wait == nil {
		wait = retryWait
	}
	for attempt := 1; ; attempt++ {
		send := req
		if attempt > 1 {
			send = req.Clone(req.Context())
			if req.Body != nil && req.Body != http.NoBody {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				send.Body = body
			}
		}
		resp, err := t.next.RoundTrip(send)
		if attempt >= callAttempts || !worthRetrying(req, resp, err) {
			return resp, err
		}
		pause := wait(attempt+1, resp)
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			_ = resp.Body.Close()
		}
		if !sleepFor(req.Context(), pause) {
			return nil, req.Context().Err()
		}
	}
}

// worthRetrying: a failed (500, 502, 503, 504) answer, or
// no answer (a reset connection) unless the caller gave up. A call that got
// no answer may have been done: an insert sent again then finds its name
// taken, which hcplink's providers take as theirs (names are fixed), and a
// delete finds nothing. A body that cannot be sent again is not retried.
func worthRetrying(req *http.Request, resp *http.Response, err error) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	if err != nil {
		return req.Context().Err() == nil
	}
	switch resp.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryWait is retryFirstWait doubled per attempt after the second, plus
// up to half of it at random.
func retryWait(n int, _ *http.Response) time.Duration {
	least := retryFirstWait << (n - 2)
	return least + rand.N(least/2+1)
}

func sleepFor(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
