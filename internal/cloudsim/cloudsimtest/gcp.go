package cloudsimtest

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	crm "google.golang.org/api/cloudresourcemanager/v1"
	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"
	iam "google.golang.org/api/iam/v1"
	"google.golang.org/api/option"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Projects used across GCP tests: the management cluster's (producer of the
// service attachments) and a customer's (consumer: PSC endpoints, DNS).
const (
	ManagementProject       = "hcp-management"
	ManagementProjectNumber = "100000000001"
	CustomerProject         = "customer-project"
	CustomerProjectNumber   = "200000000002"
	GCPRegion               = "us-central1"
)

// StartGCP runs a fresh cloudsim with the two test projects.
func StartGCP(t testing.TB, opts cloudsim.Options) *Fixture {
	t.Helper()
	f := Start(t, opts)
	f.AddGCPProject(t, ManagementProject, ManagementProjectNumber)
	f.AddGCPProject(t, CustomerProject, CustomerProjectNumber)
	return f
}

// AddGCPProject creates a project owned by the administrator.
func (f *Fixture) AddGCPProject(t testing.TB, id, number string) {
	t.Helper()
	if _, err := f.Server.GCP.AddProject(id, number); err != nil {
		t.Fatalf("adding project %s: %v", id, err)
	}
}

// GCPToken is a token source of the administrator (owner of every project).
func GCPAdminTokens() oauth2.TokenSource {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: gcp.AdminToken, TokenType: "Bearer"})
}

// Compute is a compute/v1 client on cloudsim with the given tokens.
func (f *Fixture) Compute(t testing.TB, tokens oauth2.TokenSource) *compute.Service {
	t.Helper()
	svc, err := compute.NewService(context.Background(), option.WithEndpoint(f.URL+"/compute/v1/"), option.WithTokenSource(tokens))
	if err != nil {
		t.Fatalf("compute client: %v", err)
	}
	return svc
}

// DNS is a dns/v1 client on cloudsim with the given tokens.
func (f *Fixture) DNS(t testing.TB, tokens oauth2.TokenSource) *dns.Service {
	t.Helper()
	svc, err := dns.NewService(context.Background(), option.WithEndpoint(f.URL+"/"), option.WithTokenSource(tokens))
	if err != nil {
		t.Fatalf("dns client: %v", err)
	}
	return svc
}

// IAM is an iam/v1 client (roles, service accounts, keys, pools) on cloudsim.
func (f *Fixture) IAM(t testing.TB, tokens oauth2.TokenSource) *iam.Service {
	t.Helper()
	svc, err := iam.NewService(context.Background(), option.WithEndpoint(f.URL+"/iam/"), option.WithTokenSource(tokens))
	if err != nil {
		t.Fatalf("iam client: %v", err)
	}
	return svc
}

// ResourceManager is a cloudresourcemanager/v1 client on cloudsim.
func (f *Fixture) ResourceManager(t testing.TB, tokens oauth2.TokenSource) *crm.Service {
	t.Helper()
	svc, err := crm.NewService(context.Background(), option.WithEndpoint(f.URL+"/cloudresourcemanager/"), option.WithTokenSource(tokens))
	if err != nil {
		t.Fatalf("cloudresourcemanager client: %v", err)
	}
	return svc
}

// WorkloadIdentity is a Kubernetes issuer trusted by a workload identity
// pool provider of the management project, and a Google service account
// its ServiceAccount may impersonate.
type WorkloadIdentity struct {
	Issuer   string
	Signer   *sim.Signer
	Provider gcp.Provider
	Email    string // the Google service account
	Subject  string // the Kubernetes ServiceAccount, system:serviceaccount:NS:NAME
}

// AddWorkloadIdentity sets up the pool, provider, issuer keys and service
// account account@project, and lets subject impersonate it.
func (f *Fixture) AddWorkloadIdentity(t testing.TB, project, projectNumber, account, subject string) *WorkloadIdentity {
	t.Helper()
	w := &WorkloadIdentity{Issuer: "https://kubernetes.cloudsim.test/" + account, Signer: sim.NewSigner(), Subject: subject}
	w.Provider = gcp.Provider{ProjectNumber: projectNumber, PoolID: "hcplink", ProviderID: account, IssuerURI: w.Issuer}
	if err := f.Server.GCP.AddProvider(w.Provider); err != nil {
		t.Fatalf("adding provider: %v", err)
	}
	f.Server.GCP.SetIssuerKeys(w.Issuer, w.Signer.JWKS())
	sa, err := f.Server.GCP.AddServiceAccount(project, account, "")
	if err != nil {
		t.Fatalf("adding service account: %v", err)
	}
	w.Email = sa.Email
	member := "principal://iam.googleapis.com/projects/" + projectNumber + "/locations/global/workloadIdentityPools/hcplink/subject/" + subject
	if err := f.Server.GCP.GrantOnServiceAccount(sa.Email, "roles/iam.workloadIdentityUser", member); err != nil {
		t.Fatalf("granting workloadIdentityUser: %v", err)
	}
	return w
}

