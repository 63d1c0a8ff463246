package azure_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

const sub = cloudsimtest.ProviderSubscription

// start runs cloudsim on a manual clock and returns it with a resource
// groups client logged in as the bootstrap administrator.
func start(t *testing.T) (*cloudsimtest.Fixture, *sim.ManualClock, *armresources.ResourceGroupsClient) {
	t.Helper()
	clock := sim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	f := cloudsimtest.StartAzure(t, cloudsim.Options{Clock: clock})
	groups, err := armresources.NewResourceGroupsClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	return f, clock, groups
}

// armCode returns the ARM error code of an SDK error ("" if none).
func armCode(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return ""
}

func createGroup(t *testing.T, groups *armresources.ResourceGroupsClient, name string) armresources.ResourceGroup {
	t.Helper()
	resp, err := groups.CreateOrUpdate(context.Background(), name, armresources.ResourceGroup{
		Location: to.Ptr("eastus"), Tags: map[string]*string{"owner": to.Ptr("test")},
	}, nil)
	if err != nil {
		t.Fatalf("creating resource group %s: %v", name, err)
	}
	return resp.ResourceGroup
}

func TestResourceGroupLifecycle(t *testing.T) {
	_, clock, groups := start(t)
	ctx := context.Background()
	rg := createGroup(t, groups, "rg-one")
	if got, want := *rg.ID, "/subscriptions/"+sub+"/resourceGroups/rg-one"; got != want {
		t.Errorf("id = %s, want %s", got, want)
	}
	if *rg.Properties.ProvisioningState != "Succeeded" || *rg.Tags["owner"] != "test" || *rg.Type != "Microsoft.Resources/resourceGroups" {
		t.Errorf("created group = %+v", rg)
	}
	if _, err := groups.CreateOrUpdate(ctx, "rg-one", armresources.ResourceGroup{Location: to.Ptr("westus")}, nil); armCode(err) != "InvalidResourceGroupLocation" {
		t.Errorf("moving a group to another location: %v, want InvalidResourceGroupLocation", err)
	}
	exists, err := groups.CheckExistence(ctx, "rg-one", nil)
	if err != nil || !exists.Success {
		t.Fatalf("CheckExistence = %v, %v", exists.Success, err)
	}

	poller, err := groups.BeginDelete(ctx, "rg-one", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := poller.Poll(ctx); err != nil || poller.Done() {
		t.Fatalf("delete finished before the clock moved (done=%v, err=%v)", poller.Done(), err)
	}
	got, err := groups.Get(ctx, "rg-one", nil)
	if err != nil || *got.Properties.ProvisioningState != "Deleting" {
		t.Fatalf("during the delete: %v, %v; want Deleting", got.Properties, err)
	}
	clock.Advance(time.Second)
	if _, err := poller.Poll(ctx); err != nil || !poller.Done() {
		t.Fatalf("delete not done after the delay (done=%v, err=%v)", poller.Done(), err)
	}
	if _, err := groups.Get(ctx, "rg-one", nil); armCode(err) != "ResourceGroupNotFound" {
		t.Fatalf("after delete: %v, want ResourceGroupNotFound", err)
	}
	if exists, err := groups.CheckExistence(ctx, "rg-one", nil); err != nil || exists.Success {
		t.Fatalf("CheckExistence after delete = %v, %v", exists.Success, err)
	}
	if _, err := groups.BeginDelete(ctx, "rg-one", nil); armCode(err) != "ResourceGroupNotFound" {
		t.Fatalf("deleting a missing group: %v, want ResourceGroupNotFound", err)
	}
}

func TestResourceGroupListFollowsNextLink(t *testing.T) {
	f, _, groups := start(t)
	f.Server.Azure.PageSize = 2
	for i := range 5 {
		createGroup(t, groups, fmt.Sprintf("rg-%d", i))
	}
	pager := groups.NewListPager(nil)
	pages, names := 0, map[string]bool{}
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, g := range page.Value {
			names[*g.Name] = true
		}
	}
	if pages != 3 || len(names) != 5 {
		t.Fatalf("listed %d groups in %d pages, want 5 in 3", len(names), pages)
	}
}

func TestAPIVersionIsRequiredAndChecked(t *testing.T) {
	f, _, groups := start(t)
	createGroup(t, groups, "rg")
	// The SDK always sends api-version: only a raw request can leave it out.
	resp, err := f.AzureHTTPClient().Get(f.URL + "/subscriptions/" + sub + "/resourcegroups/rg")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("x-ms-request-id") == "" {
		t.Fatalf("without api-version: %s (request id %q)", resp.Status, resp.Header.Get("x-ms-request-id"))
	}
	generic, err := armresources.NewClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := generic.GetByID(ctx, "/subscriptions/"+sub+"/resourceGroups/rg", "2099-01-01", nil); armCode(err) != "InvalidApiVersionParameter" {
		t.Errorf("resource group at an unknown version: %v, want InvalidApiVersionParameter", err)
	}
	if _, err := generic.GetByID(ctx, widgetID("rg", "w"), "2099-01-01", nil); armCode(err) != "NoRegisteredProviderFound" {
		t.Errorf("provider type at an unknown version: %v, want NoRegisteredProviderFound", err)
	}
}

