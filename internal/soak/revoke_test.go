package soak

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/hcplink/hcplink/internal/devenv"
)

// refusingIAM is a platform whose revocation fails, changing nothing, a
// number of times before it works (the cloud throttled the soak's own
// IAM calls).
type refusingIAM struct {
	platform
	failures, calls int
}

func (p *refusingIAM) revoke(context.Context, *devenv.Env, *cluster) (func(context.Context) error, error) {
	p.calls++
	if p.calls <= p.failures {
		return nil, errors.New("429 Too Many Requests")
	}
	return func(context.Context) error { return nil }, nil
}

// A revocation whose first attempts are throttled is tried again until it
// takes, while it still fits in the faulty period; past that it is given up.
func TestRevocationIsRetriedWhileItFits(t *testing.T) {
	log := &lockedWriter{w: io.Discard}
	c := &cluster{name: "hc-0"}

	p := &refusingIAM{failures: 2}
	r := &revoker{p: p, retryEvery: time.Millisecond}
	restore, _ := r.revokeOnce(context.Background(), c, time.Now().Add(time.Minute), log)
	if restore == nil || p.calls != 3 {
		t.Errorf("after 2 throttled attempts: restore %v after %d calls; want a revocation at the 3rd", restore != nil, p.calls)
	}

	p = &refusingIAM{failures: 1000}
	r = &revoker{p: p, retryEvery: time.Millisecond}
	restore, _ = r.revokeOnce(context.Background(), c, time.Now().Add(20*time.Millisecond), log)
	if restore != nil || p.calls < 2 {
		t.Errorf("with no room left: restore %v after %d calls; want retries, then none", restore != nil, p.calls)
	}
}
