package azure_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// widgets are a resource type that exists only in this test binary, to
// exercise the framework's long-running operations through the SDK's
// generic resources client.
const (
	widgetVersion  = "2024-01-01"
	widgetCreating = "testWidgetCreating"
	widgetDeleting = "testWidgetDeleting"
)

type widgetProperties struct {
	Size     int    `json:"size"`
	LinkedTo string `json:"linkedTo,omitempty"`
}

func init() {
	azure.RegisterDelay(widgetCreating, 2*time.Second, 2*time.Second)
	azure.RegisterDelay(widgetDeleting, 3*time.Second, 3*time.Second)
	azure.Register(azure.TypeSpec{
		Type:             "Microsoft.CloudsimTest/widgets",
		APIVersions:      []string{widgetVersion},
		RequiresLocation: true,
		Put: func(req *azure.Request, existing *azure.Resource) (*azure.Reply, *azure.Error) {
			var props widgetProperties
			env, err := req.Envelope(&props)
			if err != nil {
				return nil, err
			}
			if props.Size < 0 {
				return nil, azure.BadRequest("InvalidWidgetSize", "A widget's size cannot be negative.")
			}
			if props.LinkedTo != "" {
				if err := req.AuthorizeLinked("Microsoft.CloudsimTest/widgets/join/action", props.LinkedTo); err != nil {
					return nil, err
				}
			}
			return &azure.Reply{Resource: req.NewResource(env, &props),
				Transition: &azure.Transition{State: "Updating", Duration: req.Delay(widgetCreating)}}, nil
		},
		Delete: func(req *azure.Request, r *azure.Resource) (*azure.Reply, *azure.Error) {
			return &azure.Reply{Transition: &azure.Transition{State: "Deleting", Duration: req.Delay(widgetDeleting)}}, nil
		},
	})
}

func widgetID(rg, name string) string {
	return "/subscriptions/" + sub + "/resourceGroups/" + rg + "/providers/Microsoft.CloudsimTest/widgets/" + name
}