// Audience is what the external account configuration names the provider by.
func (w *WorkloadIdentity) Audience() string { return "//iam.googleapis.com/" + w.Provider.Name() }

// ServiceAccountToken is a projected ServiceAccount token as the kubelet
// would write it: the issuer's, for the provider's default audience, valid
// for an hour from now on the clock.
func (w *WorkloadIdentity) ServiceAccountToken(t testing.TB, signer *sim.Signer, now time.Time) string {
	t.Helper()
	tok, err := signer.Sign(map[string]any{"iss": w.Issuer, "sub": w.Subject, "aud": []string{"https://iam.googleapis.com/" + w.Provider.Name()},
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	if err != nil {
		t.Fatalf("signing: %v", err)
	}
	return tok
}

// ExternalAccountTokens are real golang.org/x/oauth2/google credentials
// from an external_account configuration — the one hcplink's control-plane
// operator will use — whose STS and IAM Credentials are cloudsim's, reading
// the ServiceAccount token from a file.
func (f *Fixture) ExternalAccountTokens(t testing.TB, w *WorkloadIdentity, token string) oauth2.TokenSource {
	t.Helper()
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	config, _ := json.Marshal(map[string]any{
		"type":                              "external_account",
		"audience":                          w.Audience(),
		"subject_token_type":                "urn:ietf:params:oauth:token-type:jwt",
		"token_url":                         f.URL + "/sts/v1/token",
		"service_account_impersonation_url": f.URL + "/iamcredentials/v1/projects/-/serviceAccounts/" + w.Email + ":generateAccessToken",
		"credential_source":                 map[string]any{"file": tokenFile, "format": map[string]string{"type": "text"}},
	})
	creds, err := google.CredentialsFromJSON(context.Background(), config, compute.CloudPlatformScope)
	if err != nil {
		t.Fatalf("external account credentials: %v", err)
	}
	return creds.TokenSource
}

// SeedGCPManagement makes what a management cluster's project holds for
// the management operator: the network "management" with its "nodes"
// subnetwork and one Private Service Connect NAT subnetwork "psc-nat-a",
// the router Service's internal forwarding rule "router" at routerIP (as
// GKE makes it for networking.gke.io/load-balancer-type: Internal), and
// the operator's service account "hcplink-operator" holding only the
// custom role roleID of the given permissions. It returns that account's
// key. clk moves past each Compute Engine operation.
func (f *Fixture) SeedGCPManagement(t testing.TB, clk *sim.ManualClock, project, region, routerIP, roleID string, permissions []string) (key []byte) {
	t.Helper()
	admin := f.Compute(t, GCPAdminTokens())
	do := func(_ *compute.Operation, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
	}
	do(admin.Networks.Insert(project, &compute.Network{Name: "management", ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do())
	do(admin.Subnetworks.Insert(project, region, &compute.Subnetwork{Name: "nodes", Network: "global/networks/management", IpCidrRange: "10.0.0.0/24"}).Do())
	do(admin.Subnetworks.Insert(project, region, &compute.Subnetwork{Name: "psc-nat-a", Network: "global/networks/management",
		IpCidrRange: "10.1.0.0/28", Purpose: "PRIVATE_SERVICE_CONNECT"}).Do())
	do(admin.ForwardingRules.Insert(project, region, &compute.ForwardingRule{Name: "router", LoadBalancingScheme: "INTERNAL",
		BackendService: "regions/" + region + "/backendServices/router", Subnetwork: "regions/" + region + "/subnetworks/nodes",
		Network: "global/networks/management", IPAddress: routerIP, Ports: []string{"443"}}).Do())
	sa, err := f.Server.GCP.AddServiceAccount(project, "hcplink-operator", "")
	if err != nil {
		t.Fatal(err)
	}
	key, err = f.Server.GCP.AddServiceAccountKey(sa.Email, f.URL+"/oauth2/token")
	if err != nil {
		t.Fatal(err)
	}
	role, err := f.Server.GCP.AddCustomRole(project, roleID, permissions)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Server.GCP.Grant(project, role.Name, "serviceAccount:"+sa.Email, nil); err != nil {
		t.Fatal(err)
	}
	return key
}

// SetGCPQuotas gives a project its own per-minute rate quotas over the
// control API (PUT /_cloudsim/gcp/projects/{project}/quotas), replacing
// any it had; every other project keeps the fault configuration's.
func (f *Fixture) SetGCPQuotas(t testing.TB, project string, overrides ...gcp.QuotaOverride) {
	t.Helper()
	if overrides == nil {
		overrides = []gcp.QuotaOverride{}
	}
	f.Control(t, http.MethodPut, "/_cloudsim/gcp/projects/"+project+"/quotas", overrides, nil)
}

// ClearGCPQuotas drops a project's own rate quotas over the control API:
// it follows the fault configuration again.
func (f *Fixture) ClearGCPQuotas(t testing.TB, project string) {
	t.Helper()
	f.Control(t, http.MethodDelete, "/_cloudsim/gcp/projects/"+project+"/quotas", nil, nil)
}
