// Package sim holds what every emulated service shares: the clock that drives
// asynchronous states, the delays of those states, fault injection
// (throttling, errors, latency) and the per-operation call counters.
package sim

import (
	"sync"
	"time"
)

// Clock tells the emulator what time it is. Asynchronous states (an NLB
// provisioning, an endpoint pending) are computed from it lazily on every
// read, so a test can use a ManualClock and step time without sleeping.
type Clock interface {
	Now() time.Time
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns the current wall-clock time.
func (RealClock) Now() time.Time { return time.Now() }

// ManualClock only moves when told to.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a clock stopped at start.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's current time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
