package devenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// startOperatorProcess runs the management operator as a child process
// configured the way a Deployment would configure it: a kubeconfig, the
// management account's credentials and the cloud endpoint in the
// environment, flags for the rest. Its output goes to operator.log in the
// working directory.
func (e *Env) startOperatorProcess(ctx context.Context, binary, metricsAddr string) error {
	logPath := filepath.Join(e.workDir, "operator.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	args := []string{"operator",
		"--kubeconfig", e.KubeconfigPath,
		"--private-platform", "AWS",
		"--aws-private-region", Region,
		"--control-plane-operator-image", "hcplink:devenv",
		"--metrics-bind-address", metricsAddr,
		"--health-probe-bind-address", "0",
		// The bench reads the live heap (loopback only, devenv's own).
		"--debug-live-heap",
	}
	if e.driftInterval > 0 {
		args = append(args, "--drift-interval", e.driftInterval.String())
	}
	ctx, cancel := context.WithCancel(ctx)
	exited := make(chan struct{})
	e.operatorProcess = &operatorProcess{binary: binary, metricsAddr: metricsAddr, stop: cancel, exited: exited}
	key, err := e.operatorKeyEnv(ctx)
	if err != nil {
		cancel()
		logFile.Close()
		return err
	}
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(append(os.Environ(), key...),
		"AWS_ENDPOINT_URL="+e.CloudURL,
		"AWS_REGION="+Region,
		"AWS_CONFIG_FILE="+os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE="+os.DevNull,
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Stop politely so that the operator releases its lease.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	if err := cmd.Start(); err != nil {
		cancel()
		logFile.Close()
		return fmt.Errorf("starting %s operator: %w", binary, err)
	}
	e.OperatorPID = cmd.Process.Pid
	e.goRun(func() error {
		defer close(exited)
		defer logFile.Close()
		err := cmd.Wait()
		var exit *exec.ExitError
		if ctx.Err() != nil && (err == nil || errors.As(err, &exit)) {
			return nil // stopped by us
		}
		if err != nil {
			return fmt.Errorf("management operator process: %w (log: %s)", err, logPath)
		}
		return nil
	})
	return nil
}

// operatorProcess is the running management-operator process: what started
// it, and how to stop it and know it exited.
type operatorProcess struct {
	binary, metricsAddr string
	stop                context.CancelFunc
	exited              <-chan struct{}
}
