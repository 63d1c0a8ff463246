package azure_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hcplink/hcplink/internal/cloud"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// assertCleanMessage: a condition-ready message names what it must and
// carries no URL, subscription ID or JSON.
func assertCleanMessage(t *testing.T, err error, mustContain ...string) {
	t.Helper()
	ce, ok := cloud.AsError(err)
	if !ok {
		t.Fatalf("%v is not a classified *cloud.Error", err)
	}
	for _, bad := range []string{"https://", "/subscriptions/", cloudsimtest.ProviderSubscription, cloudsimtest.CustomerSubscription, "{", "}"} {
		if strings.Contains(ce.Error(), bad) {
			t.Errorf("message %q carries %q", ce.Error(), bad)
		}
	}
	for _, want := range mustContain {
		if !strings.Contains(ce.Error(), want) {
			t.Errorf("message %q does not name %q", ce.Error(), want)
		}
	}
}

// TestAccessDeniedNamesTheMissingPermission: cloudsim's real
// AuthorizationFailed and LinkedAuthorizationFailed answers become
// access_denied errors whose message names the action to grant.
func TestAccessDeniedNamesTheMissingPermission(t *testing.T) {
	w := newWorld(t)
	scope := rgScope(cloudsimtest.CustomerSubscription, guestRG)

	reader := w.f.AzureServicePrincipalWithRole(t, "reader", "Reader", scope)
	pes := w.providers(cloudsimtest.CustomerSubscription, w.f.AzureCredential(t, reader)).PrivateEndpoints
	_, _, err := pes.CreateOrUpdate(w.ctx, guestRG, "pe", azurecloud.PrivateEndpointBody(azurecloud.PrivateEndpointSpec{
		Location: location, SubnetID: w.guestSubnetID, Service: "alias"}), "")
	if classOf(err) != cloud.ClassAccessDenied || azurecloud.ErrorCode(err) != azurecloud.CodeAuthorizationFailed {
		t.Fatalf("creating an endpoint as Reader: %v", err)
	}
	assertCleanMessage(t, err, "Microsoft.Network/privateEndpoints/write")

	// Private DNS Zone Contributor on the group, but no join on the VNet
	// (it lives in another group).
	w.group(cloudsimtest.CustomerSubscription, "dns-only")
	dnsScope := rgScope(cloudsimtest.CustomerSubscription, "dns-only")
	dnsSP := w.f.AzureServicePrincipalWithRole(t, "dns", "Private DNS Zone Contributor", dnsScope)
	dns := w.providers(cloudsimtest.CustomerSubscription, w.f.AzureCredential(t, dnsSP)).PrivateDNS
	settle(t, w, "creating a zone", func(token string) (string, error) {
		_, next, err := dns.CreateZone(w.ctx, "dns-only", "demo.hypershift.local", azurecloud.ZoneTags(clusterID, crName), token)
		return next, err
	})
	_, _, err = dns.CreateOrUpdateLink(w.ctx, "dns-only", "demo.hypershift.local", "link", w.guestVNetID, nil, "")
	if classOf(err) != cloud.ClassAccessDenied || azurecloud.ErrorCode(err) != azurecloud.CodeLinkedAuthorizationFailed {
		t.Fatalf("linking a VNet without join: %v", err)
	}
	assertCleanMessage(t, err, "Microsoft.Network/virtualNetworks/join/action")
}

// TestThrottlingCarriesRetryAfter: ARM's 429 comes back at once (the SDK
// does not sleep on it in a worker) as a throttled error with the wait
// ARM asked for.
func TestThrottlingCarriesRetryAfter(t *testing.T) {
	w := newWorld(t)
	pls := w.providers(cloudsimtest.ProviderSubscription, w.f.AzureAdminCredential(t)).PrivateLinkServices
	w.f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		azure.ThrottlingService: {NonMutating: sim.Limit{Burst: 1, PerSecond: 0.1}, Mutating: sim.Limit{Burst: 1, PerSecond: 0.1}},
	}}})
	w.f.Server.Azure.ResetThrottling()
	var err error
	for i := 0; i < 3 && err == nil; i++ {
		_, err = pls.Get(w.ctx, mgmtRG, "pls-x")
	}
	ce, ok := cloud.AsError(err)
	if !ok || ce.Class != cloud.ClassThrottled || ce.RetryAfter <= 0 {
		t.Fatalf("after the bucket is empty: %+v (%v)", ce, err)
	}
	assertCleanMessage(t, err, "throttled")
}

// TestConfigFromEnvReachesCloudsim: the same code that runs on Azure runs
// on cloudsim when the environment names its authority, ARM endpoint and
// CA: a client-secret identity logs in and calls ARM.
func TestConfigFromEnvReachesCloudsim(t *testing.T) {
	w := newWorld(t)
	sp := w.f.AzureServicePrincipalWithRole(t, "operator", "Network Contributor", rgScope(cloudsimtest.ProviderSubscription, mgmtRG))
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, w.f.Server.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		azurecloud.EnvAuthorityHost:           w.f.URL,
		azurecloud.EnvResourceManagerEndpoint: w.f.URL,
		azurecloud.EnvCABundle:                ca,
		azurecloud.EnvTenantID:                sp.TenantID,
		azurecloud.EnvClientID:                sp.ClientID,
		azurecloud.EnvClientSecret:            sp.ClientSecret,
		azurecloud.EnvSubscriptionID:          cloudsimtest.ProviderSubscription,
	}
	cfg, err := azurecloud.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CredentialKind() != azurecloud.ClientSecret {
		t.Errorf("credential kind = %s", cfg.CredentialKind())
	}
	p, err := azurecloud.NewProvidersFromConfig(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	fes, err := p.PrivateLinkServices.FindFrontendsByIP(w.ctx, azurecloud.LoadBalancerScope{ResourceGroup: mgmtRG}, routerIP)
	if err != nil || len(fes) != 1 || fes[0].ID != w.frontendID {
		t.Fatalf("through the env config: %v, %v", fes, err)
	}

	// The production retry options do not sleep on a 429 inside a call:
	// it comes back at once with ARM's Retry-After for the controller.
	w.f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		azure.ThrottlingService: {NonMutating: sim.Limit{Burst: 1, PerSecond: 0.01}, Mutating: sim.Limit{Burst: 1, PerSecond: 0.01}},
	}}})
	w.f.Server.Azure.ResetThrottling()
	var throttled error
	for i := 0; i < 3 && throttled == nil; i++ {
		_, throttled = p.PrivateLinkServices.Get(w.ctx, mgmtRG, "pls-x")
	}
	if ce, ok := cloud.AsError(throttled); !ok || ce.Class != cloud.ClassThrottled || ce.RetryAfter < 10*time.Second {
		t.Fatalf("throttled through the production options: %v", throttled)
	}
	w.f.Server.Faults.Set(sim.FaultConfig{})

	// A wrong secret is access denied, not a server fault to retry soon.
	env[azurecloud.EnvClientSecret] = "wrong"
	cfg, _ = azurecloud.ConfigFromEnv(func(k string) string { return env[k] })
	p, err = azurecloud.NewProvidersFromConfig(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.PrivateLinkServices.FindFrontendsByIP(w.ctx, azurecloud.LoadBalancerScope{ResourceGroup: mgmtRG}, routerIP)
	if classOf(err) != cloud.ClassAccessDenied {
		t.Fatalf("with a wrong secret: %v (class %s)", err, classOf(err))
	}
	assertCleanMessage(t, err)
}
