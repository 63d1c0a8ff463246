package devenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/compute/v1"
	"google.golang.org/api/option"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	simgcp "github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

const (
	// gcpIssuer issues the control-plane operators' ServiceAccount tokens
	// on GCP; cloudsim trusts its keys, registered at start, as Google
	// fetches a cluster issuer's.
	gcpIssuer = "https://" + oidcHost + "/gcp"
	// The customer's workload identity pool and its provider trusting the
	// management cluster's issuer: every cluster's control-plane operator of
	// this management cluster signs in through it.
	gcpPool         = "hcplink"
	gcpPoolProvider = "devenv-management-cluster"
	// gcpOperatorAccount is the management operator's service account.
	gcpOperatorAccount = "hcplink-operator"
)

// gcpEnv is devenv's Google Cloud identity work: the administrator's
// reach, the issuer that signs the control-plane operators' tokens, the
// management operator's identity and the clusters' identities.
type gcpEnv struct {
	server   *cloudsim.Server
	cloudURL string
	admin    *compute.Service
	signer   *sim.Signer
	customer GCPCustomerNetwork

	// operatorEmail is the management operator's service account and
	// operatorKeyFile the path of its key file.
	operatorEmail, operatorKeyFile string
	operatorKey                    []byte
	provider                       simgcp.Provider

	mu       sync.Mutex
	clusters map[string]GCPClusterFixture // by namespace/name
}

// gcpAdminTokens sign as cloudsim's administrator (owner of every project).
func gcpAdminTokens() oauth2.TokenSource {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: simgcp.AdminToken, TokenType: "Bearer"})
}

// newGCPEnv registers the projects and the issuer's keys in a started
// cloudsim and builds the administrator's Compute Engine client.
func newGCPEnv(ctx context.Context, server *cloudsim.Server) (*gcpEnv, error) {
	for _, p := range [][2]string{{GCPManagementProject, GCPManagementProjectNumber}, {GCPCustomerProject, GCPCustomerProjectNumber},
		{GCPPartnerProject, GCPPartnerProjectNumber}} {
		if _, err := server.GCP.AddProject(p[0], p[1]); err != nil {
			return nil, fmt.Errorf("registering project %s: %w", p[0], err)
		}
	}
	g := &gcpEnv{server: server, cloudURL: server.URL(), signer: sim.NewSigner(), clusters: map[string]GCPClusterFixture{}}
	server.GCP.SetIssuerKeys(gcpIssuer, g.signer.JWKS())
	var err error
	g.admin, err = compute.NewService(ctx, option.WithEndpoint(g.computeEndpoint()), option.WithTokenSource(gcpAdminTokens()))
	if err != nil {
		return nil, fmt.Errorf("building the administrator's Compute Engine client: %w", err)
	}
	return g, nil
}

func (g *gcpEnv) computeEndpoint() string { return g.cloudURL + "/compute/v1/" }
func (g *gcpEnv) dnsEndpoint() string     { return g.cloudURL + "/" }

// config completes a sign-in with cloudsim's endpoints.
func (g *gcpEnv) config(c gcpcloud.Config) gcpcloud.Config {
	c.ComputeEndpoint, c.DNSEndpoint = g.computeEndpoint(), g.dnsEndpoint()
	return c
}

// grantCustomRole makes component's custom role in project, exactly the
// permissions table's, and grants it to member on the project.
func (g *gcpEnv) grantCustomRole(project string, component gcpcloud.Component, member string) error {
	role, err := g.server.GCP.AddCustomRole(project, gcpcloud.RoleID(component), gcpcloud.PermissionsOf(component))
	if err != nil {
		return fmt.Errorf("custom role of the %s: %w", component, err)
	}
	return g.server.GCP.Grant(project, role.Name, member, nil)
}

// managementOperator makes the management operator's identity as a user
// would with gcloud: a service account in the management project holding
// exactly the management operator's custom role there, and a key for it,
// written to workDir (what install's --gcp-credentials-file takes).
func (g *gcpEnv) managementOperator(workDir string) error {
	sa, err := g.server.GCP.AddServiceAccount(GCPManagementProject, gcpOperatorAccount, "hcplink management operator")
	if err != nil {
		return fmt.Errorf("creating the management operator's service account: %w", err)
	}
	if err := g.grantCustomRole(GCPManagementProject, gcpcloud.ManagementOperator, "serviceAccount:"+sa.Email); err != nil {
		return err
	}
	key, err := g.server.GCP.AddServiceAccountKey(sa.Email, g.cloudURL+"/oauth2/token")
	if err != nil {
		return fmt.Errorf("creating the management operator's key: %w", err)
	}
	g.operatorEmail, g.operatorKey = sa.Email, key
	g.operatorKeyFile = filepath.Join(workDir, "management-operator-gcp-key.json")
	return os.WriteFile(g.operatorKeyFile, key, 0o600)
}

