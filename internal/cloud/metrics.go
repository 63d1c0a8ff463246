package cloud

import (
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Outcomes of a cloud request, the "outcome" label of
// hcplink_cloud_requests_total, the same for every cloud.
const (
	OutcomeSuccess     = "success"
	OutcomeThrottled   = "throttled"
	OutcomeNotFound    = "not_found"
	OutcomeClientError = "client_error"
	OutcomeServerError = "server_error"
)

var (
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hcplink_cloud_requests_total",
		Help: "Cloud API requests (each attempt, retries included) by component, service, operation and outcome (success, throttled, not_found, client_error, server_error).",
	}, []string{"component", "service", "operation", "outcome"})

	requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "hcplink_cloud_request_duration_seconds",
		Help:    "Duration of cloud API requests (each attempt) by component, service and operation.",
		Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{"component", "service", "operation"})

	registerOnce sync.Once
)

// registerRequestMetrics registers the collectors in controller-runtime's
// registry once per process: many control-plane operators share one
// process in the local environment.
func registerRequestMetrics() {
	registerOnce.Do(func() {
		for _, c := range []prometheus.Collector{requestsTotal, requestDuration} {
			if err := metrics.Registry.Register(c); err != nil {
				var already prometheus.AlreadyRegisteredError
				if !errors.As(err, &already) {
					panic(err)
				}
			}
		}
	})
}

// ObserveRequest records one attempt of a cloud request: component is the
// caller ("operator", "control-plane-operator"), service and operation name
// the API call as the cloud does, class is how it ended (ClassNone when it
// succeeded).
func ObserveRequest(component, service, operation string, class Class, took time.Duration) {
	registerRequestMetrics()
	requestDuration.WithLabelValues(component, service, operation).Observe(took.Seconds())
	requestsTotal.WithLabelValues(component, service, operation, OutcomeOf(class)).Inc()
}

// RequestCounter is the request counter with these labels, and
// RequestDurations the duration histograms (for tests).
func RequestCounter(component, service, operation, outcome string) prometheus.Counter {
	return requestsTotal.WithLabelValues(component, service, operation, outcome)
}

// RequestDurations: see RequestCounter.
func RequestDurations() prometheus.Collector { return requestDuration }

// OutcomeOf is the outcome label of a request that ended in class.
func OutcomeOf(class Class) string {
	switch class {
	case ClassNone:
		return OutcomeSuccess
	case ClassThrottled:
		return OutcomeThrottled
	case ClassNotFound:
		return OutcomeNotFound
	case ClassServerError:
		return OutcomeServerError
	default: // access denied and every other refusal
		return OutcomeClientError
	}
}

// RequestMetricNames are the names of the cloud request metrics.
func RequestMetricNames() []string {
	return []string{"hcplink_cloud_requests_total", "hcplink_cloud_request_duration_seconds"}
}
