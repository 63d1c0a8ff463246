package devenv

import (
	"context"
	"fmt"

	"k8s.io/client-go/rest"

	"github.com/hcplink/hcplink/internal/install"
)

// operatorNamespace is where the local environment installs the
// management operator's identity, as `hcplink install` would.
const operatorNamespace = install.DefaultNamespace

// operatorRestConfig gives the in-process management operator exactly the
// RBAC `hcplink install` renders: it applies install's namespace,
// ServiceAccount, ClusterRole and binding, and returns admin acting as
// that ServiceAccount. Every devenv run then proves the manifests enough.
func operatorRestConfig(ctx context.Context, admin *rest.Config) (*rest.Config, error) {
	c, err := install.NewClient(admin)
	if err != nil {
		return nil, err
	}
	opts := install.Options{Namespace: operatorNamespace}
	if _, err := install.Apply(ctx, c, opts, install.ApplyOptions{Kinds: install.IdentityKinds}); err != nil {
		return nil, fmt.Errorf("installing the management operator's RBAC: %w", err)
	}
	return install.ImpersonatingOperator(admin, operatorNamespace), nil
}
