package azure

import (
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// ThrottlingService is the key of ARM's limits in sim.Throttling.Services:
// NonMutating is the read bucket, Mutating the write bucket and, with the
// same figures as Azure publishes, the delete bucket.
const ThrottlingService = "arm"

// globalFactor: besides each principal's buckets, a subscription has global
// buckets 15 times as large shared by every principal (Azure's published rule).
const globalFactor = 15

// DefaultThrottling returns ARM's published token buckets: reads 250 at 25
// per second, writes and deletes 200 at 10 per second, per subscription,
// per principal and per operation type.
func DefaultThrottling() sim.ServiceLimits {
	return sim.ServiceLimits{
		NonMutating: sim.Limit{Burst: 250, PerSecond: 25},
		Mutating:    sim.Limit{Burst: 200, PerSecond: 10},
	}
}

// armThrottle keeps ARM's buckets. It has its own lock: throttling is
// decided before the request takes the cloud's lock.
type armThrottle struct {
	mu      sync.Mutex
	limits  sim.ServiceLimits
	enabled bool
	buckets map[throttleKey]*tokenBucket
}

type throttleKey struct{ scope, principal, kind string }

type tokenBucket struct {
	tokens float64
	last   time.Time
}

func newARMThrottle() *armThrottle { return &armThrottle{buckets: map[throttleKey]*tokenBucket{}} }

// reset empties every bucket's history (they refill to full).
func (t *armThrottle) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buckets = map[throttleKey]*tokenBucket{}
}

// ResetThrottling starts every ARM bucket afresh; the control API calls it
// when the fault configuration changes.
func (c *Cloud) ResetThrottling() { c.throttle.reset() }

// takeToken takes one token from the caller's bucket and the subscription's
// global bucket. It returns the tokens left in the caller's bucket (-1 when
// throttling is off) or, when either is empty, ARM's 429.
func (c *Cloud) takeToken(sub, principal, kind string) (int, *Error) {
	cfg := c.faults.Get().Throttling
	limits, ok := cfg.Services[ThrottlingService]
	if !cfg.Enabled || !ok {
		return -1, nil
	}
	limit := limits.Mutating
	if kind == "reads" {
		limit = limits.NonMutating
	}
	if limit.Burst <= 0 {
		return -1, nil
	}
	scope := sub
	if scope == "" {
		scope = "tenant"
	}
	return c.throttle.take(c.now(), limits, limit, scope, principal, kind)
}

func (t *armThrottle) take(now time.Time, limits sim.ServiceLimits, limit sim.Limit, scope, principal, kind string) (int, *Error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if limits != t.limits || !t.enabled {
		t.limits, t.enabled, t.buckets = limits, true, map[throttleKey]*tokenBucket{}
	}
	own := t.bucket(throttleKey{scope, principal, kind}, limit, now)
	global := t.bucket(throttleKey{scope, "", kind}, scaled(limit, globalFactor), now)
	for _, pair := range []struct {
		b *tokenBucket
		l sim.Limit
	}{{own, limit}, {global, scaled(limit, globalFactor)}} {
		if pair.b.tokens < 1 {
			wait := time.Duration((1 - pair.b.tokens) / pair.l.PerSecond * float64(time.Second))
			return 0, throttledError(kind, wait)
		}
	}
	own.tokens--
	global.tokens--
	return int(math.Floor(own.tokens)), nil
}

func (t *armThrottle) bucket(key throttleKey, limit sim.Limit, now time.Time) *tokenBucket {
	b := t.buckets[key]
	if b == nil {
		b = &tokenBucket{tokens: limit.Burst, last: now}
		t.buckets[key] = b
	}
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(limit.Burst, b.tokens+elapsed*limit.PerSecond)
		b.last = now
	}
	return b
}

func scaled(l sim.Limit, f float64) sim.Limit {
	return sim.Limit{Burst: l.Burst * f, PerSecond: l.PerSecond * f}
}

// throttledError is ARM's 429 for an empty bucket, with Retry-After in
// whole seconds until a token is back.
func throttledError(kind string, wait time.Duration) *Error {
	opType := map[string]string{"reads": "Read", "writes": "Write", "deletes": "Delete"}[kind]
	return &Error{Status: http.StatusTooManyRequests, Code: "TooManyRequests",
		Message: "The request is being throttled as the limit has been reached for operation type - " + opType +
			". For more information, see - https://aka.ms/armthrottling",
		RetryAfter: max(wait, time.Second)}
}
