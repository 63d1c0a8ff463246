package aws

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

// AWS throttling, for every AWS call of both operators (the endpoint
// service's and the VPC endpoint's creation among them), is handled in
// three steps, each in one place:
//
//  1. Within one call, the SDK's standard retryer (Retryer, below, set by
//     LoadConfig) retries a throttled or failed attempt: at most
//     retryMaxAttempts attempts, exponential jittered backoff of at most
//     retryMaxBackoff, and a client-side retry quota that stops retries
//     when too many fail (the SDK's standard mode:
//     https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html).
//  2. A call still throttled after those attempts is classified
//     ClassThrottled by its code (throttlingCodes, below; IsThrottling).
//  3. The controller's pass then waits by the one outcome policy:
//     outcome.DefaultPolicy.Throttled (a first delay spread over 10–30 s
//     so that many clusters throttled together do not retry together,
//     doubling per object up to 5 minutes through outcome.Tracker), and
//     the condition says Throttled.

// The SDK's standard-mode defaults, written out so that they are read
// here rather than inferred from the SDK's code.
const (
	// retryMaxAttempts: the first attempt and two retries.
	retryMaxAttempts = 3
	// retryMaxBackoff bounds one wait between attempts.
	retryMaxBackoff = 20 * time.Second
)

// throttlingCodes are the codes AWS services answer when they throttle.
var throttlingCodes = map[string]bool{
	"Throttling":                             true,
	"ThrottlingException":                    true,
	"ThrottledException":                     true,
	"RequestThrottledException":              true,
	"RequestThrottled":                       true,
	"RequestLimitExceeded":                   true,
	"TooManyRequestsException":               true,
	"PriorRequestNotComplete":                true,
	"SlowDown":                               true,
	"EC2ThrottledException":                  true,
	"BandwidthLimitExceeded":                 true,
	"ProvisionedThroughputExceededException": true,
	"TransactionInProgressException":         true,
}

// Retryer is the SDK retryer of hcplink's AWS clients: the standard one,
// with retryMaxAttempts and retryMaxBackoff.
func Retryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = retryMaxAttempts
		o.MaxBackoff = retryMaxBackoff
	})
}

// useRetryer sets Retryer on cfg unless its loading asked for another
// retry mode (AWS_RETRY_MODE=adaptive, say): a person's choice stands. A
// maximum of attempts set by AWS_MAX_ATTEMPTS or config.WithRetryMaxAttempts
// still applies (each client wraps the retryer with it).
func useRetryer(cfg *aws.Config) {
	if cfg.Retryer != nil || (cfg.RetryMode != "" && cfg.RetryMode != aws.RetryModeStandard) {
		return
	}
	cfg.Retryer = Retryer
}
