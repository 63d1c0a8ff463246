package cloudsim_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

type gcpState struct {
	GCP struct {
		Resources map[string][]map[string]any `json:"resources"`
		Projects  []gcp.Project               `json:"projects"`
	} `json:"gcp"`
}

// Projects, custom roles, bindings and tokens made through the control API
// work on the wire; state, calls, evaluations and delays cover GCP; reset
// forgets it all.
func TestControlAPICoversGCP(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	f.Control(t, http.MethodPost, "/_cloudsim/gcp/projects", map[string]string{"projectId": "seeded-project", "projectNumber": "400000000004"}, nil)
	f.Control(t, http.MethodPost, "/_cloudsim/gcp/roles", map[string]any{"projectId": "seeded-project", "roleId": "networks",
		"includedPermissions": []string{"compute.networks.create", "compute.globalOperations.get"}}, nil)
	member := "serviceAccount:operator@seeded-project.iam.gserviceaccount.com"
	f.Control(t, http.MethodPost, "/_cloudsim/gcp/bindings", map[string]string{"projectId": "seeded-project",
		"role": "projects/seeded-project/roles/networks", "member": member}, nil)
	var token struct {
		AccessToken string `json:"accessToken"`
	}
	f.Control(t, http.MethodPost, "/_cloudsim/gcp/tokens", map[string]string{"principal": member}, &token)

	svc := f.Compute(t, staticTokens(token.AccessToken))
	op, err := svc.Networks.Insert("seeded-project", &compute.Network{Name: "vpc", ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do()
	if err != nil {
		t.Fatalf("inserting with the seeded role: %v", err)
	}
	if op, err = svc.GlobalOperations.Wait("seeded-project", op.Name).Do(); err != nil || op.Status != "DONE" {
		t.Fatalf("waiting on the wall clock: %+v, %v", op, err)
	}
	if _, err := svc.Networks.List("seeded-project").Do(); err == nil {
		t.Fatal("listing was allowed without compute.networks.list")
	}

	var state gcpState
	f.Control(t, http.MethodGet, "/_cloudsim/state", nil, &state)
	if got := state.GCP.Resources["seeded-project"]; len(got) != 1 || got[0]["name"] != "vpc" {
		t.Fatalf("gcp state = %+v, want the one network", state.GCP.Resources)
	}
	var evaluations map[string]map[string]gcp.Decision
	f.Control(t, http.MethodGet, "/_cloudsim/gcp/evaluations", nil, &evaluations)
	if got := evaluations[member]; got["compute.networks.create"].Allowed != 1 || got["compute.networks.list"].Denied != 1 {
		t.Fatalf("evaluations of %s = %+v", member, got)
	}
	var byPrincipal map[string]map[string]sim.CallCount
	f.Control(t, http.MethodGet, "/_cloudsim/gcp/calls", nil, &byPrincipal)
	if got := byPrincipal[member]["compute.googleapis.com:networks.insert"]; got.Total != 1 || got.Mutating != 1 {
		t.Fatalf("calls of %s = %+v", member, byPrincipal[member])
	}
	f.Control(t, http.MethodPut, "/_cloudsim/delays?preset=realistic", nil, nil)
	var delays gcp.Delays
	f.Control(t, http.MethodGet, "/_cloudsim/gcp/delays", nil, &delays)
	if delays.Operation.D() != 15*time.Second {
		t.Fatalf("operation delay under the realistic preset = %v", delays.Operation.D())
	}

	f.Control(t, http.MethodPost, "/_cloudsim/reset", nil, nil)
	state = gcpState{}
	f.Control(t, http.MethodGet, "/_cloudsim/state", nil, &state)
	if len(state.GCP.Resources) != 0 || len(state.GCP.Projects) != 0 {
		t.Fatalf("gcp state after reset = %+v", state.GCP)
	}
}

// A project's own rate quotas, set over the control API, refuse its calls
// past the figure (Compute Engine: 403 rateLimitExceeded naming the
// project; Cloud DNS: 429 per user) while other projects keep the default;
// the next minute refills them; clearing them restores the default.
func TestControlAPISetsAProjectsRateQuotas(t *testing.T) {
	clock := sim.NewManualClock(time.Date(2026, 1, 1, 12, 0, 30, 0, time.UTC))
	f := cloudsimtest.StartGCP(t, cloudsim.Options{Clock: clock})
	f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: gcp.DefaultQuotas()}})
	customer, management := cloudsimtest.CustomerProject, cloudsimtest.ManagementProject
	f.SetGCPQuotas(t, customer,
		gcp.QuotaOverride{Service: "compute.googleapis.com", Group: gcp.QuotaGroupRead, PerMinute: 2},
		gcp.QuotaOverride{Service: "dns.googleapis.com", PerMinute: 1})
	var listed []gcp.ProjectQuotaOverride
	f.Control(t, http.MethodGet, "/_cloudsim/gcp/quotas", nil, &listed)
	if len(listed) != 2 || listed[0].ProjectID != customer || listed[0].PerMinute != 2 {
		t.Fatalf("overrides listed: %+v", listed)
	}

	svc := f.Compute(t, cloudsimtest.GCPAdminTokens())
	for i := range 2 {
		if _, err := svc.Networks.List(customer).Do(); err != nil {
			t.Fatalf("read %d within the project's quota: %v", i+1, err)
		}
	}
	_, err := svc.Networks.List(customer).Do()
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != http.StatusForbidden || len(ge.Errors) == 0 || ge.Errors[0].Reason != "rateLimitExceeded" ||
		!strings.Contains(ge.Message, "project:"+customer) {
		t.Fatalf("the third read in a minute: %v, want 403 rateLimitExceeded for project:%s", err, customer)
	}
	if _, err := svc.Networks.Insert(customer, &compute.Network{Name: "vpc", ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do(); err != nil {
		t.Fatalf("a write, whose group has no override: %v", err)
	}
	for i := range 5 {
		if _, err := svc.Networks.List(management).Do(); err != nil {
			t.Fatalf("read %d in the other project, on the default quota: %v", i+1, err)
		}
	}
	admin := f.DNS(t, cloudsimtest.GCPAdminTokens())
	if _, err := admin.ManagedZones.List(customer).Do(); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.ManagedZones.List(customer).Do(); !errors.As(err, &ge) || ge.Code != http.StatusTooManyRequests {
		t.Fatalf("the second Cloud DNS call of the user on the project: %v, want 429", err)
	}
	if _, err := admin.ManagedZones.List(management).Do(); err != nil {
		t.Fatalf("the same user on the other project: %v", err)
	}

	clock.Advance(30 * time.Second) // 12:01:00, the next window
	if _, err := svc.Networks.List(customer).Do(); err != nil {
		t.Fatalf("a read in the next minute: %v", err)
	}
	if got := f.Calls(customer)["compute.googleapis.com:networks.list"]; got.Total != 4 || got.Throttled != 1 {
		t.Fatalf("the project's counters: %+v, want 4 reads, one throttled", got)
	}
	f.ClearGCPQuotas(t, customer)
	for i := range 5 {
		if _, err := svc.Networks.List(customer).Do(); err != nil {
			t.Fatalf("read %d after the overrides were cleared: %v", i+1, err)
		}
	}
	f.Control(t, http.MethodGet, "/_cloudsim/gcp/quotas", nil, &listed)
	if len(listed) != 0 {
		t.Fatalf("overrides after clearing: %+v", listed)
	}

	for _, bad := range []struct {
		project, body string
		status        int
	}{
		{"no-such-project", `[{"perMinute": 1}]`, http.StatusNotFound},
		{customer, `[{"group": "reads", "perMinute": 1}]`, http.StatusBadRequest},
		{customer, `[{"perMinute": -1}]`, http.StatusBadRequest},
		{customer, `[{"perMinut": 1}]`, http.StatusBadRequest},
	} {
		req, _ := http.NewRequest(http.MethodPut, f.URL+"/_cloudsim/gcp/projects/"+bad.project+"/quotas", strings.NewReader(bad.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != bad.status {
			t.Errorf("PUT %s %s: %s, want %d", bad.project, bad.body, resp.Status, bad.status)
		}
	}
}
