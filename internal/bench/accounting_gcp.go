package bench

import (
	"math"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/intervals"
)

// GCP's sign-in calls, as cloudsim counts them ("service:method"). They go
// to no project (cloudsim counts them under "global"), so they are told
// apart by operation, not by project.
const (
	gcpSTSExchange   = "sts.googleapis.com:token"
	gcpImpersonation = "iamcredentials.googleapis.com:serviceAccounts.generateAccessToken"
	gcpOAuthToken    = "oauth2.googleapis.com:token"
)

// GCP's periodic jobs besides the two drift checks and the credentials
// checks: the tokens each identity asks for once per token lifetime.
const (
	jobGCPExchange      = "workload identity token exchange (STS, control-plane operator)"
	jobGCPImpersonation = "service account impersonation (IAM Credentials, control-plane operator)"
	jobGCPOperatorToken = "access token (OAuth 2.0, operator's key)"
	// googleTokenLifetime: an access token from generateAccessToken lasts
	// 3600 s unless asked otherwise ("lifetime … If a value is not specified,
	// the token's lifetime will be set to a default value of 1 hour",
	// https://cloud.google.com/iam/docs/reference/credentials/rest/v1/projects.serviceAccounts/generateAccessToken),
	// and a service account key's OAuth 2.0 token an hour
	// (https://developers.google.com/identity/protocols/oauth2/service-account).
	// The credentials libraries ask again shortly before it expires; the
	// control-plane operator's STS token is exchanged again with it.
	googleTokenLifetime = time.Hour
	// quotaWindow is the length of Google's rate-quota windows: a count
	// refills at the start of the next minute (cloudsim's quota.go).
	quotaWindow = time.Minute
)

const gcpSteadyAccounting = "each periodic job at its production period: Σ jobs (calls per run per cluster × runs per hour); drift observed in the quiet window (every Compute Engine and Cloud DNS call there is a drift check's: the management project's the operator's, the others' the control-plane operators'), tokens modelled at one STS exchange and one impersonation per control-plane operator and one OAuth 2.0 token for the operator (shared by the clusters) per token lifetime; the endpoint's hourly read past the operator's report modelled at one per control-plane operator; the credentials checks ask the credentials library for a token it holds, no call"

// gcpAccounting counts as Google's rate quotas: Compute Engine's per
// project and per-minute window, reads and writes apart.
func gcpAccounting(quotas map[string]sim.ServiceLimits, delays gcp.Delays, management string) *accounting {
	return &accounting{
		management: management,
		jobs:       func(in SteadyInput) []Job { return gcpSteadyState(in, management) },
		jobOf:      func(project, op string) string { return gcpJobOf(project, op, management) },
		modelled: map[string]string{
			jobGCPExchange:      gcpSTSExchange + " (modelled)",
			jobGCPImpersonation: gcpImpersonation + " (modelled)",
			jobGCPOperatorToken: gcpOAuthToken + " (modelled)",
			jobEndpointReread:   "compute.googleapis.com:forwardingRules.get (modelled)",
		},
		buckets: func(all, _ Snapshot, _ PrincipalSnapshot, _ int) []Bucket {
			return gcpQuotaWindows(all, quotas)
		},
		chain: gcpProvisioningChain(delays),
		// The quota windows' waits overlap the operations' (a call refused
		// in one minute is retried while other clusters' operations run):
		// each is a bound on its own, and the longer binds.
		longestBinds:     true,
		explains:         gcpSteadyAccounting,
		standInOperation: googleOperation,
	}
}

// gcpJobOf attributes a call: the sign-in calls to their token job (they
// recur once per token lifetime, not per drift pass), the rest by
// project — the management project's are the operator's drift checks,
// the customers' the control-plane operators'.
func gcpJobOf(project, op, management string) string {
	switch op {
	case gcpSTSExchange:
		return jobGCPExchange
	case gcpImpersonation:
		return jobGCPImpersonation
	case gcpOAuthToken:
		return jobGCPOperatorToken
	}
	if project == management {
		return jobOperatorDrift
	}
	return jobCPODrift
}

