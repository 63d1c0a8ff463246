// Package reconcilekit is the scaffolding every cloud-facing controller
// shares, whatever its cloud: the end of a pass (outcome → status,
// conditions and requeue), the registration of an endpoint controller and
// of a Service observer, the finalizer, the ExternalName Services of a
// private cluster, and the loop of a periodic sweeper. A controller keeps
// only what is its own: its phases and its cloud calls.
package reconcilekit

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/kubepatch"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Finisher ends a controller's passes: one per controller.
type Finisher struct {
	// Tracker grows the delays of repeated trouble, per key; nil grows
	// nothing.
	Tracker *outcome.Tracker
	// Writer applies the controller's conditions under its field owner.
	Writer conditions.Writer
	// Type is the condition that says a pass's outcome when the pass gives
	// no conditions of its own.
	Type string
	// ConflictAfter, when set, is how soon a pass whose deciding error is a
	// conflict (another writer was first) looks again, without an error:
	// the next pass reads the newer object, so controller-runtime's error
	// backoff would only delay it. Zero returns the conflict as an error.
	ConflictAfter time.Duration
}

// Target is what one pass writes to.
type Target struct {
	// Object carries the conditions; Conditions are its status conditions.
	Object     client.Object
	Conditions *[]metav1.Condition
	// Key names the object's trouble in the tracker: its UID, with a
	// suffix when one object has several outcomes.
	Key string
	// Persist writes the status fields the controller owns (not the
	// conditions), before the conditions; nil writes none.
	Persist func(ctx context.Context) error
	// Other is a second outcome of the same pass whose condition the caller
	// passes among conds, already resolved by the caller: its error counts
	// after the pass's, and its delay bounds the next look. Zero: none.
	Other outcome.Outcome
}

// Finish resolves the pass's outcome o (repeated trouble waits longer, and
// its condition says when the next check is), writes the status fields and
// then conds, and asks for the next look. conds are the conditions the pass
// sets (none: o's, as f.Type, unless o has no reason — a condition needs
// one, so a pass that only continues writes none); the one that carries
// o's words gets the resolved ones. The first error of o, t.Other and the
// condition write decides (see ConflictAfter), so the cause is reported
// before a failure to record it; without one the next look is the sooner
// of o's and t.Other's delays.
func (f Finisher) Finish(ctx context.Context, t Target, o outcome.Outcome, conds ...metav1.Condition) (ctrl.Result, error) {
	if kubepatch.IsStale(o.Err) {
		// A finalizer write from a copy older than the cache's says
		// nothing of the cloud: no condition, no grown delay; the pass
		// runs again once the cache holds the newer object
		// (QuietWhenStale).
		return ctrl.Result{}, o.Err
	}
	if len(conds) == 0 && f.Type != "" && o.Reason != "" {
		conds = []metav1.Condition{o.Condition(f.Type)}
	}
	resolved := o
	if f.Tracker != nil {
		resolved = f.Tracker.Resolve(t.Key, o)
	}
	conds = WithResolvedWords(conds, o, resolved)
	if t.Persist != nil {
		if err := t.Persist(ctx); err != nil {
			return f.result(0, err)
		}
	}
	_, writeErr := f.Writer.Apply(ctx, t.Object, t.Conditions, conds...)
	return f.result(outcome.Smallest(resolved.After, t.Other.After), resolved.Err, t.Other.Err, writeErr)
}

// result is the end of a pass: the first of errs that is set, a conflict
// among them looked at again after f.ConflictAfter when that is set, else a
// requeue after after.
func (f Finisher) result(after time.Duration, errs ...error) (ctrl.Result, error) {
	for _, err := range errs {
		if err == nil {
			continue
		}
		if f.ConflictAfter > 0 && apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: f.ConflictAfter}, nil
		}
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: after}, nil
}

// WithResolvedWords gives the conditions that say what o says (its reason
// and message) the message of resolved, o as the tracker resolved it.
func WithResolvedWords(conds []metav1.Condition, o, resolved outcome.Outcome) []metav1.Condition {
	for i := range conds {
		if conds[i].Reason == o.Reason && conds[i].Message == o.Message {
			conds[i].Message = resolved.Message
		}
	}
	return conds
}
