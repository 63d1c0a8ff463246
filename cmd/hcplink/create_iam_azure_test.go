package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"github.com/spf13/cobra"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/infra/azureiam"
)

// runAzureIAM runs create or destroy iam azure the way a user does: the
// AZURE_* environment pointing at cloudsim, as its administrator. It
// returns stdout and stderr.
func runAzureIAM(t *testing.T, cs *cloudsimtest.Fixture, cmd *cobra.Command, args ...string) (string, string) {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, cs.Server.CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	admin := cloudsimtest.AzureAdmin()
	for k, v := range map[string]string{
		azurecloud.EnvTenantID: admin.TenantID, azurecloud.EnvClientID: admin.ClientID, azurecloud.EnvClientSecret: admin.ClientSecret,
		azurecloud.EnvAuthorityHost: cs.URL + "/", azurecloud.EnvResourceManagerEndpoint: cs.URL,
		azurecloud.EnvResourceManagerAudience: cloudsimtest.ARMAudience, azurecloud.EnvCABundle: ca,
	} {
		t.Setenv(k, v)
	}
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	cmd.SetContext(context.Background())
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, errOut.String())
	}
	return out.String(), errOut.String()
}

// TestCreateIAMAzureOperatorOutputInstalls: create iam azure --operator's
// installFlags, given to install as they are, render an operator that
// signs in as exactly that identity with the ServiceAccount it trusts; the
// stderr line says the same; destroy --operator removes it.
func TestCreateIAMAzureOperatorOutputInstalls(t *testing.T) {
	cs := cloudsimtest.StartAzure(t, cloudsim.Options{})
	sub := cloudsimtest.ProviderSubscription
	groups, err := armresources.NewResourceGroupsClient(sub, cs.AzureAdminCredential(t), cs.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := groups.CreateOrUpdate(context.Background(), "mgmt-rg", armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := runAzureIAM(t, cs, newCreateIAMAzureCommand(), "--operator", "--subscription-id", sub,
		"--azure-pls-resource-group", "mgmt-rg", "--location", "eastus", "--oidc-issuer-url", "https://oidc.mgmt.example.com")
	var out azureiam.OperatorOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("the output is not JSON: %v\n%s", err, stdout)
	}
	if out.ClientID == "" || out.TenantID == "" || out.PrincipalID == "" || len(out.RoleAssignmentIDs) != 1 {
		t.Fatalf("output %+v", out)
	}
	if want := "hcplink install --image <image> " + strings.Join(out.InstallFlags, " "); !strings.Contains(stderr, want) {
		t.Errorf("stderr does not tell the install command %q:\n%s", want, stderr)
	}

	root := newRootCommand()
	var rendered bytes.Buffer
	root.SetOut(&rendered)
	root.SetArgs(append([]string{"install", "--render", "--image", "example.com/hcplink:1"}, out.InstallFlags...))
	if err := root.Execute(); err != nil {
		t.Fatalf("install refuses create iam azure --operator's flags %v: %v", out.InstallFlags, err)
	}
	d := renderedDeployment(t, rendered.String())
	env := map[string]string{}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	if env[azurecloud.EnvClientID] != out.ClientID || env[azurecloud.EnvTenantID] != out.TenantID || env[azurecloud.EnvSubscriptionID] != sub {
		t.Errorf("the operator's environment %v does not sign in as the identity %s of tenant %s in %s", env, out.ClientID, out.TenantID, sub)
	}
	if got := "system:serviceaccount:" + d.Namespace + ":" + d.Spec.Template.Spec.ServiceAccountName; got != out.Subject {
		t.Errorf("the operator runs as %s; the identity trusts %s", got, out.Subject)
	}
	if args := strings.Join(d.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "--azure-pls-resource-group=mgmt-rg") {
		t.Errorf("the operator's arguments %q lack its load balancers' resource group", args)
	}

	_, stderr = runAzureIAM(t, cs, newDestroyIAMAzureCommand(), "--operator", "--subscription-id", sub, "--azure-pls-resource-group", "mgmt-rg")
	if !strings.Contains(stderr, "managed identity "+azureiam.DefaultOperatorIdentity+": deleted") {
		t.Errorf("destroy --operator did not say it deleted the identity:\n%s", stderr)
	}
}

// TestCreateIAMAzureRefusesOperatorFlagsWithoutOperator: a management
// operator's flag on a cluster's identity would be silently ignored.
func TestCreateIAMAzureRefusesOperatorFlagsWithoutOperator(t *testing.T) {
	cmd := newCreateIAMAzureCommand()
	cmd.SetArgs([]string{"--infra-id", "x", "--azure-pls-resource-group", "rg"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "add --operator") {
		t.Errorf("err = %v, want a refusal naming --operator", err)
	}
}
