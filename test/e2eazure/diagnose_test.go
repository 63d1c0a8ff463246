package e2eazure

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/google/uuid"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/diagnose"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// TestDiagnose is not parallel: it stops the management operator, so it
// runs alone, before the parallel scenarios. A healthy Private cluster is
// all ✓; the Private Link Service hidden from the guest subscription, then
// the api record deleted (both behind hcplink's back, with the operators
// stopped) each mark exactly their hop ✗ with its sentence, with no
// mutating call in any subscription; once the operators run again,
// diagnose sees the repair. Diagnose runs throughout as a service principal
// holding only a custom role of diagnose's Azure actions, at the management
// subscription and the guest resource group: no read is refused.
func TestDiagnose(t *testing.T) {
	ctx := context.Background()
	dgUseReadOnlyPrincipal(t)
	began := time.Now()
	c := createCluster(t, "diagnose", hcplinkv1beta1.AzureTopologyPrivate)
	c.waitAvailable(t)
	p := c.waitPath(t, c.fixture.SubnetID)
	t.Logf("available after %v", time.Since(began).Round(time.Second))
	start := suite.StopOperators(t, c.HCPNamespace)
	dgExpectAllPass(t, dgRun(t, c))

	plsName := *p.pls.Name
	dgSetVisibility(t, p.pls, []string{"33333333-3333-3333-3333-333333333333"})
	dgExpectOnlyBroken(t, dgRun(t, c), diagnose.HopPrivateLinkService, "Add the cluster's subscription to the visibility of private link service "+plsName)
	dgSetVisibility(t, p.pls, derefAll(p.pls.Properties.Visibility.Subscriptions))
	dgExpectAllPass(t, dgRun(t, c))

	zone := p.cr.Status.DNSZoneName
	if err := deleteARecord(ctx, zone, "api"); err != nil {
		t.Fatalf("deleting the api record: %v", err)
	}
	dgExpectOnlyBroken(t, dgRun(t, c), diagnose.HopARecords, "Set A record api of zone "+zone+" to "+p.cr.Status.PrivateEndpointIP)

	start()
	suite.Eventually(t, e2eutil.LongWait, "diagnose to find the record restored", func(ctx context.Context) error {
		r, err := diagnose.Diagnose(ctx, dgOptions(c))
		if err != nil {
			return err
		}
		if r.ExitCode() != diagnose.ExitHealthy {
			return fmt.Errorf("not healthy yet:\n%s", diagnose.Text(r))
		}
		return nil
	})
	t.Logf("repaired after %v", time.Since(began).Round(time.Second))
	c.deleteAndCheckNothingLeft(t)
}

// dgSetVisibility writes the Private Link Service back with another
// visibility, as someone with the portal would.
func dgSetVisibility(t *testing.T, pls *armnetwork.PrivateLinkService, subscriptions []string) {
	t.Helper()
	ctx := context.Background()
	rid, err := parse(*pls.ID)
	if err != nil {
		t.Fatal(err)
	}
	body := *pls
	props := *pls.Properties
	props.Visibility = &armnetwork.PrivateLinkServicePropertiesVisibility{}
	for _, s := range subscriptions {
		props.Visibility.Subscriptions = append(props.Visibility.Subscriptions, &s)
	}
	body.Properties = &props
	poller, err := network(rid.SubscriptionID).NewPrivateLinkServicesClient().BeginCreateOrUpdate(ctx, rid.ResourceGroupName, rid.Name, body, nil)
	if err == nil {
		_, err = poller.PollUntilDone(ctx, nil)
	}
	if err != nil {
		t.Fatalf("setting the visibility of %s to %v: %v", rid.Name, subscriptions, err)
	}
}

// dgReader is the read-only identity diagnose runs as in TestDiagnose.
var dgReader azcore.TokenCredential

