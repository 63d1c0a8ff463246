// Package soak_test is the short soak of make test: the three clouds at once, a
// few clusters each, a minute of faults.
package soak_test

import (
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hcplink/hcplink/internal/soak"
)

// TestShortSoak runs `hcplink soak --platform all --intense` small: 3
// clusters per cloud through 50 s of every fault (each at least once per
// cloud: the intense setting makes them frequent, and the test checks),
// then requires every cluster converged, nothing duplicated, leaked or
// foreign touched, no hot loop and no condition that said something
// untrue. The 10-minute, 30-cluster run is `make soak`.
func TestShortSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the short soak takes about two minutes and a half")
	}
	progress := &syncBuilder{}
	rep, err := soak.Soak(t.Context(), soak.Options{
		Out: os.Stdout, Progress: progress,
		Platform: soak.PlatformAll, Clusters: 3, Duration: 50 * time.Second, Seed: 22, Intense: true,
		SettleTimeout: 3 * time.Minute, QuietWindow: 20 * time.Second,
		Executable: os.Args[0],
	})
	if err != nil {
		t.Fatalf("the soak did not run: %v\n%s", err, progress.String())
	}
	for _, c := range rep.Clouds {
		t.Logf("%s: %d of %d converged %.0f s after the faults; actions %v; %d management and %d control-plane operator restarts, %d leader kills, %d handovers, %d API server restarts, %d credential revocations; %d calls (%d throttled, %d failed); reconciles per cluster-minute %v",
			c.Cloud, c.Converged, c.Present, c.SecondsToConverge, c.Actions, c.OperatorRestarts, c.ControlPlaneOperatorRestarts, c.LeaderKills, c.LeaderHandovers,
			c.APIServerRestarts, c.CredentialRevocations, c.CloudCalls.Total, c.CloudCalls.Throttled, c.CloudCalls.Failed, c.ReconcilesPerClusterMinute)
	}
	t.Logf("the soak's commentary:\n%s", progress.String())
	if len(rep.Clouds) != 3 {
		t.Fatalf("%d clouds soaked, want AWS, Azure and GCP", len(rep.Clouds))
	}
	for _, c := range rep.Clouds {
		for fault, n := range map[string]int64{
			"throttling": c.CloudCalls.Throttled, "a failed call": c.CloudCalls.Failed - c.CloudCalls.Throttled,
			"a latency spike": c.Transport.Spikes, "a reset connection": c.Transport.Resets, "a lost reply": c.Transport.LostReplies,
			"a management operator replica killed": int64(c.OperatorRestarts), "a control-plane operator killed": int64(c.ControlPlaneOperatorRestarts),
			"the leader killed": int64(c.LeaderKills), "an API server restart": int64(c.APIServerRestarts),
			"a credential revocation": int64(c.CredentialRevocations),
		} {
			if n == 0 {
				t.Errorf("%s: no %s in the faulty period: the short soak must make every fault at least once", c.Cloud, fault)
			}
		}
	}
	if !rep.Pass {
		t.Errorf("the soak found problems:\n  %s\n\nits commentary:\n%s", strings.Join(rep.Problems, "\n  "), progress.String())
	}
}

// syncBuilder collects the commentary the clouds' processes write at once.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
