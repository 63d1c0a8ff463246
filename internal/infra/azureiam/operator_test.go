package azureiam_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/infra/azureiam"
)

const vnetID = "/subscriptions/" + sub + "/resourceGroups/vnet-rg/providers/Microsoft.Network/virtualNetworks/mgmt"

func operatorOptions() azureiam.OperatorOptions {
	return azureiam.OperatorOptions{Namespace: "hcplink", IssuerURL: issuer, SubscriptionID: sub,
		LoadBalancerResourceGroup: "lb-rg", VNetID: vnetID, Location: "eastus"}
}

// TestCreateAndDestroyOperator: create iam azure --operator's identity
// signs in as exactly the ServiceAccount install renders, holds exactly the
// management operator's role at exactly the load balancers' and the VNet's
// resource groups (never the subscription), tells install's flags; running
// again changes nothing; destroy leaves nothing and says what it deleted.
func TestCreateAndDestroyOperator(t *testing.T) {
	w := newWorld(t)
	o := operatorOptions()
	var log bytes.Buffer
	out, err := azureiam.CreateOperator(w.ctx, w.clients, &log, o)
	if err != nil {
		t.Fatal(err)
	}
	if out.ClientID == "" || out.PrincipalID == "" || out.TenantID == "" || out.IdentityID == "" || out.FederatedCredentialID == "" || out.RoleDefinitionID == "" {
		t.Fatalf("output lacks IDs: %+v", out)
	}
	if out.Subject != "system:serviceaccount:hcplink:hcplink-operator" {
		t.Errorf("subject %q, want the ServiceAccount install renders", out.Subject)
	}
	if !strings.Contains(out.IdentityID, "/resourceGroups/lb-rg/") {
		t.Errorf("the identity %s is not in the load balancers' resource group", out.IdentityID)
	}
	wantFlags := []string{"--private-platform", "Azure", "--azure-workload-identity-client-id", out.ClientID, "--azure-tenant-id", out.TenantID,
		"--azure-subscription-id", sub, "--azure-pls-resource-group", "lb-rg", "--azure-vnet-id", vnetID, "--namespace", "hcplink"}
	if !slices.Equal(out.InstallFlags, wantFlags) {
		t.Errorf("install flags %q, want %q", out.InstallFlags, wantFlags)
	}

	log.Reset()
	again, err := azureiam.CreateOperator(w.ctx, w.clients, &log, o)
	if err != nil {
		t.Fatal(err)
	}
	if again.ClientID != out.ClientID || again.RoleDefinitionID != out.RoleDefinitionID || !slices.Equal(again.RoleAssignmentIDs, out.RoleAssignmentIDs) {
		t.Errorf("the second run made other things: %+v, then %+v", out, again)
	}
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if !strings.HasSuffix(line, ": exists") {
			t.Errorf("the second run changed something: %q", line)
		}
	}

	// The role: exactly the management operator's actions, assigned to the
	// identity at the two groups and nowhere else in the subscription.
	defs, _ := armauthorization.NewRoleDefinitionsClient(w.clients.Credential, w.clients.Options)
	role, err := defs.GetByID(w.ctx, out.RoleDefinitionID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, a := range role.Properties.Permissions[0].Actions {
		actions = append(actions, *a)
	}
	slices.Sort(actions)
	if want := azurecloud.Actions(azurecloud.ManagementOperator); !slices.Equal(actions, want) {
		t.Errorf("the role grants %v, want exactly %v", actions, want)
	}
	wantScopes := []string{"/subscriptions/" + sub + "/resourceGroups/lb-rg", "/subscriptions/" + sub + "/resourceGroups/vnet-rg"}
	if got := w.assignmentScopes(out.PrincipalID); !slices.Equal(got, wantScopes) {
		t.Errorf("the identity's role is assigned at %v, want exactly %v", got, wantScopes)
	}

	// The operator's ServiceAccount signs in and may list its load
	// balancers; the subscription's are not its to read; no other
	// ServiceAccount signs in as it.
	cred, err := w.signInAs(out.ClientID, out.TenantID, out.Subject)
	if err != nil {
		t.Fatalf("the management operator cannot sign in: %v", err)
	}
	lbs, _ := armnetwork.NewLoadBalancersClient(sub, cred, w.clients.Options)
	if _, err := lbs.NewListPager("lb-rg", nil).NextPage(w.ctx); err != nil {
		t.Errorf("the identity cannot list the load balancers of its group: %v", err)
	}
	if _, err := lbs.NewListAllPager(nil).NextPage(w.ctx); !azurecloud.IsAccessDenied(err) {
		t.Errorf("listing the subscription's load balancers: %v, want access denied (the role is never assigned at subscription scope)", err)
	}
	for _, other := range []string{"system:serviceaccount:hcplink:default", "system:serviceaccount:other:hcplink-operator"} {
		if _, err := w.signInAs(out.ClientID, out.TenantID, other); err == nil {
			t.Errorf("%s signs in as the management operator", other)
		}
	}

	log.Reset()
	if err := azureiam.DestroyOperator(w.ctx, w.clients, &log, o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"role assignment at " + wantScopes[0] + ": deleted", "role assignment at " + wantScopes[1] + ": deleted",
		": deleted\nmanaged identity hcplink-operator: deleted"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("destroy did not say %q:\n%s", want, log.String())
		}
	}
	identities, _ := armmsi.NewUserAssignedIdentitiesClient(sub, w.clients.Credential, w.clients.Options)
	if _, err := identities.Get(w.ctx, "lb-rg", azureiam.DefaultOperatorIdentity, nil); !azurecloud.IsNotFound(err) {
		t.Errorf("the identity is still there: %v", err)
	}
	if _, err := defs.GetByID(w.ctx, out.RoleDefinitionID, nil); !absent(err) {
		t.Errorf("the role is still there: %v", err)
	}
	if got := w.assignmentScopes(out.PrincipalID); len(got) != 0 {
		t.Errorf("assignments left at %v", got)
	}
	if _, err := w.signInAs(out.ClientID, out.TenantID, out.Subject); err == nil {
		t.Error("the deleted identity still signs in")
	}
	if err := azureiam.DestroyOperator(w.ctx, w.clients, &log, o); err != nil {
		t.Errorf("destroying again: %v", err)
	}
}

