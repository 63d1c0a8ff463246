package outcome

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
)

func cloudErr(class cloud.Class, retryAfter time.Duration) error {
	return &cloud.Error{Doing: "creating VPC endpoint", Class: class, Code: "Code", Message: "EC2 CreateVpcEndpoint failed with Code.", RetryAfter: retryAfter}
}

func TestFromError(t *testing.T) {
	p := DefaultPolicy
	tests := []struct {
		name       string
		err        error
		status     metav1.ConditionStatus
		reason     string
		lo, hi     time.Duration
		grows      bool
		unexpected bool
	}{
		{"throttled", cloudErr(cloud.ClassThrottled, 0), metav1.ConditionFalse, hcplinkv1beta1.ThrottledReason, p.Throttled.Base, p.Throttled.Base + p.Throttled.Spread, true, false},
		{"throttled with a longer Retry-After", cloudErr(cloud.ClassThrottled, time.Minute), metav1.ConditionFalse, hcplinkv1beta1.ThrottledReason, time.Minute, time.Minute, true, false},
		{"access denied", cloudErr(cloud.ClassAccessDenied, 0), metav1.ConditionFalse, hcplinkv1beta1.AccessDeniedReason, p.Person.Base, p.Person.Base + p.Person.Spread, true, false},
		{"invalid input", cloudErr(cloud.ClassInvalidInput, 0), metav1.ConditionFalse, hcplinkv1beta1.InvalidParameterReason, p.Person.Base, p.Person.Base + p.Person.Spread, true, false},
		{"dependency", cloudErr(cloud.ClassDependency, 0), metav1.ConditionFalse, hcplinkv1beta1.DependencyReason, p.Dependency.Base, p.Dependency.Base + p.Dependency.Spread, true, false},
		{"not found", cloudErr(cloud.ClassNotFound, 0), metav1.ConditionFalse, hcplinkv1beta1.CloudErrorReason, p.NotFound.Base, p.NotFound.Base + p.NotFound.Spread, true, false},
		{"server error", cloudErr(cloud.ClassServerError, 0), metav1.ConditionFalse, hcplinkv1beta1.CloudErrorReason, p.Transient.Base, p.Transient.Base + p.Transient.Spread, true, false},
		{"other refusal", cloudErr(cloud.ClassClientError, 0), metav1.ConditionFalse, hcplinkv1beta1.CloudErrorReason, p.Person.Base, p.Person.Base + p.Person.Spread, true, false},
		{"wrapped cloud error", fmt.Errorf("security group: %w", cloudErr(cloud.ClassThrottled, 0)), metav1.ConditionFalse, hcplinkv1beta1.ThrottledReason, p.Throttled.Base, p.Throttled.Base + p.Throttled.Spread, true, false},
		{"not a cloud error", errors.New("boom"), metav1.ConditionUnknown, hcplinkv1beta1.InternalErrorReason, 0, 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := FromError(tt.err)
			if o.Status != tt.status || o.Reason != tt.reason {
				t.Errorf("condition = %s/%s, want %s/%s", o.Status, o.Reason, tt.status, tt.reason)
			}
			if o.After < tt.lo || o.After > tt.hi {
				t.Errorf("After = %v, want within [%v, %v]", o.After, tt.lo, tt.hi)
			}
			if o.Grows() != tt.grows || o.IsUnexpected() != tt.unexpected {
				t.Errorf("grows=%v unexpected=%v, want %v %v", o.Grows(), o.IsUnexpected(), tt.grows, tt.unexpected)
			}
			if o.Done() {
				t.Error("an error outcome must not be Done")
			}
		})
	}
}

func TestFromErrorMessageNamesWhatFailed(t *testing.T) {
	o := FromError(fmt.Errorf("security group: %w", cloudErr(cloud.ClassAccessDenied, 0)))
	want := "Security group: creating VPC endpoint: EC2 CreateVpcEndpoint failed with Code."
	if o.Message != want {
		t.Errorf("message = %q, want %q", o.Message, want)
	}
}

