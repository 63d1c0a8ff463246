package devenv

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/aws/smithy-go/middleware"
)

// CallCounter counts the cloud calls one SDK configuration sends, each
// attempt (retries included) once, as cloudsim counts them. The benchmark
// uses it to tell the load-balancer stand-in's calls, made on behalf of the
// cloud provider, from the operator's in the same account.
type CallCounter struct {
	service string
	mu      sync.Mutex
	calls   map[string]int64
}

func newCallCounter(service string) *CallCounter {
	return &CallCounter{service: service, calls: map[string]int64{}}
}

// Snapshot returns the counts by "service:Operation", cloudsim's names.
func (c *CallCounter) Snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.calls))
	for k, v := range c.calls {
		out[k] = v
	}
	return out
}

// Reset forgets every count.
func (c *CallCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = map[string]int64{}
}

// instrument makes cfg count its calls; the finalize step runs once per
// attempt, after the retry middleware.
func (c *CallCounter) instrument(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("devenvCallCounter",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				c.record(middleware.GetOperationName(ctx))
				return next.HandleFinalize(ctx, in)
			}), middleware.After)
	})
}

func (c *CallCounter) record(operation string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[c.service+":"+operation]++
}
