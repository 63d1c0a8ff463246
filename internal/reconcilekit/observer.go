package reconcilekit

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Observe is the start of an observer's pass. It reads the observed
// Service and, into obj, the private-link object named like it (of kind,
// for messages); found is false when the object does not exist. When the
// Service is gone (absent or deleting), the private path goes with it: the
// object is deleted (its finalizers clean its cloud resources) and svc is
// nil, the pass being over.
func Observe(ctx context.Context, c client.Client, key types.NamespacedName, obj client.Object, kind string) (svc *corev1.Service, found bool, err error) {
	svc, found, err = readObserved(ctx, c, key, obj, kind)
	if err != nil || !gone(svc) {
		return svc, found, err
	}
	if found {
		return nil, found, deleteWithService(ctx, c, obj, kind)
	}
	return nil, found, nil
}

// readObserved reads an observer's Service and, into obj, the private-link
// object of the same name: svc is nil and found false for what does not
// exist.
func readObserved(ctx context.Context, c client.Client, key types.NamespacedName, obj client.Object, kind string) (svc *corev1.Service, found bool, err error) {
	svc = &corev1.Service{}
	if err := c.Get(ctx, key, svc); apierrors.IsNotFound(err) {
		svc = nil
	} else if err != nil {
		return nil, false, fmt.Errorf("reading Service %s: %w", key.Name, err)
	}
	if err := c.Get(ctx, key, obj); apierrors.IsNotFound(err) {
		return svc, false, nil
	} else if err != nil {
		return nil, false, fmt.Errorf("reading %s %s: %w", kind, key.Name, err)
	}
	return svc, true, nil
}

// gone reports whether an observed Service no longer serves: absent or
// deleting.
func gone(svc *corev1.Service) bool { return svc == nil || !svc.DeletionTimestamp.IsZero() }

// deleteWithService deletes obj (of kind) because its Service is gone,
// unless it is deleting already.
func deleteWithService(ctx context.Context, c client.Client, obj client.Object, kind string) error {
	if !obj.GetDeletionTimestamp().IsZero() {
		return nil
	}
	if err := c.Delete(ctx, obj, client.Preconditions{UID: ptr.To(obj.GetUID())}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting %s %s: %w", kind, obj.GetName(), err)
	}
	ctrl.LoggerFrom(ctx).Info("Deleted "+kind+" whose Service is gone", logKey(kind), obj.GetName())
	return nil
}

// logKey is a kind's log key: "AWSEndpointService" → "awsEndpointService".
func logKey(kind string) string {
	upper := 0
	for upper < len(kind) && kind[upper] >= 'A' && kind[upper] <= 'Z' {
		upper++
	}
	if upper > 1 && upper < len(kind) {
		upper-- // the last capital starts the next word
	}
	return strings.ToLower(kind[:upper]) + kind[upper:]
}