func TestLongRunningPutAndDeleteAdvanceOnTheSimClock(t *testing.T) {
	f, clock, groups := start(t)
	ctx := context.Background()
	createGroup(t, groups, "rg")
	generic, err := armresources.NewClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	var raw *http.Response
	poller, err := generic.BeginCreateOrUpdateByID(runtime.WithCaptureResponse(ctx, &raw), widgetID("rg", "w1"), widgetVersion, armresources.GenericResource{
		Location: to.Ptr("eastus"), Properties: map[string]any{"size": 3},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if raw.StatusCode != http.StatusCreated || !strings.Contains(raw.Header.Get("Azure-AsyncOperation"), "/providers/Microsoft.CloudsimTest/locations/eastus/operations/") {
		t.Fatalf("PUT answered %s with Azure-AsyncOperation %q", raw.Status, raw.Header.Get("Azure-AsyncOperation"))
	}
	if _, err := poller.Poll(ctx); err != nil || poller.Done() {
		t.Fatalf("create done before the clock moved (done=%v, err=%v)", poller.Done(), err)
	}
	got, err := generic.GetByID(ctx, widgetID("rg", "w1"), widgetVersion, nil)
	if err != nil || state(got.GenericResource) != "Updating" {
		t.Fatalf("during create: %v, %v; want Updating", got.Properties, err)
	}
	clock.Advance(2 * time.Second)
	if _, err := poller.Poll(ctx); err != nil || !poller.Done() {
		t.Fatalf("create not done after its delay (done=%v, err=%v)", poller.Done(), err)
	}
	created, err := poller.Result(ctx)
	if err != nil || state(created.GenericResource) != "Succeeded" || created.Properties.(map[string]any)["size"] != float64(3) {
		t.Fatalf("create result %v, %v", created.Properties, err)
	}

	del, err := generic.BeginDeleteByID(runtime.WithCaptureResponse(ctx, &raw), widgetID("rg", "w1"), widgetVersion, nil)
	if err != nil {
		t.Fatal(err)
	}
	if raw.StatusCode != http.StatusAccepted || raw.Header.Get("Location") == "" {
		t.Fatalf("DELETE answered %s with Location %q, want 202 and a Location", raw.Status, raw.Header.Get("Location"))
	}
	clock.Advance(time.Second)
	if _, err := del.Poll(ctx); err != nil || del.Done() {
		t.Fatalf("delete done early (done=%v, err=%v)", del.Done(), err)
	}
	clock.Advance(2 * time.Second)
	if _, err := del.Poll(ctx); err != nil || !del.Done() {
		t.Fatalf("delete not done after its delay (done=%v, err=%v)", del.Done(), err)
	}
	if _, err := generic.GetByID(ctx, widgetID("rg", "w1"), widgetVersion, nil); armCode(err) != "ResourceNotFound" {
		t.Fatalf("after delete: %v, want ResourceNotFound", err)
	}
}

func TestHandlerErrorsAndMissingGroupUseARMCodes(t *testing.T) {
	f, _, groups := start(t)
	ctx := context.Background()
	generic, err := armresources.NewClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	body := armresources.GenericResource{Location: to.Ptr("eastus"), Properties: map[string]any{"size": 1}}
	if _, err := generic.BeginCreateOrUpdateByID(ctx, widgetID("nope", "w"), widgetVersion, body, nil); armCode(err) != "ResourceGroupNotFound" {
		t.Errorf("create in a missing group: %v, want ResourceGroupNotFound", err)
	}
	createGroup(t, groups, "rg")
	body.Properties = map[string]any{"size": -1}
	if _, err := generic.BeginCreateOrUpdateByID(ctx, widgetID("rg", "w"), widgetVersion, body, nil); armCode(err) != "InvalidWidgetSize" {
		t.Errorf("handler refusal: %v, want InvalidWidgetSize", err)
	}
	body.Location = to.Ptr("moon")
	if _, err := generic.BeginCreateOrUpdateByID(ctx, widgetID("rg", "w"), widgetVersion, body, nil); armCode(err) != "LocationNotAvailableForResourceType" {
		t.Errorf("unknown location: %v, want LocationNotAvailableForResourceType", err)
	}
	if _, err := generic.GetByID(ctx, widgetID("rg", "absent"), widgetVersion, nil); armCode(err) != "ResourceNotFound" {
		t.Errorf("get missing: %v, want ResourceNotFound", err)
	}
}

func TestDeletingAGroupDeletesItsResources(t *testing.T) {
	f, clock, groups := start(t)
	ctx := context.Background()
	createGroup(t, groups, "rg")
	generic, err := armresources.NewClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := generic.BeginCreateOrUpdateByID(ctx, widgetID("rg", "w"), widgetVersion, armresources.GenericResource{Location: to.Ptr("eastus")}, nil); err != nil {
		t.Fatal(err)
	}
	poller, err := groups.BeginDelete(ctx, "rg", nil)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, err := poller.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: time.Second}); err != nil {
		t.Fatal(err)
	}
	f.Server.Azure.Inspect(func(s *azure.Store) {
		for _, r := range s.All() {
			if r.ID.ResourceGroup != "" {
				t.Errorf("%s left after deleting its group", r.ID)
			}
		}
	})
}

func state(r armresources.GenericResource) string {
	props, _ := r.Properties.(map[string]any)
	s, _ := props["provisioningState"].(string)
	return s
}

// The SDKs send If-Match only on some network operations; a raw request
// with a real token checks the wire rule itself.
func TestIfMatchComparesTheETag(t *testing.T) {
	f, _, groups := start(t)
	ctx := context.Background()
	createGroup(t, groups, "rg")
	generic, _ := armresources.NewClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	poller, err := generic.BeginCreateOrUpdateByID(ctx, widgetID("rg", "w"), widgetVersion, armresources.GenericResource{Location: to.Ptr("eastus")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = poller
	var etag string
	f.Server.Azure.Inspect(func(s *azure.Store) { etag = s.GetByString(widgetID("rg", "w")).ETag })
	if !strings.HasPrefix(etag, `W/"`) {
		t.Fatalf("widget etag %q, want a weak GUID", etag)
	}
	token, err := f.AzureAdminCredential(t).GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{cloudsimtest.ARMAudience + "/.default"}})
	if err != nil {
		t.Fatal(err)
	}
	put := func(ifMatch string) int {
		req, _ := http.NewRequest(http.MethodPut, f.URL+widgetID("rg", "w")+"?api-version="+widgetVersion, strings.NewReader(`{"location":"eastus","properties":{"size":2}}`))
		req.Header.Set("Authorization", "Bearer "+token.Token)
		req.Header.Set("If-Match", ifMatch)
		resp, err := f.AzureHTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := put(`W/"00000000-0000-0000-0000-000000000000"`); code != http.StatusPreconditionFailed {
		t.Errorf("stale If-Match: %d, want 412", code)
	}
	if code := put(etag); code != http.StatusOK {
		t.Errorf("current If-Match: %d, want 200", code)
	}
}
