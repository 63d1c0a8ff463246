// Package kubepatch writes parts of an object without clobbering what other
// writers own: a JSON merge patch of only the given fields, and finalizer
// changes under an optimistic lock.
package kubepatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Merge sends a JSON merge patch of only the given fields (to the status
// subresource when status is true), guarded by the object's UID so that it
// never lands on a successor of the same name; obj is updated from the
// answer. A nil value deletes its field.
func Merge(ctx context.Context, c client.Client, obj client.Object, status bool, fields map[string]any) error {
	md, _ := fields["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		fields["metadata"] = md
	}
	md["uid"] = string(obj.GetUID())
	data, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	if status {
		return c.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, data))
	}
	return c.Patch(ctx, obj, client.RawPatch(types.MergePatchType, data))
}

// Finalizers applies mutate's change to obj's finalizers with an optimistic
// lock, so that a finalizer another component added meanwhile is never
// dropped. From a stale copy it writes nothing and returns a *StaleError.
func Finalizers(ctx context.Context, c client.Client, obj client.Object, mutate func()) error {
	base, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("copying %T", obj)
	}
	mutate()
	err := c.Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	if apierrors.IsConflict(err) {
		err = &StaleError{Err: err}
	}
	if err != nil {
		return fmt.Errorf("writing the finalizers: %w", err)
	}
	return nil
}

// StaleError is a write refused because the object changed since the copy
// it was made from was read (409 Conflict on its resourceVersion). Nothing
// was written; reading the object again is all it takes, so it is a reason
// to look again, not a failure.
type StaleError struct{ Err error }

func (e *StaleError) Error() string { return "the object changed since it was read: " + e.Err.Error() }

func (e *StaleError) Unwrap() error { return e.Err }

// IsStale reports whether err is, or wraps, a *StaleError.
func IsStale(err error) bool {
	var stale *StaleError
	return errors.As(err, &stale)
}