func TestRequestsNeedAValidToken(t *testing.T) {
	f, _, _ := start(t)
	url := f.URL + "/subscriptions/" + sub + "/resourcegroups?api-version=2021-04-01"
	for _, tc := range []struct{ header, code string }{
		{"", "AuthenticationFailed"},
		{"Basic abc", "AuthenticationFailedInvalidHeader"},
		{"Bearer not.a.token", "InvalidAuthenticationToken"},
	} {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if tc.header != "" {
			req.Header.Set("Authorization", tc.header)
		}
		resp, err := f.AzureHTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if code := armCode(runtime.NewResponseError(resp)); resp.StatusCode != http.StatusUnauthorized || code != tc.code {
			t.Errorf("Authorization %q: %s %s, want 401 %s", tc.header, resp.Status, code, tc.code)
		}
		resp.Body.Close()
	}
	bad := cloudsimtest.AzureAdmin()
	bad.ClientSecret = "wrong"
	groups, err := armresources.NewResourceGroupsClient(sub, f.AzureCredential(t, bad), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := groups.Get(context.Background(), "rg", nil); err == nil {
		t.Fatal("a wrong client secret got a token")
	}
}

func TestThrottlingAnswers429WithRetryAfter(t *testing.T) {
	f, clock, groups := start(t)
	ctx := context.Background()
	createGroup(t, groups, "rg")
	f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		azure.ThrottlingService: {NonMutating: sim.Limit{Burst: 3, PerSecond: 1}, Mutating: sim.Limit{Burst: 2, PerSecond: 1}},
	}}})
	var raw *http.Response
	for i := range 3 {
		if _, err := groups.Get(runtime.WithCaptureResponse(ctx, &raw), "rg", nil); err != nil {
			t.Fatalf("read %d within the bucket: %v", i, err)
		}
		if got, want := raw.Header.Get("x-ms-ratelimit-remaining-subscription-reads"), fmt.Sprint(2-i); got != want {
			t.Errorf("remaining reads after read %d = %q, want %s", i, got, want)
		}
	}
	_, err := groups.Get(runtime.WithCaptureResponse(ctx, &raw), "rg", nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusTooManyRequests || raw.Header.Get("Retry-After") != "1" {
		t.Fatalf("fourth read: %v (Retry-After %q), want 429 with Retry-After 1", err, raw.Header.Get("Retry-After"))
	}
	// Writes have a bucket of their own, and so has another principal.
	createGroup(t, groups, "rg2")
	other := f.AzureServicePrincipalWithRole(t, "other", "Reader", "/subscriptions/"+sub)
	otherGroups, _ := armresources.NewResourceGroupsClient(sub, f.AzureCredential(t, other), f.AzureClientOptions())
	if _, err := otherGroups.Get(ctx, "rg", nil); err != nil {
		t.Fatalf("another principal throttled by the first one's bucket: %v", err)
	}
	clock.Advance(time.Second)
	if _, err := groups.Get(ctx, "rg", nil); err != nil {
		t.Fatalf("read after a second's refill: %v", err)
	}
	calls := f.Calls(sub)["Microsoft.Resources:subscriptions/resourceGroups/read"]
	if calls.Throttled != 1 || calls.Mutating != 0 {
		t.Errorf("resource group reads counted as %+v, want 1 throttled, 0 mutating", calls)
	}
}

func TestInjectedErrorsAndLatencyRulesApply(t *testing.T) {
	f, _, groups := start(t)
	createGroup(t, groups, "rg")
	f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{
		Service: "Microsoft.Resources", Operation: "subscriptions/resourceGroups/read", Account: sub, Nth: 2, Code: "InternalServerError",
	}}})
	ctx := context.Background()
	if _, err := groups.Get(ctx, "rg", nil); err != nil {
		t.Fatalf("first read: %v", err)
	}
	_, err := groups.Get(ctx, "rg", nil)
	if re := responseError(err); re == nil || re.StatusCode != http.StatusInternalServerError || re.ErrorCode != "InternalServerError" {
		t.Fatalf("second read: %v, want the injected 500 InternalServerError", err)
	}
	if _, err := groups.Get(ctx, "rg", nil); err != nil {
		t.Fatalf("third read: %v", err)
	}
	if got := f.Calls(sub)["Microsoft.Resources:subscriptions/resourceGroups/read"]; got.Total != 3 || got.Failed != 1 {
		t.Errorf("counted %+v, want 3 reads, 1 failed", got)
	}
}
