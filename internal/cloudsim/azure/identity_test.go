package azure_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// issuer is a stand-in for a Kubernetes API server's service account
// issuer: it publishes a discovery document and its JWKS over HTTPS, and
// signs service account tokens.
type issuer struct {
	server *httptest.Server
	signer *sim.Signer
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{signer: sim.NewSigner()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": is.server.URL, "jwks_uri": is.server.URL + "/openid/v1/jwks"})
	})
	mux.HandleFunc("GET /openid/v1/jwks", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(is.signer.JWKS())
	})
	is.server = httptest.NewTLSServer(mux)
	t.Cleanup(is.server.Close)
	return is
}

// token signs a service account token with the given signer.
func (is *issuer) token(t *testing.T, signer *sim.Signer, subject string) string {
	t.Helper()
	now := time.Now()
	tok, err := signer.Sign(map[string]any{
		"iss": is.server.URL, "sub": subject, "aud": []string{"api://AzureADTokenExchange"},
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

const serviceAccount = "system:serviceaccount:hcplink:operator"

// workloadCredential is azidentity's WorkloadIdentityCredential reading a
// projected token file, as a pod with Azure workload identity does.
func workloadCredential(t *testing.T, f *cloudsimtest.Fixture, sp azure.ServicePrincipal, token string) azcore.TokenCredential {
	t.Helper()
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	cred, err := azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{
		ClientOptions: azcore.ClientOptions{Cloud: f.AzureCloud(), Transport: f.AzureHTTPClient()},
		ClientID:      sp.ClientID, TenantID: sp.TenantID, TokenFilePath: path, DisableInstanceDiscovery: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

func TestWorkloadIdentityExchangesOnlyGenuineServiceAccountTokens(t *testing.T) {
	is := newIssuer(t)
	f := cloudsimtest.StartAzure(t, cloudsim.Options{IssuerKeys: sim.HTTPKeySource{Client: is.server.Client()}})
	sp := f.AzureServicePrincipalWithRole(t, "operator", "Reader", "/subscriptions/"+sub)
	if err := f.Server.Azure.AddFederatedCredential(sp.TenantID, sp.ClientID, azure.FederatedCredential{
		Name: "operator", Issuer: is.server.URL, Subject: serviceAccount, Audiences: []string{"api://AzureADTokenExchange"},
	}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	try := func(token string) error {
		groups, err := armresources.NewResourceGroupsClient(sub, workloadCredential(t, f, sp, token), f.AzureClientOptions())
		if err != nil {
			t.Fatal(err)
		}
		pager := groups.NewListPager(nil)
		_, err = pager.NextPage(ctx)
		return err
	}

	if err := try(is.token(t, is.signer, serviceAccount)); err != nil {
		t.Fatalf("a genuine service account token was refused: %v", err)
	}
	forged := is.token(t, sim.NewSigner(), serviceAccount) // same claims, another key
	if err := try(forged); err == nil || !strings.Contains(err.Error(), "AADSTS50013") {
		t.Fatalf("a forged token: %v, want AADSTS50013 (signature validation)", err)
	}
	if err := try(is.token(t, is.signer, "system:serviceaccount:other:sa")); err == nil || !strings.Contains(err.Error(), "AADSTS70021") {
		t.Fatalf("another service account: %v, want AADSTS70021 (no matching federated identity)", err)
	}
}

func TestTokenEndpointRefusesUnknownClientsAndTenants(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		sp   azure.ServicePrincipal
		code string
	}{
		{azure.ServicePrincipal{TenantID: azure.DefaultTenantID, ClientID: azure.NewGUID(), ClientSecret: "x"}, "AADSTS700016"},
		{azure.ServicePrincipal{TenantID: azure.NewGUID(), ClientID: azure.AdminClientID, ClientSecret: "x"}, "AADSTS90002"},
		{azure.ServicePrincipal{TenantID: azure.DefaultTenantID, ClientID: azure.AdminClientID, ClientSecret: "wrong"}, "AADSTS7000215"},
	} {
		groups, _ := armresources.NewResourceGroupsClient(sub, f.AzureCredential(t, tc.sp), f.AzureClientOptions())
		if _, err := groups.Get(ctx, "rg", nil); err == nil || !strings.Contains(err.Error(), tc.code) {
			t.Errorf("%+v: %v, want %s", tc.sp, err, tc.code)
		}
	}
}

func TestSubscriptionOfAnotherTenantRefusesTheToken(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	other := f.Server.Azure.AddTenant("", "other")
	foreign := azure.NewGUID()
	if err := f.Server.Azure.AddSubscription(other, foreign); err != nil {
		t.Fatal(err)
	}
	groups, _ := armresources.NewResourceGroupsClient(foreign, f.AzureAdminCredential(t), f.AzureClientOptions())
	if _, err := groups.Get(context.Background(), "rg", nil); armCode(err) != "InvalidAuthenticationTokenTenant" {
		t.Fatalf("admin of the default tenant in another tenant's subscription: %v, want InvalidAuthenticationTokenTenant", err)
	}
}

// az registers cloudsim with an AD FS-style authority (https://host/adfs) so
// that its MSAL skips instance discovery at login.microsoftonline.com; the
// alias must describe itself and issue tokens for the client's own tenant.
func TestADFSAuthorityAliasIssuesTokens(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	var config struct {
		Issuer        string `json:"issuer"`
		TokenEndpoint string `json:"token_endpoint"`
	}
	f.Control(t, http.MethodGet, "/adfs/.well-known/openid-configuration", nil, &config)
	if !strings.HasPrefix(config.Issuer, f.URL+"/adfs") || config.TokenEndpoint != f.URL+"/adfs/oauth2/v2.0/token" {
		t.Fatalf("adfs discovery = %+v", config)
	}
	resp, err := f.AzureHTTPClient().PostForm(config.TokenEndpoint, map[string][]string{
		"grant_type": {"client_credentials"}, "client_id": {azure.AdminClientID}, "client_secret": {azure.AdminClientSecret},
		"scope": {"https://management.core.windows.net//.default"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var token struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&token); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("adfs token: %s, %v", resp.Status, err)
	}
	parsed, err := sim.ParseJWT(token.AccessToken)
	if err != nil || !strings.Contains(string(parsed.Payload), `"tid":"`+azure.DefaultTenantID+`"`) {
		t.Fatalf("adfs token claims %s, %v; want the admin's tenant", parsed.Payload, err)
	}
}
