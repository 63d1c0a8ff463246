package install

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func TestCredentialsWiring(t *testing.T) {
	tests := []struct {
		name       string
		opts       Options
		env        []string // names of the container's variables
		envFrom    string   // Secret the variables come from
		volume     string   // Secret mounted, or "token" for a projected token
		audience   string
		madeSecret []string // keys of the Secret install makes
	}{
		{name: "no platform"},
		{name: "AWS file", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "us-east-1", CredentialsFile: []byte("[default]\n")}},
			env: []string{"AWS_REGION", "AWS_SHARED_CREDENTIALS_FILE"}, volume: credentialsSecretName(), madeSecret: []string{"credentials"}},
		{name: "AWS secret", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "us-east-1", SecretName: "mine"}},
			env: []string{"AWS_REGION", "AWS_SHARED_CREDENTIALS_FILE"}, volume: "mine"},
		{name: "AWS web identity", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "us-east-1", RoleARN: "arn:aws:iam::1:role/op"}},
			env: []string{"AWS_REGION", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE"}, volume: "token", audience: "sts.amazonaws.com"},
		{name: "Azure file", opts: Options{PrivatePlatform: "Azure", Azure: AzureCredentials{CredentialsFile: []byte("subscriptionId: s\ntenantId: t\nclientId: c\nclientSecret: x\n")}},
			envFrom: credentialsSecretName(), madeSecret: []string{"AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET", "AZURE_SUBSCRIPTION_ID", "AZURE_TENANT_ID"}},
		{name: "Azure secret with subscription", opts: Options{PrivatePlatform: "Azure", Azure: AzureCredentials{SecretName: "sp", SubscriptionID: "s"}},
			env: []string{"AZURE_SUBSCRIPTION_ID"}, envFrom: "sp"},
		{name: "Azure workload identity", opts: Options{PrivatePlatform: "Azure", Azure: AzureCredentials{WorkloadIdentityClientID: "c", TenantID: "t", SubscriptionID: "s"}},
			env: []string{"AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_FEDERATED_TOKEN_FILE", "AZURE_SUBSCRIPTION_ID"}, volume: "token", audience: "api://AzureADTokenExchange"},
		{name: "GCP key file", opts: Options{PrivatePlatform: "GCP", GCP: gcpPlace(GCPCredentials{KeyFile: gcpKey})}, volume: credentialsSecretName(), madeSecret: []string{"key.json"}},
		{name: "GCP secret", opts: Options{PrivatePlatform: "GCP", GCP: gcpPlace(GCPCredentials{SecretName: "gsa-key"})}, volume: "gsa-key"},
		{name: "GCP workload identity", opts: Options{PrivatePlatform: "GCP", GCP: gcpPlace(GCPCredentials{WorkloadIdentityServiceAccount: gcpOperatorEmail})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Objects(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var d *appsv1.Deployment
			var secret *corev1.Secret
			for _, o := range objs {
				switch o := o.(type) {
				case *appsv1.Deployment:
					d = o
				case *corev1.Secret:
					secret = o
				}
			}
			c := d.Spec.Template.Spec.Containers[0]
			var env []string
			for _, e := range c.Env {
				env = append(env, e.Name)
			}
			if !slices.Equal(env, tt.env) {
				t.Errorf("env = %v, want %v", env, tt.env)
			}
			var envFrom string
			if len(c.EnvFrom) == 1 {
				envFrom = c.EnvFrom[0].SecretRef.Name
			}
			if envFrom != tt.envFrom {
				t.Errorf("envFrom = %q, want %q", envFrom, tt.envFrom)
			}
			var volume, audience string
			for _, v := range d.Spec.Template.Spec.Volumes {
				switch {
				case v.Secret != nil:
					volume = v.Secret.SecretName
				case v.Projected != nil:
					volume, audience = "token", v.Projected.Sources[0].ServiceAccountToken.Audience
				}
			}
			if volume != tt.volume || audience != tt.audience {
				t.Errorf("volume = %q (audience %q), want %q (%q)", volume, audience, tt.volume, tt.audience)
			}
			var keys []string
			if secret != nil {
				for k := range secret.Data {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				if d.Spec.Template.Annotations[credentialsHashAnnotation] == "" {
					t.Error("the pod template has no credentials hash: a changed Secret would not roll the operator")
				}
			}
			if !slices.Equal(keys, tt.madeSecret) {
				t.Errorf("install's Secret has keys %v, want %v", keys, tt.madeSecret)
			}
		})
	}
}

var gcpKey = []byte(`{"type":"service_account","client_email":"` + gcpOperatorEmail + `"}`)

const gcpOperatorEmail = "hcplink-operator@hcp-management.iam.gserviceaccount.com"

// gcpPlace is c in the management project, region and network.
func gcpPlace(c GCPCredentials) GCPCredentials {
	c.Project, c.Region, c.Network = "hcp-management", "us-central1", "management"
	return c
}

// On GCP the operator is told its place by flags, and its key file's path
// when it has one; with GKE workload identity its ServiceAccount names the
// Google service account and nothing is mounted.
func TestGCPWiring(t *testing.T) {
	for _, tc := range []struct {
		name       string
		creds      GCPCredentials
		wantArgs   []string
		wantNoArgs []string
		wantSA     string
	}{
		{"a key file", gcpPlace(GCPCredentials{KeyFile: gcpKey, NATSubnets: []string{"psc-nat-a", "psc-nat-b"}}),
			[]string{"--gcp-project=hcp-management", "--gcp-region=us-central1", "--gcp-network=management", "--gcp-nat-subnets=psc-nat-a,psc-nat-b",
				"--gcp-credentials-file=/etc/hcplink/gcp/key.json"}, nil, ""},
		{"a Secret of the user's", gcpPlace(GCPCredentials{SecretName: "gsa-key"}), []string{"--gcp-credentials-file=/etc/hcplink/gcp/key.json"}, []string{"--gcp-nat-subnets"}, ""},
		{"GKE workload identity", gcpPlace(GCPCredentials{WorkloadIdentityServiceAccount: gcpOperatorEmail}), []string{"--gcp-project=hcp-management"},
			[]string{"--gcp-credentials-file", "--gcp-nat-subnets"}, gcpOperatorEmail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := Objects(Options{PrivatePlatform: "GCP", GCP: tc.creds})
			if err != nil {
				t.Fatal(err)
			}
			var args []string
			var sa *corev1.ServiceAccount
			for _, o := range objs {
				switch o := o.(type) {
				case *appsv1.Deployment:
					args = o.Spec.Template.Spec.Containers[0].Args
				case *corev1.ServiceAccount:
					sa = o
				}
			}
			joined := strings.Join(args, " ")
			for _, want := range tc.wantArgs {
				if !slices.Contains(args, want) {
					t.Errorf("args %v lack %s", args, want)
				}
			}
			for _, not := range tc.wantNoArgs {
				if strings.Contains(joined, not) {
					t.Errorf("args %v carry %s", args, not)
				}
			}
			if got := sa.Annotations["iam.gke.io/gcp-service-account"]; got != tc.wantSA {
				t.Errorf("ServiceAccount annotation iam.gke.io/gcp-service-account = %q, want %q", got, tc.wantSA)
			}
		})
	}
}

