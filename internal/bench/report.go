package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// measurement is what a run observed.
type measurement struct {
	platform           string
	clusters, accounts int
	elapsed            time.Duration
	window, drift      time.Duration
	create, quiet      Snapshot
	// createByPrincipal is the create path's counts per caller (Azure).
	createByPrincipal PrincipalSnapshot
	lbCreate, lbQuiet map[string]int64
	operatorStart     Snapshot // the operator's STS calls before the clusters
	throttling        sim.Throttling
	delays            sim.Delays
	// accounting turns the counts into figures; nil means AWS's, from
	// throttling and delays.
	accounting *accounting
	memory     []MemorySample
	peak       int64
	// placements counts the clusters per Azure load-balancer
	// configuration (nil: none placed).
	placements map[string]int
}

// Report is the bench's figures; its JSON form is `--output json`.
type Report struct {
	Platform          string  `json:"platform"`
	Clusters          int     `json:"clusters"`
	Accounts          int     `json:"accounts"`
	SecondsToAvail    float64 `json:"secondsToAvailable"`
	LowerBoundSeconds float64 `json:"lowerBoundSeconds"`
	Ratio             float64 `json:"ratio"`
	// LowerBound explains the bound: the binding bucket and the chain.
	BindingBucket      *Bucket `json:"bindingBucket,omitempty"`
	ProvisioningChainS float64 `json:"provisioningChainSeconds"`
	// LowerBoundOfLongest: the bound is the longer of the binding
	// bucket's time and the chain (else their sum).
	LowerBoundOfLongest bool     `json:"lowerBoundOfLongest,omitempty"`
	Buckets             []Bucket `json:"buckets"`

	CreateCallsPerCluster   float64          `json:"createCallsPerCluster"`
	CreateCallsWithLB       float64          `json:"createCallsPerClusterWithLoadBalancer"`
	CreateByOperation       []OperationCount `json:"createByOperation"`
	CreateByOperationWithLB []OperationCount `json:"createByOperationWithLoadBalancer"`
	SteadyCallsPerClusterHr float64          `json:"steadyCallsPerClusterHour"`
	// SteadyCallsPerPass is both operators' drift checks together: the
	// calls one drift pass costs per cluster, whatever the interval.
	SteadyCallsPerPass      float64          `json:"steadyCallsPerClusterPerPass"`
	SteadyMutatingCalls     int64            `json:"steadyMutatingCalls"`
	SteadyJobs              []Job            `json:"steadyJobs"`
	SteadyByOperation       []OperationCount `json:"steadyByOperation"`
	SteadyWindowSeconds     float64          `json:"steadyWindowSeconds"`
	SteadyDriftDuringRun    string           `json:"steadyDriftIntervalDuringRun"`
	OperatorBytesPerCluster float64          `json:"operatorBytesPerCluster"`
	// OperatorBytesPerClusterSpread is how far the samples' spread lets
	// the figure move (±).
	OperatorBytesPerClusterSpread float64        `json:"operatorBytesPerClusterSpread"`
	OperatorMemoryMethod          string         `json:"operatorMemoryMethod,omitempty"`
	OperatorMemorySamples         []MemorySample `json:"operatorMemorySamples"`
	OperatorPeakBytes             int64          `json:"operatorPeakBytes"`
	SteadyAccountingExplains      string         `json:"steadyAccounting"`
	// Placements counts the clusters per Azure load-balancer configuration
	// the operator placed their routers on (none: it placed none).
	Placements map[string]int `json:"placements,omitempty"`
}

const awsSteadyAccounting = "each periodic job at its production period: Σ jobs (calls per run per cluster × runs per hour); drift observed in the quiet window, credentials checks and token exchanges at their first run's cost, sweeps modelled"

