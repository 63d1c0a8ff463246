package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/controlplane"
	awsplatform "github.com/hcplink/hcplink/internal/controlplane/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/controlplane/platform/azure"
	"github.com/hcplink/hcplink/internal/install"
	"github.com/hcplink/hcplink/internal/operator/hostedcluster"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
)

// TestWorkerAndClusterIDFlags checks the flags the operators' worker
// counts and the management cluster's ID come from: present, with their
// defaults, and parsed.
func TestWorkerAndClusterIDFlags(t *testing.T) {
	tests := []struct {
		name    string
		cmd     *cobra.Command
		flag    string
		def     string
		setTo   string
		wantErr bool
	}{
		{name: "operator workers", cmd: newOperatorCommand(), flag: "max-concurrent-reconciles", def: "4", setTo: "8"},
		{name: "operator management cluster ID (empty: kube-system's UID)", cmd: newOperatorCommand(), flag: "management-cluster-id", def: "", setTo: "mc-eu-1"},
		{name: "control-plane operator workers", cmd: newControlPlaneOperatorCommand(), flag: "max-concurrent-reconciles", def: "2", setTo: "3"},
		{name: "operator workers must be a number", cmd: newOperatorCommand(), flag: "max-concurrent-reconciles", def: "4", setTo: "many", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.cmd.Flags().Lookup(tt.flag)
			if f == nil {
				t.Fatalf("no --%s flag", tt.flag)
			}
			if f.DefValue != tt.def {
				t.Errorf("--%s default = %q, want %q", tt.flag, f.DefValue, tt.def)
			}
			err := tt.cmd.Flags().Parse([]string{"--" + tt.flag + "=" + tt.setTo})
			if (err != nil) != tt.wantErr {
				t.Fatalf("parsing --%s=%s: %v", tt.flag, tt.setTo, err)
			}
			if !tt.wantErr && f.Value.String() != tt.setTo {
				t.Errorf("--%s = %q after parsing, want %q", tt.flag, f.Value.String(), tt.setTo)
			}
		})
	}
}

// TestDriftIntervalFlagsNameEachPlatformsDefault: both operators take one
// --drift-interval whose default is per platform, and say which.
func TestDriftIntervalFlagsNameEachPlatformsDefault(t *testing.T) {
	for _, cmd := range []*cobra.Command{newOperatorCommand(), newControlPlaneOperatorCommand()} {
		f := cmd.Flags().Lookup("drift-interval")
		if f == nil {
			t.Fatalf("%s has no --drift-interval", cmd.Name())
		}
		if !strings.Contains(f.Usage, "AWS 10m0s, Azure 5m0s, GCP 5m0s") {
			t.Errorf("%s --drift-interval does not name the per-platform defaults: %q", cmd.Name(), f.Usage)
		}
	}
	tests := []struct {
		name               string
		args               []string
		wantAWS, wantAzure time.Duration
	}{
		{"defaults", nil, 0, 0},
		{"one interval for either cloud", []string{"--drift-interval=2m"}, 2 * time.Minute, 2 * time.Minute},
		{"the older Azure flag still wins for Azure", []string{"--drift-interval=2m", "--azure-drift-interval=7m"}, 2 * time.Minute, 7 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := newControlPlaneOperatorCommand()
			if err := cmd.Flags().Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			var flags controlPlaneFlags
			flags.drift, _ = cmd.Flags().GetDuration("drift-interval")
			flags.azureDrift, _ = cmd.Flags().GetDuration("azure-drift-interval")
			settings := flags.settings(cmd.Flags().Changed("azure-drift-interval"))
			aws, azure := settings[awsplatform.Name].DriftInterval, settings[azureplatform.Name].DriftInterval
			if aws != tc.wantAWS || azure != tc.wantAzure {
				t.Fatalf("AWS %v, Azure %v; want %v, %v", aws, azure, tc.wantAWS, tc.wantAzure)
			}
		})
	}
}