func TestRenderDirIsKustomizeFriendly(t *testing.T) {
	dir := t.TempDir()
	opts := Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "us-east-1", RoleARN: "arn:aws:iam::1:role/op"}}
	files, err := RenderDir(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Objects(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(objs)+1 {
		t.Fatalf("wrote %d files, want one per object (%d) and the kustomization", len(files), len(objs))
	}
	kustomization, err := os.ReadFile(filepath.Join(dir, kustomizationFile))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
	}
	if err := yaml.UnmarshalStrict(kustomization, &k); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	if k.Kind != "Kustomization" || !slices.Equal(k.Resources, files[:len(files)-1]) {
		t.Errorf("kustomization lists %v (kind %q), want every object file %v", k.Resources, k.Kind, files[:len(files)-1])
	}
	var stdout bytes.Buffer
	if err := Render(&stdout, opts); err != nil {
		t.Fatal(err)
	}
	for i, name := range k.Resources {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(data, &obj); err != nil || strings.HasPrefix(string(data), "---") || strings.Contains(string(data), "\n---\n") {
			t.Errorf("%s: want exactly one YAML object (error %v)", name, err)
		}
		metadata, _ := obj["metadata"].(map[string]any)
		if _, ok := obj["status"]; ok || metadata["creationTimestamp"] != nil {
			t.Errorf("%s: has a status or creationTimestamp, which server-side apply would claim", name)
		}
		if !strings.Contains(stdout.String(), string(data)) {
			t.Errorf("object %d (%s) differs between --render and --render-dir", i, name)
		}
	}
}
