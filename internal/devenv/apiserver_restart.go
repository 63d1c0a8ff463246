package devenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// RestartAPIServer stops the kube-apiserver and starts it again on the
// same port, with the same etcd, serving certificate and client CA, as a
// control-plane upgrade or a crashed API server pod would: every client
// (the operators, the kubelet stand-in, tests) sees its connections drop
// and its requests refused for a while, then carries on with the same
// credentials. envtest would make a new certificate directory (and so new
// CAs) on a restart; the old one's files are kept and handed back to it.
func (e *Env) RestartAPIServer() error { return restartAPIServer(e.kube, e.workDir) }

// restartAPIServer restarts kube's API server, keeping its certificates
// in a new directory under workDir.
func restartAPIServer(kube *envtest.Environment, workDir string) error {
	if kube == nil || kube.ControlPlane.APIServer == nil {
		return errors.New("devenv: no API server to restart")
	}
	api := kube.ControlPlane.APIServer
	kept, err := os.MkdirTemp(workDir, "apiserver-certs-")
	if err != nil {
		return err
	}
	if err := copyFiles(api.CertDir, kept); err != nil {
		return fmt.Errorf("devenv: keeping the API server's certificates: %w", err)
	}
	// The API server crashes: killed at once where its process can be
	// found (Linux), else stopped by envtest, which kills a kube-apiserver
	// that has not finished its graceful shutdown in 30 s (and says so as
	// an error): stopped either way.
	killAPIServer(api.SecureServing.Port)
	stopErr := api.Stop()
	api.CertDir = kept
	// The killed process may hold its port for a moment.
	deadline := time.Now().Add(restartWithin)
	for {
		err := api.Start()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.Join(fmt.Errorf("devenv: starting the API server again: %w", err), stopErr)
		}
		time.Sleep(time.Second)
	}
}

// restartWithin bounds the attempts to start the API server again.
const restartWithin = 2 * time.Minute

// copyFiles copies the regular files of dir from into dir to.
func copyFiles(from, to string) error {
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	for _, f := range entries {
		if !f.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, f.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, f.Name()), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// killAPIServer sends SIGKILL to the kube-apiserver serving on port, found
// by its command line in /proc; nothing where there is no /proc.
func killAPIServer(port string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(raw), "\x00")
		if len(args) == 0 || filepath.Base(args[0]) != "kube-apiserver" || !slices.Contains(args, "--secure-port="+port) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
