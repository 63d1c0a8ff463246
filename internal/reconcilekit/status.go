package reconcilekit

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PatchStatus merge-patches the status fields a controller owns on obj
// (of kind, for messages): fields maps each JSON field to its value, nil
// removing it. Conditions are not written here (see Finisher). An object
// that is gone is not an error: there is nothing left to record on.
func PatchStatus(ctx context.Context, c client.Client, obj client.Object, kind string, fields map[string]any) error {
	raw, err := json.Marshal(map[string]any{"status": fields})
	if err != nil {
		return err
	}
	if err := c.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, raw)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("writing the status of %s %s: %w", kind, obj.GetName(), err)
	}
	return nil
}

// NullIfEmpty is a merge patch's value of an optional string field: null
// removes it.
func NullIfEmpty(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// WorkersOr is a controller's worker count: n, else def.
func WorkersOr(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}