// TestInstallRendersFlagsTheOperatorHas parses the operator container's
// arguments that install renders, for each platform, with the operator
// command's own flag set: a renamed or missing flag would crash-loop the
// installed operator.
func TestInstallRendersFlagsTheOperatorHas(t *testing.T) {
	for _, opts := range []install.Options{
		{PrivatePlatform: "AWS", AWS: install.AWSCredentials{Region: "us-east-1", SecretName: "creds"}, ManagementClusterID: "mc-1"},
		{PrivatePlatform: "Azure", Azure: install.AzureCredentials{SecretName: "sp", PLSResourceGroup: "mgmt-rg",
			VNetID:                     "/subscriptions/11111111-1111-4111-8111-111111111111/resourceGroups/mgmt-rg/providers/Microsoft.Network/virtualNetworks/mgmt",
			LoadBalancerConfigurations: []string{"kubernetes", "lb-2"}}},
		{PrivatePlatform: "GCP", GCP: install.GCPCredentials{Project: "hcp-management", Region: "us-central1", Network: "management",
			NATSubnets: []string{"psc-nat-a", "psc-nat-b"}, SecretName: "gsa-key"}},
		{},
	} {
		t.Run(opts.PrivatePlatform, func(t *testing.T) {
			objs, err := install.Objects(opts)
			if err != nil {
				t.Fatal(err)
			}
			var args []string
			for _, o := range objs {
				if d, ok := o.(*appsv1.Deployment); ok {
					args = d.Spec.Template.Spec.Containers[0].Args
				}
			}
			if len(args) == 0 || args[0] != "operator" {
				t.Fatalf("the Deployment's arguments %v do not start with the operator command", args)
			}
			cmd := newOperatorCommand()
			if err := cmd.Flags().Parse(args[1:]); err != nil {
				t.Fatalf("the operator refuses install's arguments %v: %v", args, err)
			}
			if rg := opts.Azure.PLSResourceGroup; rg != "" {
				if got := cmd.Flags().Lookup("azure-pls-resource-group").Value.String(); got != rg {
					t.Errorf("--azure-pls-resource-group = %q, want %q", got, rg)
				}
			}
			if vnet := opts.Azure.VNetID; vnet != "" {
				if got := cmd.Flags().Lookup("azure-vnet-id").Value.String(); got != vnet {
					t.Errorf("--azure-vnet-id = %q, want %q", got, vnet)
				}
			}
			if opts.GCP.Project != "" {
				f := cmd.Flags()
				for flag, want := range map[string]string{"gcp-project": "hcp-management", "gcp-region": "us-central1", "gcp-network": "management",
					"gcp-nat-subnets": "[psc-nat-a,psc-nat-b]", "gcp-credentials-file": "/etc/hcplink/gcp/key.json"} {
					if got := f.Lookup(flag).Value.String(); got != want {
						t.Errorf("--%s = %q, want %q", flag, got, want)
					}
				}
			}
			if c := opts.Azure.LoadBalancerConfigurations; len(c) > 0 {
				if got := cmd.Flags().Lookup("azure-load-balancer-configurations").Value.String(); got != "[kubernetes,lb-2]" {
					t.Errorf("--azure-load-balancer-configurations = %s, want [kubernetes,lb-2]", got)
				}
			}
		})
	}
}

