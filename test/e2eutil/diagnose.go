package e2eutil

import (
	"fmt"
	"strings"

	"github.com/hcplink/hcplink/internal/diagnose"
)

// AllPass checks that diagnose walked hops hops and found every one ✓.
func AllPass(r diagnose.Report, hops int) error {
	if r.ExitCode() != diagnose.ExitHealthy || len(r.Hops) != hops {
		return fmt.Errorf("want %d hops, all ✓, got exit %d:\n%s", hops, r.ExitCode(), diagnose.Text(r))
	}
	return nil
}

// OnlyBroken checks that hop (of endpoint, unless empty) is the one hop of
// r that is not ✓, that it failed, and that its fix says fix; it returns
// that hop.
func OnlyBroken(r diagnose.Report, hop, endpoint, fix string) (*diagnose.Hop, error) {
	var notPass []string
	for _, h := range r.Hops {
		if h.Verdict != diagnose.Pass {
			notPass = append(notPass, r.Where(h))
		}
	}
	f := r.FirstFailure()
	if len(notPass) != 1 || f == nil || f.Name != hop || (endpoint != "" && f.Endpoint != endpoint) || !strings.Contains(f.Fix, fix) {
		return nil, fmt.Errorf("want only %s ✗ with %q, got not ✓ %v:\n%s", hop, fix, notPass, diagnose.Text(r))
	}
	return f, nil
}
