package bench

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/outcome"
)

// Snapshot is cloudsim's counters: account → "service:Operation" → counts.
type Snapshot = map[string]map[string]sim.CallCount

// PrincipalSnapshot is cloudsim's counters per caller, where it knows the
// caller (Azure): subscription → principal object ID → operation → counts.
type PrincipalSnapshot = map[string]map[string]map[string]sim.CallCount

// OperationCount is one operation's calls, per cluster.
type OperationCount struct {
	Operation string  `json:"operation"`
	Calls     float64 `json:"calls"`
	Throttled float64 `json:"throttled"`
}

// withoutLoadBalancerProvisioning removes the load-balancer stand-in's calls
// (counted by devenv, by operation) from the management account's counts:
// they are made on behalf of the cloud provider's load-balancer controller,
// not by hcplink. The operator's own calls of the same operation stay.
func withoutLoadBalancerProvisioning(snap Snapshot, lb map[string]int64) Snapshot {
	return withoutLoadBalancerCallsIn(snap, lb, devenv.ManagementAccount)
}

// withoutLoadBalancerCallsIn removes the stand-in's calls from the counts of
// management, the account (AWS) or subscription (Azure) it works in.
func withoutLoadBalancerCallsIn(snap Snapshot, lb map[string]int64, management string) Snapshot {
	out := Snapshot{}
	for account, ops := range snap {
		out[account] = map[string]sim.CallCount{}
		for op, c := range ops {
			if account == management {
				n := min(lb[op], c.Total)
				c.Total -= n
				c.Mutating = max(0, c.Mutating-n)
				// Throttling and failures cannot be told apart by caller:
				// keep them only as far as the calls left allow.
				c.Throttled = min(c.Throttled, c.Total)
				c.Failed = min(c.Failed, c.Total)
			}
			if c.Total > 0 {
				out[account][op] = c
			}
		}
	}
	return out
}

// perOperation folds accounts and divides by the cluster count.
func perOperation(snap Snapshot, clusters int) []OperationCount {
	by := byOperation(snap)
	rows := make([]OperationCount, 0, len(by))
	for _, op := range sortedKeys(by) {
		rows = append(rows, OperationCount{Operation: op, Calls: float64(by[op].Total) / float64(clusters), Throttled: float64(by[op].Throttled) / float64(clusters)})
	}
	return rows
}

// The periodic jobs of the two operators, and their production periods.
const (
	jobCPODrift       = "drift (control-plane operator)"
	jobOperatorDrift  = "drift (operator)"
	jobCPOCredentials = "credentials check (control-plane operator)"
	jobOperatorCreds  = "credentials check (operator)"
	jobTokenExchange  = "web-identity token exchange"
	jobCPOSweep       = "sweep (control-plane operator)"
	jobOperatorSweep  = "sweep (operator)"
	// jobEndpointReread is the control-plane operator's read of its
	// endpoint once the management operator's report of it has stood in
	// for reads for intervals.EndpointReportTrust (Azure, GCP): hourly,
	// longer than any quiet window, so modelled.
	jobEndpointReread = "endpoint read past the operator's report (control-plane operator)"
)

const (
	// cpoCredentialsPeriod is how often the control-plane operator's
	// credentials check runs.
	cpoCredentialsPeriod = intervals.ControlPlaneCredentialsRecheck
	// operatorCredentialsPeriod is how often the management operator's
	// credentials check runs.
	operatorCredentialsPeriod = intervals.OperatorCredentialsRecheck
	// tokenLifetime is how long web-identity credentials last: the SDK asks
	// STS for the default session (cloudsim's DurationSeconds default, 3600,
	// as AWS's) and exchanges the token again when it expires.
	tokenLifetime = time.Hour
	// cpoSweepCallsPerRun: awsprivatelink.Sweeper lists the cluster's
	// endpoints (DescribeVpcEndpoints) and security groups
	// (DescribeSecurityGroups) once per sweep. Modelled, not observed: the
	// control-plane operator's sweep interval cannot be shortened for a run.
	cpoSweepCallsPerRun = 2
	// operatorSweepCallsPerRun: awsendpointservice.Sweeper reads the
	// endpoint-service listing once per sweep for the whole management
	// cluster (at most one DescribeVpcEndpointServiceConfigurations; it
	// reuses the drift cache's listing when fresh). Modelled, as above.
	operatorSweepCallsPerRun = 1
)

