package reconcilekit

import (
	"context"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/hcplink/hcplink/internal/outcome"
)

// Periodic is a sweeper's loop, a manager Runnable: Run every Interval,
// jittered so that many sweepers never call the cloud together, each run
// bounded by Timeout, until the manager stops. A failed run is logged and
// tried again at the next interval.
type Periodic struct {
	Interval, Timeout time.Duration
	Run               func(ctx context.Context) error
	// Failed is the log line of a failed run.
	Failed string
	// LeaderElection: run only in the elected replica.
	LeaderElection bool
}

// Start runs until ctx ends.
func (p Periodic) Start(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(outcome.Jitter(p.Interval)):
		}
		runCtx, cancel := context.WithTimeout(ctx, p.Timeout)
		err := p.Run(runCtx)
		cancel()
		if err != nil {
			ctrl.LoggerFrom(ctx).Info(p.Failed, "reason", err.Error())
		}
	}
}

// NeedLeaderElection reports whether the loop runs only in the elected
// replica.
func (p Periodic) NeedLeaderElection() bool { return p.LeaderElection }
