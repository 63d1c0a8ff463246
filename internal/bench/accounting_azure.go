package bench

import (
	"math"
	"strings"
	"time"

	cpazure "github.com/hcplink/hcplink/internal/controlplane/azureprivatelink"
	opazure "github.com/hcplink/hcplink/internal/operator/azureprivatelink"

	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Azure's periodic jobs besides the two drift checks.
const (
	jobEntraToken = "Entra ID token (workload identity and the operator's)"
	// armGlobalFactor: a subscription's global buckets are 15 times a
	// principal's, shared by every principal (ARM's published rule, which
	// cloudsim keeps).
	armGlobalFactor = 15
	// entraTokenLifetime is how long an Entra ID access token lasts;
	// azidentity asks again shortly before it expires.
	entraTokenLifetime = time.Hour
)

const azureSteadyAccounting = "each periodic job at its production period: Σ jobs (calls per run per cluster × runs per hour); drift observed in the quiet window (every ARM call there is a drift check's), Entra ID tokens modelled at one per identity per token lifetime (cloudsim counts ARM calls, not token requests); the credentials checks ask azidentity for a token it holds, no call"

// azureAccounting counts as ARM throttles: per subscription, principal and
// kind (reads, writes, deletes), plus each subscription's global buckets.
func azureAccounting(limits sim.ServiceLimits, delays azure.Delays, management string) *accounting {
	return &accounting{
		management: management,
		jobs:       func(in SteadyInput) []Job { return azureSteadyState(in, management) },
		jobOf:      func(account, _ string) string { return azureJobOf(account, management) },
		modelled:   map[string]string{jobEntraToken: "Entra ID token requests (modelled)"},
		buckets: func(all, hcplinkOnly Snapshot, clusters int) []Bucket {
			return armBuckets(all, hcplinkOnly, limits, management, clusters)
		},
		chain:    azureProvisioningChain(delays),
		explains: azureSteadyAccounting,
	}
}

// azureJobOf: in the quiet window every ARM call is a drift check's, the
// management subscription's the operator's, the others' the control-plane
// operators'.
func azureJobOf(subscription, management string) string {
	if strings.EqualFold(subscription, management) {
		return jobOperatorDrift
	}
	return jobCPODrift
}

// azureSteadyState counts the drift checks observed in the window at their
// production interval, and one Entra ID token per control-plane operator
// and one for the operator (shared by the clusters) per token lifetime.
func azureSteadyState(in SteadyInput, management string) []Job {
	n := float64(in.Clusters)
	driftRuns := in.Window.Seconds() / in.DriftDuringRun.Seconds()
	quiet := map[string]float64{}
	for sub, ops := range in.Quiet {
		for _, c := range ops {
			quiet[azureJobOf(sub, management)] += float64(c.Total)
		}
	}
	jobs := []Job{
		{Job: jobCPODrift, Period: cpazure.DefaultDriftInterval.String(), CallsPerRun: quiet[jobCPODrift] / n / driftRuns,
			RunsPerHour: runsPerHour(cpazure.DefaultDriftInterval), Source: "observed in the quiet window"},
		{Job: jobOperatorDrift, Period: opazure.DefaultDriftInterval.String(), CallsPerRun: quiet[jobOperatorDrift] / n / driftRuns,
			RunsPerHour: runsPerHour(opazure.DefaultDriftInterval), Source: "observed in the quiet window"},
		{Job: jobCPOCredentials, Period: cpoCredentialsPeriod.String(), RunsPerHour: runsPerHour(cpoCredentialsPeriod),
			Source: "none: the check asks azidentity for a token it already holds"},
		{Job: jobOperatorCreds, Period: operatorCredentialsPeriod.String(), RunsPerHour: runsPerHour(operatorCredentialsPeriod),
			Source: "none: the check asks azidentity for a token it already holds"},
		{Job: jobEntraToken, Period: entraTokenLifetime.String(), CallsPerRun: 1 + 1/n, RunsPerHour: runsPerHour(entraTokenLifetime),
			Source: "modelled (one token per control-plane operator, and the operator's shared by the clusters)"},
	}
	for i := range jobs {
		jobs[i].PerClusterHour = jobs[i].CallsPerRun * jobs[i].RunsPerHour
	}
	return jobs
}

// armKind is ARM's throttling category of a counted operation
// ("Microsoft.Network:privateEndpoints/read").
func armKind(op string) string {
	switch {
	case strings.HasSuffix(op, "/read"):
		return "reads"
	case strings.HasSuffix(op, "/delete"):
		return "deletes"
	}
	return "writes"
}

// armBuckets are ARM's buckets' shares of the lower bound. cloudsim's
// counts do not say which principal called, so only buckets whose callers
// are known are bounded: each subscription's global buckets (every call,
// the stand-in's included), the operator's own buckets in the management
// subscription (hcplink's calls there are all the operator's), and in
// other subscriptions one control-plane operator's own buckets at the
// average share (each cluster's operator has its own identity, and the
// busiest has at least the average).
func armBuckets(all, hcplinkOnly Snapshot, limits sim.ServiceLimits, management string, clusters int) []Bucket {
	type key struct{ sub, scope, kind string }
	calls := map[key]int64{}
	add := func(snap Snapshot, scope func(sub string) string) {
		for sub, ops := range snap {
			for op, c := range ops {
				if s := scope(sub); s != "" {
					calls[key{sub, s, armKind(op)}] += c.Total - c.Throttled
				}
			}
		}
	}
	add(all, func(string) string { return scopeGlobal })
	add(hcplinkOnly, func(sub string) string {
		if strings.EqualFold(sub, management) {
			return scopeOperator
		}
		return scopeOneCPO
	})
	out := make([]Bucket, 0, len(calls))
	for k, n := range calls {
		limit := limits.Mutating
		if k.kind == "reads" {
			limit = limits.NonMutating
		}
		switch k.scope {
		case scopeGlobal:
			limit = sim.Limit{Burst: limit.Burst * armGlobalFactor, PerSecond: limit.PerSecond * armGlobalFactor}
		case scopeOneCPO:
			n /= int64(max(1, clusters))
		}
		if limit.PerSecond <= 0 {
			continue
		}
		b := Bucket{Account: k.sub, Service: "arm " + k.scope, Operation: k.kind, Mutating: k.kind != "reads",
			Calls: n, Burst: limit.Burst, PerSecond: limit.PerSecond}
		b.Seconds = math.Max(0, float64(n)-b.Burst) / b.PerSecond
		out = append(out, b)
	}
	sortBuckets(out)
	return out
}

// The buckets armBuckets bounds.
const (
	scopeGlobal   = "(subscription, every principal)"
	scopeOperator = "(the operator's principal)"
	scopeOneCPO   = "(one control-plane operator's principal, average)"
)

// azureProvisioningChain is the modelled cloud-side wait of one Private
// cluster, in the order each needs the one before: the load balancer's
// frontend, the Private Link Service, then the Private Endpoint (the zone
// and its link can be made meanwhile; the records need the endpoint's
// address and are written at once).
func azureProvisioningChain(d azure.Delays) time.Duration {
	return d["loadBalancerUpdating"].D() + d["privateLinkServiceUpdating"].D() + d["privateEndpointUpdating"].D()
}
