package soak

import (
	"context"
	"time"

	"github.com/hcplink/hcplink/internal/cloud"
)

// patientFor bounds how long the soak's own set-up waits out the cloud's
// throttling; a fleet's set-up spends a subscription's write budget many
// times over, and it is not what the soak measures.
const patientFor = 10 * time.Minute

// patiently runs an idempotent set-up step again while the cloud throttles
// it or fails on its side, after the wait the cloud asked for (a second
// when it named none).
func patiently(ctx context.Context, step func() error) error {
	deadline := time.Now().Add(patientFor)
	for {
		err := step()
		class := cloud.ClassOf(err)
		if err == nil || (class != cloud.ClassThrottled && class != cloud.ClassServerError) || time.Now().After(deadline) {
			return err
		}
		wait := time.Second
		if e, ok := cloud.AsError(err); ok && e.RetryAfter > 0 {
			wait = e.RetryAfter
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}
