package sim

import (
	"context"
	"math/rand"
	"sync"
	"time"
)

// Limit is a token bucket: Burst tokens at most, refilled at PerSecond.
type Limit struct {
	Burst     float64 `json:"burst"`
	PerSecond float64 `json:"perSecond"`
}

// ServiceLimits describes how one service throttles an account.
type ServiceLimits struct {
	// PerOperation gives every operation its own bucket (EC2's rule);
	// otherwise one bucket serves every call of the account (Route 53's).
	PerOperation bool  `json:"perOperation"`
	NonMutating  Limit `json:"nonMutating"`
	Mutating     Limit `json:"mutating"`
}

// Throttling is the throttling part of the fault configuration.
type Throttling struct {
	Enabled  bool                     `json:"enabled"`
	Services map[string]ServiceLimits `json:"services"` // by service: ec2, elasticloadbalancing, route53, iam, sts
}

// AWSDefaultThrottling returns the limits AWS publishes: EC2 throttles each
// API separately per account and region (non-mutating: bucket 100, refill
// 20/s; mutating: bucket 50, refill 5/s); Route 53 allows 5 requests per
// second per account. ELBv2, IAM and STS publish no exact figures; the values
// here are in the range their documentation and users report.
func AWSDefaultThrottling() Throttling {
	return Throttling{
		Enabled: true,
		Services: map[string]ServiceLimits{
			"ec2":                  {PerOperation: true, NonMutating: Limit{Burst: 100, PerSecond: 20}, Mutating: Limit{Burst: 50, PerSecond: 5}},
			"elasticloadbalancing": {PerOperation: true, NonMutating: Limit{Burst: 40, PerSecond: 10}, Mutating: Limit{Burst: 20, PerSecond: 5}},
			"route53":              {NonMutating: Limit{Burst: 5, PerSecond: 5}, Mutating: Limit{Burst: 5, PerSecond: 5}},
			"iam":                  {NonMutating: Limit{Burst: 20, PerSecond: 10}, Mutating: Limit{Burst: 10, PerSecond: 5}},
			"sts":                  {NonMutating: Limit{Burst: 100, PerSecond: 50}, Mutating: Limit{Burst: 100, PerSecond: 50}},
		},
	}
}

// ErrorRule makes matching calls fail with a chosen AWS error. Empty match
// fields match anything.
type ErrorRule struct {
	Service    string `json:"service,omitempty"`
	Operation  string `json:"operation,omitempty"`
	Account    string `json:"account,omitempty"`
	Code       string `json:"code"`
	Message    string `json:"message,omitempty"`
	HTTPStatus int    `json:"httpStatus,omitempty"`
	// Nth fires on the Nth matching call (1-based) only. Zero means use Rate.
	Nth int `json:"nth,omitempty"`
	// Rate is the probability (0..1) that a matching call fails.
	Rate float64 `json:"rate,omitempty"`
	// For limits the rule to a period starting when the faults are set.
	For Duration `json:"for,omitempty"`
}

// LatencyRule delays matching calls before they are answered.
type LatencyRule struct {
	Service   string   `json:"service,omitempty"`
	Operation string   `json:"operation,omitempty"`
	Account   string   `json:"account,omitempty"`
	Delay     Duration `json:"delay"`
}

// FaultConfig is everything that makes the cloud misbehave on purpose.
type FaultConfig struct {
	Throttling Throttling    `json:"throttling"`
	Errors     []ErrorRule   `json:"errors,omitempty"`
	Latency    []LatencyRule `json:"latency,omitempty"`
	// Chaos is background misbehaviour at rates (the soak's).
	Chaos *Chaos `json:"chaos,omitempty"`
	// Seed makes rate-based errors and chaos repeatable.
	Seed int64 `json:"seed,omitempty"`
}

// Call identifies one incoming request for fault decisions.
type Call struct {
	Account string
	Region  string // empty for global services (IAM, Route 53)
	Key     CallKey
}

// Decision is what the faults say about one call.
type Decision struct {
	Latency   time.Duration
	Throttled bool
	Error     *ErrorRule // non-nil: fail the call with this error
	// Chaos, when set, is the fault the cloud answers in its own dialect.
	Chaos ChaosFault
}

// Faults decides, call by call, whether to delay, throttle or fail it.
type Faults struct {
	mu      sync.Mutex
	clock   Clock
	cfg     FaultConfig
	setAt   time.Time
	rng     *rand.Rand
	buckets map[bucketKey]*bucket
	matches map[int]int // error rule index → matching calls seen
}

type bucketKey struct {
	account, region, service, operation string
	mutating                            bool
}

type bucket struct {
	tokens float64
	last   time.Time
}

// NewFaults returns fault injection with nothing enabled.
func NewFaults(clock Clock) *Faults {
	f := &Faults{clock: clock}
	f.Set(FaultConfig{})
	return f
}

// Set replaces the configuration and starts every bucket and counter afresh.
func (f *Faults) Set(cfg FaultConfig) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cfg = cfg
	f.setAt = f.clock.Now()
	f.rng = rand.New(rand.NewSource(cfg.Seed))
	f.buckets = map[bucketKey]*bucket{}
	f.matches = map[int]int{}
}

// Get returns the configuration in force.
func (f *Faults) Get() FaultConfig {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cfg
}

// Decide rules on one call. Injected errors are decided before throttling so
// that a test's Nth-call rule counts every call it names.
func (f *Faults) Decide(c Call) Decision {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	var d Decision
	for _, l := range f.cfg.Latency {
		if matches(l.Service, l.Operation, l.Account, c) {
			d.Latency += l.Delay.D()
		}
	}
	for i := range f.cfg.Errors {
		rule := &f.cfg.Errors[i]
		if !matches(rule.Service, rule.Operation, rule.Account, c) {
			continue
		}
		if rule.For > 0 && now.Sub(f.setAt) > rule.For.D() {
			continue
		}
		f.matches[i]++
		if (rule.Nth > 0 && f.matches[i] == rule.Nth) || (rule.Nth == 0 && rule.Rate > 0 && f.rng.Float64() < rule.Rate) {
			copied := *rule
			d.Error = &copied
			return d
		}
	}
	if d.Chaos = f.chaosFault(); d.Chaos != NoChaos {
		return d
	}
	if f.cfg.Throttling.Enabled {
		d.Throttled = !f.take(c, now)
	}
	return d
}

func (f *Faults) take(c Call, now time.Time) bool {
	limits, ok := f.cfg.Throttling.Services[c.Key.Service]
	if !ok {
		return true
	}
	mutating := IsMutating(c.Key)
	limit := limits.NonMutating
	if mutating {
		limit = limits.Mutating
	}
	if limit.Burst <= 0 {
		return true
	}
	key := bucketKey{account: c.Account, region: c.Region, service: c.Key.Service, mutating: mutating}
	if limits.PerOperation {
		key.operation = c.Key.Operation
	} else {
		key.mutating = false // one bucket for the whole account
	}
	b := f.buckets[key]
	if b == nil {
		b = &bucket{tokens: limit.Burst, last: now}
		f.buckets[key] = b
	}
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = min(limit.Burst, b.tokens+elapsed*limit.PerSecond)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

func matches(service, operation, account string, c Call) bool {
	return (service == "" || service == c.Key.Service) &&
		(operation == "" || operation == c.Key.Operation) &&
		(account == "" || account == c.Account)
}

// SleepContext waits d, or less if ctx ends first; it reports whether the
// whole wait passed. Injected latency uses it, so a client that gives up
// frees the handler.
func SleepContext(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