// TestForeignOperatorIdentityIsNeverAdoptedNorDeleted: an identity named
// like the management operator's that hcplink did not make for it (here:
// untagged, and a control-plane operator's) is refused by create and left
// by destroy.
func TestForeignOperatorIdentityIsNeverAdoptedNorDeleted(t *testing.T) {
	for name, tags := range map[string]map[string]*string{
		"untagged":                   nil,
		"a control-plane operator's": {azureiam.TagCreatedBy: to.Ptr(azureiam.TagCreatedByValue), azureiam.TagComponent: to.Ptr(string(azurecloud.ControlPlaneOperator))},
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			o := operatorOptions()
			identities, _ := armmsi.NewUserAssignedIdentitiesClient(sub, w.clients.Credential, w.clients.Options)
			if _, err := identities.CreateOrUpdate(w.ctx, "lb-rg", azureiam.DefaultOperatorIdentity, armmsi.Identity{Location: to.Ptr("eastus"), Tags: tags}, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := azureiam.CreateOperator(w.ctx, w.clients, nil, o); err == nil || !strings.Contains(err.Error(), "refusing to adopt") {
				t.Errorf("create: %v, want a refusal", err)
			}
			if err := azureiam.DestroyOperator(w.ctx, w.clients, nil, o); err != nil {
				t.Fatal(err)
			}
			if _, err := identities.Get(w.ctx, "lb-rg", azureiam.DefaultOperatorIdentity, nil); err != nil {
				t.Errorf("destroy deleted an identity it did not make: %v", err)
			}
		})
	}
}

// assignmentScopes are the scopes of every role assignment the principal
// holds in the subscription, sorted.
func (w *world) assignmentScopes(principalID string) []string {
	w.t.Helper()
	assignments, _ := armauthorization.NewRoleAssignmentsClient(sub, w.clients.Credential, w.clients.Options)
	var scopes []string
	pager := assignments.NewListForSubscriptionPager(nil)
	for pager.More() {
		page, err := pager.NextPage(w.ctx)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, a := range page.Value {
			if p := a.Properties; p != nil && strings.EqualFold(deref(p.PrincipalID), principalID) {
				scopes = append(scopes, deref(p.Scope))
			}
		}
	}
	slices.Sort(scopes)
	return scopes
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
