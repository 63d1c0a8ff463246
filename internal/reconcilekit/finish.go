// Package reconcilekit is the scaffolding every cloud-facing controller
// shares, whatever its cloud: the end of a pass (outcome → status,
// conditions and requeue), the registration of an endpoint controller and
// of a Service observer, the finalizer, the ExternalName Services of a
// private cluster, and the loop of a periodic sweeper. A controller keeps
// only what is its own: its phases and its cloud calls.
package reconcilekit

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/conditions"
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
}

// Finish resolves the pass's outcome o (repeated trouble waits longer, and
// its condition says when the next check is), writes the status fields and
// then conds, and asks for the next look: o's error for controller-runtime's
// backoff, else a requeue after o's delay. conds are the conditions the
// pass sets (none: o's, as f.Type); the one that carries o's words gets
// the resolved ones.
func (f Finisher) Finish(ctx context.Context, t Target, o outcome.Outcome, conds ...metav1.Condition) (ctrl.Result, error) {
	if len(conds) == 0 && f.Type != "" {
		conds = []metav1.Condition{o.Condition(f.Type)}
	}
	resolved := o
	if f.Tracker != nil {
		resolved = f.Tracker.Resolve(t.Key, o)
	}
	conds = WithResolvedWords(conds, o, resolved)
	if t.Persist != nil {
		if err := t.Persist(ctx); err != nil {
			return ctrl.Result{}, err
		}
	}
	if _, err := f.Writer.Apply(ctx, t.Object, t.Conditions, conds...); err != nil {
		return ctrl.Result{}, err
	}
	if resolved.Err != nil {
		return ctrl.Result{}, resolved.Err
	}
	return ctrl.Result{RequeueAfter: resolved.After}, nil
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
