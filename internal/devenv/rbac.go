package devenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/hcplink/hcplink/internal/install"
	"github.com/hcplink/hcplink/internal/satoken"
)

// operatorNamespace is where the local environment installs the
// management operator's identity, as `hcplink install` would.
const operatorNamespace = install.DefaultNamespace

// startOperatorIdentity gives the management operator exactly the RBAC
// `hcplink install` renders: it applies install's namespace,
// ServiceAccount, ClusterRole and binding, keeps a token of that
// ServiceAccount in the working directory as the kubelet keeps a pod's,
// and writes the kubeconfig the operator process is given. The operator,
// in-process or not, authenticates with that token only (no client
// certificate, no impersonation), so every devenv run proves the
// rendered RBAC enough.
func (e *Env) startOperatorIdentity(ctx context.Context) error {
	c, err := install.NewClient(e.Kube)
	if err != nil {
		return err
	}
	opts := install.Options{Namespace: operatorNamespace}
	if _, err := install.Apply(ctx, c, opts, install.ApplyOptions{Kinds: install.IdentityKinds}); err != nil {
		return fmt.Errorf("installing the management operator's RBAC: %w", err)
	}
	tokenFile := filepath.Join(e.workDir, "management-operator.token")
	// The token outlives Start's context: it is refreshed until Stop.
	if err := satoken.Keep(e.runCtx, c, operatorNamespace, install.ServiceAccountName, tokenFile, e.operatorLog); err != nil {
		return fmt.Errorf("minting the management operator's token: %w", err)
	}
	e.operatorKube = satoken.RestConfig(e.Kube, tokenFile)
	kubeconfig, err := satoken.Kubeconfig(e.operatorKube)
	if err != nil {
		return err
	}
	e.operatorKubeconfigPath = filepath.Join(e.workDir, "management-operator.kubeconfig")
	return os.WriteFile(e.operatorKubeconfigPath, kubeconfig, 0o600)
}

// OperatorKube is what the management operator reaches the API server
// with: the configuration the in-process operator runs with, or the one
// the operator process reads from its kubeconfig. Tests check it is the
// ServiceAccount install renders and nothing more.
func (e *Env) OperatorKube() (*rest.Config, error) {
	if p := e.operatorProcess; p != nil {
		return clientcmd.BuildConfigFromFlags("", p.kubeconfig)
	}
	if e.operatorOptions.RestConfig == nil {
		return nil, fmt.Errorf("devenv: the management operator was not started")
	}
	return e.operatorOptions.RestConfig, nil
}

// ControlPlaneOperatorKube is what the control-plane operator of a
// control-plane namespace reaches the API server with (nil when none runs
// there). Tests check it is the ServiceAccount its Deployment names, under
// the Role the management operator renders, and nothing more.
func (e *Env) ControlPlaneOperatorKube(namespace string) *rest.Config { return e.cpos.kube(namespace) }
