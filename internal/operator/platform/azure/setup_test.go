package azure

import (
	"strings"
	"testing"

	"github.com/hcplink/hcplink/internal/cloud"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

func TestLoadConfig(t *testing.T) {
	given := &azurecloud.Config{SubscriptionID: cloudsimtest.ProviderSubscription, ClientID: "c"}
	tests := []struct {
		name    string
		cloud   *azurecloud.Config
		wantErr string
	}{
		{"an explicit config", given, ""},
		{"an explicit config without the management subscription", &azurecloud.Config{ClientID: "c"}, azurecloud.EnvSubscriptionID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadConfig(Options{Config: tt.cloud})
			switch {
			case tt.wantErr == "" && (err != nil || cfg.SubscriptionID != given.SubscriptionID):
				t.Errorf("loadConfig = %+v, %v", cfg, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error = %v, want one mentioning %q", err, tt.wantErr)
			}
		})
	}
	t.Setenv(azurecloud.EnvSubscriptionID, "")
	if _, err := loadConfig(Options{}); err == nil {
		t.Error("the environment without AZURE_SUBSCRIPTION_ID was accepted")
	}
}

// The credentials check asks Entra ID (cloudsim's) for a Resource Manager
// token: accepted credentials are valid, a wrong secret is access denied
// (the operator reports its credentials Invalid), not a transient failure.
func TestTokenCaller(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	sp := f.AzureServicePrincipal(t, "hcplink-operator")
	config := func(secret string) azurecloud.Config {
		return azurecloud.Config{Cloud: f.AzureCloud(), CACertPEM: f.Server.CACertPEM(), TenantID: sp.TenantID, ClientID: sp.ClientID,
			ClientSecret: secret, SubscriptionID: cloudsimtest.ProviderSubscription}
	}
	for _, tt := range []struct {
		name   string
		secret string
		class  cloud.Class
	}{
		{"the right secret", sp.ClientSecret, cloud.ClassNone},
		{"a wrong secret", "wrong", cloud.ClassAccessDenied},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config(tt.secret)
			cred, err := cfg.Credential()
			if err != nil {
				t.Fatal(err)
			}
			identity, err := TokenCaller(cred, cfg.Cloud, cfg.ClientID)(t.Context())
			if got := cloud.ClassOf(err); got != tt.class {
				t.Fatalf("class = %q (%v), want %q", got, err, tt.class)
			}
			if err == nil && !strings.Contains(identity, sp.ClientID) {
				t.Errorf("identity = %q", identity)
			}
		})
	}
}
