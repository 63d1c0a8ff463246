package aws

import (
	"context"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go/middleware"
)

const lastSuccessMiddlewareID = "hcplink/LastSuccess"

// LastSuccess remembers when a call made with a configuration last
// succeeded. AWS answered it, so the credentials were accepted then: a
// credentials check need not ask STS while calls keep succeeding.
//
// The zero value is ready to use and safe for concurrent use.
type LastSuccess struct {
	// Now tells the time; nil is the wall clock.
	Now func() time.Time

	mu sync.Mutex
	at time.Time
}

// Observe adds a middleware to cfg that records every operation the
// clients built from cfg complete without error (after retries). Observe a
// config before building clients from it.
func (l *LastSuccess) Observe(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc(lastSuccessMiddlewareID,
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				if err == nil {
					l.record()
				}
				return out, md, err
			}), middleware.Before)
	})
}

func (l *LastSuccess) record() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.at = l.now()
}

// Within reports whether a call succeeded less than d ago.
func (l *LastSuccess) Within(d time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.at.IsZero() && l.now().Sub(l.at) < d
}

func (l *LastSuccess) now() time.Time {
	if l.Now == nil {
		return time.Now()
	}
	return l.Now()
}
