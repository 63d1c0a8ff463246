package azure_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// Private DNS answers a long-running request as Azure documents it
// (azure-rest-api-specs, privatedns stable/2024-06-01 examples): the
// operation's status at .../resourceGroups/{rg}/providers/Microsoft.Network/privateDnsOperationStatuses/{id}
// (Azure-AsyncOperation) and its result at .../privateDnsOperationResults/{id}
// (Location), both served; the SDK's poller follows them (issue 18, item 17).
func TestPrivateDNSOperationURLsAreAzures(t *testing.T) {
	f, e := startDNS(t)
	token, err := f.AzureAdminCredential(t).GetToken(e.ctx, policy.TokenRequestOptions{Scopes: []string{cloudsimtest.ARMAudience + "/.default"}})
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, url, body string) *http.Response {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := f.AzureHTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	zone := "/subscriptions/" + e.sub + "/resourceGroups/dns/providers/Microsoft.Network/privateDnsZones/lro.local"
	put := do(http.MethodPut, f.URL+zone+"?api-version=2024-06-01", `{"location":"global"}`)
	prefix := regexp.QuoteMeta(f.URL + "/subscriptions/" + e.sub + "/resourceGroups/dns/providers/Microsoft.Network/")
	status, result := put.Header.Get("Azure-AsyncOperation"), put.Header.Get("Location")
	if !regexp.MustCompile("^" + prefix + `privateDnsOperationStatuses/[0-9a-f-]{36}\?api-version=2024-06-01$`).MatchString(status) {
		t.Errorf("Azure-AsyncOperation = %q, want …/resourceGroups/dns/providers/Microsoft.Network/privateDnsOperationStatuses/{id}", status)
	}
	if !regexp.MustCompile("^" + prefix + `privateDnsOperationResults/[0-9a-f-]{36}\?api-version=2024-06-01$`).MatchString(result) {
		t.Errorf("Location = %q, want …/resourceGroups/dns/providers/Microsoft.Network/privateDnsOperationResults/{id}", result)
	}
	if status == "" || result == "" {
		t.FailNow()
	}
	var body struct{ Status string }
	if resp := do(http.MethodGet, status, ""); resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&body) != nil || body.Status == "" {
		t.Errorf("GET the status URL: %s, status %q", resp.Status, body.Status)
	}
	if resp := do(http.MethodGet, result, ""); resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusOK {
		t.Errorf("GET the result URL: %s", resp.Status)
	}

	// The SDK's own poller, create and delete, on the same URLs.
	e.zone("dns", "sdk.local", map[string]*string{"k": to.Ptr("v")})
	p, err := e.zones.BeginDelete(e.ctx, "dns", "sdk.local", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PollUntilDone(e.ctx, pollFast); err != nil {
		t.Fatalf("deleting through the SDK's poller: %v", err)
	}
	if _, err := e.zones.Get(e.ctx, "dns", "sdk.local", nil); err == nil {
		t.Error("the zone outlived its deletion")
	}
}
