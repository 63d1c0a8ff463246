package cloudsim_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// azureState is the part of /_cloudsim/state this test reads.
type azureState struct {
	Azure struct {
		Resources map[string][]struct {
			ID string `json:"id"`
		} `json:"resources"`
	} `json:"azure"`
}

func TestControlAPICoversAzure(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	sub := cloudsimtest.CustomerSubscription
	var sp azure.ServicePrincipal
	f.Control(t, http.MethodPost, "/_cloudsim/azure/servicePrincipals", map[string]any{
		"displayName": "installer", "roles": []map[string]string{{"role": "Contributor", "scope": "/subscriptions/" + sub}},
	}, &sp)
	groups, err := armresources.NewResourceGroupsClient(sub, f.AzureCredential(t, sp), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := groups.CreateOrUpdate(context.Background(), "rg", armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil); err != nil {
		t.Fatalf("a principal made through the control API cannot use its role: %v", err)
	}

	var state azureState
	f.Control(t, http.MethodGet, "/_cloudsim/state", nil, &state)
	if got := state.Azure.Resources[sub]; len(got) != 1 || got[0].ID != "/subscriptions/"+sub+"/resourceGroups/rg" {
		t.Fatalf("azure state for %s = %+v, want the one resource group", sub, got)
	}
	var calls map[string]map[string]sim.CallCount
	f.Control(t, http.MethodGet, "/_cloudsim/calls", nil, &calls)
	if got := calls[sub]["Microsoft.Resources:subscriptions/resourceGroups/write"]; got.Total != 1 || got.Mutating != 1 {
		t.Errorf("resource group writes in %s = %+v, want 1 mutating", sub, got)
	}
	// ARM throttles per principal: the counts say who called, over the
	// wire, so that a bound can use the caller's own buckets.
	admin, err := armresources.NewResourceGroupsClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Get(context.Background(), "rg", nil); err != nil {
		t.Fatal(err)
	}
	var byPrincipal map[string]map[string]map[string]sim.CallCount
	f.Control(t, http.MethodGet, "/_cloudsim/calls/by-principal", nil, &byPrincipal)
	const write, read = "Microsoft.Resources:subscriptions/resourceGroups/write", "Microsoft.Resources:subscriptions/resourceGroups/read"
	if got := byPrincipal[sub][sp.ObjectID]; got[write].Total != 1 || got[read].Total != 0 {
		t.Errorf("the installer's calls in %s = %+v, want its one write and no read", sub, got)
	}
	for principal, got := range byPrincipal[sub] {
		if principal != sp.ObjectID && (got[read].Total != 1 || got[write].Total != 0) {
			t.Errorf("the administrator's (%s) calls in %s = %+v, want its one read and no write", principal, sub, got)
		}
	}
	if len(byPrincipal[sub]) != 2 {
		t.Errorf("callers in %s = %v, want the installer and the administrator", sub, byPrincipal[sub])
	}

	f.Control(t, http.MethodPut, "/_cloudsim/delays?preset=realistic", nil, nil)
	var delays azure.Delays
	f.Control(t, http.MethodGet, "/_cloudsim/azure/delays", nil, &delays)
	if got := delays[azure.DelayResourceGroupDeleting].D(); got != time.Minute {
		t.Errorf("resource group deletion under the realistic preset = %v, want 1m", got)
	}

	f.Control(t, http.MethodPost, "/_cloudsim/reset", nil, nil)
	state = azureState{}
	f.Control(t, http.MethodGet, "/_cloudsim/state", nil, &state)
	if len(state.Azure.Resources) != 0 {
		t.Fatalf("azure state after reset = %+v, want empty", state.Azure.Resources)
	}
}
