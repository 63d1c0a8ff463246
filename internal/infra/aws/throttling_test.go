package aws

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// TestCreateAndDestroyUnderDefaultThrottling runs a three-zone create, a
// re-run and a destroy with AWS's default token buckets on and the SDK's
// standard retries (as the CLI has them), and reports each one's time
// and calls. Route 53's 5 requests a second is the tight bucket: the
// commands must finish through it.
func TestCreateAndDestroyUnderDefaultThrottling(t *testing.T) {
	f := startInfra(t)
	cfg := f.cs.Config(t, account)
	cfg.RetryMaxAttempts = 0
	cfg.Retryer = func() aws.Retryer { return retry.NewStandard() }
	f.deps.Clients = NewClients(cfg, cloudsimtest.Region)
	f.cs.Server.Faults.Set(sim.FaultConfig{Throttling: sim.AWSDefaultThrottling()})
	opts := Options{InfraID: "infra-m", Name: "m", BaseDomain: baseDomain, Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c"}}

	measure := func(what string, do func()) sim.CallCount {
		before := f.cs.Calls(account)
		start := time.Now()
		do()
		took := time.Since(start)
		sum, ops := sumCalls(before, f.cs.Calls(account))
		t.Logf("%-8s %6.2fs  %3d calls (%d mutating, %d throttled and retried) %s", what, took.Seconds(), sum.Total, sum.Mutating, sum.Throttled, ops)
		return sum
	}
	measure("create", func() { f.mustCreate(t, opts) })
	if rerun := measure("re-run", func() { f.mustCreate(t, opts) }); rerun.Mutating != 0 {
		t.Errorf("the re-run made %d mutating calls, want 0", rerun.Mutating)
	}
	measure("destroy", func() { f.mustDestroy(t, opts) })
	if left := f.leftovers(opts.InfraID); len(left) > 0 {
		t.Fatalf("destroy left %v", left)
	}
}

// sumCalls adds up the calls between two snapshots and names the
// throttled operations.
func sumCalls(before, after map[string]sim.CallCount) (sim.CallCount, string) {
	var sum sim.CallCount
	var throttled []string
	for key, c := range after {
		b := before[key]
		sum.Total += c.Total - b.Total
		sum.Mutating += c.Mutating - b.Mutating
		sum.Throttled += c.Throttled - b.Throttled
		if c.Throttled > b.Throttled {
			throttled = append(throttled, key)
		}
	}
	sort.Strings(throttled)
	if len(throttled) == 0 {
		return sum, ""
	}
	return sum, "(throttled: " + strings.Join(throttled, ", ") + ")"
}
