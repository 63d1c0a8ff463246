// Package kubepatch writes parts of an object without clobbering what other
// writers own: a JSON merge patch of only the given fields, and finalizer
// changes under an optimistic lock.
package kubepatch

import (
	"context"
	"encoding/json"
	"fmt"

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
// dropped.
func Finalizers(ctx context.Context, c client.Client, obj client.Object, mutate func()) error {
	base, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return fmt.Errorf("copying %T", obj)
	}
	mutate()
	if err := c.Patch(ctx, obj, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("writing the finalizers: %w", err)
	}
	return nil
}
