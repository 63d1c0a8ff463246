package aws

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"

	"github.com/hcplink/hcplink/internal/cloud"
)

// The outcome labels, shared by every cloud.
const (
	OutcomeSuccess     = cloud.OutcomeSuccess
	OutcomeThrottled   = cloud.OutcomeThrottled
	OutcomeNotFound    = cloud.OutcomeNotFound
	OutcomeClientError = cloud.OutcomeClientError
	OutcomeServerError = cloud.OutcomeServerError
)

// metricsMiddlewareID names the middleware in the SDK's stack.
const metricsMiddlewareID = "hcplink.io/cloud-metrics"

// Instrument adds a middleware to cfg that records every request the
// clients built from cfg send: hcplink_cloud_requests_total and
// hcplink_cloud_request_duration_seconds, labelled with component (the
// caller, for example "operator" or "control-plane-operator"), the service
// (EC2, STS, ...) and the operation. It counts each attempt, so retries and
// throttled attempts show up as the cloud saw them. The metrics are served by
// the controller-runtime metrics endpoint. Instrument a config once; clients
// built from it afterwards are all instrumented.
func Instrument(cfg *aws.Config, component string) {
	cfg.APIOptions = append(cfg.APIOptions, func(stack *middleware.Stack) error {
		mw := middleware.FinalizeMiddlewareFunc(metricsMiddlewareID, func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			start := time.Now()
			out, md, err := next.HandleFinalize(ctx, in)
			service, operation := awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx)
			cloud.ObserveRequest(component, service, operation, Classify(err), time.Since(start))
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
func Outcome(err error) string { return cloud.OutcomeOf(Classify(err)) }
