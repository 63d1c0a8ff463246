package soak

import (
	"context"
	"math/rand"
	"sync"
	"time"

	"github.com/hcplink/hcplink/internal/devenv"
)

// killer kills and restarts operators at random during the faulty period:
// the management operator (stopped and started again, as a pod killed and
// rescheduled) or one cluster's control-plane operator (kept down for a few
// seconds, then started again by the kubelet stand-in).
type killer struct {
	env      *devenv.Env
	rng      *rand.Rand
	clusters []*cluster

	mu                            sync.Mutex
	down                          map[string]bool // control-plane namespaces held down
	operatorRestarts, cpoRestarts int
}

func (k *killer) run(ctx context.Context, until time.Time, log *lockedWriter) {
	k.down = map[string]bool{}
	for {
		wait := time.Duration(k.rng.Int63n(int64(2 * restartEvery)))
		if time.Now().Add(wait).After(until) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if k.rng.Intn(2) == 0 {
			if err := k.env.StopOperator(); err != nil {
				log.printf("stopping the management operator: %v", err)
			}
			k.env.StartOperator()
			k.mu.Lock()
			k.operatorRestarts++
			k.mu.Unlock()
			continue
		}
		running := k.env.RunningControlPlaneOperators()
		if len(running) == 0 {
			continue
		}
		ns := running[k.rng.Intn(len(running))]
		k.env.StopControlPlaneOperator(ns)
		k.mu.Lock()
		k.down[ns] = true
		k.cpoRestarts++
		k.mu.Unlock()
		downFor := time.Duration(k.rng.Int63n(int64(cpoDownFor)))
		time.AfterFunc(downFor, func() { k.revive(ctx, ns) })
	}
}

func (k *killer) revive(ctx context.Context, ns string) {
	k.mu.Lock()
	wasDown := k.down[ns]
	delete(k.down, ns)
	k.mu.Unlock()
	if wasDown {
		_ = k.env.StartControlPlaneOperator(ctx, ns) // gone with its cluster: nothing to start
	}
}

// reviveAll starts everything that is down, for the settling.
func (k *killer) reviveAll(ctx context.Context) {
	k.mu.Lock()
	var nss []string
	for ns := range k.down {
		nss = append(nss, ns)
	}
	k.mu.Unlock()
	for _, ns := range nss {
		k.revive(ctx, ns)
	}
	k.env.StartOperator()
}
