package azure_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	azcloud "github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"

	"github.com/hcplink/hcplink/internal/cloud"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

func TestCredentialKindFollowsWhatIsSet(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  azurecloud.Config
		want azurecloud.CredentialKind
	}{
		{"token file", azurecloud.Config{FederatedTokenFile: "/var/run/token", ClientSecret: "s"}, azurecloud.WorkloadIdentity},
		{"secret", azurecloud.Config{ClientID: "c", ClientSecret: "s"}, azurecloud.ClientSecret},
		{"nothing", azurecloud.Config{ClientID: "c"}, azurecloud.ManagedIdentity},
		{"explicit", azurecloud.Config{Kind: azurecloud.ManagedIdentity, ClientSecret: "s"}, azurecloud.ManagedIdentity},
	} {
		if got := tc.cfg.CredentialKind(); got != tc.want {
			t.Errorf("%s: kind = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestCloudConfiguration(t *testing.T) {
	public := azurecloud.CloudConfiguration("", "", "")
	if public.ActiveDirectoryAuthorityHost != azcloud.AzurePublic.ActiveDirectoryAuthorityHost ||
		public.Services[azcloud.ResourceManager] != azcloud.AzurePublic.Services[azcloud.ResourceManager] {
		t.Errorf("no overrides: %+v", public)
	}
	sim := azurecloud.CloudConfiguration("https://127.0.0.1:4566", "https://127.0.0.1:4566/", "")
	rm := sim.Services[azcloud.ResourceManager]
	if sim.ActiveDirectoryAuthorityHost != "https://127.0.0.1:4566/" || rm.Endpoint != "https://127.0.0.1:4566" || rm.Audience != "https://management.core.windows.net/" {
		t.Errorf("cloudsim: %+v %+v", sim, rm)
	}
	if azcloud.AzurePublic.Services[azcloud.ResourceManager].Endpoint != "https://management.azure.com" {
		t.Error("overriding changed the SDK's public cloud")
	}
}

func TestConfigFromEnvRefusesAMissingCABundle(t *testing.T) {
	env := map[string]string{azurecloud.EnvCABundle: filepath.Join(t.TempDir(), "absent.pem")}
	if _, err := azurecloud.ConfigFromEnv(func(k string) string { return env[k] }); err == nil {
		t.Error("a CA bundle that does not exist was accepted")
	}
	bad := filepath.Join(t.TempDir(), "bad.pem")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	env[azurecloud.EnvCABundle] = bad
	cfg, err := azurecloud.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.ClientOptions(); err == nil {
		t.Error("a CA bundle without a certificate was accepted")
	}
}

// TestWorkloadIdentityThroughConfig: the control-plane operator's way in —
// a projected service-account token exchanged at cloudsim's Entra ID for
// an ARM token, configured only through the environment.
func TestWorkloadIdentityThroughConfig(t *testing.T) {
	w := newWorld(t)
	const issuer = "https://oidc.mgmt.example.com"
	const subject = "system:serviceaccount:clusters-demo:control-plane-operator"
	signer := sim.NewSigner()
	w.f.Server.Azure.SetIssuerKeys(issuer, signer.JWKS())
	sp := w.f.AzureServicePrincipalWithRole(t, "cpo", "Network Contributor", rgScope(cloudsimtest.CustomerSubscription, guestRG))
	if err := w.f.Server.Azure.AddFederatedCredential(sp.TenantID, sp.ClientID, azure.FederatedCredential{
		Name: "cpo", Issuer: issuer, Subject: subject, Audiences: []string{"api://AzureADTokenExchange"},
	}); err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, w.f.Server.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeToken := func(sub string) {
		now := time.Now()
		tok, err := signer.Sign(map[string]any{"iss": issuer, "sub": sub, "aud": []string{"api://AzureADTokenExchange"},
			"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tokenFile, []byte(tok), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{
		azurecloud.EnvAuthorityHost: w.f.URL, azurecloud.EnvResourceManagerEndpoint: w.f.URL, azurecloud.EnvCABundle: ca,
		azurecloud.EnvTenantID: sp.TenantID, azurecloud.EnvClientID: sp.ClientID, azurecloud.EnvFederatedTokenFile: tokenFile,
	}
	providers := func() *azurecloud.Providers {
		cfg, err := azurecloud.ConfigFromEnv(func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		if cfg.CredentialKind() != azurecloud.WorkloadIdentity {
			t.Fatalf("kind = %s", cfg.CredentialKind())
		}
		p, err := azurecloud.NewProvidersFromConfig(cfg, cloudsimtest.CustomerSubscription)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	writeToken(subject)
	if pe, err := providers().PrivateEndpoints.Get(w.ctx, guestRG, "absent"); err != nil || pe != nil {
		t.Fatalf("with a genuine service-account token: %v, %v", pe, err)
	}
	writeToken("system:serviceaccount:other:sa")
	_, err := providers().PrivateEndpoints.Get(w.ctx, guestRG, "absent")
	if cloud.ClassOf(err) != cloud.ClassAccessDenied {
		t.Fatalf("another service account's token: %v (class %s), want access denied", err, cloud.ClassOf(err))
	}
	assertCleanMessage(t, err)
}

// TestWorkloadIdentityCredentialNeverFallsBack: an incomplete workload
// identity is an error naming what is missing, never another credential.
func TestWorkloadIdentityCredentialNeverFallsBack(t *testing.T) {
	tests := []struct {
		name    string
		cfg     azurecloud.Config
		missing []string
	}{
		{"nothing", azurecloud.Config{}, []string{azurecloud.EnvClientID, azurecloud.EnvTenantID, azurecloud.EnvFederatedTokenFile}},
		{"a secret is no workload identity", azurecloud.Config{ClientID: "c", TenantID: "t", ClientSecret: "s"}, []string{azurecloud.EnvFederatedTokenFile}},
		{"no client", azurecloud.Config{TenantID: "t", FederatedTokenFile: "/token"}, []string{azurecloud.EnvClientID}},
		{"complete", azurecloud.Config{ClientID: "c", TenantID: "t", FederatedTokenFile: "/token"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cred, err := tt.cfg.WorkloadIdentityCredential()
			var missing *azurecloud.MissingWorkloadIdentityError
			if tt.missing == nil {
				if err != nil || cred == nil {
					t.Fatalf("credential %v, error %v", cred, err)
				}
				return
			}
			if !errors.As(err, &missing) || !slices.Equal(missing.Missing, tt.missing) || cred != nil {
				t.Fatalf("credential %T, error %v; want missing %v", cred, err, tt.missing)
			}
		})
	}
}
