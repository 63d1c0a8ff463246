package devenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	azcloud "github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/operator"
)

// startOperatorProcess runs the management operator as a child process
// configured the way a Deployment would configure it: a kubeconfig, the
// management identity's credentials and the cloud's endpoints in the
// environment, flags for the rest (AWS or Azure). Its output goes to operator.log in the
// working directory.
func (e *Env) startOperatorProcess(ctx context.Context, binary, metricsAddr string) error {
	logPath := filepath.Join(e.workDir, "operator.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	args := []string{"operator",
		"--kubeconfig", e.KubeconfigPath,
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
	platformArgs, env, err := e.operatorCloud(ctx)
	if err != nil {
		cancel()
		logFile.Close()
		return err
	}
	cmd := exec.CommandContext(ctx, binary, append(args, platformArgs...)...)
	cmd.Env = append(os.Environ(), env...)
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

// operatorCloud is the operator process's platform flags and cloud
// environment, as a Deployment would set them: on AWS the management
// account's access key and cloudsim's endpoint; on Azure the management
// operator's workload identity (its projected token's file) and cloudsim's
// endpoints and CA, the azidentity way; on GCP its service account's key
// file (--gcp-credentials-file) and cloudsim's endpoints.
func (e *Env) operatorCloud(ctx context.Context) (args, env []string, err error) {
	if e.Platform == PlatformGCP {
		args, env = e.gcpOperatorProcess()
		return args, env, nil
	}
	if e.Platform == PlatformAzure {
		args = []string{"--private-platform", operator.PlatformAzure, "--azure-pls-resource-group", e.azureOperator.ResourceGroup}
		if e.azureOperator.VNetID != "" {
			args = append(args, "--azure-vnet-id", e.azureOperator.VNetID)
		}
		if c := e.azureLoadBalancerConfigurations; len(c) > 0 {
			args = append(args, "--azure-load-balancer-configurations", strings.Join(c, ","))
		}
		return args, azureOperatorEnv(e.azureOperator, e.AzureCABundle), nil
	}
	key, err := e.operatorKeyEnv(ctx)
	if err != nil {
		return nil, nil, err
	}
	args = []string{"--private-platform", operator.PlatformAWS, "--aws-private-region", Region}
	return args, append(key,
		"AWS_ENDPOINT_URL="+e.CloudURL,
		"AWS_REGION="+Region,
		"AWS_CONFIG_FILE="+os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE="+os.DevNull,
	), nil
}

// azureOperatorEnv is cfg as the environment azurecloud.ConfigFromEnv
// reads, with the CA at caBundle; unset fields are left out, as a
// Deployment sets only its identity's variables.
func azureOperatorEnv(cfg azurecloud.Config, caBundle string) []string {
	rm := cfg.Cloud.Services[azcloud.ResourceManager]
	var env []string
	for _, v := range [][2]string{
		{azurecloud.EnvTenantID, cfg.TenantID},
		{azurecloud.EnvClientID, cfg.ClientID},
		{azurecloud.EnvClientSecret, cfg.ClientSecret},
		{azurecloud.EnvFederatedTokenFile, cfg.FederatedTokenFile},
		{azurecloud.EnvSubscriptionID, cfg.SubscriptionID},
		{azurecloud.EnvAuthorityHost, cfg.Cloud.ActiveDirectoryAuthorityHost},
		{azurecloud.EnvResourceManagerEndpoint, rm.Endpoint},
		{azurecloud.EnvResourceManagerAudience, rm.Audience},
		{azurecloud.EnvCABundle, caBundle},
	} {
		if v[1] != "" {
			env = append(env, v[0]+"="+v[1])
		}
	}
	return env
}

// operatorProcess is the running management-operator process: what started
// it, and how to stop it and know it exited.
type operatorProcess struct {
	binary, metricsAddr string
	stop                context.CancelFunc
	exited              <-chan struct{}
}
