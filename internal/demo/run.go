// Package demo is the guided tour behind `hcplink demo`: a private hosted
// cluster walked through the seed's data flow on devenv, on AWS, Azure and
// GCP in turn, with one line per step as it completes, a timing table per cloud
// and, at the end of each, proof read from the cloud that nothing is left.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hcplink/hcplink/internal/devenv"
)

// The clouds the tour can walk, as `--platform` names them.
const (
	PlatformAWS   = "aws"
	PlatformAzure = "azure"
	PlatformGCP   = "gcp"
)

// Options configure the tour.
type Options struct {
	Out io.Writer
	// Platforms are the clouds to walk, in order (default: AWS, Azure, GCP).
	Platforms []string
	// Keep stops each cloud's tour once its cluster is Available and leaves
	// everything running, with shell lines to explore it, until interrupted.
	Keep bool
	// StepTimeout bounds each step (default 90s).
	StepTimeout time.Duration
	// Executable is the hcplink binary that walks each cloud in its own
	// process when there are several.
	Executable string
}

// ParsePlatforms reads `--platform`: aws, azure, gcp, or all (also the
// empty value), which walks AWS, Azure, then GCP.
func ParsePlatforms(value string) ([]string, error) {
	switch v := strings.ToLower(strings.TrimSpace(value)); v {
	case "", "all":
		return []string{PlatformAWS, PlatformAzure, PlatformGCP}, nil
	case PlatformAWS, PlatformAzure, PlatformGCP:
		return []string{v}, nil
	}
	return nil, fmt.Errorf("--platform must be aws, azure, gcp or all, not %q", value)
}

// cloudTour is one cloud's walk on its own devenv.
type cloudTour interface {
	// run walks the cluster through its life; with keep it stops once the
	// cluster is Available and prints the lines to explore it.
	run(ctx context.Context, keep bool) error
}

// Run performs the tour: one cloud in this process, several each in its
// own process (see runEach).
func Run(ctx context.Context, opts Options) (err error) {
	out := opts.Out
	if out == nil {
		out = os.Stdout
	}
	if opts.StepTimeout == 0 {
		opts.StepTimeout = 90 * time.Second
	}
	if len(opts.Platforms) == 0 {
		opts.Platforms, _ = ParsePlatforms("")
	}
	if len(opts.Platforms) > 1 {
		if opts.Executable == "" {
			return errors.New("walking several clouds needs the hcplink binary to run each in its own process")
		}
		return runEach(ctx, opts, out)
	}
	platform := opts.Platforms[0]
	start := time.Now()
	env, err := walk(ctx, platform, out, opts)
	if env != nil {
		defer func() {
			if stopErr := env.Stop(); stopErr != nil && err == nil {
				err = stopErr
			}
		}()
	}
	if err != nil {
		return err
	}
	if opts.Keep {
		fmt.Fprintln(out, "\n"+keepMarker)
		sigCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		<-sigCtx.Done()
		fmt.Fprintf(out, "\nstopping the %s environment\n", platform)
		return nil
	}
	fmt.Fprintf(out, "\nhcplink demo: %s done in %.1fs (its local environment's start-up included)\n", platform, time.Since(start).Seconds())
	return nil
}

// walk starts the platform's devenv and walks its tour; the caller stops
// the environment it returns.
func walk(ctx context.Context, platform string, out io.Writer, opts Options) (*devenv.Env, error) {
	fmt.Fprintf(out, "\nhcplink demo: %s\n", platformHeading(platform))
	env, err := devenv.Start(ctx, devenv.Options{Progress: out, Platform: devenvPlatform(platform)})
	if err != nil {
		return nil, fmt.Errorf("starting the local environment for %s: %w", platform, err)
	}
	var t cloudTour
	switch platform {
	case PlatformAzure:
		t, err = startAzureTour(ctx, env, out, opts.StepTimeout)
	case PlatformGCP:
		t, err = startGCPTour(ctx, env, out, opts.StepTimeout)
	default:
		t = startAWSTour(env, out, opts.StepTimeout)
	}
	if err != nil {
		return env, err
	}
	return env, t.run(ctx, opts.Keep)
}

// platformHeading is the line that opens a cloud's tour.
func platformHeading(platform string) string {
	switch platform {
	case PlatformAzure:
		return "a Private Azure hosted cluster on a local management cluster and a local Azure (cloudsim)"
	case PlatformGCP:
		return "a Private GCP hosted cluster on a local management cluster and a local Google Cloud (cloudsim)"
	}
	return "a private AWS hosted cluster on a local management cluster and a local AWS (cloudsim)"
}