// customerTrust makes, in the customer's project, the workload identity
// pool provider trusting the management cluster's issuer and the
// control-plane operator's custom role, which every cluster's service
// account is granted.
func (g *gcpEnv) customerTrust() error {
	g.provider = simgcp.Provider{ProjectNumber: GCPCustomerProjectNumber, PoolID: gcpPool, ProviderID: gcpPoolProvider, IssuerURI: gcpIssuer}
	if err := g.server.GCP.AddProvider(g.provider); err != nil {
		return fmt.Errorf("creating the workload identity pool provider: %w", err)
	}
	if _, err := g.server.GCP.AddCustomRole(GCPCustomerProject, gcpcloud.RoleID(gcpcloud.ControlPlaneOperator),
		gcpcloud.PermissionsOf(gcpcloud.ControlPlaneOperator)); err != nil {
		return fmt.Errorf("custom role of the control-plane operator: %w", err)
	}
	return nil
}

// prepareCluster makes the cluster's control-plane operator identity: a
// service account holding the control-plane operator's custom role on the
// customer's project, which the cluster's control-plane-operator
// ServiceAccount may impersonate through the pool (roles/iam.workloadIdentityUser).
func (g *gcpEnv) prepareCluster(_ context.Context, namespace, name, infraID string) (GCPClusterFixture, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f, ok := g.clusters[namespace+"/"+name]; ok {
		return f, nil
	}
	f := GCPClusterFixture{Project: GCPCustomerProject, Region: GCPRegion, Network: g.customer.Network,
		Subnet: g.customer.Subnets[0], SecondSubnet: g.customer.Subnets[1], PoolProvider: g.provider.Name()}
	sa, err := g.server.GCP.AddServiceAccount(GCPCustomerProject, gcpServiceAccountID(infraID), "control-plane operator of "+namespace+"/"+name)
	if err != nil {
		return f, fmt.Errorf("creating the control-plane operator's service account: %w", err)
	}
	role := "projects/" + GCPCustomerProject + "/roles/" + gcpcloud.RoleID(gcpcloud.ControlPlaneOperator)
	if err := g.server.GCP.Grant(GCPCustomerProject, role, "serviceAccount:"+sa.Email, nil); err != nil {
		return f, err
	}
	subject := "system:serviceaccount:" + hcplinkv1beta1.HostedControlPlaneNamespace(namespace, name) + ":" + cpoName
	if err := g.server.GCP.GrantOnServiceAccount(sa.Email, gcpcloud.SignInRole, g.principal(subject)); err != nil {
		return f, err
	}
	f.ControlPlaneOperatorServiceAccount = sa.Email
	g.clusters[namespace+"/"+name] = f
	return f, nil
}

// principal is the pool's principal of a Kubernetes ServiceAccount.
func (g *gcpEnv) principal(subject string) string {
	return "principal://iam.googleapis.com/projects/" + g.provider.ProjectNumber + "/locations/global/workloadIdentityPools/" +
		g.provider.PoolID + "/subject/" + subject
}

// gcpServiceAccountID is a service account ID for a cluster: "cpo-" and
// its infraID, cut to 30 characters (Google's limit,
// https://cloud.google.com/iam/docs/reference/rest/v1/projects.serviceAccounts/create)
// without a trailing hyphen.
func gcpServiceAccountID(infraID string) string {
	id := "cpo-" + strings.ToLower(infraID)
	return strings.TrimRight(id[:min(len(id), 30)], "-")
}

// serviceAccountToken signs the token the kubelet would project for a
// ServiceAccount with audience: the devenv issuer is the management
// cluster's.
func (g *gcpEnv) serviceAccountToken(namespace, serviceAccount, audience string, now time.Time) (string, error) {
	return g.signer.Sign(map[string]any{
		"iss": gcpIssuer,
		"sub": "system:serviceaccount:" + namespace + ":" + serviceAccount,
		"aud": []string{audience},
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(24 * time.Hour).Unix(),
	})
}