func measure(m measurement) Report {
	acct := m.accounting
	if acct == nil {
		acct = awsAccounting(m.throttling, m.delays)
	}
	create := withoutLoadBalancerCallsIn(m.create, acct.standInCalls(m.lbCreate), acct.management)
	quiet := withoutLoadBalancerCallsIn(m.quiet, acct.standInCalls(m.lbQuiet), acct.management)
	startup := merge(m.operatorStart, create)
	in := SteadyInput{Clusters: m.clusters, Quiet: quiet, Window: m.window, DriftDuringRun: m.drift, Startup: startup}
	jobs := acct.jobs(in)
	bs := acct.buckets(m.create, create, m.createByPrincipal, m.clusters)
	chain := acct.chain
	if acct.chainFor != nil {
		chain = acct.chainFor(busiestLoadBalancer(m.placements, m.clusters))
	}
	bound, binding := lowerBound(bs, chain)
	if acct.longestBinds {
		bound = chain.Seconds()
		if binding != nil {
			bound = max(bound, binding.Seconds)
		}
	}
	r := Report{
		Platform: m.platform, Clusters: m.clusters, Accounts: m.accounts,
		SecondsToAvail: m.elapsed.Seconds(), LowerBoundSeconds: bound, BindingBucket: binding, LowerBoundOfLongest: acct.longestBinds,
		ProvisioningChainS: chain.Seconds(), Buckets: topBuckets(bs, 10),
		CreateCallsPerCluster:    float64(sim.Totals(create).Total) / float64(m.clusters),
		CreateCallsWithLB:        float64(sim.Totals(m.create).Total) / float64(m.clusters),
		CreateByOperation:        perOperation(create, m.clusters),
		CreateByOperationWithLB:  perOperation(m.create, m.clusters),
		SteadyCallsPerClusterHr:  totalPerClusterHour(jobs),
		SteadyCallsPerPass:       callsPerDriftPass(jobs),
		SteadyMutatingCalls:      sim.Totals(m.quiet).Mutating,
		SteadyJobs:               jobs,
		SteadyByOperation:        spreadOverOperations(in, jobs, acct.jobOf, acct.modelled),
		SteadyWindowSeconds:      m.window.Seconds(),
		SteadyDriftDuringRun:     m.drift.String(),
		OperatorMemorySamples:    m.memory,
		OperatorPeakBytes:        m.peak,
		SteadyAccountingExplains: acct.explains,
	}
	if bound > 0 {
		r.Ratio = r.SecondsToAvail / bound
	}
	if r.OperatorBytesPerCluster, r.OperatorBytesPerClusterSpread = fitMemory(m.memory); len(m.memory) > 0 {
		r.OperatorMemoryMethod = memoryMethod
	}
	return r
}

// merge adds two snapshots.
func merge(a, b Snapshot) Snapshot {
	out := Snapshot{}
	for _, s := range []Snapshot{a, b} {
		for account, ops := range s {
			if out[account] == nil {
				out[account] = map[string]sim.CallCount{}
			}
			for op, c := range ops {
				sum := out[account][op]
				sum.Total += c.Total
				sum.Mutating += c.Mutating
				sum.Throttled += c.Throttled
				sum.Failed += c.Failed
				out[account][op] = sum
			}
		}
	}
	return out
}

// topBuckets keeps the n busiest buckets (they are sorted by time).
func topBuckets(bs []Bucket, n int) []Bucket {
	if len(bs) > n {
		return bs[:n]
	}
	return bs
}

