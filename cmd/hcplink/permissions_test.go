package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	awsinfra "github.com/hcplink/hcplink/internal/infra/aws"
)

// runPermissions runs `hcplink permissions args...` and returns its output.
func runPermissions(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newPermissionsCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// TestPermissionsPrintsExactlyTheTables checks, for every identity, that the
// printed document grants exactly the actions of the table its code is
// tested against, and that --explain lists the same actions.
func TestPermissionsPrintsExactlyTheTables(t *testing.T) {
	tests := []struct {
		cloud, who string
		want       []string
	}{
		{"aws", "control-plane-operator", awscloud.Actions(awscloud.ControlPlaneOperator)},
		{"aws", "management-operator", awscloud.Actions(awscloud.ManagementOperator)},
		{"aws", "worker", awscloud.Actions(awscloud.Worker)},
		{"aws", "cli", awsinfra.Actions(awsinfra.CreateInfra, awsinfra.DestroyInfra)},
		{"aws", "diagnose", awscloud.Actions(awscloud.Diagnose)},
		{"azure", "management-operator", azurecloud.Actions(azurecloud.ManagementOperator)},
		{"azure", "control-plane-operator", azurecloud.Actions(azurecloud.ControlPlaneOperator)},
		{"azure", "diagnose", azurecloud.Actions(azurecloud.Diagnose)},
		{"gcp", "management-operator", gcpcloud.PermissionsOf(gcpcloud.ManagementOperator)},
		{"gcp", "control-plane-operator", gcpcloud.PermissionsOf(gcpcloud.ControlPlaneOperator)},
		{"gcp", "diagnose", gcpcloud.PermissionsOf(gcpcloud.Diagnose)},
	}
	for _, tt := range tests {
		t.Run(tt.cloud+"/"+tt.who, func(t *testing.T) {
			args := []string{tt.cloud, tt.who}
			if tt.cloud == "azure" {
				args = append(args, "--scope", "/subscriptions/s1")
			}
			out, err := runPermissions(t, args...)
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			var got []string
			switch tt.cloud {
			case "aws":
				var doc struct{ Statement []struct{ Action []string } }
				if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Statement) != 1 {
					t.Fatalf("not a one-statement policy (%v):\n%s", err, out)
				}
				got = doc.Statement[0].Action
			case "gcp":
				var role gcpcloud.CustomRole
				if err := json.Unmarshal([]byte(out), &role); err != nil || role.Stage != "GA" || role.Title == "" {
					t.Fatalf("not a custom role for gcloud iam roles create --file (%v):\n%s", err, out)
				}
				got = role.IncludedPermissions
			default:
				var role azurecloud.RoleDefinition
				if err := json.Unmarshal([]byte(out), &role); err != nil {
					t.Fatalf("not a role definition (%v):\n%s", err, out)
				}
				if !slices.Equal(role.AssignableScopes, []string{"/subscriptions/s1"}) {
					t.Errorf("assignable scopes %v, want the --scope given", role.AssignableScopes)
				}
				got = role.Actions
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("the document grants %v, want exactly the table's %v", got, tt.want)
			}
			explained, err := runPermissions(t, tt.cloud, tt.who, "--explain")
			if err != nil {
				t.Fatal(err)
			}
			var listed []string
			for _, line := range strings.Split(strings.TrimSpace(explained), "\n") {
				fields := strings.Fields(line)
				if len(fields) < 2 {
					t.Fatalf("--explain line %q has no reason", line)
				}
				listed = append(listed, fields[0])
			}
			slices.Sort(listed)
			if listed = slices.Compact(listed); !slices.Equal(listed, tt.want) {
				t.Errorf("--explain lists %v, want %v", listed, tt.want)
			}
		})
	}
}

func TestPermissionsRefusesAnUnknownIdentity(t *testing.T) {
	for _, args := range [][]string{{"aws", "admin"}, {"azure", "cli"}, {"aws"}, {"gcp", "admin"}, {"gcp"}} {
		if _, err := runPermissions(t, args...); err == nil {
			t.Errorf("permissions %v: no error", args)
		}
	}
}
