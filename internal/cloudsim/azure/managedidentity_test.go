package azure_test

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
)

// TestManagedIdentityAPIVersions: every version Azure serves for
// user-assigned identities answers (az 2.45 sends 2022-01-31-preview), with
// the read-only IDs; an unknown one is NoRegisteredProviderFound.
func TestManagedIdentityAPIVersions(t *testing.T) {
	f, _, groups := start(t)
	ctx := context.Background()
	createGroup(t, groups, "rg")
	generic, err := armresources.NewClient(sub, f.AzureAdminCredential(t), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	id := "/subscriptions/" + sub + "/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/"
	for _, v := range []string{"2018-11-30", "2022-01-31-preview", "2023-01-31", "2024-11-30"} {
		p, err := generic.BeginCreateOrUpdateByID(ctx, id+"mi-"+v, v, armresources.GenericResource{Location: to.Ptr("eastus")}, nil)
		if err != nil {
			t.Errorf("api-version %s: %v", v, err)
			continue
		}
		out, err := p.PollUntilDone(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		props, _ := out.Properties.(map[string]any)
		if props["clientId"] == nil || props["principalId"] == nil || props["tenantId"] == nil {
			t.Errorf("api-version %s: properties %v lack the IDs", v, out.Properties)
		}
	}
	if _, err := generic.BeginCreateOrUpdateByID(ctx, id+"mi-old", "2017-01-01", armresources.GenericResource{Location: to.Ptr("eastus")}, nil); armCode(err) != "NoRegisteredProviderFound" {
		t.Errorf("an unknown version: %v, want NoRegisteredProviderFound", err)
	}
}
