// Package bench measures hcplink at scale on devenv: N Private AWS clusters
// spread over K customer accounts, created at once against a cloud that
// throttles like AWS (per account), then a quiet period.
//
// It reports: the time until all clusters are Available next to a lower
// bound (for each cloudsim token bucket, the calls that took a token beyond
// the bucket's burst ÷ its refill rate; the binding bucket's time plus the
// modelled provisioning chain NLB → endpoint service → endpoint, once, as
// the clusters provision in parallel); cloud calls per cluster on the create
// path by operation, before and after leaving out the load-balancer
// stand-in's calls (made for the cloud provider's load-balancer controller,
// not by hcplink); calls per cluster-hour at steady state, each periodic job
// counted at its own production period — Σ jobs (calls per run per cluster
// × runs per hour): drift is observed in the quiet window with a short drift
// interval, credentials checks and token exchanges cost what their first run
// cost, sweeps are modelled — and the raw count of mutating calls in the
// window; and the management operator's memory per cluster, the
// least-squares slope of its live heap after a forced collection over
// cluster counts, with the spread of its samples.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

// Options configure a run.
type Options struct {
	Out io.Writer
	// Platform is the clusters' cloud: PlatformAWS (empty), PlatformAzure
	// or PlatformGCP.
	Platform string
	// Progress receives the running commentary (Out when nil).
	Progress io.Writer
	// JSON prints the figures as one JSON object instead of the table.
	JSON     bool
	Clusters int
	// CustomerAccounts spreads the clusters over this many customer
	// accounts, round robin (at least 1; AWS only).
	CustomerAccounts int
	// Window is how long the quiet period is observed.
	Window time.Duration
	// DriftInterval is the operators' drift-check interval in the quiet
	// window (creation runs at the production interval);
	// short, so that the window sees many checks. Drift is then counted at
	// the production interval.
	DriftInterval time.Duration
	// OperatorBinary runs the management operator as its own process, so
	// that its memory is its own.
	OperatorBinary string
	// Timeout bounds the wait for all clusters to become available.
	Timeout time.Duration
	// Realistic runs cloudsim with its realistic delays (provisioning as
	// long as the clouds take) instead of the fast ones; the lower bound's
	// provisioning chain is then theirs.
	Realistic bool
	// AzureLoadBalancerConfigurations is how many of the Azure cloud
	// provider's load-balancer configurations the management cluster has
	// (each internal load balancer holds at most 8 Private Link Services)
	// and the operator places routers on; 0: enough for the clusters,
	// ceil(clusters/8), and none (the one shared internal load balancer)
	// for 8 or fewer.
	AzureLoadBalancerConfigurations int
}

