package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/infra/gcpiam"
)

// runGCPIAM runs create or destroy iam gcp the way a user does, signed in
// as cloudsim's administrator with an access token and pointed at
// cloudsim. It returns stdout, stderr and the command's error.
func runGCPIAM(t *testing.T, cs *cloudsimtest.Fixture, cmd *cobra.Command, args ...string) (string, string, error) {
	t.Helper()
	t.Setenv(envAccessToken, gcp.AdminToken)
	t.Setenv(gcpiam.EnvIAMEndpoint, cs.URL+"/iam/")
	t.Setenv(gcpiam.EnvResourceManagerEndpoint, cs.URL+"/cloudresourcemanager/")
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	cmd.SetContext(context.Background())
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// The HostedCluster's CEL rules for the two values create iam gcp's output
// feeds it (api/v1beta1/gcp_types.go).
var (
	poolProviderRule = regexp.MustCompile(`^projects/[0-9]+/locations/global/workloadIdentityPools/[a-z0-9-]{4,32}/providers/[a-z0-9-]{4,32}$`)
	accountRule      = regexp.MustCompile(`^[a-z][-a-z0-9]{4,28}[a-z0-9]@[a-z][-a-z0-9]{4,28}[a-z0-9][.]iam[.]gserviceaccount[.]com$`)
)

// TestCreateIAMGCP: the JSON output's poolProvider and serviceAccount are
// what the HostedCluster takes; destroy removes the account; a flag of the
// other kind is refused before anything is called.
func TestCreateIAMGCP(t *testing.T) {
	cs := cloudsimtest.StartGCP(t, cloudsim.Options{})
	stdout, stderr, err := runGCPIAM(t, cs, newCreateIAMGCPCommand(), "--infra-id", "demo-x1", "--name", "demo",
		"--project-id", cloudsimtest.CustomerProject, "--oidc-issuer-url", "https://oidc.mgmt.example.com", "--output", "json")
	if err != nil {
		t.Fatalf("create iam gcp: %v\n%s", err, stderr)
	}
	var out gcpiam.Output
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("output is not JSON: %v: %s", err, stdout)
	}
	if !poolProviderRule.MatchString(out.PoolProvider) || !accountRule.MatchString(out.ServiceAccount) {
		t.Fatalf("output %+v: the HostedCluster would refuse its poolProvider or serviceAccount", out)
	}
	if !strings.Contains(stderr, "service account "+out.ServiceAccount+": created") {
		t.Fatalf("stderr does not say what was made:\n%s", stderr)
	}
	if _, stderr, err := runGCPIAM(t, cs, newDestroyIAMGCPCommand(), "--infra-id", "demo-x1", "--project-id", cloudsimtest.CustomerProject,
		"--oidc-issuer-url", "https://oidc.mgmt.example.com"); err != nil || !strings.Contains(stderr, "service account "+out.ServiceAccount+": deleted") {
		t.Fatalf("destroy iam gcp: %v\n%s", err, stderr)
	}
	_, _, err = runGCPIAM(t, cs, newCreateIAMGCPCommand(), "--infra-id", "demo-x2", "--name", "demo", "--project-id", cloudsimtest.CustomerProject,
		"--oidc-issuer-url", "https://oidc.mgmt.example.com", "--key-file", "k.json")
	if err == nil || !strings.Contains(err.Error(), "--key-file: add --operator") {
		t.Fatalf("--key-file without --operator: %v; want a refusal", err)
	}
}

// TestCreateIAMGCPOperator: --operator --key-file writes the key and says
// the install command with --gcp-creds.
func TestCreateIAMGCPOperator(t *testing.T) {
	cs := cloudsimtest.StartGCP(t, cloudsim.Options{})
	key := filepath.Join(t.TempDir(), "operator-key.json")
	stdout, stderr, err := runGCPIAM(t, cs, newCreateIAMGCPCommand(), "--operator", "--project-id", cloudsimtest.ManagementProject,
		"--key-file", key, "--output", "json")
	if err != nil {
		t.Fatalf("create iam gcp --operator: %v\n%s", err, stderr)
	}
	var out gcpiam.OperatorOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	want := "--private-platform GCP --gcp-project " + cloudsimtest.ManagementProject + " --gcp-creds " + key
	if strings.Join(out.InstallFlags, " ") != want || !strings.Contains(stderr, "hcplink install --image <image> "+want) {
		t.Fatalf("install flags %v, stderr:\n%s", out.InstallFlags, stderr)
	}
	installs(t, out.InstallFlags)
	stdout, stderr, err = runGCPIAM(t, cs, newCreateIAMGCPCommand(), "--operator", "--project-id", cloudsimtest.ManagementProject,
		"--workload-identity", "--output", "json")
	if err != nil {
		t.Fatalf("create iam gcp --operator --workload-identity: %v\n%s", err, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	if rendered := installs(t, out.InstallFlags); !strings.Contains(rendered, out.ServiceAccount) {
		t.Errorf("install with %v renders no mention of %s", out.InstallFlags, out.ServiceAccount)
	}
	if _, stderr, err := runGCPIAM(t, cs, newDestroyIAMGCPCommand(), "--operator", "--project-id", cloudsimtest.ManagementProject); err != nil ||
		!strings.Contains(stderr, "custom role projects/"+cloudsimtest.ManagementProject+"/roles/hcplinkManagementOperator: deleted") {
		t.Fatalf("destroy iam gcp --operator: %v\n%s", err, stderr)
	}
}

// installs renders install with create iam gcp --operator's flags and the
// place flags it cannot know, and fails if install refuses them.
func installs(t *testing.T, flags []string) string {
	t.Helper()
	root := newRootCommand()
	var rendered bytes.Buffer
	root.SetOut(&rendered)
	root.SetErr(&bytes.Buffer{})
	root.SetArgs(append(append([]string{"install", "--render", "--image", "example.com/hcplink:1"}, flags...),
		"--gcp-region", cloudsimtest.GCPRegion, "--gcp-network", "management"))
	if err := root.Execute(); err != nil {
		t.Fatalf("install refuses create iam gcp --operator's flags %v: %v", flags, err)
	}
	return rendered.String()
}
