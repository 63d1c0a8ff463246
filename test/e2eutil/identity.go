package e2eutil

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/rest"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/internal/install"
	"github.com/hcplink/hcplink/internal/operator"
	"github.com/hcplink/hcplink/internal/satoken"
)

// access is one question to the API server about what an identity may
// do, with the answer wanted.
type access struct {
	attrs   authorizationv1.ResourceAttributes
	allowed bool
}

// CheckManagementOperatorIdentity fails unless the management operator
// reaches the API server as the ServiceAccount `hcplink install` renders,
// with its token only, holding its ClusterRole and not an administrator's
// reach: what it needs is allowed, cluster-wide writes of RBAC and CRDs,
// reading Nodes one by one and every verb on everything are not.
func CheckManagementOperatorIdentity(ctx context.Context, env *devenv.Env) error {
	cfg, err := env.OperatorKube()
	if err != nil {
		return err
	}
	g := hcplinkv1beta1.GroupName
	return checkIdentity(ctx, cfg, "system:serviceaccount:"+install.DefaultNamespace+":"+install.ServiceAccountName, []access{
		{authorizationv1.ResourceAttributes{Verb: "update", Group: g, Resource: "hostedclusters", Subresource: "status"}, true},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "roles"}, true},
		{authorizationv1.ResourceAttributes{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}, false},
		{authorizationv1.ResourceAttributes{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}, false},
		{authorizationv1.ResourceAttributes{Verb: "delete", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, false},
		{authorizationv1.ResourceAttributes{Verb: "get", Resource: "nodes", Name: "node-1"}, false},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "list", Resource: "pods"}, false},
		{authorizationv1.ResourceAttributes{Verb: "*", Group: "*", Resource: "*"}, false},
	})
}

// CheckControlPlaneOperatorIdentity fails unless the control-plane
// operator of hcpNamespace, a cluster of platform, runs as its
// ServiceAccount, with its token only, holding the Role the management
// operator renders there and nothing outside that namespace: it may
// create its own platform's private-link objects and no other cloud's.
func CheckControlPlaneOperatorIdentity(ctx context.Context, env *devenv.Env, hcpNamespace string, platform hcplinkv1beta1.PlatformType) error {
	cfg := env.ControlPlaneOperatorKube(hcpNamespace)
	if cfg == nil {
		return fmt.Errorf("no control-plane operator runs in %s", hcpNamespace)
	}
	accesses := []access{
		{authorizationv1.ResourceAttributes{Namespace: hcpNamespace, Verb: "create", Resource: "services"}, true},
		{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "list", Resource: "services"}, false},
		{authorizationv1.ResourceAttributes{Verb: "list", Resource: "namespaces"}, false},
		{authorizationv1.ResourceAttributes{Namespace: hcpNamespace, Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "roles"}, false},
	}
	for _, p := range operator.Platforms().All() {
		accesses = append(accesses, access{authorizationv1.ResourceAttributes{Namespace: hcpNamespace, Verb: "create",
			Group: hcplinkv1beta1.GroupName, Resource: p.Resource}, p.Type == platform})
	}
	return checkIdentity(ctx, cfg, "system:serviceaccount:"+hcpNamespace+":control-plane-operator", accesses)
}

// checkIdentity asks the API server, as cfg, who it is and what it may do.
func checkIdentity(ctx context.Context, cfg *rest.Config, user string, accesses []access) error {
	if other := satoken.OtherCredentials(cfg); len(other) > 0 {
		return fmt.Errorf("%s's configuration carries %v besides its ServiceAccount token", user, other)
	}
	got, err := satoken.WhoAmI(ctx, cfg)
	if err != nil {
		return err
	}
	if got != user {
		return fmt.Errorf("the API server sees %q, want %q", got, user)
	}
	for _, a := range accesses {
		allowed, err := satoken.Allowed(ctx, cfg, a.attrs)
		if err != nil {
			return err
		}
		if allowed != a.allowed {
			return fmt.Errorf("%s may %s %s %s/%s in %q: %v, want %v", user, a.attrs.Verb, a.attrs.Group, a.attrs.Resource,
				a.attrs.Subresource, a.attrs.Namespace, allowed, a.allowed)
		}
	}
	return nil
}
