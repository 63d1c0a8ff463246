package devenv

import (
	"context"
	"errors"
	"slices"

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
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	e.replicas[i].cancel, e.replicas[i].done = cancel, done
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
	go func() { done <- operator.Run(ctrl.LoggerInto(ctx, log), opts) }()
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
