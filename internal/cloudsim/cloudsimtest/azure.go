package cloudsimtest

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
)

// Subscriptions used across Azure tests, both in the default tenant (they
// are azure.DefaultSubscriptions): the provider's (where Private Link
// Services live) and a customer's (where Private Endpoints live).
const (
	ProviderSubscription = "11111111-1111-4111-8111-111111111111"
	CustomerSubscription = "22222222-2222-4222-8222-222222222222"
	AzureLocation        = "eastus"
	// ARMAudience is the audience the clients ask tokens for.
	ARMAudience = "https://management.azure.com"
)

// StartAzure runs a fresh cloudsim over HTTPS (Azure clients need TLS)
// with the two test subscriptions registered in the default tenant.
func StartAzure(t testing.TB, opts cloudsim.Options) *Fixture {
	t.Helper()
	opts.TLS = true
	f := Start(t, opts)
	for _, sub := range []string{ProviderSubscription, CustomerSubscription} {
		if err := f.Server.Azure.AddSubscription(azure.DefaultTenantID, sub); err != nil {
			t.Fatalf("registering subscription %s: %v", sub, err)
		}
	}
	return f
}

// AzureCloud is the cloud.Configuration that points the SDKs at cloudsim:
// Entra ID and Resource Manager on the same listener.
func (f *Fixture) AzureCloud() cloud.Configuration {
	return cloud.Configuration{
		ActiveDirectoryAuthorityHost: f.URL + "/",
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Audience: ARMAudience, Endpoint: f.URL},
		},
	}
}

// AzureHTTPClient trusts cloudsim's CA and nothing else.
func (f *Fixture) AzureHTTPClient() *http.Client {
	return &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: f.Server.CertPool(), MinVersion: tls.VersionTLS12}},
	}
}

// AzureClientOptions are options for any arm* client: cloudsim's cloud and
// CA, and SDK retries off so that every error a test provokes (429
// included) reaches it.
func (f *Fixture) AzureClientOptions() *arm.ClientOptions {
	return &arm.ClientOptions{ClientOptions: policy.ClientOptions{
		Cloud:     f.AzureCloud(),
		Transport: f.AzureHTTPClient(),
		Retry:     policy.RetryOptions{MaxRetries: -1},
	}}
}

// AzureCredential is a real azidentity client-secret credential for a
// service principal, logging in at cloudsim's token endpoint.
func (f *Fixture) AzureCredential(t testing.TB, sp azure.ServicePrincipal) azcore.TokenCredential {
	t.Helper()
	cred, err := azidentity.NewClientSecretCredential(sp.TenantID, sp.ClientID, sp.ClientSecret, &azidentity.ClientSecretCredentialOptions{
		ClientOptions:            azcore.ClientOptions{Cloud: f.AzureCloud(), Transport: f.AzureHTTPClient()},
		DisableInstanceDiscovery: true, // MSAL would ask login.microsoftonline.com about our host
	})
	if err != nil {
		t.Fatalf("building the client secret credential: %v", err)
	}
	return cred
}

// AzureAdmin is the bootstrap administrator, Owner of every subscription
// of the default tenant.
func AzureAdmin() azure.ServicePrincipal {
	return azure.ServicePrincipal{TenantID: azure.DefaultTenantID, ClientID: azure.AdminClientID, ClientSecret: azure.AdminClientSecret}
}

// AzureAdminCredential logs in as the bootstrap administrator.
func (f *Fixture) AzureAdminCredential(t testing.TB) azcore.TokenCredential {
	t.Helper()
	return f.AzureCredential(t, AzureAdmin())
}

// AzureServicePrincipal registers a new application with a client secret
// in the default tenant. It holds no role until one is assigned.
func (f *Fixture) AzureServicePrincipal(t testing.TB, name string) azure.ServicePrincipal {
	t.Helper()
	sp, err := f.Server.Azure.AddServicePrincipal(azure.DefaultTenantID, name)
	if err != nil {
		t.Fatalf("registering service principal %s: %v", name, err)
	}
	return sp
}

// AzureServicePrincipalWithRole registers a service principal and assigns
// it a role (by name, e.g. "Network Contributor", or GUID) at a scope such
// as "/subscriptions/<id>/resourceGroups/<rg>".
func (f *Fixture) AzureServicePrincipalWithRole(t testing.TB, name, role, scope string) azure.ServicePrincipal {
	t.Helper()
	sp := f.AzureServicePrincipal(t, name)
	if _, err := f.Server.Azure.AssignRole(sp.ObjectID, role, scope); err != nil {
		t.Fatalf("assigning %s to %s at %s: %v", role, name, scope, err)
	}
	return sp
}

// Control calls the control API over the fixture's own scheme (HTTPS with
// cloudsim's CA for StartAzure fixtures), sending body as JSON when non-nil
// and decoding the answer into into when non-nil.
func (f *Fixture) Control(t testing.TB, method, path string, body, into any) {
	t.Helper()
	var reader io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		reader = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, f.URL+path, reader)
	if err != nil {
		t.Fatal(err)
	}
	client := http.DefaultClient
	if f.Server.CACertPEM() != nil {
		client = f.AzureHTTPClient()
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s: %s", method, path, resp.Status, answer)
	}
	if into != nil {
		if err := json.Unmarshal(answer, into); err != nil {
			t.Fatalf("decoding %s: %v", path, err)
		}
	}
}
