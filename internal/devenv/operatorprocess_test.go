package devenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	azcloud "github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// The Azure operator process reads its identity from the environment the
// azidentity way: what devenv writes, ConfigFromEnv reads back unchanged.
func TestAzureOperatorEnvIsReadBackAsTheSameIdentity(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, []byte("PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := azurecloud.Config{TenantID: "tenant", ClientID: "client", FederatedTokenFile: "/run/token", SubscriptionID: "sub",
		Cloud: azurecloud.CloudConfiguration("https://127.0.0.1:9999/", "https://127.0.0.1:9999", "https://management.core.windows.net/")}
	env := map[string]string{}
	for _, kv := range azureOperatorEnv(want, ca) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	got, err := azurecloud.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if got.TenantID != want.TenantID || got.ClientID != want.ClientID || got.FederatedTokenFile != want.FederatedTokenFile ||
		got.SubscriptionID != want.SubscriptionID || got.CredentialKind() != azurecloud.WorkloadIdentity {
		t.Errorf("identity read back = %+v, want %+v", got, want)
	}
	if got.Cloud.ActiveDirectoryAuthorityHost != want.Cloud.ActiveDirectoryAuthorityHost ||
		got.Cloud.Services[azcloud.ResourceManager] != want.Cloud.Services[azcloud.ResourceManager] {
		t.Errorf("endpoints read back = %+v, want %+v", got.Cloud, want.Cloud)
	}
	if string(got.CACertPEM) != "PEM" {
		t.Errorf("CA read back = %q, want the bundle's", got.CACertPEM)
	}
}
