package reconcilekit

import (
	"context"
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/kubepatch"
	"github.com/hcplink/hcplink/internal/outcome"
)

// EnsureFinalizer adds finalizer to obj, with the annotations its deletion
// will need (nil: none), in one patch, before anything is created in the
// cloud; nothing is written when both are there. It reports whether it
// wrote. The patch carries obj's resourceVersion (kubepatch.Finalizers): a
// merge patch replaces the whole finalizer list, so from a stale copy it
// would drop a finalizer the other operator added meanwhile (and with it
// that operator's cleanup); a stale copy gets a conflict instead.
func EnsureFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string, annotations map[string]string) (bool, error) {
	missing := !controllerutil.ContainsFinalizer(obj, finalizer)
	for k, v := range annotations {
		if obj.GetAnnotations()[k] != v {
			missing = true
		}
	}
	if !missing {
		return false, nil
	}
	err := kubepatch.Finalizers(ctx, c, obj, func() {
		controllerutil.AddFinalizer(obj, finalizer)
		if len(annotations) == 0 {
			return
		}
		have := maps.Clone(obj.GetAnnotations())
		if have == nil {
			have = map[string]string{}
		}
		maps.Copy(have, annotations)
		obj.SetAnnotations(have)
	})
	if err != nil {
		return false, fmt.Errorf("adding the finalizer: %w", err)
	}
	return true, nil
}

// RemoveFinalizer removes finalizer from obj: the very last step of its
// deletion. An object already gone is not an error. Like EnsureFinalizer,
// it never writes from a stale copy.
func RemoveFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	err := kubepatch.Finalizers(ctx, c, obj, func() { controllerutil.RemoveFinalizer(obj, finalizer) })
	if client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("removing the finalizer: %w", err)
	}
	return nil
}

// Deleting is how a deletion pass that cannot finish yet reads: False,
// with reason Deleting when o has no status or says one of the pending
// reasons of creation (a resource still provisioning is, during deletion,
// one still going away); other reasons (throttled, denied, an unexpected
// error...) stay, for they say what happened.
func Deleting(o outcome.Outcome, pendingReasons ...string) outcome.Outcome {
	if o.Status == "" || slices.Contains(pendingReasons, o.Reason) {
		o.Reason = hcplinkv1beta1.DeletingReason
	}
	o.Status = metav1.ConditionFalse
	return o
}