// Job is one periodic job's share of the steady state.
type Job struct {
	Job string `json:"job"`
	// Period is the job's production period.
	Period string `json:"period"`
	// CallsPerRun is per cluster (per management cluster ÷ clusters for the
	// operator's fleet-wide jobs).
	CallsPerRun float64 `json:"callsPerRunPerCluster"`
	RunsPerHour float64 `json:"runsPerHour"`
	// PerClusterHour = CallsPerRun × RunsPerHour.
	PerClusterHour float64 `json:"callsPerClusterHour"`
	// Source says how CallsPerRun was found: observed in the quiet window,
	// observed on the create path (the job's first run), or modelled.
	Source string `json:"source"`
}

// jobOf attributes one observed call to its periodic job, by operation and
// account: STS identity calls are credential checks (the management
// account's are the operator's), token exchanges are the SDK's, everything
// else in the quiet window is drift (the sweepers do not run in a window
// shorter than their period).
func jobOf(account, op string) string {
	switch {
	case op == "sts:AssumeRoleWithWebIdentity":
		return jobTokenExchange
	case op == "sts:GetCallerIdentity" && account == devenv.ManagementAccount:
		return jobOperatorCreds
	case op == "sts:GetCallerIdentity":
		return jobCPOCredentials
	case account == devenv.ManagementAccount:
		return jobOperatorDrift
	default:
		return jobCPODrift
	}
}

// runsPerHour is how often a job with this period runs in an hour.
func runsPerHour(period time.Duration) float64 { return time.Hour.Seconds() / period.Seconds() }

// SteadyInput is what the steady-state accounting needs.
type SteadyInput struct {
	Clusters int
	// Quiet is the window's counts (load-balancer stand-in removed), seen
	// with the drift checks every DriftDuringRun.
	Quiet          Snapshot
	Window         time.Duration
	DriftDuringRun time.Duration
	// Startup is every call from the operators' start until all clusters
	// were Available: each credentials check and token exchange ran there
	// at least once, so it gives their cost per run.
	Startup Snapshot
}

// steadyState counts each periodic job at its production period:
// Σ jobs (calls per run per cluster × runs per hour). Drift is observed in
// the window (runs in the window = window ÷ the run's drift interval);
// credentials and token exchanges cost what their first run cost on the
// create path (successful calls only, retries after throttling excluded);
// sweeps are modelled.
func steadyState(in SteadyInput) []Job {
	n := float64(in.Clusters)
	driftRuns := in.Window.Seconds() / in.DriftDuringRun.Seconds()
	quiet := map[string]float64{}
	for account, ops := range in.Quiet {
		for op, c := range ops {
			quiet[jobOf(account, op)] += float64(c.Total)
		}
	}
	first := map[string]float64{}
	for account, ops := range in.Startup {
		for op, c := range ops {
			first[jobOf(account, op)] += float64(c.Total - c.Failed)
		}
	}
	jobs := []Job{
		{Job: jobCPODrift, Period: intervals.AWSDrift.String(), CallsPerRun: quiet[jobCPODrift] / n / driftRuns,
			RunsPerHour: runsPerHour(intervals.AWSDrift), Source: "observed in the quiet window"},
		{Job: jobOperatorDrift, Period: intervals.AWSDrift.String(), CallsPerRun: quiet[jobOperatorDrift] / n / driftRuns,
			RunsPerHour: runsPerHour(intervals.AWSDrift), Source: "observed in the quiet window"},
		cpoCredentialsJob(first[jobCPOCredentials] / n),
		{Job: jobOperatorCreds, Period: operatorCredentialsPeriod.String(), CallsPerRun: first[jobOperatorCreds] / n,
			RunsPerHour: runsPerHour(operatorCredentialsPeriod), Source: "observed on the create path (first run)"},
		{Job: jobTokenExchange, Period: tokenLifetime.String(), CallsPerRun: first[jobTokenExchange] / n,
			RunsPerHour: runsPerHour(tokenLifetime), Source: "observed on the create path (first run)"},
		{Job: jobCPOSweep, Period: intervals.AWSEndpointSweep.String(), CallsPerRun: cpoSweepCallsPerRun,
			RunsPerHour: runsPerHour(intervals.AWSEndpointSweep), Source: "modelled (2 listings per sweep)"},
		{Job: jobOperatorSweep, Period: intervals.AWSEndpointServiceSweep.String(), CallsPerRun: operatorSweepCallsPerRun / n,
			RunsPerHour: runsPerHour(intervals.AWSEndpointServiceSweep), Source: "modelled (1 listing per sweep per management cluster)"},
	}
	for i := range jobs {
		jobs[i].PerClusterHour = jobs[i].CallsPerRun * jobs[i].RunsPerHour
	}
	return jobs
}

