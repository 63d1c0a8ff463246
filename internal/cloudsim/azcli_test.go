package cloudsim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// The stock az CLI against cloudsim. What Debian's azure-cli (2.45) needs,
// found by running it:
//
//   - The cloud's Entra ID endpoint ends in "/adfs": for any other custom
//     authority MSAL 1.21 first asks login.microsoftonline.com for instance
//     discovery (az cannot turn that off) and fails offline; for an ADFS
//     authority it reads {endpoint}/.well-known/openid-configuration and
//     uses the token endpoint that document names; cloudsim serves that
//     path (an AD FS-style alias of its tenants).
//   - Every command of az's network module fails before sending anything:
//     Debian's python3-azure lacks azure.mgmt.network.v2022_01_01, so
//     loading the module's arguments raises "'NoneType' object has no
//     attribute 'standard_medium'" (Azure/azure-cli#26830), and
//     `az network private-dns link vnet create` fails in its validator
//     ("'NoneType' object is not callable") for the same reason. The
//     scenario tries each once, logs the refusal, and creates those
//     resources with `az resource create` / `az resource delete` — stock
//     az too, through azure-mgmt-resource's generic client and poller.

// azNetworkAPIVersion is the Microsoft.Network version the generic
// commands send (armnetwork/v7's).
const azNetworkAPIVersion = "2025-01-01"

// azCLI runs the stock az CLI with one isolated configuration directory
// (az is slow to start: the directory, its login and its caches are shared
// by every command of the scenario).
type azCLI struct {
	t    *testing.T
	path string
	dir  string
	env  []string
}

func newAzCLI(t *testing.T, f *cloudsimtest.Fixture) *azCLI {
	path, err := exec.LookPath("az")
	if err != nil {
		t.Skip("the az CLI is not on PATH (CI installs it: apt-get install azure-cli); skipping the stock-az scenario")
	}
	dir := t.TempDir()
	ca := filepath.Join(dir, "cloudsim-ca.pem")
	if err := os.WriteFile(ca, f.Server.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &azCLI{t: t, path: path, dir: dir, env: []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"AZURE_CONFIG_DIR=" + filepath.Join(dir, "azure"),
		"REQUESTS_CA_BUNDLE=" + ca, // az (python requests) trusts cloudsim's CA and nothing else
		"AZURE_CORE_COLLECT_TELEMETRY=false",
		"AZURE_CORE_NO_COLOR=true",
		"AZURE_CORE_ONLY_SHOW_ERRORS=true",
		"AZURE_CORE_SURVEY_MESSAGE=false",
		"AZURE_EXTENSION_USE_DYNAMIC_INSTALL=no",
	}}
	if version, err := c.try("version"); err == nil {
		t.Logf("%s: azure-cli %v", path, version["azure-cli"])
	}
	return c
}

// try runs one command and returns its decoded JSON output, or az's error
// text when it exits non-zero.
func (c *azCLI) try(args ...string) (map[string]any, error) {
	c.t.Helper()
	cmd := exec.Command(c.path, append(append([]string{}, args...), "--output", "json")...)
	cmd.Env, cmd.Dir = c.env, c.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("az %s: %v: %s", strings.Join(args, " "), err, lastLines(stderr.String(), 4))
	}
	out := map[string]any{}
	b := bytes.TrimSpace(stdout.Bytes())
	switch {
	case len(b) == 0:
	case b[0] == '[':
		var list []any
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, fmt.Errorf("az %s: output is not JSON: %v: %s", strings.Join(args, " "), err, b)
		}
		out["value"] = list
	default:
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, fmt.Errorf("az %s: output is not JSON: %v: %s", strings.Join(args, " "), err, b)
		}
	}
	return out, nil
}