func TestTrackerGrowsResetsAndSaysWhen(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	tr := &Tracker{Now: func() time.Time { return now }}
	first := WaitOnPerson(hcplinkv1beta1.DNSZoneNotFoundReason, "The zone is missing.")
	var delays []time.Duration
	for range 8 {
		o := tr.Resolve("uid-1", first)
		delays = append(delays, o.After)
		if !strings.Contains(o.Message, "Next check at ") || !strings.HasPrefix(o.Message, "The zone is missing.") {
			t.Fatalf("message %q does not say when the next check is", o.Message)
		}
	}
	if delays[0] != first.After {
		t.Errorf("first delay = %v, want the outcome's own %v", delays[0], first.After)
	}
	for i := 1; i < len(delays); i++ {
		if delays[i] < delays[i-1]*8/10 {
			t.Errorf("delay %d (%v) shrank from %v: %v", i, delays[i], delays[i-1], delays)
		}
	}
	if last := delays[len(delays)-1]; last < DefaultPolicy.Person.Cap*9/10 || last > DefaultPolicy.Person.Cap*11/10 {
		t.Errorf("after 8 repeats the delay is %v, want about the cap %v", last, DefaultPolicy.Person.Cap)
	}
	// Another key is independent; a success resets.
	if o := tr.Resolve("uid-2", first); o.After != first.After {
		t.Errorf("another object's first delay = %v", o.After)
	}
	tr.Resolve("uid-1", Ready(hcplinkv1beta1.AsExpectedReason, "ok", time.Minute))
	if o := tr.Resolve("uid-1", first); o.After != first.After {
		t.Errorf("after a success the delay = %v, want it reset to %v", o.After, first.After)
	}
	// A different reason starts over too.
	tr.Resolve("uid-1", first)
	other := WaitOnPerson(hcplinkv1beta1.AccessDeniedReason, "Denied.")
	if o := tr.Resolve("uid-1", other); o.After != other.After {
		t.Errorf("a new reason's first delay = %v, want %v", o.After, other.After)
	}
}

func TestFixedWaitsDoNotGrow(t *testing.T) {
	tr := &Tracker{}
	w := Wait(hcplinkv1beta1.EndpointPendingReason, "pending", 15*time.Second)
	for range 3 {
		if o := tr.Resolve("k", w); o.After != 15*time.Second || o.Message != "pending" {
			t.Fatalf("a fixed wait changed: %+v", o)
		}
	}
}

func TestErrorMessagesStayShort(t *testing.T) {
	long := &cloud.Error{Doing: "creating VPC endpoint to " + strings.Repeat("x", 100), Class: cloud.ClassAccessDenied, Message: strings.Repeat("word ", 100)}
	o := (&Tracker{}).Resolve("k", FromError(fmt.Errorf("VPC endpoint: %w", long)))
	// Room for the object's name when the HostedCluster folds it in.
	if len(o.Message) > 400-len("kube-apiserver-private: ") {
		t.Errorf("an error message with its next check is %d bytes: %q", len(o.Message), o.Message)
	}
	if !strings.Contains(o.Message, "Next check at") {
		t.Errorf("the bound cut the next check: %q", o.Message)
	}
}

func TestPollsGrowQuietly(t *testing.T) {
	tr := &Tracker{}
	p := Poll(hcplinkv1beta1.EndpointPendingReason, "pending", 5*time.Second, 30*time.Second)
	var delays []time.Duration
	for range 6 {
		o := tr.Resolve("k", p)
		if o.Message != "pending" {
			t.Fatalf("a poll's message changed to %q: every poll would write the status", o.Message)
		}
		delays = append(delays, o.After)
	}
	if delays[0] != 5*time.Second {
		t.Errorf("first poll after %v, want 5s", delays[0])
	}
	for _, d := range delays {
		if d > 33*time.Second {
			t.Errorf("a poll waited %v, more than the 30s (+10%% jitter) cap: %v", d, delays)
		}
	}
	if delays[len(delays)-1] < 27*time.Second {
		t.Errorf("polls did not grow to the cap: %v", delays)
	}
}

func TestBound(t *testing.T) {
	long := strings.Repeat("é", MaxMessageLength)
	if got := Bound(long); len(got) > MaxMessageLength || !strings.HasSuffix(got, "…") {
		t.Errorf("Bound gave %d bytes", len(got))
	}
	if got := Bound("a\n  b"); got != "a b" {
		t.Errorf("Bound(%q) = %q", "a\n  b", got)
	}
}

// TestGrowthNeverShrinks: each pass draws its first delay afresh (5–10 s
// for a dependency); the delays that follow still at least nearly double
// the one before (the ±10 % jitter aside) until the cap.
func TestGrowthNeverShrinks(t *testing.T) {
	for run := range 200 {
		tr := &Tracker{}
		key := fmt.Sprint("uid-", run)
		prev := tr.Resolve(key, FromError(cloudErr(cloud.ClassDependency, 0))).After
		for range 4 {
			d := tr.Resolve(key, FromError(cloudErr(cloud.ClassDependency, 0))).After
			if limit := min(prev*18/10, DefaultPolicy.Dependency.Cap*9/10); d < limit {
				t.Fatalf("run %d: %v after %v, want at least %v", run, d, prev, limit)
			}
			prev = d
		}
	}
}