// Run performs the benchmark and prints its figures.
func Run(ctx context.Context, opts Options) (err error) {
	progress := opts.Progress
	if progress == nil {
		progress = opts.Out
	}
	f, err := fleetFor(opts)
	if err != nil {
		return err
	}
	env, err := devenv.Start(ctx, f.devenvOptions(opts, progress))
	if err != nil {
		return err
	}
	defer func() {
		if stopErr := env.Stop(); stopErr != nil && err == nil {
			err = stopErr
		}
	}()

	clusters, err := f.prepare(ctx, env, opts.Clusters, progress)
	if err != nil {
		return err
	}
	// What the operator did before the clusters (its first credentials
	// check) counts as start-up; the setup's own calls do not.
	operatorStart := f.operatorStart(env.Cloud.Counters.Snapshot())
	heap := newHeapProbe(env.OperatorMetricsURL, env.OperatorPID != 0)
	env.Cloud.Counters.Reset()
	env.LoadBalancerCalls.Reset()

	fmt.Fprintf(progress, "creating %d Private %s clusters at once (%s)\n", opts.Clusters, f.name(), f.throttlingSays())
	start := time.Now()
	waitCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	// Created while the count is watched: creating many takes a while.
	created := make(chan error, 1)
	go func() {
		err := createAll(waitCtx, env, clusters, f.create)
		if err != nil {
			cancel() // nothing more will become Available: stop waiting
		}
		created <- err
	}()
	available, err := waitAvailable(waitCtx, env, clusters, progress)
	elapsed := time.Since(start)
	if createErr := <-created; createErr != nil {
		return createErr
	}
	if err != nil {
		return fmt.Errorf("%d of %d clusters available after %v: %w", available, len(clusters), elapsed.Round(time.Second), err)
	}
	createCalls := env.Cloud.Counters.Snapshot()
	createByPrincipal := env.Cloud.Counters.SnapshotByPrincipal()
	placements, err := countPlacements(ctx, env, clusters)
	if err != nil {
		return err
	}
	// Before the restart below: the process that created the clusters.
	peak := peakRSS(env.OperatorPID)
	lbCreate := env.LoadBalancerCalls.Snapshot()

	fmt.Fprintf(progress, "restarting the operators with a %v drift interval\n", opts.DriftInterval)
	if err := settleWithDrift(ctx, env, len(clusters), opts.DriftInterval); err != nil {
		return err
	}
	fmt.Fprintf(progress, "observing %v of quiet with a %v drift interval\n", opts.Window, opts.DriftInterval)
	env.Cloud.Counters.Reset()
	env.LoadBalancerCalls.Reset()
	select {
	case <-time.After(opts.Window):
	case <-ctx.Done():
		return ctx.Err()
	}
	quietCalls := env.Cloud.Counters.Snapshot()
	lbQuiet := env.LoadBalancerCalls.Snapshot()
	if err := measureMemory(ctx, env, heap, clusters, opts, progress); err != nil {
		return err
	}

	r := measure(measurement{
		platform: f.name(), clusters: opts.Clusters, accounts: f.accounts(), elapsed: elapsed, window: opts.Window, drift: opts.DriftInterval,
		create: createCalls, createByPrincipal: createByPrincipal, lbCreate: lbCreate, quiet: quietCalls, lbQuiet: lbQuiet, operatorStart: operatorStart,
		accounting: f.accounting(env), memory: heap.taken(), peak: peak, placements: placements,
	})
	r.Placements = placements
	if opts.JSON {
		return r.writeJSON(opts.Out)
	}
	r.print(opts.Out)
	return nil
}

// measureMemory samples the operator's live heap with every cluster (the
// operator restarted for the quiet window has reconciled them all), then
// deletes half of the clusters, restarts the operators and samples again:
// two counts, each seen by a fresh process after its first full pass, so
// that what the operator costs once (clients, caches' first fill, code
// paths' lazy state) is in both and only the clusters differ.
func measureMemory(ctx context.Context, env *devenv.Env, heap *heapProbe, clusters []cluster, opts Options, progress io.Writer) error {
	if heap == nil || len(clusters) < 2 {
		return nil
	}
	// The operator restarted for the quiet window is the count's first process.
	if err := heap.sample(ctx, len(clusters)); err != nil {
		return err
	}
	if err := sampleFreshProcesses(ctx, env, heap, len(clusters), memoryProcessesPerCount-1, opts.DriftInterval); err != nil {
		return err
	}
	gone := clusters[:len(clusters)/2]
	fmt.Fprintf(progress, "deleting %d clusters and restarting the operators, for the memory figure at %d\n", len(gone), len(clusters)-len(gone))
	deleteCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if err := deleteAndWait(deleteCtx, env, gone); err != nil {
		return err
	}
	return sampleFreshProcesses(ctx, env, heap, len(clusters)-len(gone), memoryProcessesPerCount, opts.DriftInterval)
}

// sampleFreshProcesses restarts the operators this many times and samples
// each new process once its first full pass is done: two processes with
// the same clusters differ by more than one process's samples do, and the
// spread must show it.
func sampleFreshProcesses(ctx context.Context, env *devenv.Env, heap *heapProbe, clusters, processes int, drift time.Duration) error {
	for range processes {
		if err := settleWithDrift(ctx, env, clusters, drift); err != nil {
			return err
		}
		if err := heap.sample(ctx, clusters); err != nil {
			return err
		}
	}
	return nil
}

// deleteAndWait deletes the clusters and their NodePools and waits until
// every one is gone.
func deleteAndWait(ctx context.Context, env *devenv.Env, clusters []cluster) error {
	for _, c := range clusters {
		if err := env.Client.DeleteAllOf(ctx, &hcplinkv1beta1.NodePool{}, client.InNamespace(c.namespace)); err != nil {
			return fmt.Errorf("deleting the NodePools of %s/%s: %w", c.namespace, c.name, err)
		}
		hc := &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name}}
		if err := env.Client.Delete(ctx, hc); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting %s/%s: %w", c.namespace, c.name, err)
		}
	}
	for _, c := range clusters {
		for {
			err := env.Client.Get(ctx, types.NamespacedName{Namespace: c.namespace, Name: c.name}, &hcplinkv1beta1.HostedCluster{})
			if apierrors.IsNotFound(err) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s/%s not deleted: %w", c.namespace, c.name, ctx.Err())
			case <-time.After(time.Second):
			}
		}
	}
	return nil
}

