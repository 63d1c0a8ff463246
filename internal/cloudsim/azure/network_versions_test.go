package azure_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// The Microsoft.Network versions current SDKs and CLIs send are served;
// a version Azure never published is refused as ARM refuses it (issue 18,
// item 17). Raw HTTP: the version is the one on the wire.
func TestNetworkServesEveryStableAPIVersion(t *testing.T) {
	x := newPrivateLinkFixture(t)
	ctx := context.Background()
	token, err := x.f.AzureAdminCredential(t).GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{cloudsimtest.ARMAudience + "/.default"}})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path, version string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, x.f.URL+path+"?api-version="+version, nil)
		req.Header.Set("Authorization", "Bearer "+token.Token)
		resp, err := x.f.AzureHTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return resp.StatusCode, ""
		}
		return resp.StatusCode, armCode(runtime.NewResponseError(resp))
	}
	subnet := x.customerSubnetID
	vnet := subnet[:len(subnet)-len("/subnets/endpoints")]
	for _, version := range []string{"2022-01-01", "2025-01-01", "2025-03-01", "2025-05-01", "2025-07-01", "2025-09-01", "2026-01-01", "2026-03-01", "2026-07-01"} {
		for _, path := range []string{vnet, subnet} {
			if status, code := get(path, version); status != http.StatusOK {
				t.Errorf("GET %s at api-version %s: %d %s, want 200", path, version, status, code)
			}
		}
	}
	if status, code := get(vnet, "2025-11-01"); code != "NoRegisteredProviderFound" {
		t.Errorf("a version Azure never published: %d %s, want NoRegisteredProviderFound", status, code)
	}
}

// GET privateEndpoints/{name}?$expand=networkInterfaces answers the
// interfaces whole, with their IP configurations and addresses, as ARM
// does; without $expand they are IDs (issue 18, item 17).
func TestPrivateEndpointExpandsItsNetworkInterfaces(t *testing.T) {
	x := newPrivateLinkFixture(t)
	p, c := x.provider, x.customer
	pp, err := p.pls.BeginCreateOrUpdate(p.ctx, "rg", "pls-c1", x.plsBody(x.natSubnetID, []string{c.sub}, []string{c.sub}), nil)
	pls := finish(p, pp, err).PrivateLinkService
	ep, err := c.endpoint("pe-1", x.customerSubnetID, *pls.ID, false)
	finish(c, ep, err)

	plain, err := c.pes.Get(c.ctx, "rg", "pe-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if nic := plain.Properties.NetworkInterfaces[0]; nic.ID == nil || nic.Properties != nil {
		t.Errorf("without $expand the interface is %+v, want its ID alone", nic)
	}
	expanded, err := c.pes.Get(c.ctx, "rg", "pe-1", &armnetwork.PrivateEndpointsClientGetOptions{Expand: to.Ptr("networkInterfaces")})
	if err != nil {
		t.Fatal(err)
	}
	nics := expanded.Properties.NetworkInterfaces
	if len(nics) != 1 || nics[0].Properties == nil || len(nics[0].Properties.IPConfigurations) == 0 {
		b, _ := json.Marshal(nics)
		t.Fatalf("$expand=networkInterfaces gave %s, want the interface with its IP configurations", b)
	}
	ip := nics[0].Properties.IPConfigurations[0].Properties.PrivateIPAddress
	if ip == nil || *ip == "" || *nics[0].ID != *plain.Properties.NetworkInterfaces[0].ID {
		t.Errorf("expanded interface %s has address %v", *nics[0].ID, ip)
	}
	if expanded.Properties.CustomDNSConfigs[0].IPAddresses[0] == nil || *expanded.Properties.CustomDNSConfigs[0].IPAddresses[0] != *ip {
		t.Errorf("the interface's address %s is not the endpoint's", *ip)
	}
}
