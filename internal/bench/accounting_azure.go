package bench

import (
	"math"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/intervals"
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

const azureSteadyAccounting = "each periodic job at its production period: Σ jobs (calls per run per cluster × runs per hour); drift observed in the quiet window (every ARM call there is a drift check's), Entra ID tokens modelled at one per identity per token lifetime (cloudsim counts ARM calls, not token requests), the endpoint's hourly read past the operator's report at one per control-plane operator; the credentials checks ask azidentity for a token it holds, no call"

// azureAccounting counts as ARM throttles: per subscription, principal and
// kind (reads, writes, deletes), plus each subscription's global buckets.
func azureAccounting(limits sim.ServiceLimits, delays azure.Delays, management string) *accounting {
	return &accounting{
		management: management,
		jobs:       func(in SteadyInput) []Job { return azureSteadyState(in, management) },
		jobOf:      func(account, _ string) string { return azureJobOf(account, management) },
		modelled: map[string]string{jobEntraToken: "Entra ID token requests (modelled)",
			jobEndpointReread: "Microsoft.Network:privateEndpoints/read (modelled)"},
		buckets: func(all, _ Snapshot, byPrincipal PrincipalSnapshot, _ int) []Bucket {
			return armBuckets(all, byPrincipal, limits)
		},
		chain:    azureProvisioningChain(delays, 1),
		chainFor: func(frontends int) time.Duration { return azureProvisioningChain(delays, frontends) },
		// A realistic run at 50 clusters took 185.8 s where chain + busiest
		// bucket (the load-balancer stand-in's reads while it waited its
		// turn on the load balancers) was 255.3 s: the calls overlap the
		// waits, so each is a bound on its own and the longer binds.
		longestBinds: true,
		explains:     azureSteadyAccounting,
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
		{Job: jobCPODrift, Period: intervals.AzureDrift.String(), CallsPerRun: quiet[jobCPODrift] / n / driftRuns,
			RunsPerHour: runsPerHour(intervals.AzureDrift), Source: "observed in the quiet window"},
		{Job: jobOperatorDrift, Period: intervals.AzureDrift.String(), CallsPerRun: quiet[jobOperatorDrift] / n / driftRuns,
			RunsPerHour: runsPerHour(intervals.AzureDrift), Source: "observed in the quiet window"},
		{Job: jobCPOCredentials, Period: cpoCredentialsPeriod.String(), RunsPerHour: runsPerHour(cpoCredentialsPeriod),
			Source: "none: the check asks azidentity for a token it already holds"},
		{Job: jobOperatorCreds, Period: operatorCredentialsPeriod.String(), RunsPerHour: runsPerHour(operatorCredentialsPeriod),
			Source: "none: the check asks azidentity for a token it already holds"},
		{Job: jobEntraToken, Period: entraTokenLifetime.String(), CallsPerRun: 1 + 1/n, RunsPerHour: runsPerHour(entraTokenLifetime),
			Source: "modelled (one token per control-plane operator, and the operator's shared by the clusters)"},
		{Job: jobEndpointReread, Period: intervals.EndpointReportTrust.String(), CallsPerRun: 1, RunsPerHour: runsPerHour(intervals.EndpointReportTrust),
			Source: "modelled (one endpoint read per control-plane operator per period)"},
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

// armBuckets are ARM's buckets' shares of the lower bound, from who
// called (cloudsim counts every ARM call per principal): each
// subscription's global buckets (every principal's calls, the
// load-balancer stand-in's too) and each principal's own, per kind. The
// busiest real bucket binds.
func armBuckets(all Snapshot, byPrincipal PrincipalSnapshot, limits sim.ServiceLimits) []Bucket {
	type key struct{ sub, principal, kind string }
	calls := map[key]int64{}
	for sub, ops := range all {
		for op, c := range ops {
			calls[key{sub, "", armKind(op)}] += c.Total - c.Throttled
		}
	}
	for sub, callers := range byPrincipal {
		for principal, ops := range callers {
			for op, c := range ops {
				calls[key{sub, principal, armKind(op)}] += c.Total - c.Throttled
			}
		}
	}
	out := make([]Bucket, 0, len(calls))
	for k, n := range calls {
		limit := limits.Mutating
		if k.kind == "reads" {
			limit = limits.NonMutating
		}
		scope := scopeGlobal
		if k.principal == "" {
			limit = sim.Limit{Burst: limit.Burst * armGlobalFactor, PerSecond: limit.PerSecond * armGlobalFactor}
		} else {
			scope = "(principal " + k.principal + ")"
		}
		if limit.PerSecond <= 0 {
			continue
		}
		b := Bucket{Account: k.sub, Service: "arm " + scope, Operation: k.kind, Mutating: k.kind != "reads",
			Calls: n, Burst: limit.Burst, PerSecond: limit.PerSecond}
		b.Seconds = math.Max(0, float64(n)-b.Burst) / b.PerSecond
		out = append(out, b)
	}
	sortBuckets(out)
	return out
}

// scopeGlobal names a subscription's global buckets.
const scopeGlobal = "(subscription, every principal)"

// azureProvisioningChain is the modelled cloud-side wait of the last
// Private cluster, in the order each needs the one before: its load
// balancer's frontend, its Private Link Service, then its Private Endpoint
// (the zone and its link can be made meanwhile; the records need the
// endpoint's address and are written at once). Azure runs one operation
// at a time on a load balancer (a second write is refused with
// AnotherOperationInProgress), and the cloud provider adds each Service's
// frontend by its own write, so the frontends of one internal load
// balancer are provisioned one after another: the last of the busiest
// load balancer's frontends waits for all of them.
func azureProvisioningChain(d azure.Delays, frontendsOnBusiestLoadBalancer int) time.Duration {
	k := max(frontendsOnBusiestLoadBalancer, 1)
	return time.Duration(k)*d["loadBalancerUpdating"].D() + d["privateLinkServiceUpdating"].D() + d["privateEndpointUpdating"].D()
}

// busiestLoadBalancer is how many private routers share the busiest
// internal load balancer: the most clusters placed on one load-balancer
// configuration, or every cluster when none was placed (the cloud
// provider's one internal load balancer).
func busiestLoadBalancer(placements map[string]int, clusters int) int {
	if len(placements) == 0 {
		return clusters
	}
	most := 0
	for _, n := range placements {
		most = max(most, n)
	}
	return most
}