// cpoCredentialsJob is the control-plane operator's credentials check: it
// asks STS only when no call succeeded within
// intervals.CredentialsProofWindow, and at steady state the drift checks'
// calls come more often than that — then a run costs nothing, whatever the
// first run (at start, before any other call) cost.
func cpoCredentialsJob(firstRun float64) Job {
	j := Job{Job: jobCPOCredentials, Period: cpoCredentialsPeriod.String(), CallsPerRun: firstRun,
		RunsPerHour: runsPerHour(cpoCredentialsPeriod), Source: "observed on the create path (first run)"}
	if longest := outcome.LongestJitter(intervals.AWSDrift); longest < intervals.CredentialsProofWindow {
		j.CallsPerRun = 0
		j.Source = fmt.Sprintf("none: the drift checks' calls (at most %v apart) prove the credentials within %v", longest, intervals.CredentialsProofWindow)
	}
	return j
}

// steadyByOperation spreads the observed jobs' per-cluster-hour figures over
// their operations (the modelled sweeps appear under their own names).
func steadyByOperation(in SteadyInput, jobs []Job) []OperationCount {
	return spreadOverOperations(in, jobs, jobOf, awsAccounting(sim.Throttling{}, sim.Delays{}).modelled)
}

// spreadOverOperations is steadyByOperation for any cloud: jobOf
// attributes observed calls, modelled names the rows of the jobs that were
// modelled rather than observed.
func spreadOverOperations(in SteadyInput, jobs []Job, jobOf func(account, op string) string, modelled map[string]string) []OperationCount {
	perJob := map[string]Job{}
	for _, j := range jobs {
		perJob[j.Job] = j
	}
	n := float64(in.Clusters)
	driftRuns := in.Window.Seconds() / in.DriftDuringRun.Seconds()
	by := map[string]float64{}
	for account, ops := range in.Quiet {
		for op, c := range ops {
			if job := jobOf(account, op); job == jobCPODrift || job == jobOperatorDrift {
				by[op] += float64(c.Total) / n / driftRuns * perJob[job].RunsPerHour
			}
		}
	}
	// The other observed jobs have one operation each (in one account or
	// the other): it carries the job's figure, as the job table counts it.
	counted := map[string]bool{}
	for account, ops := range in.Startup {
		for op := range ops {
			job := jobOf(account, op)
			if job == jobCPODrift || job == jobOperatorDrift || counted[job] {
				continue
			}
			if _, ok := modelled[job]; ok {
				continue // its figure is modelled, under its own row below
			}
			counted[job] = true
			by[op] += perJob[job].PerClusterHour
		}
	}
	for job, label := range modelled {
		by[label] += perJob[job].PerClusterHour
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([]OperationCount, 0, len(keys))
	for _, k := range keys {
		if by[k] > 0 {
			rows = append(rows, OperationCount{Operation: k, Calls: by[k]})
		}
	}
	return rows
}

// callsPerDriftPass is what one drift pass of both operators costs per
// cluster: the floor the steady state is judged by, independent of the
// drift interval (issue 18: at most one read per resource kind that can
// drift, batched listings counting 1/N).
func callsPerDriftPass(jobs []Job) float64 {
	var t float64
	for _, j := range jobs {
		if j.Job == jobCPODrift || j.Job == jobOperatorDrift {
			t += j.CallsPerRun
		}
	}
	return t
}

func totalPerClusterHour(jobs []Job) float64 {
	var t float64
	for _, j := range jobs {
		t += j.PerClusterHour
	}
	return t
}

// Bucket is one cloudsim token bucket's share of the lower bound.
type Bucket struct {
	Account   string  `json:"account"`
	Service   string  `json:"service"`
	Operation string  `json:"operation,omitempty"` // empty: the service's one bucket per account
	Mutating  bool    `json:"mutating"`
	Calls     int64   `json:"calls"` // calls that took a token (throttled ones do not)
	Burst     float64 `json:"burst"`
	PerSecond float64 `json:"perSecond"`
	Seconds   float64 `json:"seconds"` // (calls − burst) ÷ refill, at least 0
}

// buckets groups the calls that took a token by cloudsim's throttling
// buckets: per account, service and, for per-operation services (EC2,
// ELBv2), operation and mutating-ness. A service with one bucket per account
// shares it between reads and writes; its bound uses the larger of the two
// limits, so that it stays a lower bound.
func buckets(snap Snapshot, throttling sim.Throttling) []Bucket {
	type key struct {
		account, service, operation string
		mutating                    bool
	}
	sums := map[key]*Bucket{}
	for account, ops := range snap {
		for name, c := range ops {
			service, op, _ := strings.Cut(name, ":")
			limits, ok := throttling.Services[service]
			if !ok {
				continue
			}
			mutating := sim.IsMutating(sim.CallKey{Service: service, Operation: op})
			k := key{account: account, service: service}
			limit := limits.NonMutating
			if limits.PerOperation {
				k.operation, k.mutating = op, mutating
				if mutating {
					limit = limits.Mutating
				}
			} else {
				limit = sim.Limit{Burst: math.Max(limits.NonMutating.Burst, limits.Mutating.Burst), PerSecond: math.Max(limits.NonMutating.PerSecond, limits.Mutating.PerSecond)}
			}
			if limit.PerSecond <= 0 {
				continue
			}
			b := sums[k]
			if b == nil {
				b = &Bucket{Account: account, Service: service, Operation: k.operation, Mutating: k.mutating, Burst: limit.Burst, PerSecond: limit.PerSecond}
				sums[k] = b
			}
			b.Calls += c.Total - c.Throttled
		}
	}
	out := make([]Bucket, 0, len(sums))
	for _, b := range sums {
		b.Seconds = math.Max(0, float64(b.Calls)-b.Burst) / b.PerSecond
		out = append(out, *b)
	}
	sortBuckets(out)
	return out
}

// sortBuckets puts the binding bucket (the longest time) first, then by
// name for a stable table.
func sortBuckets(bs []Bucket) {
	sort.Slice(bs, func(i, j int) bool {
		if bs[i].Seconds != bs[j].Seconds {
			return bs[i].Seconds > bs[j].Seconds
		}
		a, b := bs[i], bs[j]
		return a.Account+a.Service+a.Operation < b.Account+b.Service+b.Operation
	})
}

// provisioningChain is the modelled cloud-side wait of one Private cluster,
// in order: its NLB provisions, then its endpoint service leaves Pending,
// then its VPC endpoint leaves pending. Clusters provision in parallel, so
// the chain counts once.
func provisioningChain(d sim.Delays) time.Duration {
	return d.LoadBalancerProvisioning.D() + d.EndpointServicePending.D() + d.EndpointPending.D()
}

// lowerBound is the binding bucket's time plus the provisioning chain.
func lowerBound(bs []Bucket, chain time.Duration) (seconds float64, binding *Bucket) {
	for i := range bs {
		if binding == nil || bs[i].Seconds > binding.Seconds {
			binding = &bs[i]
		}
	}
	seconds = chain.Seconds()
	if binding != nil {
		seconds += binding.Seconds
	}
	return seconds, binding
}
