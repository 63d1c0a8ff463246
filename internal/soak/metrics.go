package soak

import (
	"sort"
	"time"

	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// hotLoopPerClusterMinute is the most reconciles per cluster per minute a
// controller may make on a settled fleet: each object is reconciled on its
// drift check (every driftInterval, jittered) and when something it watches
// changes, which on a settled fleet is rare. Four times the drift checks
// leaves room for a cluster's several objects of one kind (NodePools).
const hotLoopPerClusterMinute = 4 * float64(time.Minute/driftInterval)

// HotLoop is a controller reconciling more than the policy allows: one
// object (Object set, counted per object) or the controller as a whole
// (counted per cluster).
type HotLoop struct {
	Controller              string  `json:"controller"`
	Object                  string  `json:"object,omitempty"`
	ReconcilesPerObjectMin  float64 `json:"reconcilesPerObjectMinute,omitempty"`
	ReconcilesPerClusterMin float64 `json:"reconcilesPerClusterMinute,omitempty"`
	Policy                  float64 `json:"policy"`
}

// reconcileTotals reads controller-runtime's reconcile counter by
// controller from this process's registry: devenv runs both operators in
// this process.
func reconcileTotals() map[string]float64 {
	out := map[string]float64{}
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		return out
	}
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" {
					out[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

// standIns are devenv's controllers standing in for Kubernetes and the
// cloud (namespace controller, kubelet, load-balancer controllers): their
// rates are reported, but they are not hcplink's and make no hot loop.
var standIns = map[string]bool{"devenv-namespaces": true, "devenv-kubelet": true, "service-load-balancers": true, "azure-service-load-balancers": true}

// hotLoops turns two readings window apart into reconciles per cluster per
// minute by controller, and the controllers over the policy.
func hotLoops(before, after map[string]float64, clusters int, window time.Duration) (map[string]float64, []HotLoop) {
	rates := map[string]float64{}
	loops := []HotLoop{}
	if clusters == 0 {
		return rates, loops
	}
	for name, v := range after {
		rate := (v - before[name]) / float64(clusters) / window.Minutes()
		rates[name] = rate
		if rate > hotLoopPerClusterMinute && !standIns[name] {
			loops = append(loops, HotLoop{Controller: name, ReconcilesPerClusterMin: rate, Policy: hotLoopPerClusterMinute})
		}
	}
	sort.Slice(loops, func(i, j int) bool { return loops[i].Controller < loops[j].Controller })
	return rates, loops
}
