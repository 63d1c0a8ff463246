// Package outcome is the one policy by which every hcplink controller, in
// both operators and for every cloud, turns what a phase found into a
// condition and a time to look again.
//
// A phase returns an Outcome: Continue (go on to the next phase), a wait
// with a reason (the cloud is provisioning, a person must act), Ready, or
// the outcome of an error. Cloud errors arrive classified (cloud.Error);
// their class alone picks the reason and the delay. Delays that wait on a
// person or on a failing cloud grow per object (Tracker): short at first,
// so that a fix is noticed quickly, then doubling up to a cap, jittered so
// that many clusters failing together do not retry together, and reset as
// soon as the object's pass succeeds.
package outcome

import (
	"math/rand/v2"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
)

// MaxMessageLength bounds a condition message: readable in kubectl, and
// never a dump.
const MaxMessageLength = 1024

// MaxErrorMessageLength bounds the message of an error outcome (what failed
// and the cloud's explanation), leaving room within a short paragraph for
// "Next check at …" and, on the HostedCluster, the object's name.
const MaxErrorMessageLength = 340

// Outcome is what one phase (or a whole pass) decided.
type Outcome struct {
	// Status, Reason and Message are the condition the outcome asks for;
	// an empty Reason means "nothing to say: go on".
	Status  metav1.ConditionStatus
	Reason  string
	Message string
	// After is when to look again; zero waits for an event.
	After time.Duration
	// Err is an unexpected (not cloud) error for controller-runtime, whose
	// own rate limiter then decides the retry.
	Err error
	// failed: the outcome of an error (FromError), counted in
	// hcplink_reconcile_errors_total when resolved.
	failed bool

	// grow: After is the first step of a delay that grows while the same
	// reason repeats for the same object.
	grow growth
	// quotaWindow: a rate quota of synchronized windows of this length
	// refused a call; the Tracker waits for the next window instead of
	// growing the delay.
	quotaWindow time.Duration
	// progressed: the pass changed something before it stopped; delays
	// that grew while nothing moved start over.
	progressed bool
}

// growth is how a repeated outcome's delay grows: from the outcome's After
// up to cap. announce: the message says when the next check is (a person
// may be waiting on it).
type growth struct {
	cap      time.Duration
	announce bool
}

// Continue is the outcome of a phase that finished: go on.
func Continue() Outcome { return Outcome{} }

// Done reports whether the phase finished and the pass may go on.
func (o Outcome) Done() bool { return o.Reason == "" && o.Err == nil }

// Ready is the outcome of a pass whose phases all finished: the condition
// is True and the next look is the periodic drift check.
func Ready(reason, message string, drift time.Duration) Outcome {
	return Outcome{Status: metav1.ConditionTrue, Reason: reason, Message: bound(message), After: Jitter(drift)}
}

// Wait is the outcome of a phase waiting on the cloud for a known,
// bounded time (a load balancer provisioning, an endpoint pending):
// looked at again after a fixed delay.
func Wait(reason, message string, after time.Duration) Outcome {
	return Outcome{Status: metav1.ConditionFalse, Reason: reason, Message: bound(message), After: after}
}

// WaitForEvent is the outcome of a phase that waits on something a watch
// reports (another controller writing a field): no periodic look.
func WaitForEvent(reason, message string) Outcome {
	return Outcome{Status: metav1.ConditionFalse, Reason: reason, Message: bound(message)}
}

// WaitOnPerson is the outcome of a phase that needs a person to act (a
// missing zone, role or permission): the first rechecks come soon, then
// grow to DefaultPolicy.PersonCap, and the message says when the next is.
func WaitOnPerson(reason, message string) Outcome {
	p := DefaultPolicy.Person
	return Outcome{Status: metav1.ConditionFalse, Reason: reason, Message: bound(message), After: p.Base, grow: growth{cap: p.Cap, announce: true}}
}

// Poll is the outcome of a phase waiting on the cloud for a state that
// arrives after a time known only roughly (an endpoint pending): looked at
// first after first, then less often up to most. The message stays the
// same, so repeated polls write nothing.
func Poll(reason, message string, first, most time.Duration) Outcome {
	return Outcome{Status: metav1.ConditionFalse, Reason: reason, Message: bound(message), After: first, grow: growth{cap: most}}
}