// gcpSteadyState counts the drift checks observed in the window at the
// production interval, and the tokens at one per identity per lifetime.
func gcpSteadyState(in SteadyInput, management string) []Job {
	n := float64(in.Clusters)
	driftRuns := in.Window.Seconds() / in.DriftDuringRun.Seconds()
	quiet := map[string]float64{}
	for project, ops := range in.Quiet {
		for op, c := range ops {
			quiet[gcpJobOf(project, op, management)] += float64(c.Total)
		}
	}
	cpoDrift, operatorDrift := intervals.GCPDrift, intervals.GCPDrift
	tokens := "modelled (one per token lifetime)"
	jobs := []Job{
		{Job: jobCPODrift, Period: cpoDrift.String(), CallsPerRun: quiet[jobCPODrift] / n / driftRuns,
			RunsPerHour: runsPerHour(cpoDrift), Source: "observed in the quiet window"},
		{Job: jobOperatorDrift, Period: operatorDrift.String(), CallsPerRun: quiet[jobOperatorDrift] / n / driftRuns,
			RunsPerHour: runsPerHour(operatorDrift), Source: "observed in the quiet window"},
		{Job: jobCPOCredentials, Period: cpoCredentialsPeriod.String(), RunsPerHour: runsPerHour(cpoCredentialsPeriod),
			Source: "none: the check asks the credentials library for a token it already holds"},
		{Job: jobOperatorCreds, Period: operatorCredentialsPeriod.String(), RunsPerHour: runsPerHour(operatorCredentialsPeriod),
			Source: "none: the check asks the credentials library for a token it already holds"},
		{Job: jobGCPExchange, Period: googleTokenLifetime.String(), CallsPerRun: 1, RunsPerHour: runsPerHour(googleTokenLifetime), Source: tokens},
		{Job: jobGCPImpersonation, Period: googleTokenLifetime.String(), CallsPerRun: 1, RunsPerHour: runsPerHour(googleTokenLifetime), Source: tokens},
		{Job: jobGCPOperatorToken, Period: googleTokenLifetime.String(), CallsPerRun: 1 / n, RunsPerHour: runsPerHour(googleTokenLifetime),
			Source: tokens + ", one for the management cluster"},
		{Job: jobEndpointReread, Period: intervals.EndpointReportTrust.String(), CallsPerRun: 1, RunsPerHour: runsPerHour(intervals.EndpointReportTrust),
			Source: "modelled (one forwarding-rule read per control-plane operator per period)"},
	}
	for i := range jobs {
		jobs[i].PerClusterHour = jobs[i].CallsPerRun * jobs[i].RunsPerHour
	}
	return jobs
}

// gcpQuotaWindows are the rate quotas' shares of the lower bound: per
// project, service and group (reads, writes), every caller's calls that
// the quota counted (the load-balancer stand-in's too: GKE's controller
// spends the project's quota as well; refused calls are not counted).
// A quota of Q per minute lets Q calls through in each window, and the
// (Q+1)-th waits for the next minute; a run may start just before a
// window ends, so N calls take at least ⌈N/Q⌉ − 2 whole minutes, never
// less whatever the phase. Cloud DNS's per-user quota has no published
// default (cloudsim's DefaultQuotas leaves it out): a service without a
// figure bounds nothing.
func gcpQuotaWindows(all Snapshot, quotas map[string]sim.ServiceLimits) []Bucket {
	type key struct{ project, service, group string }
	calls := map[key]int64{}
	for project, ops := range all {
		for name, c := range ops {
			service, op, _ := strings.Cut(name, ":")
			if _, ok := quotas[service]; !ok {
				continue
			}
			group := "reads"
			if sim.IsMutating(sim.CallKey{Service: service, Operation: op}) {
				group = "writes"
			}
			calls[key{project, service, group}] += c.Total - c.Throttled
		}
	}
	out := make([]Bucket, 0, len(calls))
	for k, n := range calls {
		limits := quotas[k.service]
		perMinute := limits.NonMutating.Burst
		if k.group == "writes" {
			perMinute = limits.Mutating.Burst
		}
		if perMinute <= 0 {
			continue
		}
		b := Bucket{Account: k.project, Service: k.service + " (project, per minute)", Operation: k.group, Mutating: k.group == "writes",
			Calls: n, Burst: perMinute, PerSecond: perMinute / quotaWindow.Seconds()}
		b.Seconds = quotaWindowWait(n, perMinute)
		out = append(out, b)
	}
	sortBuckets(out)
	return out
}

// quotaWindowWait is the least time n calls take under a quota of
// perMinute calls in each minute's window: ⌈n/perMinute⌉ windows, of which
// the first may end at once, so all but two are whole minutes.
func quotaWindowWait(n int64, perMinute float64) float64 {
	windows := math.Ceil(float64(n) / perMinute)
	return math.Max(0, windows-2) * quotaWindow.Seconds()
}

// gcpProvisioningChain is the modelled cloud-side wait of one Private
// cluster, each step needing the one before: the stand-in's internal
// forwarding rule (the attachment targets it), the service attachment
// (its URI is the endpoint's target), the endpoint's address and then its
// forwarding rule (the rule takes the reserved address), each a Compute
// Engine operation; then the records' change in the private zone (the
// zone itself is made at once, the records need the endpoint's address).
// Clusters provision in parallel, so the chain counts once.
func gcpProvisioningChain(d gcp.Delays) time.Duration {
	const operations = 4 // stand-in's rule, attachment, address, endpoint's rule
	return operations*d.Operation.D() + d.DNSChange.D()
}

// googleOperation names a Google call with its API's full service name,
// as cloudsim counts it: "compute:forwardingRules.get" becomes
// "compute.googleapis.com:forwardingRules.get".
func googleOperation(op string) string {
	service, method, ok := strings.Cut(op, ":")
	if !ok || strings.HasSuffix(service, ".googleapis.com") {
		return op
	}
	return service + ".googleapis.com:" + method
}
