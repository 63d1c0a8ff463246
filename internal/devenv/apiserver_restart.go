package devenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	if err := api.Stop(); err != nil {
		return fmt.Errorf("devenv: stopping the API server: %w", err)
	}
	api.CertDir = kept
	if err := api.Start(); err != nil {
		return fmt.Errorf("devenv: starting the API server again: %w", err)
	}
	return nil
}

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
