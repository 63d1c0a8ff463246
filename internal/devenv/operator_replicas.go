package devenv

import (
	"context"
	"errors"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/operator"
)

// operatorReplica is one running replica of the in-process management
// operator (cancel is nil while it is stopped).
type operatorReplica struct {
	cancel context.CancelFunc
	done   chan error
	// exits counts the runs in a row that ended on their own (a lost
	// Lease), for the kubelet's back-off; started is when this run began.
	exits   int
	started time.Time
}

// The kubelet restarts a container whose process ended after a back-off
// of 10 s, doubling up to 5 minutes, and forgets the back-off once the
// container has run for 10 minutes
// (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#restart-policy).
const (
	restartBackOff    = 10 * time.Second
	restartBackOffMax = 5 * time.Minute
	restartBackOffFor = 10 * time.Minute
)

// restartDelay is the kubelet's back-off, from base, before the restart
// that follows exits runs in a row that ended on their own (1 for the
// first).
func restartDelay(base time.Duration, exits int) time.Duration {
	d := base
	for range exits - 1 {
		if d *= 2; d >= restartBackOffMax {
			return restartBackOffMax
		}
	}
	return d
}

// OperatorReplicas is how many replicas the in-process management operator
// has (Options.OperatorReplicas; 0 when it runs as its own process).
func (e *Env) OperatorReplicas() int { return len(e.replicas) }

// StartOperatorReplica starts replica i unless it runs. Only the first
// replica serves metrics: the address is one.
func (e *Env) StartOperatorReplica(i int) {
	e.operatorMu.Lock()
	defer e.operatorMu.Unlock()
	if i < 0 || i >= len(e.replicas) || e.replicas[i].cancel != nil || e.OperatorPID != 0 {
		return
	}
	e.startOperatorReplicaLocked(i)
}

// OperatorReplicaExits counts the replicas' runs that ended on their own
// (a replica that lost the Lease stops, as controller-runtime's manager
// does) and that devenv therefore started again, as the kubelet would.
func (e *Env) OperatorReplicaExits() int {
	e.operatorMu.Lock()
	defer e.operatorMu.Unlock()
	return e.replicaExits
}

func (e *Env) startOperatorReplicaLocked(i int) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	r := e.replicas[i]
	r.cancel, r.done, r.started = cancel, done, time.Now()
	opts := e.operatorOptions
	if i > 0 {
		opts.MetricsBindAddress = "0"
	}
	if e.Platform == PlatformAWS {
		// Each run instruments its own copy of the configuration.
		cfg := e.operatorAWS.Copy()
		cfg.APIOptions = slices.Clone(cfg.APIOptions)
		opts.AWS = &cfg
	}
	log := e.operatorLog
	if len(e.replicas) > 1 {
		log = log.WithValues("replica", i)
	}
	go func() {
		run := operator.Run
		if e.runOperator != nil {
			run = e.runOperator
		}
		err := run(ctrl.LoggerInto(ctx, log), opts)
		done <- err
		if ctx.Err() != nil {
			return // stopped on purpose (StopOperatorReplica)
		}
		e.restartAfterExit(ctx, i, done, err)
	}()
}

// restartAfterExit starts replica i again after the kubelet's back-off
// when its run (the one whose result goes to done) ended on its own,
// unless it was stopped or started again meanwhile.
func (e *Env) restartAfterExit(ctx context.Context, i int, done chan error, err error) {
	e.operatorMu.Lock()
	r := e.replicas[i]
	if r.done != done {
		e.operatorMu.Unlock()
		return
	}
	if time.Since(r.started) >= restartBackOffFor {
		r.exits = 0
	}
	r.exits++
	e.replicaExits++
	base := restartBackOff
	if e.replicaBackOff > 0 {
		base = e.replicaBackOff
	}
	delay := restartDelay(base, r.exits)
	e.operatorMu.Unlock()
	e.operatorLog.Info("a management operator replica stopped on its own; starting it again after the kubelet's back-off",
		"replica", i, "reason", err, "after", delay)
	select {
	case <-ctx.Done():
		return // stopped meanwhile
	case <-time.After(delay):
	}
	e.operatorMu.Lock()
	defer e.operatorMu.Unlock()
	if r.done != done || ctx.Err() != nil {
		return
	}
	r.cancel()
	r.cancel, r.done = nil, nil
	e.startOperatorReplicaLocked(i)
}

// StopOperatorReplica stops replica i, as its pod killed; a leader steps
// down at once (the operator releases its Lease on shutdown).
func (e *Env) StopOperatorReplica(i int) error {
	e.operatorMu.Lock()
	defer e.operatorMu.Unlock()
	if i < 0 || i >= len(e.replicas) || e.replicas[i].cancel == nil {
		return nil
	}
	r := e.replicas[i]
	r.cancel()
	err := <-r.done
	r.cancel, r.done = nil, nil
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// OperatorLease reads the management operator's leader-election Lease:
// who holds it and how many times it changed hands.
func (e *Env) OperatorLease(ctx context.Context) (holder string, transitions int32, err error) {
	var lease coordinationv1.Lease
	if err := e.Client.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: operator.LeaderElectionID}, &lease); err != nil {
		return "", 0, err
	}
	if lease.Spec.HolderIdentity != nil {
		holder = *lease.Spec.HolderIdentity
	}
	if lease.Spec.LeaseTransitions != nil {
		transitions = *lease.Spec.LeaseTransitions
	}
	return holder, transitions, nil
}
