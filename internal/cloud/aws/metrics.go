package aws

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Outcomes of a cloud request, the "outcome" label of
// hcplink_cloud_requests_total.
const (
	OutcomeSuccess     = "success"
	OutcomeThrottled   = "throttled"
	OutcomeNotFound    = "not_found"
	OutcomeClientError = "client_error"
	OutcomeServerError = "server_error"
)

// metricsMiddlewareID names the middleware in the SDK's stack.
const metricsMiddlewareID = "hcplink.io/cloud-metrics"

var (
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hcplink_cloud_requests_total",
		Help: "AWS API requests (each attempt, retries included) by component, service, operation and outcome (success, throttled, not_found, client_error, server_error).",
	}, []string{"component", "service", "operation", "outcome"})

	requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "hcplink_cloud_request_duration_seconds",
		Help:    "Duration of AWS API requests (each attempt) by component, service and operation.",
		Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{"component", "service", "operation"})

	registerOnce sync.Once
)

// registerMetrics registers the collectors in controller-runtime's registry
// once per process: many control-plane operators share one process in the
// local environment.
func registerMetrics() {
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

// Instrument adds a middleware to cfg that records every request the
// clients built from cfg send: hcplink_cloud_requests_total and
// hcplink_cloud_request_duration_seconds, labelled with component (the
// caller, for example "operator" or "control-plane-operator"), the service
// (EC2, STS, ...) and the operation. It counts each attempt, so retries and
// throttled attempts show up as the cloud saw them. The metrics are served by
// the controller-runtime metrics endpoint. Instrument a config once; clients
// built from it afterwards are all instrumented.
func Instrument(cfg *aws.Config, component string) {
	registerMetrics()
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		mw := middleware.FinalizeMiddlewareFunc(metricsMiddlewareID, func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			start := time.Now()
			out, md, err := next.HandleFinalize(ctx, in)
			service, operation := awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx)
			requestDuration.WithLabelValues(component, service, operation).Observe(time.Since(start).Seconds())
			requestsTotal.WithLabelValues(component, service, operation, Outcome(err)).Inc()
			return out, md, err
		})
		// Inside the retry loop, so that each attempt is seen; at the end
		// of the stack when an operation has no retry middleware.
		if _, ok := stack.Finalize.Get("Retry"); ok {
			return stack.Finalize.Insert(mw, "Retry", middleware.After)
		}
		return stack.Finalize.Add(mw, middleware.After)
	})
}

// Outcome is the outcome label for the result of one request.
func Outcome(err error) string {
	switch Classify(err) {
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
