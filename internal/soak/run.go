package soak

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

// Timings of the run's phases.
const (
	// restartEvery: an operator is killed every this long on average.
	restartEvery = 30 * time.Second
	// intenseRestartEvery is restartEvery in an intense soak: a minute
	// of faults kills both kinds of operator.
	intenseRestartEvery = 8 * time.Second
	// cpoDownFor: how long a killed control-plane operator stays down, at most.
	cpoDownFor = 6 * time.Second
	pollEvery  = 2 * time.Second
)

// runCloud soaks one cloud on its own devenv.
func runCloud(ctx context.Context, p platform, opts Options, log *lockedWriter) (CloudReport, error) {
	rep := CloudReport{Cloud: p.name(), Clusters: opts.Clusters}
	dopts := p.devenvOptions(opts)
	dopts.Progress = progressWriter{log}
	operatorLog, closeLog, err := operatorLogger(opts.LogDir, p.name())
	if err != nil {
		return rep, err
	}
	defer closeLog()
	reconciles := newObjectReconciles()
	dopts.Log = reconciles.logger(operatorLog)
	env, err := devenv.Start(ctx, dopts)
	if err != nil {
		return rep, err
	}
	defer func() { _ = env.Stop() }()

	log.printf("preparing %d clusters", opts.Clusters)
	clusters, err := p.prepare(ctx, env, opts.Clusters)
	if err != nil {
		return rep, err
	}
	env.Cloud.StartLedger(sim.LedgerConfig{Principals: p.principals(env, clusters),
		OwnerTagPrefixes: []string{hcplinkv1beta1.ClusterTagKeyPrefix, "kubernetes.io_cluster_", gcpcloud.ClusterLabelKeyPrefix},
		PurposeTagKeys:   []string{hcplinkv1beta1.EndpointServiceTagKey, "hcplink.io_private-link-service", gcpcloud.PrivateServiceConnectLabelKey}})
	env.Cloud.Counters.Reset()

	faults := sim.FaultConfig{Throttling: p.throttling(), Chaos: chaos(opts.Intense), Seed: opts.Seed}
	env.Cloud.Faults.Set(faults)
	log.printf("faults on for %v: %+v", opts.Duration, *faults.Chaos)
	tl := newTally()
	var seats chan struct{}
	if n, why := p.capacity(); n > 0 && n < opts.Clusters {
		seats = make(chan struct{}, n)
		rep.Capacity, rep.CapacityReason = n, why
	}
	truth := newTruthWatch(env.Client, clusters)
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go truth.run(watchCtx)
	start := time.Now()
	until := start.Add(opts.Duration)
	var wg sync.WaitGroup
	for _, c := range clusters {
		l := &life{env: env, p: p, c: c, rng: rand.New(rand.NewSource(opts.Seed*1000 + int64(c.index))), tally: tl, seats: seats}
		wg.Add(1)
		go func() { defer wg.Done(); l.run(ctx, until) }()
	}
	killer := &killer{env: env, rng: rand.New(rand.NewSource(opts.Seed - 1)), clusters: clusters, every: restartEvery}
	if opts.Intense {
		killer.every = intenseRestartEvery
	}
	wg.Add(1)
	go func() { defer wg.Done(); killer.run(ctx, until, log) }()
	_, leaseBefore, _ := env.OperatorLease(ctx)
	if env.OperatorReplicas() > 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Once, at a random time in the faulty period's first half.
			at := start.Add(time.Duration(rand.New(rand.NewSource(opts.Seed - 4)).Int63n(int64(opts.Duration/2) + 1)))
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(at)):
			}
			killer.killLeader(ctx, log)
		}()
	}
	apiRestarts := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Once, at a random time in the faulty period's second half.
		at := start.Add(opts.Duration/2 + time.Duration(rand.New(rand.NewSource(opts.Seed-3)).Int63n(int64(opts.Duration/4)+1)))
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(at)):
		}
		log.printf("restarting the API server")
		if err := env.RestartAPIServer(); err != nil {
			log.printf("restarting the API server: %v", err)
			return
		}
		apiRestarts++
	}()
	revoker := &revoker{env: env, p: p, rng: rand.New(rand.NewSource(opts.Seed - 2)), clusters: clusters}
	wg.Add(1)
	go func() { defer wg.Done(); revoker.run(ctx, start, until, log) }()
	wg.Wait()

	// The faults stop; everything comes back; the fleet settles.
	env.Cloud.Faults.Set(sim.FaultConfig{Throttling: p.throttling(), Seed: opts.Seed})
	killer.reviveAll(ctx)
	stopped := time.Now()
	rep.Actions, rep.ActionErrors, rep.Drifts = tl.actions, tl.errors, tl.drifts
	rep.OperatorRestarts, rep.ControlPlaneOperatorRestarts = killer.operatorRestarts, killer.cpoRestarts
	rep.OperatorReplicaExits = env.OperatorReplicaExits()
	rep.CloudCalls = callTotals(env)
	rep.Transport = env.Cloud.TransportCounts()
	log.printf("faults off; waiting for the fleet to settle")
	present, converged, stuck, err := waitConverged(ctx, env, opts.SettleTimeout)
	if err != nil {
		return rep, err
	}
	rep.Present, rep.Converged, rep.NotConverged = present, converged, stuck
	rep.ConvergedPercent = percent(converged, present)
	rep.SecondsToConverge = time.Since(stopped).Seconds()
	log.printf("%d of %d present clusters converged in %.0fs; watching %v of quiet for hot loops", converged, present, rep.SecondsToConverge, opts.QuietWindow)

	before, beforeObjects := reconcileTotals(), reconciles.snapshot()
	select {
	case <-ctx.Done():
		return rep, ctx.Err()
	case <-time.After(opts.QuietWindow):
	}
	rep.ReconcilesPerClusterMinute, rep.HotLoops = hotLoops(before, reconcileTotals(), present, opts.QuietWindow)
	rep.HotLoops = append(rep.HotLoops, objectHotLoops(beforeObjects, reconciles.snapshot(), opts.QuietWindow)...)
	stopWatch()
	rep.CredentialRevocations = revoker.done
	rep.APIServerRestarts = apiRestarts
	rep.OperatorReplicas, rep.LeaderKills = env.OperatorReplicas(), killer.leaderKills
	if _, leaseAfter, err := env.OperatorLease(ctx); err == nil {
		rep.LeaderHandovers = int(leaseAfter - leaseBefore)
	}
	rep.UntrueConditions = truth.untrue(revoker.windows)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rep.ProcessLiveHeapBytes = ms.HeapAlloc

	log.printf("deleting every cluster")
	if err := deleteAll(ctx, env, clusters, opts.SettleTimeout); err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
	rep.Ledger = waitNoLeaks(ctx, env, opts.SettleTimeout)
	return rep, nil
}