func (r Report) writeJSON(out io.Writer) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func (r Report) print(out io.Writer) {
	line := func(label, value string) { fmt.Fprintf(out, "%-58s %14s\n", label, value) }
	fmt.Fprintf(out, "\n%-58s %14s\n", "measure", "value")
	fmt.Fprintln(out, strings.Repeat("-", 73))
	if r.Platform != "" {
		line("cloud", r.Platform)
	}
	line("clusters", fmt.Sprint(r.Clusters))
	if len(r.Placements) > 0 {
		names := slices.Sorted(maps.Keys(r.Placements))
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s %d", n, r.Placements[n]))
		}
		line("clusters per load-balancer configuration", strings.Join(parts, ", "))
	}
	line("customer accounts (AWS) or guest subscriptions (Azure)", fmt.Sprint(r.Accounts))
	line("time until all are Available", fmt.Sprintf("%.1fs", r.SecondsToAvail))
	line("lower bound", fmt.Sprintf("%.1fs", r.LowerBoundSeconds))
	line("ratio", fmt.Sprintf("%.2f", r.Ratio))
	if b := r.BindingBucket; b != nil {
		combine := "+"
		if r.LowerBoundOfLongest {
			combine = "or, the longer,"
		}
		fmt.Fprintf(out, "  lower bound = binding bucket %s %s%s (%d calls, burst %.0f, %.0f/s: %.1fs) %s provisioning chain %.1fs\n",
			b.Account, b.Service, opSuffix(b), b.Calls, b.Burst, b.PerSecond, b.Seconds, combine, r.ProvisioningChainS)
	}

	fmt.Fprintf(out, "\ncreate path: calls per cluster, by operation, all accounts (load-balancer stand-in included → left out)\n")
	with := map[string]OperationCount{}
	for _, c := range r.CreateByOperationWithLB {
		with[c.Operation] = c
	}
	without := map[string]OperationCount{}
	for _, c := range r.CreateByOperation {
		without[c.Operation] = c
	}
	for _, c := range r.CreateByOperationWithLB {
		row := fmt.Sprintf("  %-52s %8.2f → %6.2f", c.Operation, c.Calls, without[c.Operation].Calls)
		if t := without[c.Operation].Throttled; t > 0 {
			row += fmt.Sprintf("  (%.2f throttled)", t)
		}
		fmt.Fprintln(out, row)
	}
	fmt.Fprintf(out, "  %-52s %8.2f → %6.2f\n", "all operations", r.CreateCallsWithLB, r.CreateCallsPerCluster)

	fmt.Fprintf(out, "\nsteady state: %s\n", r.SteadyAccountingExplains)
	fmt.Fprintf(out, "  (quiet window %.0fs, drift every %s during the run)\n", r.SteadyWindowSeconds, r.SteadyDriftDuringRun)
	for _, j := range r.SteadyJobs {
		fmt.Fprintf(out, "  %-44s %6.2f calls/run × %5.2f runs/h = %6.2f  [every %s; %s]\n", j.Job, j.CallsPerRun, j.RunsPerHour, j.PerClusterHour, j.Period, j.Source)
	}
	fmt.Fprintf(out, "  %-52s %12.2f\n", "calls per cluster-hour", r.SteadyCallsPerClusterHr)
	fmt.Fprintf(out, "  %-52s %12.2f\n", "calls per cluster per drift pass (both operators)", r.SteadyCallsPerPass)
	fmt.Fprintf(out, "  %-52s %12d\n", "mutating calls in the window (must be 0)", r.SteadyMutatingCalls)
	for _, c := range r.SteadyByOperation {
		fmt.Fprintf(out, "    %-50s %12.2f per cluster-hour\n", c.Operation, c.Calls)
	}

	if r.OperatorMemoryMethod != "" {
		fmt.Fprintf(out, "\n%-58s %10.1f ± %.1f KiB\n", "management operator memory per cluster", r.OperatorBytesPerCluster/1024, r.OperatorBytesPerClusterSpread/1024)
		fmt.Fprintf(out, "  method: %s\n  samples (clusters: KiB):", r.OperatorMemoryMethod)
		for _, s := range r.OperatorMemorySamples {
			fmt.Fprintf(out, " %d: %.0f", s.Clusters, float64(s.Bytes)/1024)
		}
		fmt.Fprintln(out)
	}
	if r.OperatorPeakBytes > 0 {
		fmt.Fprintf(out, "%-58s %10.1f MiB\n", "management operator peak memory (VmHWM)", float64(r.OperatorPeakBytes)/(1<<20))
	}
}

func opSuffix(b *Bucket) string {
	if b.Operation == "" {
		return ""
	}
	kind := "read"
	if b.Mutating {
		kind = "write"
	}
	return ":" + b.Operation + " (" + kind + ")"
}