// Unknown is the outcome of a pass that cannot tell (paused, an unexpected
// state): Unknown with a reason, looked at again after the delay.
func Unknown(reason, message string, after time.Duration) Outcome {
	return Outcome{Status: metav1.ConditionUnknown, Reason: reason, Message: bound(message), After: after}
}

// AfterProgress marks o as the end of a pass that changed something in the
// cloud (deleted a resource, saw an operation finish) before it stopped:
// the Tracker starts o's delay over, however often its reason came before,
// so that a deletion moving one resource a pass is not held back by delays
// that grew while it moved. Only what the pass did itself counts: finding
// something already gone is no progress.
func (o Outcome) AfterProgress() Outcome {
	o.progressed = true
	return o
}

// Grows reports whether the outcome's delay grows while it repeats.
func (o Outcome) Grows() bool { return o.grow.cap > 0 }

// Condition is the condition of type condType the outcome asks for.
func (o Outcome) Condition(condType string) metav1.Condition {
	return metav1.Condition{Type: condType, Status: o.Status, Reason: o.Reason, Message: o.Message}
}

// Step is the delay policy of one class of trouble: the first delay lies in
// [Base, Base+Spread] and each repeat doubles it, up to Cap.
type Step struct {
	Base, Spread, Cap time.Duration
}

// Policy is the delay of every class of trouble, in one table.
type Policy struct {
	// Throttled: many controllers throttled at once must not retry
	// together, so the first retry is spread over 10–30 s.
	Throttled Step
	// Transient: the cloud failed or did not answer; retry within seconds.
	Transient Step
	// Dependency: another resource's state clears within seconds to
	// minutes (an endpoint's interfaces releasing its security group).
	Dependency Step
	// NotFound: a resource that should exist does not; usually someone
	// else's step is late.
	NotFound Step
	// Person: access denied, invalid input, a missing zone or role. Short
	// at first so that a fix is seen within a minute, then rarely.
	Person Step
	// Credentials: an operator's check of its own cloud credentials failed
	// (refused, or the cloud did not answer); retried within seconds so
	// that a fix or the cloud's return shows soon, then every few minutes.
	Credentials Step
	// QuotaRefillSpread: a call refused by a rate quota of synchronized
	// windows is tried again within this long after the next window
	// opens, never before it (the quota is empty until then) and never a
	// window later (it is full again): a fleet refused together spreads
	// over the first third of a minute.
	QuotaRefillSpread time.Duration
}

// DefaultPolicy is the policy of every controller.
var DefaultPolicy = Policy{
	Throttled:   Step{Base: 10 * time.Second, Spread: 20 * time.Second, Cap: 5 * time.Minute},
	Transient:   Step{Base: 5 * time.Second, Spread: 10 * time.Second, Cap: 2 * time.Minute},
	Dependency:  Step{Base: 5 * time.Second, Spread: 5 * time.Second, Cap: 2 * time.Minute},
	NotFound:    Step{Base: 5 * time.Second, Spread: 10 * time.Second, Cap: 5 * time.Minute},
	Person:      Step{Base: 15 * time.Second, Spread: 5 * time.Second, Cap: 10 * time.Minute},
	Credentials: Step{Base: 5 * time.Second, Spread: time.Second, Cap: 5 * time.Minute},

	QuotaRefillSpread: 20 * time.Second,
}

