// Package soak runs hcplink's fleet through many faults at once on devenv
// and counts what was lost: N hosted clusters per cloud, each living a
// random life (created; endpoint access or topology switched; NodePools
// added, moved and removed; another principal or subscription allowed and
// removed; drift made through the cloud's API as a customer would; deleted,
// sometimes while still being created) while cloudsim throttles, fails,
// stalls, resets connections, loses replies and answers reads late; the
// operators are killed and restarted at random (the management operator's
// leader once on purpose, its standby replica taking over); the API server
// is restarted once; and one cluster's cloud credentials are revoked for a
// while. Then the faults stop, the fleet settles, every cluster is deleted,
// and the report says: the actions done, the clusters converged and how long
// that took, and from cloudsim's ledger the duplicates, the leaks and the
// foreign resources touched; from the operators' metrics, hot loops; the
// conditions that said the credentials were refused while they were
// granted; the restarts and the memory.
package soak

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// The clouds --platform names.
const (
	PlatformAWS   = "aws"
	PlatformAzure = "azure"
	PlatformGCP   = "gcp"
	PlatformAll   = "all"
)

// Options configure a run.
type Options struct {
	Out      io.Writer
	Progress io.Writer // running commentary (Out when nil)
	JSON     bool
	// Platform: aws, azure, gcp or all (at once, each cloud in its own process
	// on its own devenv).
	Platform string
	// Clusters per cloud.
	Clusters int
	// CustomerAccounts spreads the AWS clusters over this many customer
	// accounts (cluster i in account i mod n), as a platform team's fleet
	// is; 0 or 1 is one account. Azure keeps one subscription.
	CustomerAccounts int
	// Duration of the faulty period.
	Duration time.Duration
	// Seed makes the lives and the cloud's faults repeatable (as far as
	// goroutine scheduling lets them be).
	Seed int64
	// SettleTimeout bounds the wait for convergence after the faults stop,
	// and again for the deletion of everything.
	SettleTimeout time.Duration
	// QuietWindow is how long the settled fleet is watched for hot loops
	// (a minute when zero).
	QuietWindow time.Duration
	// Intense makes every fault frequent enough to happen at least once
	// per cloud in a minute of faults (the short soak): an operator killed
	// every intenseRestartEvery on average, and the transport faults
	// (spikes, resets, lost replies) on intenseTransportRate of the calls
	// each.
	Intense bool
	// LogDir, when set, receives each cloud's operator logs as JSON lines
	// (<cloud>-operators.log), to find out what a failed soak's objects
	// went through; empty discards them.
	LogDir string
	// Executable is the hcplink binary, which --platform all runs once per
	// cloud.
	Executable string
}

// Run performs the soak and prints its report; it fails when the report
// does not pass.
func Run(ctx context.Context, opts Options) error {
	rep, err := Soak(ctx, opts)
	if err != nil {
		return err
	}
	if err := rep.write(opts.Out, opts.JSON); err != nil {
		return err
	}
	if !rep.Pass {
		return fmt.Errorf("the soak found problems: %s", strings.Join(rep.Problems, "; "))
	}
	return nil
}

// Soak performs the soak and returns its report.
func Soak(ctx context.Context, opts Options) (*Report, error) {
	platforms, err := platformsFor(opts)
	if err != nil {
		return nil, err
	}
	if opts.Clusters < 1 {
		return nil, fmt.Errorf("--clusters must be at least 1")
	}
	if opts.Progress == nil {
		opts.Progress = opts.Out
	}
	if opts.SettleTimeout <= 0 {
		opts.SettleTimeout = 10 * time.Minute
	}
	if opts.QuietWindow <= 0 {
		opts.QuietWindow = time.Minute
	}
	rep := &Report{Platform: opts.Platform, ClustersPerCloud: opts.Clusters, Duration: opts.Duration.String(), Seed: opts.Seed}
	if len(platforms) > 1 {
		results, err := runEach(ctx, platforms, opts)
		if err != nil {
			return nil, err
		}
		rep.Clouds = results
		rep.judge()
		return rep, nil
	}
	p := platforms[0]
	r, err := runCloud(ctx, p, opts, &lockedWriter{w: opts.Progress, prefix: p.name() + ":"})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.name(), err)
	}
	results := []CloudReport{r}
	rep.Clouds = results
	rep.judge()
	return rep, nil
}

func platformsFor(opts Options) ([]platform, error) {
	aws := &awsPlatform{customerAccounts: max(1, opts.CustomerAccounts)}
	switch strings.ToLower(opts.Platform) {
	case "", PlatformAWS:
		return []platform{aws}, nil
	case PlatformAzure:
		return []platform{&azurePlatform{}}, nil
	case PlatformGCP:
		return []platform{&gcpPlatform{}}, nil
	case PlatformAll:
		return []platform{aws, &azurePlatform{}, &gcpPlatform{}}, nil
	}
	return nil, fmt.Errorf("--platform must be aws, azure, gcp or all, not %q", opts.Platform)
}

// lockedWriter prefixes the commentary with the time and the cloud, and
// serialises it (devenv writes from its own goroutines).
type lockedWriter struct {
	w      io.Writer
	prefix string
}

var progressMu sync.Mutex

func (l *lockedWriter) printf(format string, args ...any) {
	progressMu.Lock()
	defer progressMu.Unlock()
	fmt.Fprintf(l.w, "%s %s"+format+"\n", append([]any{time.Now().UTC().Format("15:04:05"), l.prefix}, args...)...)
}
