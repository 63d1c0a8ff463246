package devenv

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/compute/v1"
	"google.golang.org/api/option"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	simgcp "github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/infra/gcpiam"
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
	// customers are the customer projects' networks, by project ID.
	customers map[string]GCPCustomerNetwork

	// operatorEmail is the management operator's service account and
	// operatorKeyFile the path of its key file.
	operatorEmail, operatorKeyFile string
	operatorKey                    []byte
	// iam makes both operators' identities as hcplink create iam gcp
	// does, over cloudsim's IAM API, as the administrator.
	iam gcpiam.Clients

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
	g := &gcpEnv{server: server, cloudURL: server.URL(), signer: sim.NewSigner(), clusters: map[string]GCPClusterFixture{},
		customers: map[string]GCPCustomerNetwork{}}
	server.GCP.SetIssuerKeys(gcpIssuer, g.signer.JWKS())
	var err error
	g.admin, err = compute.NewService(ctx, option.WithEndpoint(g.computeEndpoint()), option.WithTokenSource(gcpAdminTokens()))
	if err != nil {
		return nil, fmt.Errorf("building the administrator's Compute Engine client: %w", err)
	}
	if g.iam, err = gcpiam.NewClients(ctx, gcpAdminTokens(), g.cloudURL+"/iam/", g.cloudURL+"/cloudresourcemanager/"); err != nil {
		return nil, err
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

// managementOperator makes the management operator's identity as a user
// would, with hcplink create iam gcp --operator --key-file over cloudsim's
// IAM API: a service account in the management project holding exactly
// the management operator's custom role there, and its key written to
// workDir (what install's --gcp-creds and the operator's
// --gcp-credentials-file take).
func (g *gcpEnv) managementOperator(ctx context.Context, workDir string) error {
	keyFile := filepath.Join(workDir, "management-operator-gcp-key.json")
	out, err := gcpiam.CreateOperator(ctx, g.iam, io.Discard, gcpiam.OperatorOptions{ProjectID: GCPManagementProject,
		AccountID: gcpOperatorAccount, KeyFile: keyFile})
	if err != nil {
		return fmt.Errorf("making the management operator's identity: %w", err)
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	g.operatorEmail, g.operatorKey, g.operatorKeyFile = out.ServiceAccount, key, keyFile
	return nil
}

// customerTrust makes, as create iam gcp does with a project's first
// cluster, the customer project's pool and its provider trusting the
// management cluster's issuer: before any cluster of the project, with
// cloudsim's fast delays, so that no cluster waits on the pool's
// operations (the bench prepares its clusters under its own delays).
func (g *gcpEnv) customerTrust(ctx context.Context, project string) error {
	_, err := gcpiam.Trust(ctx, g.iam, io.Discard, gcpiam.Options{ProjectID: project, IssuerURL: gcpIssuer,
		Pool: gcpPool, Provider: gcpPoolProvider})
	if err != nil {
		return fmt.Errorf("making the workload identity pool provider of %s: %w", project, err)
	}
	return nil
}

// addCustomer registers a customer's project and makes in it what
// devenv's customer project has: the network with the workers'
// subnetworks, and the pool provider trusting the management cluster's
// issuer.
func (g *gcpEnv) addCustomer(ctx context.Context, project, number string) (GCPCustomerNetwork, error) {
	if _, err := g.server.GCP.AddProject(project, number); err != nil {
		return GCPCustomerNetwork{}, fmt.Errorf("registering project %s: %w", project, err)
	}
	c, err := seedGCPCustomerNetwork(ctx, g.admin, project, number)
	if err != nil {
		return c, err
	}
	if err := g.customerTrust(ctx, project); err != nil {
		return c, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.customers[project] = c
	return c, nil
}

// prepareCluster makes the cluster's control-plane operator identity in
// the customer's project as a user would, with hcplink create iam gcp
// over cloudsim's IAM API (the pool and provider, made with the project,
// are found): the control-plane operator's custom role, and the service
// account cpo-<infraID> holding it, which only the cluster's
// control-plane-operator ServiceAccount may impersonate.
func (g *gcpEnv) prepareCluster(ctx context.Context, customer GCPCustomerNetwork, namespace, name, infraID string) (GCPClusterFixture, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f, ok := g.clusters[namespace+"/"+name]; ok {
		return f, nil
	}
	if _, ok := g.customers[customer.Project]; !ok {
		return GCPClusterFixture{}, fmt.Errorf("project %s is not one of devenv's customer projects", customer.Project)
	}
	out, err := gcpiam.Create(ctx, g.iam, io.Discard, gcpiam.Options{InfraID: infraID, Namespace: namespace, Name: name,
		IssuerURL: gcpIssuer, ProjectID: customer.Project, Pool: gcpPool, Provider: gcpPoolProvider})
	if err != nil {
		return GCPClusterFixture{}, fmt.Errorf("making the control-plane operator's identity: %w", err)
	}
	f := GCPClusterFixture{Project: customer.Project, Region: GCPRegion, Network: customer.Network,
		Subnet: customer.Subnets[0], SecondSubnet: customer.Subnets[1], PoolProvider: out.PoolProvider,
		ControlPlaneOperatorServiceAccount: out.ServiceAccount}
	g.clusters[namespace+"/"+name] = f
	return f, nil
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