// FromError is the outcome of an error. A classified cloud error gets the
// reason of its class, its sanitised message (prefixed by what was being
// done) and the first delay of its class, growing while it repeats;
// anything else is unexpected: Unknown / InternalError, and the error goes
// to controller-runtime.
func FromError(err error) Outcome {
	ce, ok := cloud.AsError(err)
	if !ok {
		return Outcome{Status: metav1.ConditionUnknown, Reason: hcplinkv1beta1.InternalErrorReason,
			Message: bound("Unexpected error: " + oneLine(err.Error())), Err: err, failed: true}
	}
	msg := ce.Message
	if prefix := contextOf(err, ce); prefix != "" {
		msg = upperFirst(prefix) + ": " + msg
	}
	o := Outcome{Status: metav1.ConditionFalse, Message: boundTo(msg, MaxErrorMessageLength), failed: true}
	p := DefaultPolicy
	var step Step
	switch ce.Class {
	case cloud.ClassThrottled:
		o.Reason, step = hcplinkv1beta1.ThrottledReason, p.Throttled
	case cloud.ClassAccessDenied:
		o.Reason, step = hcplinkv1beta1.AccessDeniedReason, p.Person
	case cloud.ClassInvalidInput:
		o.Reason, step = hcplinkv1beta1.InvalidParameterReason, p.Person
	case cloud.ClassClientError:
		o.Reason, step = hcplinkv1beta1.CloudErrorReason, p.Person
	case cloud.ClassDependency:
		o.Reason, step = hcplinkv1beta1.DependencyReason, p.Dependency
	case cloud.ClassNotFound:
		o.Reason, step = hcplinkv1beta1.CloudErrorReason, p.NotFound
	default:
		o.Reason, step = hcplinkv1beta1.CloudErrorReason, p.Transient
	}
	o.After = Between(step.Base, step.Base+step.Spread)
	if ce.RetryAfter > o.After {
		o.After = ce.RetryAfter
	}
	o.grow = growth{cap: step.Cap, announce: true}
	if ce.Class == cloud.ClassThrottled {
		o.quotaWindow = ce.QuotaWindow
	}
	return o
}

// UntilRefill is the wait, from now, for a rate quota of synchronized
// windows of length window to refill: the rest of the current window, plus
// a moment of at least a second and at most DefaultPolicy.QuotaRefillSpread
// into the next.
func UntilRefill(now time.Time, window time.Duration) time.Duration {
	rest := now.Truncate(window).Add(window).Sub(now)
	return rest + Between(time.Second, DefaultPolicy.QuotaRefillSpread)
}

// contextOf joins what the callers were doing, outermost first, from the
// wrapping chain above the cloud error: "security group: describing
// security group sg-1".
func contextOf(err error, ce *cloud.Error) string {
	outer := err.Error()
	inner := ce.Error()
	prefix := strings.TrimSuffix(strings.TrimSuffix(outer, inner), ": ")
	if prefix == outer { // the chain rewrote the text; keep ours only
		prefix = ""
	}
	parts := []string{}
	if prefix != "" {
		parts = append(parts, prefix)
	}
	if ce.Doing != "" {
		parts = append(parts, ce.Doing)
	}
	return strings.Join(parts, ": ")
}

// Smallest returns the smallest positive delay, 0 when there is none.
func Smallest(ds ...time.Duration) time.Duration {
	var out time.Duration
	for _, d := range ds {
		if d > 0 && (out == 0 || d < out) {
			out = d
		}
	}
	return out
}

// Between returns a random duration in [lo, hi].
func Between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rand.Int64N(int64(hi-lo)+1))
}

// Jitter spreads a periodic delay over ±15 %, so that many objects
// created together do not check together.
func Jitter(d time.Duration) time.Duration {
	return Between(d*85/100, LongestJitter(d))
}

// LongestJitter is the longest delay Jitter(d) returns.
func LongestJitter(d time.Duration) time.Duration { return d * 115 / 100 }

// RecheckJitter is the largest part of a recheck's interval JitterLater
// adds.
const RecheckJitter = 0.2

// JitterLater spreads a recheck over its interval plus up to RecheckJitter
// of it: never earlier than asked (a check that vouches for something, the
// credentials above all, keeps its promised interval), and many clusters
// checked together do not check again together.
func JitterLater(d time.Duration) time.Duration {
	return Between(d, d+time.Duration(RecheckJitter*float64(d)))
}

// IsUnexpected reports whether the outcome carries an unexpected error.
func (o Outcome) IsUnexpected() bool { return o.Err != nil }

// Bound cuts a message to MaxMessageLength on a rune boundary.
func Bound(s string) string { return bound(s) }

func bound(s string) string { return boundTo(s, MaxMessageLength) }

func boundTo(s string, limit int) string {
	s = oneLine(s)
	if len(s) <= limit {
		return s
	}
	cut := limit - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
