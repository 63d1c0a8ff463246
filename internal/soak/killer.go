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
	every    time.Duration // an operator is killed every this long on average

	mu                            sync.Mutex
	down                          map[string]bool // control-plane namespaces held down
	operatorRestarts, cpoRestarts int
	leaderKills                   int // handovers forced by killing the leader
}

// handoverWithin is how long the standby replica may take to lead after
// the leader stepped down: it retries the Lease every 2 s
// (controller-runtime's RetryPeriod), and it may be busy.
const handoverWithin = 30 * time.Second

// killLeader kills the management operator's leading replica, waits until
// another replica holds the Lease (its transitions count grows), then
// starts the killed one again as a standby. Which replica leads is read
// from the Lease: a replica whose stop changed the holder was the leader
// (it steps down on shutdown); one whose stop did not is started again and
// the next is tried.
func (k *killer) killLeader(ctx context.Context, log *lockedWriter) {
	holder, before, err := k.env.OperatorLease(ctx)
	if err != nil {
		log.printf("reading the management operator's Lease: %v", err)
		return
	}
	for i := range k.env.OperatorReplicas() {
		if err := k.env.StopOperatorReplica(i); err != nil {
			log.printf("stopping the management operator's replica %d: %v", i, err)
		}
		now, _, err := k.env.OperatorLease(ctx)
		if err != nil || now == holder {
			k.env.StartOperatorReplica(i) // a standby: the leader is another
			continue
		}
		deadline := time.Now().Add(handoverWithin)
		for {
			_, t, err := k.env.OperatorLease(ctx)
			if err == nil && t > before {
				log.printf("killed the leading replica %d of the management operator; another leads", i)
				k.mu.Lock()
				k.leaderKills++
				k.operatorRestarts++
				k.mu.Unlock()
				break
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				log.printf("killed the leading replica %d of the management operator; no other took the Lease within %v", i, handoverWithin)
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		k.env.StartOperatorReplica(i)
		return
	}
	log.printf("no replica of the management operator held the Lease (%q)", holder)
}

func (k *killer) run(ctx context.Context, until time.Time, log *lockedWriter) {
	k.down = map[string]bool{}
	for {
		wait := time.Duration(k.rng.Int63n(int64(2 * k.every)))
		if time.Now().Add(wait).After(until) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		// The kinds take turns, so that two kills make one of each.
		k.mu.Lock()
		operatorsTurn := (k.operatorRestarts+k.cpoRestarts)%2 == 0
		k.mu.Unlock()
		if operatorsTurn {
			// One replica's pod killed and rescheduled; when it led, the
			// other takes over.
			i := k.rng.Intn(max(1, k.env.OperatorReplicas()))
			if err := k.env.StopOperatorReplica(i); err != nil {
				log.printf("stopping the management operator's replica %d: %v", i, err)
			}
			k.env.StartOperatorReplica(i)
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
