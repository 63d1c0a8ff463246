package devenv

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcplink/hcplink/internal/install"
	"github.com/hcplink/hcplink/internal/operator"
)

// The management operator's GCP flags are those install's Deployment
// carries: the place as given, and the key file at the path the
// Deployment's Secret volume puts it, laid out as the kubelet would; read
// back they are the options the operator runs with.
func TestGCPOperatorFlagsComeFromInstallsDeployment(t *testing.T) {
	key := []byte(`{"type":"service_account","client_email":"hcplink-operator@mgmt-project-1.iam.gserviceaccount.com"}`)
	root := t.TempDir()
	for _, tc := range []struct {
		name  string
		gcp   install.GCPCredentials
		flags []string
	}{
		{"key file", install.GCPCredentials{Project: "mgmt-project-1", Region: GCPRegion, Network: "management", KeyFile: key}, []string{
			"--private-platform=GCP", "--gcp-project=mgmt-project-1", "--gcp-region=" + GCPRegion, "--gcp-network=management",
			"--gcp-credentials-file=" + filepath.Join(root, "key file")}},
		{"NAT subnetworks, workload identity", install.GCPCredentials{Project: "mgmt-project-1", Region: GCPRegion, Network: "management",
			NATSubnets: []string{"psc-nat-1", "psc-nat-2"}, WorkloadIdentityServiceAccount: "hcplink-operator@mgmt-project-1.iam.gserviceaccount.com"}, []string{
			"--private-platform=GCP", "--gcp-project=mgmt-project-1", "--gcp-region=" + GCPRegion, "--gcp-network=management",
			"--gcp-nat-subnets=psc-nat-1,psc-nat-2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(root, tc.name)
			flags, err := renderGCPOperatorFlags(install.Options{Namespace: operatorNamespace, PrivatePlatform: operator.PlatformGCP, GCP: tc.gcp}, dir)
			if err != nil {
				t.Fatal(err)
			}
			o, err := gcpOptionsFromFlags(flags)
			if err != nil {
				t.Fatal(err)
			}
			if o.Project != tc.gcp.Project || o.Region != tc.gcp.Region || o.Network != tc.gcp.Network ||
				!slices.Equal(o.NATSubnets, tc.gcp.NATSubnets) || string(o.Cloud.CredentialsJSON) != string(tc.gcp.KeyFile) {
				t.Fatalf("options read back %+v, want the place and key given to install", o)
			}
			// The key's file is wherever the Deployment mounts its Secret,
			// under dir.
			for i, f := range flags {
				if strings.HasPrefix(f, "--gcp-credentials-file="+dir+"/") {
					flags[i] = "--gcp-credentials-file=" + dir
				}
			}
			if !slices.Equal(flags, tc.flags) {
				t.Fatalf("flags\n%v\nwant\n%v", flags, tc.flags)
			}
		})
	}
	if _, err := gcpOptionsFromFlags([]string{"--private-platform=GCP", "--gcp-something-new=1"}); err == nil {
		t.Fatal("a flag install renders and devenv does not read was accepted")
	}
}
