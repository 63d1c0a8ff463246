package outcome

import (
	"sync"
	"time"

	"github.com/hcplink/hcplink/internal/metrics"
)

// Tracker makes delays grow per object: while the same reason repeats for
// the same key (an object's UID), each delay doubles from the outcome's
// first one up to its cap; any other outcome, a success above all, starts
// over. Messages of outcomes that wait on a person or on trouble say when
// the next check is, so a person who fixed something knows when hcplink
// will notice; polls of a provisioning state grow quietly.
//
// The zero Tracker is ready to use; it is safe for concurrent use.
type Tracker struct {
	// Now tells the time for the "next check" wording; nil is the wall
	// clock.
	Now func() time.Time

	mu      sync.Mutex
	repeats map[string]repeat
}

type repeat struct {
	reason string
	count  int
	last   time.Duration // the delay given last time
}

// Resolve returns o with its delay grown for the count of times key has
// had o's reason in a row, and records it. An outcome that does not grow
// (Ready, Continue, a fixed wait) clears key. A call refused by a rate
// quota of synchronized windows waits for the next window, however often
// it was refused: the quota refills each window, so a longer wait only
// loses its calls (and clears key too). An outcome after progress starts
// its delay over.
func (t *Tracker) Resolve(key string, o Outcome) Outcome {
	if o.failed {
		metrics.ReconcileError(o.Reason)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if o.quotaWindow > 0 {
		delete(t.repeats, key)
		o.After = UntilRefill(t.now(), o.quotaWindow)
		return t.announced(o)
	}
	if !o.Grows() {
		delete(t.repeats, key)
		return o
	}
	if t.repeats == nil {
		t.repeats = map[string]repeat{}
	}
	r := t.repeats[key]
	if r.reason != o.Reason || o.progressed {
		r = repeat{reason: o.Reason}
	}
	o.After = grown(o.After, o.grow.cap, r.count, r.last)
	r.count, r.last = r.count+1, o.After
	t.repeats[key] = r
	if o.grow.announce {
		return t.announced(o)
	}
	return o
}

// announced is o with its message saying when the next check is.
func (t *Tracker) announced(o Outcome) Outcome {
	o.Message = bound(o.Message + " Next check at " + t.now().Add(o.After).UTC().Format("15:04:05") + " UTC.")
	return o
}

// Forget drops key (its object is gone).
func (t *Tracker) Forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.repeats, key)
}

// grown doubles first count times, and at least doubles the delay given
// last time (first is drawn afresh each pass, so doubling it alone could
// give a shorter delay than the previous one); never past cap, never below
// first, with a ±10 % jitter once it has grown.
func grown(first, cap time.Duration, count int, last time.Duration) time.Duration {
	d := first
	for i := 0; i < count && d < cap; i++ {
		d *= 2
	}
	if count > 0 {
		d = max(d, 2*last)
	}
	if d > cap {
		d = cap
	}
	if count > 0 {
		d = Between(d*9/10, d*11/10)
	}
	return max(d, first)
}

func (t *Tracker) now() time.Time {
	if t.Now == nil {
		return time.Now()
	}
	return t.Now()
}

// Retry is the delay of a check that runs outside any object's pass (an
// operator's own credentials check): it grows while the check keeps
// failing, by the Tracker's rule, from a first delay in Step's
// [Base, Base+Spread] up to its Cap; a success starts it over. The zero
// Step is DefaultPolicy.Credentials. Not safe for concurrent use: one
// loop owns it.
type Retry struct {
	Step Step

	count int
	last  time.Duration
}

// Next is the delay before the next try after one more failure.
func (r *Retry) Next() time.Duration {
	s := r.Step
	if s == (Step{}) {
		s = DefaultPolicy.Credentials
	}
	d := grown(Between(s.Base, s.Base+s.Spread), s.Cap, r.count, r.last)
	r.count, r.last = r.count+1, d
	return d
}

// Reset starts the delays over (the check succeeded).
func (r *Retry) Reset() { r.count, r.last = 0, 0 }