// progressWriter sends devenv's start-up lines to the commentary.
type progressWriter struct{ l *lockedWriter }

func (p progressWriter) Write(b []byte) (int, error) {
	p.l.printf("%s", trimNewline(string(b)))
	return len(b), nil
}

func trimNewline(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

func percent(a, b int) float64 {
	if b == 0 {
		return 100
	}
	return float64(100*a) / float64(b)
}

// waitConverged waits until no cluster is deleting and every present one
// is Available with every condition written for its current generation.
func waitConverged(ctx context.Context, env *devenv.Env, timeout time.Duration) (present, converged int, stuck []string, err error) {
	deadline := time.Now().Add(timeout)
	for {
		var list hcplinkv1beta1.HostedClusterList
		if err := env.Client.List(ctx, &list); err != nil {
			// The API server may be coming back from its restart.
			if time.Now().After(deadline) {
				return 0, 0, nil, err
			}
			select {
			case <-ctx.Done():
				return 0, 0, nil, ctx.Err()
			case <-time.After(pollEvery):
			}
			continue
		}
		present, converged, stuck = 0, 0, nil
		for _, hc := range list.Items {
			if hc.DeletionTimestamp != nil {
				stuck = append(stuck, hc.Namespace+"/"+hc.Name+": still deleting")
				continue
			}
			present++
			if isConverged(&hc) {
				converged++
			} else {
				stuck = append(stuck, hc.Namespace+"/"+hc.Name+": "+notConverged(&hc))
			}
		}
		if len(stuck) == 0 || time.Now().After(deadline) {
			return present, converged, stuck, nil
		}
		select {
		case <-ctx.Done():
			return present, converged, stuck, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// notConverged says why a cluster is not converged: its Available
// condition's reason and message.
func notConverged(hc *hcplinkv1beta1.HostedCluster) string {
	c := meta.FindStatusCondition(hc.Status.Conditions, hcplinkv1beta1.AvailableCondition)
	if c == nil {
		return "no Available condition"
	}
	return fmt.Sprintf("Available %s (%s) at generation %d of %d: %s", c.Status, c.Reason, c.ObservedGeneration, hc.Generation, c.Message)
}

func isConverged(hc *hcplinkv1beta1.HostedCluster) bool {
	if !meta.IsStatusConditionTrue(hc.Status.Conditions, hcplinkv1beta1.AvailableCondition) {
		return false
	}
	for _, c := range hc.Status.Conditions {
		if c.ObservedGeneration != 0 && c.ObservedGeneration != hc.Generation {
			return false
		}
	}
	return true
}

// deleteAll deletes every NodePool and HostedCluster and waits until the
// HostedClusters are gone (their finalizers remove the cloud resources).
func deleteAll(ctx context.Context, env *devenv.Env, clusters []*cluster, timeout time.Duration) error {
	for _, c := range clusters {
		_ = env.Client.DeleteAllOf(ctx, &hcplinkv1beta1.NodePool{}, client.InNamespace(c.namespace))
		_ = client.IgnoreNotFound(env.Client.Delete(ctx, &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name}}))
	}
	deadline := time.Now().Add(timeout)
	for {
		var list hcplinkv1beta1.HostedClusterList
		err := env.Client.List(ctx, &list)
		if err == nil && len(list.Items) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return err
			}
			return fmt.Errorf("%d HostedClusters still there %v after their deletion", len(list.Items), timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// waitNoLeaks gives the cloud's asynchronous deletions (an endpoint
// deleting, a Private Link Service's operation) time to finish, then
// returns the ledger's report.
func waitNoLeaks(ctx context.Context, env *devenv.Env, timeout time.Duration) sim.LedgerReport {
	deadline := time.Now().Add(timeout)
	for {
		r := env.Cloud.LedgerReport()
		if leakCount(r) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return r
		}
		time.Sleep(pollEvery)
	}
}

func leakCount(r sim.LedgerReport) int {
	n := 0
	for _, l := range r.Leaks {
		n += len(l)
	}
	return n
}

// callTotals sums the cloud's call counts over every account.
func callTotals(env *devenv.Env) sim.CallCount {
	var t sim.CallCount
	for _, ops := range env.Cloud.Counters.Snapshot() {
		for _, c := range ops {
			t.Total += c.Total
			t.Mutating += c.Mutating
			t.Throttled += c.Throttled
			t.Failed += c.Failed
		}
	}
	return t
}

// operatorLogger writes the operators' logs of one cloud as JSON lines to
// dir/<cloud>-operators.log, making dir if need be; with no dir it
// discards them.
func operatorLogger(dir, cloud string) (logr.Logger, func(), error) {
	if dir == "" {
		return logr.Discard(), func() {}, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return logr.Discard(), nil, fmt.Errorf("making the log directory: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, cloud+"-operators.log"))
	if err != nil {
		return logr.Discard(), nil, fmt.Errorf("opening the operator log: %w", err)
	}
	return zap.New(zap.WriteTo(f), zap.UseDevMode(false)), func() { _ = f.Close() }, nil
}
