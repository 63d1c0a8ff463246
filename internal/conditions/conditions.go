// Package conditions writes the conditions of an hcplink object by
// server-side apply. Several controllers (in both operators) write
// conditions on the same objects; each applies the whole set of condition
// types it owns under its own field manager, so no writer clobbers
// another's, a writer of two types never drops one of them (server-side
// apply removes what a manager stops applying), and nothing is written when
// the conditions already read the same.
package conditions

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/events"
)

// Writer applies conditions as one field manager.
type Writer struct {
	Client     client.Client
	FieldOwner string
	// Types are every condition type this field manager owns on the kind.
	// Each apply sends all of them: the given ones as given, the others as
	// the object has them. Empty means the given conditions are the whole
	// set.
	Types []string
	// Now stamps lastTransitionTime; nil means the wall clock.
	Now func() time.Time
	// Events, when set, receives an Event for each transition a person
	// cares about (see events.Transition); nil records none.
	Events *events.Recorder
}

// Apply sets conds on obj, whose status conditions are *conditions, and
// reports whether it wrote. Each condition gets obj's generation as
// observedGeneration and keeps the existing lastTransitionTime while its
// status stays the same. Owned types not among conds are sent unchanged, so
// the manager keeps them. On success *conditions holds the new entries. An
// object that is gone is not an error: there is nothing left to report on.
func (w Writer) Apply(ctx context.Context, obj client.Object, conditions *[]metav1.Condition, conds ...metav1.Condition) (bool, error) {
	full, changed := w.fullSet(obj.GetGeneration(), *conditions, conds)
	if !changed {
		return false, nil
	}
	gvk, err := w.Client.GroupVersionKindFor(obj)
	if err != nil {
		return false, fmt.Errorf("finding the kind of %T: %w", obj, err)
	}
	entries := make([]any, 0, len(full))
	for i := range full {
		entry, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&full[i])
		if err != nil {
			return false, fmt.Errorf("converting condition %s: %w", full[i].Type, err)
		}
		entries = append(entries, entry)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(obj.GetNamespace())
	u.SetName(obj.GetName())
	u.SetUID(obj.GetUID()) // this object only, never a successor with the same name
	if err := unstructured.SetNestedSlice(u.Object, entries, "status", "conditions"); err != nil {
		return false, fmt.Errorf("building conditions: %w", err)
	}
	err = w.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(w.FieldOwner), client.ForceOwnership)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("writing conditions of %s %s/%s: %w", gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
	}
	w.recordTransitions(obj, *conditions, conds)
	for _, c := range full {
		meta.SetStatusCondition(conditions, c)
	}
	return true, nil
}

// fullSet is the set the manager applies, and whether any of conds differs
// from what the object has.
func (w Writer) fullSet(generation int64, existing, conds []metav1.Condition) (full []metav1.Condition, changed bool) {
	given := map[string]bool{}
	for _, cond := range conds {
		cond.ObservedGeneration = generation
		given[cond.Type] = true
		have := meta.FindStatusCondition(existing, cond.Type)
		switch {
		case have != nil && Same(*have, cond):
			cond.LastTransitionTime = have.LastTransitionTime
		case have != nil && have.Status == cond.Status && !have.LastTransitionTime.IsZero():
			cond.LastTransitionTime = have.LastTransitionTime
			changed = true
		default:
			if cond.LastTransitionTime.IsZero() {
				cond.LastTransitionTime = metav1.NewTime(w.now())
			}
			changed = true
		}
		full = append(full, cond)
	}
	for _, t := range w.Types {
		if given[t] {
			continue
		}
		if have := meta.FindStatusCondition(existing, t); have != nil {
			full = append(full, *have)
		}
	}
	slices.SortFunc(full, func(a, b metav1.Condition) int {
		switch {
		case a.Type < b.Type:
			return -1
		case a.Type > b.Type:
			return 1
		}
		return 0
	})
	return full, changed
}

// recordTransitions emits an Event for each of conds that changed in a way
// worth telling (before holds the object's conditions before the write).
func (w Writer) recordTransitions(obj client.Object, before, conds []metav1.Condition) {
	if w.Events == nil {
		return
	}
	for _, cond := range conds {
		if events.Transition(meta.FindStatusCondition(before, cond.Type), cond) {
			w.Events.ConditionChanged(obj, cond)
		}
	}
}

func (w Writer) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// Same reports whether two conditions read the same: type, status, reason,
// message and observedGeneration (lastTransitionTime aside).
func Same(a, b metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason &&
		a.Message == b.Message && a.ObservedGeneration == b.ObservedGeneration
}