// dgUseReadOnlyPrincipal registers a service principal and gives it, at
// the management subscription and at the guest resource group, a custom
// role of exactly diagnose's Azure actions (made through armauthorization,
// as an administrator would with az role definition create).
func dgUseReadOnlyPrincipal(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	sp, err := env.Cloud.Azure.AddServicePrincipal(env.AzureTenantID, "hcplink-diagnose")
	if err != nil {
		t.Fatalf("registering diagnose's service principal: %v", err)
	}
	defs, err := armauthorization.NewRoleDefinitionsClient(env.AzureAdmin, env.AzureClientOptions)
	if err != nil {
		t.Fatal(err)
	}
	assignments, err := armauthorization.NewRoleAssignmentsClient(env.AzureManagement.SubscriptionID, env.AzureAdmin, env.AzureClientOptions)
	if err != nil {
		t.Fatal(err)
	}
	scopes := []string{
		"/subscriptions/" + env.AzureManagement.SubscriptionID,
		"/subscriptions/" + env.AzureGuest.SubscriptionID + "/resourceGroups/" + env.AzureGuest.ResourceGroup,
	}
	role := azurecloud.CustomRole(azurecloud.Diagnose, scopes...)
	def, err := defs.CreateOrUpdate(ctx, scopes[0], uuid.NewString(), armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName: to.Ptr(role.Name), RoleType: to.Ptr("CustomRole"), Description: to.Ptr(role.Description),
		Permissions:      []*armauthorization.Permission{{Actions: to.SliceOfPtrs(role.Actions...), NotActions: []*string{}}},
		AssignableScopes: to.SliceOfPtrs(role.AssignableScopes...),
	}}, nil)
	if err != nil {
		t.Fatalf("creating diagnose's role: %v", err)
	}
	for _, scope := range scopes {
		if _, err := assignments.Create(ctx, scope, uuid.NewString(), armauthorization.RoleAssignmentCreateParameters{Properties: &armauthorization.RoleAssignmentProperties{
			PrincipalID: to.Ptr(sp.ObjectID), RoleDefinitionID: def.ID, PrincipalType: to.Ptr(armauthorization.PrincipalTypeServicePrincipal),
		}}, nil); err != nil {
			t.Fatalf("assigning diagnose's role at %s: %v", scope, err)
		}
	}
	dgReader, err = azidentity.NewClientSecretCredential(sp.TenantID, sp.ClientID, sp.ClientSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: env.AzureClientOptions.ClientOptions, DisableInstanceDiscovery: true}) // cloudsim is the authority
	if err != nil {
		t.Fatalf("signing in as diagnose's service principal: %v", err)
	}
}

func dgOptions(c *cluster) diagnose.Options {
	return diagnose.Options{Kube: env.Client, Namespace: c.Namespace, Name: c.Name,
		Azure: diagnose.AzureClients{Credential: dgReader, Options: env.AzureClientOptions}}
}

// dgExpectNoRefusal fails the test when a hop could not be read because
// the role lacks an action (AuthorizationFailed, or its linked variant).
func dgExpectNoRefusal(t *testing.T, r diagnose.Report) {
	t.Helper()
	for _, h := range r.Hops {
		if text := h.Seen + " " + h.Why; strings.Contains(text, "AuthorizationFailed") || strings.Contains(text, "lacks the permission") {
			t.Fatalf("diagnose's role lacks an action: %s: %s\nadd it to diagnose's table (internal/diagnose/permissions.go)", h.Name, text)
		}
	}
}

// dgRun diagnoses the cluster and fails the test if any subscription saw
// a mutating call meanwhile (the test runs alone, its operators stopped).
func dgRun(t *testing.T, c *cluster) diagnose.Report {
	t.Helper()
	before := dgMutatingCalls()
	r, err := diagnose.Diagnose(context.Background(), dgOptions(c))
	if err != nil {
		t.Fatalf("diagnose: %v", err)
	}
	if after := dgMutatingCalls(); after != before {
		t.Fatalf("diagnose made %d mutating calls", after-before)
	}
	dgExpectNoRefusal(t, r)
	return r
}

func dgMutatingCalls() int64 { return sim.Totals(env.Cloud.Counters.Snapshot()).Mutating }

func dgExpectAllPass(t *testing.T, r diagnose.Report) {
	t.Helper()
	if err := e2eutil.AllPass(r, 10); err != nil {
		t.Fatal(err)
	}
}

func dgExpectOnlyBroken(t *testing.T, r diagnose.Report, hop, fix string) {
	t.Helper()
	f, err := e2eutil.OnlyBroken(r, hop, "", fix)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s ✗ seen %q: %s", f.Name, f.Seen, f.Fix)
}
