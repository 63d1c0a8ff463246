package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// TestInstalledOperatorParsesItsArguments renders install for each
// platform and parses the Deployment's arguments with the operator's own
// command: every flag install passes exists and takes its value.
func TestInstalledOperatorParsesItsArguments(t *testing.T) {
	azureCreds := filepath.Join(t.TempDir(), "azure.json")
	if err := os.WriteFile(azureCreds, []byte(`{"subscriptionId":"s","tenantId":"t","clientId":"c","clientSecret":"x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	gcpKey := filepath.Join(t.TempDir(), "gcp.json")
	if err := os.WriteFile(gcpKey, []byte(`{"type":"service_account","client_email":"hcplink-operator@hcp-management.iam.gserviceaccount.com"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		platform string
	}{
		{name: "no private platform", platform: "None"},
		{name: "AWS", args: []string{"--private-platform", "AWS", "--aws-private-region", "eu-west-1", "--aws-private-role-arn", "arn:aws:iam::1:role/op",
			"--management-cluster-id", "mc-1"}, platform: "AWS"},
		{name: "Azure", args: []string{"--private-platform", "Azure", "--azure-creds", azureCreds}, platform: "Azure"},
		{name: "GCP with a key file", args: []string{"--private-platform", "GCP", "--gcp-project", "hcp-management", "--gcp-region", "us-central1",
			"--gcp-network", "management", "--gcp-nat-subnets", "psc-nat-a,psc-nat-b", "--gcp-creds", gcpKey}, platform: "GCP"},
		{name: "GCP with GKE workload identity", args: []string{"--private-platform", "GCP", "--gcp-project", "hcp-management", "--gcp-region", "us-central1",
			"--gcp-network", "management", "--gcp-workload-identity-service-account", "hcplink-operator@hcp-management.iam.gserviceaccount.com"}, platform: "GCP"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := newRootCommand()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetArgs(append([]string{"install", "--render", "--image", "example.com/hcplink:1"}, tt.args...))
			if err := root.Execute(); err != nil {
				t.Fatal(err)
			}
			d := renderedDeployment(t, out.String())
			args := d.Spec.Template.Spec.Containers[0].Args
			if len(args) == 0 || args[0] != "operator" {
				t.Fatalf("the Deployment runs %v, want the operator subcommand", args)
			}
			op := newOperatorCommand()
			if err := op.ParseFlags(args[1:]); err != nil {
				t.Fatalf("the operator refuses install's arguments %v: %v", args[1:], err)
			}
			if err := op.ValidateRequiredFlags(); err != nil {
				t.Errorf("install's arguments %v: %v", args[1:], err)
			}
			if got := op.Flags().Lookup("private-platform").Value.String(); got != tt.platform {
				t.Errorf("--private-platform = %q, want %q", got, tt.platform)
			}
			if got := op.Flags().Lookup("control-plane-operator-image").Value.String(); got != "example.com/hcplink:1" {
				t.Errorf("--control-plane-operator-image = %q, want the operator's own image", got)
			}
		})
	}
}

func renderedDeployment(t *testing.T, rendered string) *appsv1.Deployment {
	t.Helper()
	for _, doc := range strings.Split(rendered, "\n---\n") {
		if !strings.Contains(doc, "kind: Deployment\n") {
			continue
		}
		d := &appsv1.Deployment{}
		if err := yaml.Unmarshal([]byte(doc), d); err != nil {
			t.Fatal(err)
		}
		if d.Kind == "Deployment" {
			return d
		}
	}
	t.Fatalf("no Deployment in the rendered manifests")
	return nil
}

func TestInstallRefusesContradictoryFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{args: []string{"--render", "--render-dir", "x"}, want: "not both"},
		{args: []string{"--render", "--dry-run"}, want: "--dry-run"},
		{args: []string{"--render", "--aws-private-creds", "/nonexistent/creds"}, want: "reading the --aws-private-creds file"},
		{args: []string{"--render", "--private-platform", "AWS"}, want: "--aws-private-region is required"},
		{args: []string{"--render", "--private-platform", "GCP", "--gcp-secret", "k"}, want: "--gcp-project, --gcp-region, --gcp-network not set"},
		{args: []string{"--render", "--gcp-creds", "/nonexistent/key.json"}, want: "reading the --gcp-creds file"},
	}
	for _, tt := range tests {
		root := newRootCommand()
		root.SetOut(&bytes.Buffer{})
		root.SetArgs(append([]string{"install"}, tt.args...))
		if err := root.Execute(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("install %v = %v, want an error about %q", tt.args, err, tt.want)
		}
	}
}
