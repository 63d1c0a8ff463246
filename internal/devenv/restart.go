package devenv

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// RestartOperatorsWithDrift restarts the management operator and every
// running control-plane operator with another drift-check interval, as a
// rollout with a changed --drift-interval flag would. The bench creates
// its clusters at the production interval, so that no drift check runs
// during creation, and observes drift checks at a short one.
func (e *Env) RestartOperatorsWithDrift(ctx context.Context, drift time.Duration) error {
	e.driftInterval = drift
	if err := e.restartOperator(); err != nil {
		return err
	}
	return e.restartControlPlaneOperators(ctx, drift)
}

func (e *Env) restartOperator() error {
	p := e.operatorProcess
	if p == nil {
		if err := e.StopOperator(); err != nil {
			return err
		}
		e.operatorOptions.EndpointServiceDriftInterval = e.driftInterval
		e.StartOperator()
		return nil
	}
	p.stop()
	<-p.exited
	return e.startOperatorProcess(e.runCtx, p.binary, p.metricsAddr)
}

// restartControlPlaneOperators stops each running control-plane operator
// and touches its Deployment, so that the kubelet stand-in starts it again
// with the new interval.
func (e *Env) restartControlPlaneOperators(ctx context.Context, drift time.Duration) error {
	e.cpos.setDriftInterval(drift)
	for _, ns := range e.cpos.Running() {
		key := types.NamespacedName{Namespace: ns, Name: cpoName}
		e.cpos.stop(key)
		if err := e.touchDeployment(ctx, key); err != nil {
			return fmt.Errorf("restarting the control-plane operator of %s: %w", ns, err)
		}
	}
	return nil
}
