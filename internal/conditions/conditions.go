// Package conditions writes one condition of an hcplink object by
// server-side apply. Several controllers (in both operators) write
// conditions on the same objects; each applies only its own entry under its
// own field manager, so no writer clobbers another's, and nothing is written
// when the condition already reads the same.
package conditions

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Writer applies conditions as one field manager.
type Writer struct {
	Client     client.Client
	FieldOwner string
	// Now stamps lastTransitionTime; nil means the wall clock.
	Now func() time.Time
}

// Apply sets cond on obj, whose status conditions are *conditions, and
// reports whether it wrote. cond gets obj's generation as
// observedGeneration and keeps the existing lastTransitionTime while its
// status stays the same. On success *conditions holds the new entry too. An
// object that is gone is not an error: there is nothing left to report on.
func (w Writer) Apply(ctx context.Context, obj client.Object, conditions *[]metav1.Condition, cond metav1.Condition) (bool, error) {
	cond.ObservedGeneration = obj.GetGeneration()
	existing := meta.FindStatusCondition(*conditions, cond.Type)
	if existing != nil && Same(*existing, cond) {
		return false, nil
	}
	switch {
	case existing != nil && existing.Status == cond.Status:
		cond.LastTransitionTime = existing.LastTransitionTime
	case cond.LastTransitionTime.IsZero():
		cond.LastTransitionTime = metav1.NewTime(w.now())
	}
	gvk, err := w.Client.GroupVersionKindFor(obj)
	if err != nil {
		return false, fmt.Errorf("finding the kind of %T: %w", obj, err)
	}
	entry, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&cond)
	if err != nil {
		return false, fmt.Errorf("converting condition %s: %w", cond.Type, err)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(obj.GetNamespace())
	u.SetName(obj.GetName())
	u.SetUID(obj.GetUID()) // this object only, never a successor with the same name
	if err := unstructured.SetNestedSlice(u.Object, []any{entry}, "status", "conditions"); err != nil {
		return false, fmt.Errorf("building condition %s: %w", cond.Type, err)
	}
	err = w.Client.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(w.FieldOwner), client.ForceOwnership)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("writing condition %s of %s %s/%s: %w", cond.Type, gvk.Kind, obj.GetNamespace(), obj.GetName(), err)
	}
	meta.SetStatusCondition(conditions, cond)
	return true, nil
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
