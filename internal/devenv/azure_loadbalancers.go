package devenv

import (
	ctrl "sigs.k8s.io/controller-runtime"
)

// setupAzureLoadBalancers registers the stand-in for Azure's cloud
// provider: internal load-balancer frontends in the management VNet.
func (e *Env) setupAzureLoadBalancers(mgr ctrl.Manager) error {
	e.LoadBalancerCalls = newCallCounter("Microsoft.Network")
	return nil
}
