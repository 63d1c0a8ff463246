package azureiam_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/msi/armmsi"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/infra/azureiam"
)

const (
	sub    = cloudsimtest.CustomerSubscription
	issuer = "https://oidc.mgmt.example.com/cluster"
)

type world struct {
	t       *testing.T
	ctx     context.Context
	f       *cloudsimtest.Fixture
	clients azureiam.Clients
	signer  *sim.Signer
}

func newWorld(t *testing.T) *world {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	w := &world{t: t, ctx: t.Context(), f: f, clients: azureiam.Clients{Credential: f.AzureAdminCredential(t), Options: f.AzureClientOptions()}, signer: sim.NewSigner()}
	f.Server.Azure.SetIssuerKeys(issuer, w.signer.JWKS())
	groups, err := armresources.NewResourceGroupsClient(sub, w.clients.Credential, w.clients.Options)
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range []string{"guest-rg", "vnet-rg", "lb-rg"} {
		if _, err := groups.CreateOrUpdate(w.ctx, rg, armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func options() azureiam.Options {
	return azureiam.Options{InfraID: "demo-x1", Namespace: "clusters", Name: "demo", IssuerURL: issuer,
		SubscriptionID: sub, ResourceGroup: "guest-rg", VNetResourceGroup: "vnet-rg", Location: "eastus"}
}

// signIn is the control-plane operator's sign-in: a token the kubelet
// would project for subject, exchanged at Entra ID by azidentity's
// workload identity credential.
func (w *world) signIn(out *azureiam.Output, subject string) (azcore.TokenCredential, error) {
	return w.signInAs(out.ClientID, out.TenantID, subject)
}

// signInAs signs in as the identity clientID of tenantID with a token
// projected for subject.
func (w *world) signInAs(clientID, tenantID, subject string) (azcore.TokenCredential, error) {
	now := time.Now()
	token, err := w.signer.Sign(map[string]any{"iss": issuer, "sub": subject, "aud": []string{"api://AzureADTokenExchange"},
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	if err != nil {
		return nil, err
	}
	path := filepath.Join(w.t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(token), 0o600); err != nil {
		return nil, err
	}
	cred, err := azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{
		ClientOptions: azcore.ClientOptions{Cloud: w.f.AzureCloud(), Transport: w.f.AzureHTTPClient()},
		ClientID:      clientID, TenantID: tenantID, TokenFilePath: path, DisableInstanceDiscovery: true,
	})
	if err != nil {
		return nil, err
	}
	_, err = cred.GetToken(w.ctx, policy.TokenRequestOptions{Scopes: []string{cloudsimtest.ARMAudience + "/.default"}})
	return cred, err
}

// TestCreateAndDestroy: create iam azure's identity signs in as exactly the
// cluster's control-plane operator and holds exactly its role at exactly
// the two resource groups; running again changes nothing; destroy leaves
// nothing, and running it again is fine.
func TestCreateAndDestroy(t *testing.T) {
	w := newWorld(t)
	o := options()
	var log bytes.Buffer
	out, err := azureiam.Create(w.ctx, w.clients, &log, o)
	if err != nil {
		t.Fatal(err)
	}
	if out.ClientID == "" || out.PrincipalID == "" || out.TenantID == "" || out.IdentityID == "" || out.FederatedCredentialID == "" || out.RoleDefinitionID == "" {
		t.Fatalf("output lacks IDs: %+v", out)
	}
	if out.Subject != "system:serviceaccount:clusters-demo:control-plane-operator" || len(out.RoleAssignmentIDs) != 2 {
		t.Fatalf("subject %q, assignments %v", out.Subject, out.RoleAssignmentIDs)
	}

	// Running again finds everything and writes nothing.
	log.Reset()
	again, err := azureiam.Create(w.ctx, w.clients, &log, o)
	if err != nil {
		t.Fatal(err)
	}
	if again.ClientID != out.ClientID || !slices.Equal(again.RoleAssignmentIDs, out.RoleAssignmentIDs) || again.RoleDefinitionID != out.RoleDefinitionID {
		t.Errorf("the second run made other things: %+v, then %+v", out, again)
	}
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if !strings.HasSuffix(line, ": exists") {
			t.Errorf("the second run changed something: %q", line)
		}
	}

	// The role: exactly the control-plane operator's actions, assignable
	// and assigned at the two groups only.
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
	if want := azurecloud.Actions(azurecloud.ControlPlaneOperator); !slices.Equal(actions, want) {
		t.Errorf("the role grants %v, want exactly %v", actions, want)
	}
	for _, id := range out.RoleAssignmentIDs {
		if !strings.Contains(id, "/resourceGroups/guest-rg/") && !strings.Contains(id, "/resourceGroups/vnet-rg/") {
			t.Errorf("assignment %s is not at a resource group of the cluster", id)
		}
	}

	// The cluster's control-plane operator signs in and may read its group;
	// any other ServiceAccount is refused.
	cred, err := w.signIn(out, out.Subject)
	if err != nil {
		t.Fatalf("the control-plane operator cannot sign in: %v", err)
	}
	endpoints, _ := armnetwork.NewPrivateEndpointsClient(sub, cred, w.clients.Options)
	if _, err := endpoints.NewListPager("guest-rg", nil).NextPage(w.ctx); err != nil {
		t.Errorf("the identity cannot list endpoints in its resource group: %v", err)
	}
	if _, err := endpoints.NewListBySubscriptionPager(nil).NextPage(w.ctx); !azurecloud.IsAccessDenied(err) {
		t.Errorf("listing the whole subscription: %v, want access denied (the role is never assigned at subscription scope)", err)
	}
	// cloudsim recorded both decisions for the identity's principal.
	if d := w.f.Server.Azure.Evaluations(out.PrincipalID)["Microsoft.Network/privateEndpoints/read"]; d.Allowed < 1 || d.Denied < 1 {
		t.Errorf("evaluations of Microsoft.Network/privateEndpoints/read = %+v, want one allowed (resource group) and one denied (subscription)", d)
	}
	if _, err := w.signIn(out, "system:serviceaccount:clusters-other:control-plane-operator"); err == nil {
		t.Error("another cluster's control-plane operator signs in as this identity")
	}

	if err := azureiam.Destroy(w.ctx, w.clients, &log, o); err != nil {
		t.Fatal(err)
	}
	identities, _ := armmsi.NewUserAssignedIdentitiesClient(sub, w.clients.Credential, w.clients.Options)
	if _, err := identities.Get(w.ctx, "guest-rg", "demo-x1-control-plane-operator", nil); !azurecloud.IsNotFound(err) {
		t.Errorf("the identity is still there: %v", err)
	}
	if _, err := defs.GetByID(w.ctx, out.RoleDefinitionID, nil); !absent(err) {
		t.Errorf("the role is still there: %v", err)
	}
	assignments, _ := armauthorization.NewRoleAssignmentsClient(sub, w.clients.Credential, w.clients.Options)
	for _, id := range out.RoleAssignmentIDs {
		if _, err := assignments.GetByID(w.ctx, id, nil); !absent(err) {
			t.Errorf("assignment %s is still there: %v", id, err)
		}
	}
	if _, err := w.signIn(out, out.Subject); err == nil {
		t.Error("the deleted identity still signs in")
	}
	if err := azureiam.Destroy(w.ctx, w.clients, &log, o); err != nil {
		t.Errorf("destroying again: %v", err)
	}
}

// TestForeignIdentityIsNeverAdoptedNorDeleted: an identity of the same name
// that hcplink did not make is refused by create and left by destroy.
func TestForeignIdentityIsNeverAdoptedNorDeleted(t *testing.T) {
	w := newWorld(t)
	o := options()
	identities, _ := armmsi.NewUserAssignedIdentitiesClient(sub, w.clients.Credential, w.clients.Options)
	if _, err := identities.CreateOrUpdate(w.ctx, "guest-rg", "demo-x1-control-plane-operator", armmsi.Identity{Location: to.Ptr("eastus")}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := azureiam.Create(w.ctx, w.clients, nil, o); err == nil || !strings.Contains(err.Error(), "refusing to adopt") {
		t.Errorf("create: %v, want a refusal", err)
	}
	if err := azureiam.Destroy(w.ctx, w.clients, nil, o); err != nil {
		t.Fatal(err)
	}
	if _, err := identities.Get(w.ctx, "guest-rg", "demo-x1-control-plane-operator", nil); err != nil {
		t.Errorf("destroy deleted an identity it did not make: %v", err)
	}
}

// absent: the resource is gone (Microsoft.Authorization names its own
// absence RoleDefinitionDoesNotExist, RoleAssignmentNotFound).
func absent(err error) bool {
	code := azurecloud.ErrorCode(err)
	return azurecloud.IsNotFound(err) || code == "RoleDefinitionDoesNotExist" || code == "RoleAssignmentNotFound"
}
