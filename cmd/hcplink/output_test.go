package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/infra/awsiam"
)

// Every command that prints a result takes the same output flags: -o /
// --output with its formats and --output-file (issue 23, item 3).
func TestEveryResultCommandTakesTheOutputFlags(t *testing.T) {
	for name, tc := range map[string]struct {
		cmd     *cobra.Command
		formats string
	}{
		"create infra aws": {newCreateInfraAWSCommand(), "json"},
		"create iam aws":   {newCreateIAMAWSCommand(), "json"},
		"diagnose":         {newDiagnoseCommand(), "text"},
		"bench":            {newBenchCommand(), "table"},
		"soak":             {newSoakCommand(), "table"},
	} {
		t.Run(name, func(t *testing.T) {
			o := tc.cmd.Flags().Lookup("output")
			if o == nil || o.Shorthand != "o" || o.DefValue != tc.formats {
				t.Errorf("--output = %+v, want -o/--output defaulting to %s", o, tc.formats)
			}
			if tc.cmd.Flags().Lookup("output-file") == nil {
				t.Error("no --output-file")
			}
		})
	}
}

// create iam aws prints its result as JSON, YAML or text, to stdout or a
// file, and refuses an unknown format before it creates anything.
func TestCreateIAMAWSOutputFormats(t *testing.T) {
	cs := cloudsimtest.Start(t, cloudsim.Options{})
	args := []string{"--infra-id", "out-x1", "--namespace", "clusters", "--name", "demo", "--oidc-issuer-url", "https://oidc.example.com"}

	var fromYAML awsiam.Output
	if err := yaml.Unmarshal([]byte(runIAM(t, cs, true, append(args, "-o", "yaml")...)), &fromYAML); err != nil || fromYAML.ControlPlaneOperatorRoleARN == "" {
		t.Fatalf("-o yaml: %+v, %v", fromYAML, err)
	}
	text := runIAM(t, cs, true, append(args, "--output", "text")...)
	if !strings.Contains(text, "controlPlaneOperatorRoleARN") || !strings.Contains(text, fromYAML.ControlPlaneOperatorRoleARN) || strings.Contains(text, "{") {
		t.Errorf("--output text printed %q", text)
	}
	file := filepath.Join(t.TempDir(), "iam.yaml")
	if out := runIAM(t, cs, true, append(args, "-o", "yaml", "--output-file", file)...); out != "" {
		t.Errorf("stdout with --output-file: %q", out)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), "workerInstanceProfileName: out-x1-worker") {
		t.Errorf("--output-file holds %q (%v)", b, err)
	}

	t.Setenv("AWS_ENDPOINT_URL", cs.URL)
	cmd := newCreateIAMAWSCommand()
	var stderr bytes.Buffer
	cmd.SetArgs(append([]string{"-o", "xml"}, "--infra-id", "out-x2", "--namespace", "clusters", "--name", "other", "--oidc-issuer-url", "https://oidc.example.com"))
	cmd.SetOut(&stderr)
	cmd.SetErr(&stderr)
	cmd.SetContext(context.Background())
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), `--output "xml": use json, yaml, text`) {
		t.Fatalf("-o xml: %v", err)
	}
	roles, err := iam.NewFromConfig(cs.Config(t, cloudsimtest.CustomerAccount)).ListRoles(context.Background(), &iam.ListRolesInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range roles.Roles {
		if strings.HasPrefix(*r.RoleName, "out-x2") {
			t.Errorf("-o xml created role %s", *r.RoleName)
		}
	}
}
