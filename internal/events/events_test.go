package events

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientevents "k8s.io/client-go/tools/events"
)

func TestTransition(t *testing.T) {
	cond := func(status metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: "Ready", Status: status, Reason: reason, Message: msg}
	}
	ptr := func(c metav1.Condition) *metav1.Condition { return &c }
	for _, tc := range []struct {
		name   string
		before *metav1.Condition
		after  metav1.Condition
		want   bool
	}{
		{"new and False", nil, cond(metav1.ConditionFalse, "Rejected", ""), true},
		{"new and Unknown", nil, cond(metav1.ConditionUnknown, "Waiting", ""), false},
		{"new and True", nil, cond(metav1.ConditionTrue, "AsExpected", ""), false},
		{"False to True", ptr(cond(metav1.ConditionFalse, "Rejected", "")), cond(metav1.ConditionTrue, "AsExpected", ""), true},
		{"True to False", ptr(cond(metav1.ConditionTrue, "AsExpected", "")), cond(metav1.ConditionFalse, "Throttled", ""), true},
		{"Unknown to True", ptr(cond(metav1.ConditionUnknown, "Waiting", "")), cond(metav1.ConditionTrue, "AsExpected", ""), true},
		{"False, new reason", ptr(cond(metav1.ConditionFalse, "PendingAcceptance", "")), cond(metav1.ConditionFalse, "Rejected", ""), true},
		{"False, new message only", ptr(cond(metav1.ConditionFalse, "Throttled", "Next check at 10:00:00 UTC.")), cond(metav1.ConditionFalse, "Throttled", "Next check at 10:02:00 UTC."), false},
		{"True, new reason", ptr(cond(metav1.ConditionTrue, "A", "")), cond(metav1.ConditionTrue, "B", ""), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Transition(tc.before, tc.after); got != tc.want {
				t.Fatalf("Transition = %v, want %v", got, tc.want)
			}
		})
	}
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestBudget(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
	b := newBudget(c.now)
	if !b.allow("a", "same") || b.allow("a", "same") {
		t.Fatal("the same note twice within the repeat window must be emitted once")
	}
	c.advance(repeatWindow)
	if !b.allow("a", "same") {
		t.Fatal("the same note after the repeat window must be emitted again")
	}
	allowed := 0
	for i := range 100 {
		if b.allow("b", string(rune('A'+i%26))+strings.Repeat("x", i)) {
			allowed++
		}
	}
	if allowed != burst {
		t.Fatalf("a burst of distinct notes emitted %d, want the burst of %d", allowed, burst)
	}
	if !b.allow("c", "other object") {
		t.Fatal("one object's burst must not spend another's budget")
	}
	c.advance(refillPeriod)
	if !b.allow("b", "after a refill") || b.allow("b", "before the next refill") {
		t.Fatal("after one refill period exactly one more event is allowed")
	}
	c.advance(forgetAfter)
	b.allow("d", "sweeps")
	if _, kept := b.objects["a"]; kept {
		t.Fatal("an object quiet for an hour must be forgotten")
	}
}

func TestAction(t *testing.T) {
	for what, want := range map[string]string{
		"VPC endpoint":         "CreateVPCEndpoint",
		"private DNS zone":     "CreatePrivateDNSZone",
		"Private Link Service": "CreatePrivateLinkService",
		"":                     "Create",
	} {
		if got := action(verbCreate, what); got != want {
			t.Errorf("action(Create, %q) = %q, want %q", what, got, want)
		}
	}
}

func TestRecorderEmitsBoundedNotesAndNilIsSilent(t *testing.T) {
	var nilRecorder *Recorder
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", UID: "uid-1"}}
	nilRecorder.Created(obj, "VPC endpoint", "vpce-1") // must not panic

	sink := clientevents.NewFakeRecorder(10)
	r := New(sink)
	r.Created(obj, "VPC endpoint", "vpce-1")
	r.Created(obj, "VPC endpoint", "vpce-1") // a second pass saying the same: silent
	r.ConditionChanged(obj, metav1.Condition{Type: "AWSEndpointAvailable", Status: metav1.ConditionFalse, Reason: "Rejected", Message: strings.Repeat("m", 461) + strings.Repeat("→", 100)})
	close(sink.Events)
	var got []string
	for e := range sink.Events {
		got = append(got, e)
	}
	if len(got) != 2 {
		t.Fatalf("got %d events, want 2: %q", len(got), got)
	}
	if got[0] != "Normal CloudResourceCreated Created VPC endpoint vpce-1." {
		t.Errorf("created event = %q", got[0])
	}
	if !strings.HasPrefix(got[1], "Warning Rejected AWSEndpointAvailable is False: mmm") || len(got[1]) > noteLimit+40 || !utf8.ValidString(got[1]) {
		t.Errorf("condition event = %q (%d bytes)", got[1][:60], len(got[1]))
	}
}