func TestRetryStartsAtSecondsGrowsAndIsCapped(t *testing.T) {
	s := DefaultPolicy.Credentials
	var r Retry
	first := r.Next()
	if first < s.Base || first > s.Base+s.Spread {
		t.Fatalf("first delay %v, want within [%v, %v]", first, s.Base, s.Base+s.Spread)
	}
	last := first
	for i := 0; i < 20; i++ {
		d := r.Next()
		if d < last && last < s.Cap*9/10 {
			t.Fatalf("delay %d shrank: %v after %v", i+2, d, last)
		}
		if d > s.Cap*11/10 {
			t.Fatalf("delay %d is %v, past the cap %v and its jitter", i+2, d, s.Cap)
		}
		last = d
	}
	if last < s.Cap*9/10 {
		t.Errorf("after 21 failures the delay is %v, want about the cap %v", last, s.Cap)
	}
	r.Reset()
	if d := r.Next(); d > s.Base+s.Spread {
		t.Errorf("after a success the delay is %v, want the first again (at most %v)", d, s.Base+s.Spread)
	}
}

func TestJitterLaterNeverComesEarly(t *testing.T) {
	for i := 0; i < 1000; i++ {
		if d := JitterLater(time.Minute); d < time.Minute || d > time.Minute+time.Duration(RecheckJitter*float64(time.Minute)) {
			t.Fatalf("JitterLater(1m) = %v, want within [1m, 1m12s]", d)
		}
	}
}

// A call refused by a rate quota of synchronized windows waits for the
// next window however often it was refused; one without a window (AWS,
// Azure, a bare 429) grows as before.
func TestQuotaWindowWaitsForTheNextWindow(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 15, 0, time.UTC)
	tr := &Tracker{Now: func() time.Time { return now }}
	windowed := FromError(&cloud.Error{Doing: "deleting address a", Class: cloud.ClassThrottled, Code: "rateLimitExceeded",
		Message: "a rate quota was reached.", QuotaWindow: time.Minute})
	for i := range 6 {
		o := tr.Resolve("uid-1", windowed)
		// The quota refills at 10:01:00 (Google's example).
		if lo, hi := 45*time.Second+time.Second, 45*time.Second+DefaultPolicy.QuotaRefillSpread; o.After < lo || o.After > hi {
			t.Fatalf("refusal %d waits %v, want the next window: [%v, %v]", i+1, o.After, lo, hi)
		}
		if !strings.Contains(o.Message, "Next check at 10:01:") {
			t.Errorf("message %q does not say when the next check is", o.Message)
		}
	}
	bare := FromError(cloudErr(cloud.ClassThrottled, 0))
	var last time.Duration
	for range 4 {
		last = tr.Resolve("uid-2", bare).After
	}
	if last < 4*DefaultPolicy.Throttled.Base {
		t.Errorf("a throttle without a window stopped growing: %v after 4 refusals", last)
	}
	// Only a throttle has a window.
	if o := FromError(&cloud.Error{Class: cloud.ClassServerError, QuotaWindow: time.Minute}); o.quotaWindow != 0 {
		t.Errorf("a server error waits for a quota window")
	}
}

// A pass that made progress starts its delay over; one that did not keeps
// growing it.
func TestProgressStartsTheDelayOver(t *testing.T) {
	tr := &Tracker{}
	dep := FromError(cloudErr(cloud.ClassDependency, 0))
	var grown time.Duration
	for range 5 {
		grown = tr.Resolve("uid-1", dep).After
	}
	if grown <= DefaultPolicy.Dependency.Base+DefaultPolicy.Dependency.Spread {
		t.Fatalf("the repeated dependency did not grow: %v", grown)
	}
	if o := tr.Resolve("uid-1", dep.AfterProgress()); o.After > DefaultPolicy.Dependency.Base+DefaultPolicy.Dependency.Spread {
		t.Errorf("after progress the delay is %v, want its first step again", o.After)
	}
	if o := tr.Resolve("uid-1", dep); o.After > 2*(DefaultPolicy.Dependency.Base+DefaultPolicy.Dependency.Spread)*11/10 {
		t.Errorf("the repeat after progress grew from %v, not from the first step", o.After)
	}
}
