package gcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

func TestCredentialsOfAPersonAreRefused(t *testing.T) {
	_, err := gcpcloud.NewClients(context.Background(), gcpcloud.Config{CredentialsJSON: []byte(`{"type":"authorized_user","client_id":"x","client_secret":"y","refresh_token":"z"}`)})
	if err == nil || !strings.Contains(err.Error(), `"authorized_user"`) {
		t.Fatalf("authorized_user credentials: %v, want a refusal naming the type", err)
	}
	if _, err := gcpcloud.NewClients(context.Background(), gcpcloud.Config{CredentialsJSON: []byte(`not json`)}); err == nil {
		t.Fatal("credentials that are not JSON were taken")
	}
}

func TestExternalAccountConfiguration(t *testing.T) {
	w := gcpcloud.WorkloadIdentity{
		Audience:            gcpcloud.ProviderAudience("200000000002", "hcplink", "demo"),
		ServiceAccountEmail: "cpo@customer-project.iam.gserviceaccount.com",
		TokenFile:           "/var/run/secrets/openshift/serviceaccount/token",
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(w.ExternalAccountJSON(), &got); err != nil {
		t.Fatal(err)
	}
	if got["type"] != "external_account" || got["token_url"] != gcpcloud.DefaultSTSEndpoint ||
		got["service_account_impersonation_url"] != "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/cpo@customer-project.iam.gserviceaccount.com:generateAccessToken" ||
		got["audience"] != "//iam.googleapis.com/projects/200000000002/locations/global/workloadIdentityPools/hcplink/providers/demo" {
		t.Fatalf("external account configuration: %v", got)
	}
	if w.TokenAudience() != "https://iam.googleapis.com/projects/200000000002/locations/global/workloadIdentityPools/hcplink/providers/demo" {
		t.Fatalf("token audience %q", w.TokenAudience())
	}
	env := map[string]string{gcpcloud.EnvSTSEndpoint: "http://127.0.0.1:1/sts/v1/token", gcpcloud.EnvIAMCredentialsEndpoint: "http://127.0.0.1:1/iamcredentials"}
	local := w.WithEndpointsFromEnv(func(k string) string { return env[k] })
	_ = json.Unmarshal(local.ExternalAccountJSON(), &got)
	if got["token_url"] != "http://127.0.0.1:1/sts/v1/token" || !strings.HasPrefix(got["service_account_impersonation_url"].(string), "http://127.0.0.1:1/iamcredentials/v1/") {
		t.Fatalf("endpoints from the environment: %v", got)
	}
	if err := (gcpcloud.WorkloadIdentity{}).Validate(); err == nil || !strings.Contains(err.Error(), "pool provider") || !strings.Contains(err.Error(), "token's file") {
		t.Fatalf("an empty workload identity: %v", err)
	}
}

func TestConfigFromEnv(t *testing.T) {
	path := t.TempDir() + "/key.json"
	writeFile(t, path, `{"type":"service_account"}`)
	env := map[string]string{gcpcloud.EnvCredentials: path, gcpcloud.EnvComputeEndpoint: "http://c/compute/v1/", gcpcloud.EnvDNSEndpoint: "http://d/"}
	c, err := gcpcloud.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil || string(c.CredentialsJSON) != `{"type":"service_account"}` || c.ComputeEndpoint != "http://c/compute/v1/" || c.DNSEndpoint != "http://d/" {
		t.Fatalf("ConfigFromEnv = %+v, %v", c, err)
	}
	env[gcpcloud.EnvCredentials] = t.TempDir() + "/missing"
	if _, err := gcpcloud.ConfigFromEnv(func(k string) string { return env[k] }); err == nil {
		t.Fatal("a missing credentials file was not reported")
	}
}

// Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS names the
// management operator's key file, and the calls run as its account.
func TestApplicationDefaultCredentials(t *testing.T) {
	w := newWorld(t)
	path := t.TempDir() + "/key.json"
	writeFile(t, path, string(w.mgmtKeyFile))
	t.Setenv(gcpcloud.EnvCredentials, path)
	clients := w.clients(gcpcloud.Config{Component: "operator"})
	if err := clients.CheckSignIn(); err != nil {
		t.Fatalf("signing in with ADC: %v", err)
	}
	rules := &gcpcloud.RouterRules{Compute: clients.Compute, Location: w.mgmtLocation(), Network: mgmtNetwork}
	if rule, err := rules.FindByIP(w.ctx, routerIP); err != nil || rule == nil {
		t.Fatalf("finding the router's rule as the key's account: %v, %v", rule, err)
	}
	if w.f.Server.GCP.Evaluations(w.mgmtSA)["compute.forwardingRules.list"].Allowed == 0 {
		t.Fatal("the call did not run as the management operator's account")
	}
}

// The clients outlive the context they were built with: a token fetched
// after it ended still comes.
func TestClientsOutliveTheirContext(t *testing.T) {
	w := newWorld(t)
	ctx, cancel := context.WithCancel(context.Background())
	wi := w.f.AddWorkloadIdentity(t, customerProject, "200000000002", "later-signin", "system:serviceaccount:a:later")
	clients, err := gcpcloud.NewClients(ctx, gcpcloud.Config{CredentialsJSON: w.externalAccount(wi).ExternalAccountJSON(),
		ComputeEndpoint: w.f.URL + "/compute/v1/", DNSEndpoint: w.f.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := clients.CheckSignIn(); err != nil {
		t.Fatalf("signing in after the building context ended: %v", err)
	}
}