type cluster struct {
	namespace, name, infraID, role string
	cidr                           string // the machine network (Azure)
	customer                       devenv.CustomerNetwork
	azure                          devenv.AzureClusterFixture
	gcp                            devenv.GCPClusterFixture
}

// createAll creates the clusters one after the other (each create is quick;
// the clouds' work runs in parallel).
func createAll(ctx context.Context, env *devenv.Env, clusters []cluster, create func(context.Context, *devenv.Env, cluster) error) error {
	for _, c := range clusters {
		if err := create(ctx, env, c); err != nil {
			return err
		}
	}
	return nil
}

// waitAvailable polls until every cluster reports Available, printing the
// count as it grows. One list a second, not a read per cluster; clusters
// not created yet count as not Available.
func waitAvailable(ctx context.Context, env *devenv.Env, clusters []cluster, out io.Writer) (int, error) {
	wanted := map[types.NamespacedName]bool{}
	for _, c := range clusters {
		wanted[types.NamespacedName{Namespace: c.namespace, Name: c.name}] = true
	}
	last := -1
	for {
		var list hcplinkv1beta1.HostedClusterList
		if err := env.Client.List(ctx, &list); err != nil {
			return 0, err
		}
		ready := 0
		for _, hc := range list.Items {
			if wanted[types.NamespacedName{Namespace: hc.Namespace, Name: hc.Name}] && meta.IsStatusConditionTrue(hc.Status.Conditions, hcplinkv1beta1.AvailableCondition) {
				ready++
			}
		}
		if ready != last {
			fmt.Fprintf(out, "  %d/%d available\n", ready, len(clusters))
			last = ready
		}
		if ready == len(clusters) {
			return ready, nil
		}
		select {
		case <-ctx.Done():
			return ready, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// peakRSS reads the process's high-water resident memory (VmHWM), in bytes.
func peakRSS(pid int) int64 { return procStatus(pid, "VmHWM:") }

func procStatus(pid int, field string) int64 {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	return parseStatusKB(string(b), field)
}

// parseStatusKB finds "<field> <n> kB" in a /proc/<pid>/status text and
// returns it in bytes (0 when absent).
func parseStatusKB(status, field string) int64 {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// byOperation folds per-account counts into per-operation counts.
func byOperation(snap map[string]map[string]sim.CallCount) map[string]sim.CallCount {
	out := map[string]sim.CallCount{}
	for _, ops := range snap {
		for op, c := range ops {
			sum := out[op]
			sum.Total += c.Total
			sum.Mutating += c.Mutating
			sum.Throttled += c.Throttled
			sum.Failed += c.Failed
			out[op] = sum
		}
	}
	return out
}

func sortedKeys(m map[string]sim.CallCount) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// settleWithDrift restarts the operators with the short drift interval the
// quiet window observes, and waits until every control-plane operator runs
// again and has had time for its first pass after the restart (a full one,
// like any start's, which the window must not count as drift).
func settleWithDrift(ctx context.Context, env *devenv.Env, clusters int, drift time.Duration) error {
	if err := env.RestartOperatorsWithDrift(ctx, drift); err != nil {
		return err
	}
	for len(env.RunningControlPlaneOperators()) < clusters {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	select {
	case <-time.After(2 * drift):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// countPlacements counts the clusters per load-balancer configuration the
// operator placed them on (status.azureLoadBalancerConfiguration); nil
// when it placed none.
func countPlacements(ctx context.Context, env *devenv.Env, clusters []cluster) (map[string]int, error) {
	var out map[string]int
	for _, c := range clusters {
		hc := &hcplinkv1beta1.HostedCluster{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: c.namespace, Name: c.name}, hc); err != nil {
			return nil, fmt.Errorf("reading cluster %s/%s: %w", c.namespace, c.name, err)
		}
		if p := hc.Status.AzureLoadBalancerConfiguration; p != "" {
			if out == nil {
				out = map[string]int{}
			}
			out[p]++
		}
	}
	return out, nil
}
