// Package events tells the people who run hcplink what the operators did,
// as Kubernetes Events on the objects they did it for: a cloud resource
// created, adopted or deleted, a condition changing, an orphan swept.
// Passes that change nothing say nothing, and a per-object budget keeps an
// object that flaps from flooding the API server.
package events

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clientevents "k8s.io/client-go/tools/events"
)

// Stable reasons: people and alerts match on them.
const (
	ReasonCreated = "CloudResourceCreated"
	ReasonAdopted = "CloudResourceAdopted"
	ReasonDeleted = "CloudResourceDeleted"
	ReasonSwept   = "OrphanSwept"
	// ReasonRepaired: a setting of a resource hcplink made was changed
	// behind its back, and hcplink put it back.
	ReasonRepaired = "CloudResourceRepaired"
)

// Verbs of the actions, in the events.k8s.io/v1 sense: what the operator
// did. The action names the verb and its object ("CreateVPCEndpoint",
// "ReportAvailable") because client-go folds Events with the same object,
// reason and action into one series that keeps the first note only.
const (
	verbCreate = "Create"
	verbAdopt  = "Adopt"
	verbDelete = "Delete"
	verbSweep  = "Sweep"
	verbRepair = "Repair"
	verbReport = "Report"
)

// noteLimit keeps a note well inside the API server's 1 KiB bound.
const noteLimit = 512

// Recorder emits hcplink's Events. A nil *Recorder records nothing, so
// code that runs without one (unit tests, tools) needs no branches.
type Recorder struct {
	sink   clientevents.EventRecorder
	budget *budget
}

// New records to sink (a manager's GetEventRecorder).
func New(sink clientevents.EventRecorder) *Recorder {
	return &Recorder{sink: sink, budget: newBudget(time.Now)}
}

// Created says that the operator created a cloud resource for obj; what
// names it in plain words ("VPC endpoint"), id is the cloud's ID.
func (r *Recorder) Created(obj client.Object, what, id string) {
	r.emit(obj, corev1.EventTypeNormal, ReasonCreated, action(verbCreate, what), fmt.Sprintf("Created %s %s.", what, id))
}

// Adopted says that the operator found a resource it had created earlier
// (by its tags or name) and took it up instead of creating another.
func (r *Recorder) Adopted(obj client.Object, what, id string) {
	r.emit(obj, corev1.EventTypeNormal, ReasonAdopted, action(verbAdopt, what),
		fmt.Sprintf("Found %s %s, created earlier for this object, and took it up instead of creating another.", what, id))
}

// Deleted says that the operator deleted a cloud resource it had created.
func (r *Recorder) Deleted(obj client.Object, what, id string) {
	r.emit(obj, corev1.EventTypeNormal, ReasonDeleted, action(verbDelete, what), fmt.Sprintf("Deleted %s %s.", what, id))
}

// Swept says that a sweep removed a resource tagged as this object's that
// nothing referenced any more.
func (r *Recorder) Swept(obj client.Object, what, id string) {
	r.emit(obj, corev1.EventTypeWarning, ReasonSwept, action(verbSweep, what),
		fmt.Sprintf("Deleted %s %s: it was tagged as ours but nothing referenced it any more.", what, id))
}

// Repaired says that a setting of a resource the operator made had been
// changed by someone else and was put back; what says which setting.
// Warning: whoever changed it will see it undone.
func (r *Recorder) Repaired(obj client.Object, what, id, setting string) {
	r.emit(obj, corev1.EventTypeWarning, ReasonRepaired, action(verbRepair, what),
		fmt.Sprintf("Put back %s of %s %s: it had been changed outside hcplink.", setting, what, id))
}

// ConditionChanged reports a condition that changed in a way a person
// cares about (see Transition): Warning when it turned False, Normal
// otherwise. The event's reason is the condition's.
func (r *Recorder) ConditionChanged(obj client.Object, cond metav1.Condition) {
	kind := corev1.EventTypeNormal
	if cond.Status == metav1.ConditionFalse {
		kind = corev1.EventTypeWarning
	}
	note := fmt.Sprintf("%s is %s", cond.Type, cond.Status)
	if msg := strings.TrimSpace(cond.Message); msg != "" {
		note += ": " + msg
	}
	r.emit(obj, kind, cond.Reason, verbReport+cond.Type, note)
}

// Warning tells of trouble a person must act on, with the caller's stable
// reason and action.
func (r *Recorder) Warning(obj client.Object, reason, action, note string) {
	r.emit(obj, corev1.EventTypeWarning, reason, action, note)
}

// Transition reports whether going from before (nil: the condition is new)
// to after is worth an Event: a change of status, or a new reason while
// False. A new message alone is not (messages carry the next check's time),
// and neither is a condition's first, non-False value.
func Transition(before *metav1.Condition, after metav1.Condition) bool {
	if before == nil {
		return after.Status == metav1.ConditionFalse
	}
	if before.Status != after.Status {
		return true
	}
	return after.Status == metav1.ConditionFalse && before.Reason != after.Reason
}

// action joins a verb and the words of what it acted on, each capitalised:
// ("Create", "private DNS zone") → "CreatePrivateDNSZone".
func action(verb, what string) string {
	var b strings.Builder
	b.WriteString(verb)
	for _, word := range strings.Fields(what) {
		b.WriteString(strings.ToUpper(word[:1]) + word[1:])
	}
	return b.String()
}

func (r *Recorder) emit(obj client.Object, kind, reason, action, note string) {
	if r == nil || r.sink == nil || obj == nil {
		return
	}
	if len(note) > noteLimit {
		note = strings.ToValidUTF8(note[:noteLimit-3], "") + "..." // never half a character
	}
	if !r.budget.allow(string(obj.GetUID()), reason+"\x00"+note) {
		return
	}
	r.sink.Eventf(obj, nil, kind, reason, action, "%s", note)
}
