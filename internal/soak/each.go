package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// runEach soaks every cloud at once, each in its own hcplink process: a
// devenv's stand-ins are controllers with fixed names, which
// controller-runtime allows once per process (the demo does the same), and
// each cloud's metrics and memory are then its own.
func runEach(ctx context.Context, platforms []platform, opts Options) ([]CloudReport, error) {
	if opts.Executable == "" {
		return nil, errors.New("soaking several clouds needs the hcplink binary to run each in its own process")
	}
	results := make([]CloudReport, len(platforms))
	errs := make([]error, len(platforms))
	var wg sync.WaitGroup
	for i, p := range platforms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = runChild(ctx, p.name(), opts)
		}()
	}
	wg.Wait()
	return results, errors.Join(errs...)
}

// childStopWithin bounds how long an interrupted cloud's process may take
// to stop its devenv.
const childStopWithin = 30 * time.Second

// runChild runs `hcplink soak --platform <name> -o json` and reads its
// one cloud's report; its commentary goes to ours. A child whose soak
// found problems exits non-zero but still prints its report.
func runChild(ctx context.Context, name string, opts Options) (CloudReport, error) {
	cmd := exec.CommandContext(ctx, opts.Executable, "soak", "--platform", name, "--output", "json",
		"--clusters", strconv.Itoa(opts.Clusters), "--duration", opts.Duration.String(),
		"--seed", strconv.FormatInt(opts.Seed, 10), "--settle-timeout", opts.SettleTimeout.String(), "--quiet-window", opts.QuietWindow.String())
	if opts.CustomerAccounts > 1 {
		cmd.Args = append(cmd.Args, "--customer-accounts", strconv.Itoa(opts.CustomerAccounts))
	}
	if opts.Intense {
		cmd.Args = append(cmd.Args, "--intense")
	}
	if opts.LogDir != "" {
		cmd.Args = append(cmd.Args, "--log-dir", opts.LogDir)
	}
	// Cancelled, a cloud's process is asked to stop (SIGTERM), so that it
	// stops its devenv; killed only if it has not within childStopWithin.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = childStopWithin
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = opts.Progress
	runErr := cmd.Run()
	var rep Report
	if ctx.Err() != nil {
		return CloudReport{}, fmt.Errorf("%s: interrupted (its devenv stopped)", name)
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Clouds) != 1 {
		return CloudReport{}, fmt.Errorf("%s: the soak gave no report (%v)", name, errors.Join(runErr, err))
	}
	return rep.Clouds[0], nil
}