// TestAzureOperatorConfig checks what --azure-pls-resource-group and
// --azure-vnet-id add to the environment's Azure configuration.
func TestAzureOperatorConfig(t *testing.T) {
	env := map[string]string{"AZURE_SUBSCRIPTION_ID": "sub-1", "AZURE_CLIENT_ID": "client-1"}
	const vnet = "/subscriptions/11111111-1111-4111-8111-111111111111/resourceGroups/mgmt-rg/providers/Microsoft.Network/virtualNetworks/mgmt"
	tests := []struct {
		name, platform, rg, vnet string
		wantRG                   string // "" with wantNil: the environment alone
		wantNil, wantErr         bool
	}{
		{name: "not given", platform: "Azure", wantNil: true},
		{name: "given", platform: "Azure", rg: "mgmt-rg", wantRG: "mgmt-rg"},
		{name: "with the VNet", platform: "Azure", rg: "mgmt-rg", vnet: vnet, wantRG: "mgmt-rg"},
		{name: "the VNet alone", platform: "Azure", vnet: vnet},
		{name: "a VNet ID that is not one", platform: "Azure", rg: "mgmt-rg", vnet: "mgmt", wantErr: true},
		{name: "given without Azure", platform: "AWS", rg: "mgmt-rg", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := azureOperatorConfig(tt.platform, tt.rg, tt.vnet, func(k string) string { return env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if (cfg == nil) != tt.wantNil {
				t.Fatalf("config = %+v, want nil %v", cfg, tt.wantNil)
			}
			if cfg != nil && (cfg.ResourceGroup != tt.wantRG || cfg.VNetID != tt.vnet || cfg.SubscriptionID != "sub-1" || cfg.ClientID != "client-1") {
				t.Errorf("config = %+v, want resource group %q over the environment's subscription and client", cfg, tt.wantRG)
			}
		})
	}
}

func TestCheckLoadBalancerConfigurations(t *testing.T) {
	long := strings.Repeat("a", 71)
	for _, tc := range []struct {
		name     string
		platform string
		names    []string
		wantErr  string
	}{
		{"none is fine anywhere", "AWS", nil, ""},
		{"names on Azure", "Azure", []string{"kubernetes", "lb-2", "lb_3"}, ""},
		{"the longest name that still fits with -internal", "Azure", []string{long}, ""},
		{"too long for -internal", "Azure", []string{long + "a"}, "not a load-balancer name"},
		{"another platform", "AWS", []string{"kubernetes"}, "needs --private-platform=Azure"},
		{"a name Azure refuses", "Azure", []string{"-lb"}, "not a load-balancer name"},
		{"a name ending in a period", "Azure", []string{"lb."}, "not a load-balancer name"},
		{"named twice", "Azure", []string{"lb-2", "LB-2"}, "named twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkLoadBalancerConfigurations(tc.platform, tc.names)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestGCPOperatorOptions checks the --gcp-* flags against the platform and
// what --gcp-credentials-file adds to the environment's configuration.
func TestGCPOperatorOptions(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "key.json")
	person := filepath.Join(dir, "person.json")
	if err := os.WriteFile(key, []byte(`{"type":"service_account","client_email":"op@hcp-management.iam.gserviceaccount.com"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(person, []byte(`{"type":"authorized_user"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{gcpcloud.EnvComputeEndpoint: "https://cloudsim.example/compute/v1/"}
	mgmt := gcpplatform.Options{Project: "hcp-management", Region: "us-central1", Network: "management"}
	tests := []struct {
		name, platform, file string
		given                gcpplatform.Options
		wantKey              bool
		wantErr              string
	}{
		{name: "nothing given, any platform", platform: "AWS"},
		{name: "ADC", platform: "GCP", given: mgmt},
		{name: "a key file over the environment's endpoints", platform: "GCP", given: mgmt, file: key, wantKey: true},
		{name: "flags without GCP", platform: "Azure", given: mgmt, wantErr: "need --private-platform=GCP"},
		{name: "a key file without GCP", platform: "None", file: key, wantErr: "need --private-platform=GCP"},
		{name: "a key file that is not there", platform: "GCP", given: mgmt, file: filepath.Join(dir, "missing.json"), wantErr: "--gcp-credentials-file"},
		{name: "a person's credentials", platform: "GCP", given: mgmt, file: person, wantErr: `of type "authorized_user"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gcpOperatorOptions(tt.platform, tt.given, tt.file, func(k string) string { return env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Project != tt.given.Project || got.Network != tt.given.Network {
				t.Errorf("options %+v lost the flags %+v", got, tt.given)
			}
			if hasKey := len(got.Cloud.CredentialsJSON) > 0; hasKey != tt.wantKey {
				t.Errorf("key read: %v, want %v", hasKey, tt.wantKey)
			}
			if tt.wantKey && got.Cloud.ComputeEndpoint != env[gcpcloud.EnvComputeEndpoint] {
				t.Errorf("compute endpoint %q, want the environment's", got.Cloud.ComputeEndpoint)
			}
		})
	}
}

// TestControlPlaneOperatorTakesTheRenderedArgs parses the arguments the
// management operator renders into each cluster's control-plane operator
// Deployment with the command's own flag set: a renamed flag, or a
// platform the control-plane operator does not know, would crash-loop
// every cluster's operator.
func TestControlPlaneOperatorTakesTheRenderedArgs(t *testing.T) {
	for _, typ := range []hcplinkv1beta1.PlatformType{hcplinkv1beta1.AWSPlatform, hcplinkv1beta1.AzurePlatform, hcplinkv1beta1.GCPPlatform} {
		t.Run(string(typ), func(t *testing.T) {
			hc := &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "clusters", Name: "demo"},
				Spec: hcplinkv1beta1.HostedClusterSpec{Platform: hcplinkv1beta1.PlatformSpec{Type: typ}}}
			args := hostedcluster.ControlPlaneOperatorArgs(hc)
			cmd := newControlPlaneOperatorCommand()
			if len(args) == 0 || args[0] != cmd.Name() {
				t.Fatalf("the rendered arguments %v do not start with %s", args, cmd.Name())
			}
			if err := cmd.Flags().Parse(args[1:]); err != nil {
				t.Fatalf("the control-plane operator refuses the rendered arguments %v: %v", args, err)
			}
			platform := cmd.Flags().Lookup("platform").Value.String()
			if platform != string(typ) {
				t.Errorf("--platform = %q, want %q", platform, typ)
			}
			if served, err := controlplane.Serving(controlplane.Platforms(), platform); err != nil || len(served) != 1 {
				t.Errorf("--platform %s serves %d platforms (%v), want 1", platform, len(served), err)
			}
		})
	}
}