func (c *azCLI) run(args ...string) map[string]any {
	c.t.Helper()
	out, err := c.try(args...)
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

// native runs the command az offers for a step; when az refuses it
// (Debian's packaging, see above) it logs why and runs the generic
// equivalent, so the scenario records every refusal and still completes.
func (c *azCLI) native(generic func() map[string]any, args ...string) map[string]any {
	c.t.Helper()
	out, err := c.try(args...)
	if err == nil {
		return out
	}
	c.t.Logf("az refused %q, falling back to az resource: %v", strings.Join(args[:min(4, len(args))], " "), err)
	return generic()
}

// putResource creates a resource with `az resource create`, the body given
// whole, and waits for its long-running operation as az does.
//
// az insists on a location in a whole body, child resources included
// (subnets): ARM ignores it there, so it is sent as az requires.
func (c *azCLI) putResource(id, apiVersion string, body map[string]any) map[string]any {
	c.t.Helper()
	if _, ok := body["location"]; !ok {
		body["location"] = cloudsimtest.AzureLocation
	}
	raw, err := json.Marshal(body)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.run("resource", "create", "--id", id, "--api-version", apiVersion, "--is-full-object", "--properties", string(raw),
		"--subscription", subscriptionOf(id))
}

func (c *azCLI) deleteResource(id, apiVersion string) {
	c.t.Helper()
	c.run("resource", "delete", "--ids", id, "--api-version", apiVersion, "--subscription", subscriptionOf(id))
}

// subscriptionOf names the subscription of a resource ID: az signs a
// request with the identity of --subscription (or the default one), not
// of the subscription the ID names.
func subscriptionOf(id string) string {
	parts := strings.Split(id, "/")
	if len(parts) < 3 {
		return ""
	}
	return parts[2]
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// TestStockAzureCLIScenario drives a Private Link setup across two
// subscriptions and a private DNS zone with nothing but the az CLI, then
// deletes everything and checks through the control API that nothing is left.
func TestStockAzureCLIScenario(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	az := newAzCLI(t, f)
	const (
		provider = cloudsimtest.ProviderSubscription
		customer = cloudsimtest.CustomerSubscription
		location = cloudsimtest.AzureLocation
		zone     = "demo.hypershift.local"
	)
	// Each side its own service principal, Contributor on its own
	// subscription only: az picks the identity by --subscription.
	providerSP := f.AzureServicePrincipalWithRole(t, "provider-operator", "Contributor", "/subscriptions/"+provider)
	customerSP := f.AzureServicePrincipalWithRole(t, "customer-operator", "Contributor", "/subscriptions/"+customer)

	az.run("cloud", "register", "--name", "cloudsim",
		"--endpoint-resource-manager", f.URL+"/",
		"--endpoint-active-directory", f.URL+"/adfs",
		"--endpoint-active-directory-resource-id", cloudsimtest.ARMAudience,
		"--endpoint-active-directory-graph-resource-id", f.URL+"/",
		"--endpoint-management", cloudsimtest.ARMAudience)
	az.run("cloud", "set", "--name", "cloudsim")
	for _, sp := range []azure.ServicePrincipal{providerSP, customerSP} {
		accounts := az.run("login", "--service-principal", "--username", sp.ClientID, "--password", sp.ClientSecret, "--tenant", sp.TenantID)
		if subs := subscriptionsOf(t, accounts); len(subs) != 1 {
			t.Fatalf("az login as %s sees subscriptions %v, want only its own", sp.ClientID, subs)
		}
	}

	// Provider subscription: VNet, LB subnet, NAT subnet, internal LB, PLS visible to the customer.
	az.run("group", "create", "--name", "mgmt", "--location", location, "--subscription", provider)
	mgmtVNet := "/subscriptions/" + provider + "/resourceGroups/mgmt/providers/Microsoft.Network/virtualNetworks/mgmt-vnet"
	az.native(func() map[string]any {
		return az.putResource(mgmtVNet, azNetworkAPIVersion, vnetBody(location, "10.0.0.0/16"))
	}, "network", "vnet", "create", "--name", "mgmt-vnet", "--resource-group", "mgmt", "--address-prefixes", "10.0.0.0/16", "--subscription", provider)
	lbSubnet := az.putResource(mgmtVNet+"/subnets/lb", azNetworkAPIVersion, map[string]any{"properties": map[string]any{"addressPrefix": "10.0.1.0/24"}})
	natSubnet := az.putResource(mgmtVNet+"/subnets/nat", azNetworkAPIVersion, map[string]any{"properties": map[string]any{
		"addressPrefix": "10.0.2.0/24", "privateLinkServiceNetworkPolicies": "Disabled"}})
	lbID := "/subscriptions/" + provider + "/resourceGroups/mgmt/providers/Microsoft.Network/loadBalancers/private-router"
	lb := az.putResource(lbID, azNetworkAPIVersion, map[string]any{
		"location": location, "sku": map[string]any{"name": "Standard"},
		"properties": map[string]any{"frontendIPConfigurations": []any{map[string]any{
			"name": "fe", "properties": map[string]any{"subnet": map[string]any{"id": str(t, lbSubnet, "id")}, "privateIPAllocationMethod": "Dynamic"},
		}}},
	})
	plsID := "/subscriptions/" + provider + "/resourceGroups/mgmt/providers/Microsoft.Network/privateLinkServices/pls-demo"
	pls := az.putResource(plsID, azNetworkAPIVersion, map[string]any{
		"location": location,
		"properties": map[string]any{
			"loadBalancerFrontendIpConfigurations": []any{map[string]any{"id": str(t, lb, "properties", "frontendIPConfigurations", 0, "id")}},
			"ipConfigurations": []any{map[string]any{"name": "nat", "properties": map[string]any{
				"subnet": map[string]any{"id": str(t, natSubnet, "id")}, "privateIPAllocationMethod": "Dynamic", "primary": true}}},
			"visibility":   map[string]any{"subscriptions": []any{customer}},
			"autoApproval": map[string]any{"subscriptions": []any{customer}},
		},
	})
	if alias := str(t, pls, "properties", "alias"); !strings.HasPrefix(alias, "pls-demo.") {
		t.Errorf("PLS alias = %q", alias)
	}

	// Customer subscription: VNet and subnet, a Private Endpoint to the PLS.
	az.run("group", "create", "--name", "guest", "--location", location, "--subscription", customer)
	guestVNet := "/subscriptions/" + customer + "/resourceGroups/guest/providers/Microsoft.Network/virtualNetworks/guest-vnet"
	az.putResource(guestVNet, azNetworkAPIVersion, vnetBody(location, "10.1.0.0/16"))
	peSubnet := az.putResource(guestVNet+"/subnets/endpoints", azNetworkAPIVersion, map[string]any{"properties": map[string]any{"addressPrefix": "10.1.1.0/24"}})
	peID := "/subscriptions/" + customer + "/resourceGroups/guest/providers/Microsoft.Network/privateEndpoints/demo-pe"
	pe := az.putResource(peID, azNetworkAPIVersion, map[string]any{
		"location": location,
		"properties": map[string]any{
			"subnet":                        map[string]any{"id": str(t, peSubnet, "id")},
			"privateLinkServiceConnections": []any{map[string]any{"name": "demo", "properties": map[string]any{"privateLinkServiceId": plsID}}},
		},
	})
	if status := str(t, pe, "properties", "privateLinkServiceConnections", 0, "properties", "privateLinkServiceConnectionState", "status"); status != "Approved" {
		t.Errorf("the endpoint's connection is %s, want Approved (the customer is in autoApproval)", status)
	}
	endpointIP := az.endpointIP(pe)

	// Customer subscription: private zone, VNet link, A record to the endpoint.
	zoneOut := az.run("network", "private-dns", "zone", "create", "--resource-group", "guest", "--name", zone, "--subscription", customer)
	if got := str(t, zoneOut, "location"); got != "global" {
		t.Errorf("zone location = %s", got)
	}
	linkID := "/subscriptions/" + customer + "/resourceGroups/guest/providers/Microsoft.Network/privateDnsZones/" + zone + "/virtualNetworkLinks/guest-link"
	az.native(func() map[string]any {
		return az.putResource(linkID, "2020-06-01", map[string]any{"location": "global", "properties": map[string]any{
			"virtualNetwork": map[string]any{"id": guestVNet}, "registrationEnabled": false}})
	}, "network", "private-dns", "link", "vnet", "create", "--resource-group", "guest", "--zone-name", zone, "--name", "guest-link",
		"--virtual-network", guestVNet, "--registration-enabled", "false", "--subscription", customer)
	az.run("network", "private-dns", "record-set", "a", "add-record", "--resource-group", "guest", "--zone-name", zone,
		"--record-set-name", "api", "--ipv4-address", endpointIP, "--subscription", customer)
	record := az.run("network", "private-dns", "record-set", "a", "show", "--resource-group", "guest", "--zone-name", zone, "--name", "api", "--subscription", customer)
	if got := str(t, record, "aRecords", 0, "ipv4Address"); got != endpointIP {
		t.Errorf("api.%s -> %s, want the endpoint's %s", zone, got, endpointIP)
	}
	zoneOut = az.run("network", "private-dns", "zone", "show", "--resource-group", "guest", "--name", zone, "--subscription", customer)
	if n := field(t, zoneOut, "numberOfVirtualNetworkLinks"); fmt.Sprint(n) != "1" {
		t.Errorf("zone numberOfVirtualNetworkLinks = %v", n)
	}

	// Teardown, customer first: record, link, zone, endpoint, subnet, VNet, group.
	az.run("network", "private-dns", "record-set", "a", "delete", "--resource-group", "guest", "--zone-name", zone, "--name", "api", "--yes", "--subscription", customer)
	az.native(func() map[string]any { az.deleteResource(linkID, "2020-06-01"); return nil },
		"network", "private-dns", "link", "vnet", "delete", "--resource-group", "guest", "--zone-name", zone, "--name", "guest-link", "--yes", "--subscription", customer)
	az.run("network", "private-dns", "zone", "delete", "--resource-group", "guest", "--name", zone, "--yes", "--subscription", customer)
	az.deleteResource(peID, azNetworkAPIVersion)
	az.deleteResource(guestVNet+"/subnets/endpoints", azNetworkAPIVersion)
	az.deleteResource(guestVNet, azNetworkAPIVersion)
	az.run("group", "delete", "--name", "guest", "--yes", "--subscription", customer)

	// Then the provider: PLS, LB, subnets, VNet, group.
	az.deleteResource(plsID, azNetworkAPIVersion)
	az.deleteResource(lbID, azNetworkAPIVersion)
	az.deleteResource(mgmtVNet+"/subnets/nat", azNetworkAPIVersion)
	az.deleteResource(mgmtVNet+"/subnets/lb", azNetworkAPIVersion)
	az.deleteResource(mgmtVNet, azNetworkAPIVersion)
	az.run("group", "delete", "--name", "mgmt", "--yes", "--subscription", provider)

	assertNoAzureResources(t, f)
}

// endpointIP is a Private Endpoint's address: from its custom DNS configs
// when it has them, else from its network interface (endpoints to a
// customer's own Private Link Service usually have no DNS configs).
func (c *azCLI) endpointIP(pe map[string]any) string {
	c.t.Helper()
	if configs, _ := field(c.t, pe, "properties", "customDnsConfigs").([]any); len(configs) > 0 {
		return str(c.t, configs[0], "ipAddresses", 0)
	}
	nicID := str(c.t, pe, "properties", "networkInterfaces", 0, "id")
	nic := c.run("resource", "show", "--ids", nicID, "--api-version", azNetworkAPIVersion, "--subscription", subscriptionOf(nicID))
	return str(c.t, nic, "properties", "ipConfigurations", 0, "properties", "privateIPAddress")
}

func vnetBody(location, prefix string) map[string]any {
	return map[string]any{"location": location, "properties": map[string]any{"addressSpace": map[string]any{"addressPrefixes": []any{prefix}}}}
}

// subscriptionsOf reads the subscription IDs az login reports.
func subscriptionsOf(t *testing.T, accounts map[string]any) map[string]bool {
	subs := map[string]bool{}
	list, _ := accounts["value"].([]any)
	for _, a := range list {
		subs[str(t, a, "id")] = true
	}
	return subs
}

// assertNoAzureResources fails on any Azure resource left, as the control
// API's state lists them (role assignments, cloudsim's own bootstrap, are
// listed apart and not counted), and checks the model holds no more.
func assertNoAzureResources(t *testing.T, f *cloudsimtest.Fixture) {
	t.Helper()
	var state struct {
		Azure struct {
			Resources map[string][]map[string]any `json:"resources"`
		} `json:"azure"`
	}
	f.Control(t, http.MethodGet, "/_cloudsim/state", nil, &state)
	for sub, resources := range state.Azure.Resources {
		for _, r := range resources {
			t.Errorf("subscription %s keeps %v (%v)", sub, r["id"], r["type"])
		}
	}
	f.Server.Azure.Inspect(func(s *azure.Store) {
		for _, r := range s.All() {
			if !strings.HasPrefix(strings.ToLower(r.Type), "microsoft.authorization/") {
				t.Errorf("the model keeps %s, which the control API did not list", r.ID)
			}
		}
	})
}
