// Package metrics holds the metrics that answer an operator's questions
// about hcplink itself: which clusters are available and how long they
// took, which errors the controllers meet, what the sweepers removed. The
// cloud request metrics live with the clouds (internal/cloud). Everything
// is served on the controller-runtime metrics endpoint.
package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The metric names.
const (
	ClusterAvailableName  = "hcplink_hostedcluster_available"
	TimeToAvailableName   = "hcplink_hostedcluster_time_to_available_seconds"
	ReconcileErrorsName   = "hcplink_reconcile_errors_total"
	CleanupsAbandonedName = "hcplink_cloud_cleanups_abandoned_total"
	OrphansDeletedName    = "hcplink_orphans_deleted_total"
	StaleFinalizersName   = "hcplink_stale_finalizer_writes_total"
)

var (
	clusterAvailable = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: ClusterAvailableName,
		Help: "1 when the HostedCluster's Available condition is True, else 0; reason is the condition's reason.",
	}, []string{"namespace", "name", "platform", "reason"})

	timeToAvailable = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    TimeToAvailableName,
		Help:    "Time a HostedCluster took to become Available: from its creation, or from when it stopped being Available.",
		Buckets: []float64{15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200},
	}, []string{"platform"})

	reconcileErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: ReconcileErrorsName,
		Help: "Passes of hcplink's controllers that ended in an error, by the condition reason it was reported with (Throttled, AccessDenied, CloudError, ...).",
	}, []string{"reason"})

	cleanupsAbandoned = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: CleanupsAbandonedName,
		Help: "Deletions of a HostedCluster whose cloud cleanup was given up after the grace period (CloudResourcesMayHaveLeaked), by platform.",
	}, []string{"platform"})

	orphansDeleted = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: OrphansDeletedName,
		Help: "Cloud resources tagged by hcplink for an object that no longer exists, deleted by a sweeper, by component and kind.",
	}, []string{"component", "kind"})

	staleFinalizers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: StaleFinalizersName,
		Help: "Finalizer writes refused because the controller's copy of the object was stale (another writer got in first); each is looked at again shortly, not an error.",
	}, []string{"controller"})
)

func init() {
	ctrlmetrics.Registry.MustRegister(clusterAvailable, timeToAvailable, reconcileErrors, cleanupsAbandoned, orphansDeleted, staleFinalizers)
}

// ClusterAvailable records a HostedCluster's Available condition.
func ClusterAvailable(namespace, name, platform string, available bool, reason string) {
	clusterAvailable.DeletePartialMatch(prometheus.Labels{"namespace": namespace, "name": name})
	value := 0.0
	if available {
		value = 1
	}
	clusterAvailable.WithLabelValues(namespace, name, platform, reason).Set(value)
}

// ClusterGone drops a deleted HostedCluster's series.
func ClusterGone(namespace, name string) {
	clusterAvailable.DeletePartialMatch(prometheus.Labels{"namespace": namespace, "name": name})
}

// BecameAvailable records how long a HostedCluster took to become Available.
func BecameAvailable(platform string, took time.Duration) {
	timeToAvailable.WithLabelValues(platform).Observe(took.Seconds())
}

// ReconcileError counts a pass that ended in an error reported with reason.
func ReconcileError(reason string) { reconcileErrors.WithLabelValues(reason).Inc() }

// CleanupAbandoned counts a cluster whose cloud cleanup was given up.
func CleanupAbandoned(platform string) { cleanupsAbandoned.WithLabelValues(platform).Inc() }

// OrphanDeleted counts a resource a sweeper removed.
func OrphanDeleted(component, kind string) { orphansDeleted.WithLabelValues(component, kind).Inc() }

// OrphanCounter is the counter OrphanDeleted adds to (for tests).
func OrphanCounter(component, kind string) prometheus.Counter {
	return orphansDeleted.WithLabelValues(component, kind)
}

// StaleFinalizerWrite counts a finalizer write of controller refused
// because its copy of the object was stale.
func StaleFinalizerWrite(controller string) { staleFinalizers.WithLabelValues(controller).Inc() }

// StaleFinalizerCounter is the counter StaleFinalizerWrite adds to (for
// tests).
func StaleFinalizerCounter(controller string) prometheus.Counter {
	return staleFinalizers.WithLabelValues(controller)
}

// ReconcileErrorCounter is the counter ReconcileError adds to (for tests).
func ReconcileErrorCounter(reason string) prometheus.Counter {
	return reconcileErrors.WithLabelValues(reason)
}

// Names are the names of the metrics this package serves (the rules and
// the dashboard are tested to use no others).
func Names() []string {
	return []string{ClusterAvailableName, TimeToAvailableName, ReconcileErrorsName, CleanupsAbandonedName, OrphansDeletedName, StaleFinalizersName}
}
