package bench

import (
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

// accounting is what differs between the clouds in turning counts into the
// same figures.
type accounting struct {
	// management is the account (AWS) or subscription (Azure) the
	// load-balancer stand-in works in; its calls are left out there.
	management string
	// jobs counts each periodic job at its production period.
	jobs func(SteadyInput) []Job
	// jobOf attributes an observed call to its job.
	jobOf func(account, op string) string
	// modelled names the by-operation rows of the jobs not observed.
	modelled map[string]string
	// buckets are the token buckets' shares of the lower bound, from the
	// create path's counts with and without the stand-in's calls, and per
	// caller where cloudsim knows it.
	buckets func(all, hcplinkOnly Snapshot, byPrincipal PrincipalSnapshot, clusters int) []Bucket
	// chain is the modelled provisioning chain of one cluster.
	chain time.Duration
	// chainFor, when set, is the chain of the last cluster when the
	// busiest load balancer carries that many clusters' routers (Azure
	// provisions one load balancer's frontends one at a time).
	chainFor func(routersOnBusiestLoadBalancer int) time.Duration
	// longestBinds: the bound is the longer of the chain and the busiest
	// bucket, not their sum (Azure: the buckets' calls are spread over the
	// chain's waits, so the sum can exceed what a run takes).
	longestBinds bool
	// explains says how the steady state is counted.
	explains string
	// standInOperation, when set, names a load-balancer stand-in's counted
	// operation as cloudsim's counters do (devenv's GCP stand-in counts
	// under "compute:", cloudsim under "compute.googleapis.com:").
	standInOperation func(op string) string
}

// standInCalls are the stand-in's counts under cloudsim's names.
func (a *accounting) standInCalls(lb map[string]int64) map[string]int64 {
	if a.standInOperation == nil {
		return lb
	}
	out := make(map[string]int64, len(lb))
	for op, n := range lb {
		out[a.standInOperation(op)] += n
	}
	return out
}

// awsAccounting counts as AWS throttles: per account, service and, for
// EC2 and ELBv2, operation.
func awsAccounting(throttling sim.Throttling, delays sim.Delays) *accounting {
	return &accounting{
		management: devenv.ManagementAccount,
		jobs:       steadyState,
		jobOf:      jobOf,
		modelled: map[string]string{
			jobCPOSweep:      "sweep (control-plane operator): ec2 listings",
			jobOperatorSweep: "sweep (operator): endpoint-service listing",
		},
		buckets:  func(all, _ Snapshot, _ PrincipalSnapshot, _ int) []Bucket { return buckets(all, throttling) },
		chain:    provisioningChain(delays),
		explains: awsSteadyAccounting,
	}
}
