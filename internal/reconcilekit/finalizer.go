package reconcilekit

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/outcome"
)

// EnsureFinalizer adds finalizer to obj, with the annotations its deletion
// will need (nil: none), in one merge patch, before anything is created in
// the cloud; nothing is written when both are there. It reports whether it
// wrote.
func EnsureFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string, annotations map[string]string) (bool, error) {
	missing := !controllerutil.ContainsFinalizer(obj, finalizer)
	have := obj.GetAnnotations()
	for k, v := range annotations {
		if have[k] != v {
			missing = true
		}
	}
	if !missing {
		return false, nil
	}
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	controllerutil.AddFinalizer(obj, finalizer)
	if len(annotations) > 0 {
		if have == nil {
			have = map[string]string{}
		}
		for k, v := range annotations {
			have[k] = v
		}
		obj.SetAnnotations(have)
	}
	if err := c.Patch(ctx, obj, patch); err != nil {
		return false, fmt.Errorf("adding the finalizer: %w", err)
	}
	return true, nil
}

// RemoveFinalizer removes finalizer from obj: the very last step of its
// deletion. An object already gone is not an error.
func RemoveFinalizer(ctx context.Context, c client.Client, obj client.Object, finalizer string) error {
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	controllerutil.RemoveFinalizer(obj, finalizer)
	if err := c.Patch(ctx, obj, patch); client.IgnoreNotFound(err) != nil {
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
