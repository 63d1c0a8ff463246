package operator

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/hcplink/hcplink/internal/cloud"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/operator/platform"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Timing of the credentials check.
const (
	// credentialsCheckTimeout bounds one GetCallerIdentity call.
	credentialsCheckTimeout = 15 * time.Second
	// credentialsRecheck: see intervals.OperatorCredentialsRecheck.
	credentialsRecheck = intervals.OperatorCredentialsRecheck
)

// CredentialsValidMetric is the gauge of the operator's own credentials.
const CredentialsValidMetric = "hcplink_cloud_credentials_valid"

var (
	credentialsValid = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: CredentialsValidMetric,
		Help: "1 when the operator's cloud credentials were accepted at the last check, 0 when they were refused or the cloud could not be reached.",
	}, []string{"platform"})
	registerOnce sync.Once
)

func registerMetrics() {
	registerOnce.Do(func() {
		if err := metrics.Registry.Register(credentialsValid); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				panic(err)
			}
		}
	})
}

func init() { registerMetrics() }

// credentialsChecker checks the operator's cloud credentials at start and
// then periodically, retrying with backoff while they fail. It never stops
// the operator: an unreachable or refusing cloud is logged and shown by
// hcplink_cloud_credentials_valid. Its last result (CredentialsState) is
// what the HostedCluster controller reads before giving up the operator's
// own cleanup at deletion: refused credentials are Invalid, a cloud that
// could not be asked is Unknown (which never gives up).
type credentialsChecker struct {
	caller   platform.IdentityCaller
	platform string
	// log is where results go; the manager's context carries no logger.
	log logr.Logger
	// retryMin overrides the first delay after a failure (tests); zero is
	// outcome.DefaultPolicy.Credentials's.
	retryMin time.Duration
	// now tells the time of state changes; nil is the wall clock.
	now func() time.Time

	mu    sync.Mutex
	state platform.CredentialsState
	since time.Time
}

func newCredentialsChecker(platformName string, caller platform.IdentityCaller, log logr.Logger) *credentialsChecker {
	c := &credentialsChecker{caller: caller, platform: platformName, log: log}
	c.set(platform.CredentialsUnknown)
	return c
}

// CredentialsState is the last check's result and since when it holds.
func (c *credentialsChecker) CredentialsState() (platform.CredentialsState, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == "" {
		return platform.CredentialsUnknown, c.since
	}
	return c.state, c.since
}

// set records state; since changes only when the state does.
func (c *credentialsChecker) set(state platform.CredentialsState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == state {
		return
	}
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	c.state, c.since = state, now()
}

// NeedLeaderElection is false: every replica reports its own credentials.
func (c *credentialsChecker) NeedLeaderElection() bool { return false }

// Start runs the checks until ctx ends.
func (c *credentialsChecker) Start(ctx context.Context) error {
	log := c.log.WithValues("platform", c.platform)
	// The retries after a failure follow the one outcome policy.
	retry := outcome.Retry{Step: outcome.DefaultPolicy.Credentials}
	if c.retryMin > 0 {
		retry.Step.Base, retry.Step.Spread = c.retryMin, c.retryMin/5
	}
	lastOK := false
	for {
		callCtx, cancel := context.WithTimeout(ctx, credentialsCheckTimeout)
		identity, err := c.caller(callCtx)
		cancel()
		var wait time.Duration
		switch {
		case ctx.Err() != nil:
			return nil
		case err == nil:
			credentialsValid.WithLabelValues(c.platform).Set(1)
			c.set(platform.CredentialsValid)
			if !lastOK {
				log.Info("cloud credentials are valid", "identity", identity)
			}
			retry.Reset()
			lastOK, wait = true, outcome.JitterLater(credentialsRecheck)
		default:
			credentialsValid.WithLabelValues(c.platform).Set(0)
			lastOK = false
			// The platform's caller classifies its cloud's answer.
			code := ""
			if ce, ok := cloud.AsError(err); ok {
				code = ce.Code
			}
			wait = retry.Next()
			switch {
			case cloud.ClassOf(err) == cloud.ClassAccessDenied:
				c.set(platform.CredentialsInvalid)
				log.Error(err, "the cloud refused the operator's credentials; fix the operator's identity (role, keys or web identity token)", "code", code, "retryIn", wait)
			default:
				c.set(platform.CredentialsUnknown)
				log.Error(err, "could not check the operator's cloud credentials; retrying", "code", code, "retryIn", wait)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}
