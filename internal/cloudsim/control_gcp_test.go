package cloudsim_test

import (
	"net/http"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"

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
