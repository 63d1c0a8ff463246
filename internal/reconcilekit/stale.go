package reconcilekit

import (
	"context"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/hcplink/hcplink/internal/kubepatch"
	"github.com/hcplink/hcplink/internal/metrics"
)

// staleRequeue: a finalizer write from a stale copy is tried again once
// the cache holds the newer object, which its watch brings within moments;
// a fixed short delay, so that a cache that lags longer is never a hot loop.
const staleRequeue = 500 * time.Millisecond

// QuietWhenStale wraps r, the controller named name, so that a pass ended
// by a finalizer write from a stale copy (kubepatch.StaleError) is looked
// at again shortly: counted and logged at debug level, not returned to
// controller-runtime, which would log it as a reconciler error with a
// stack. Every other error is returned as it was.
func QuietWhenStale(name string, r reconcile.Reconciler) reconcile.Reconciler {
	return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		res, err := r.Reconcile(ctx, req)
		if err == nil || !kubepatch.IsStale(err) {
			return res, err
		}
		metrics.StaleFinalizerWrite(name)
		ctrl.LoggerFrom(ctx).V(1).Info("the object changed since it was read; looking again", "reason", err.Error())
		return reconcile.Result{RequeueAfter: staleRequeue}, nil
	})
}
