package install

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	azureFile := []byte(`{"subscriptionId":"s","tenantId":"t","clientId":"c","clientSecret":"x"}`)
	tests := []struct {
		name string
		opts Options
		want string // "" for valid
	}{
		{name: "no private platform", opts: Options{}},
		{name: "AWS with a role", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "us-east-1", RoleARN: "arn:aws:iam::1:role/op"}}},
		{name: "AWS with a file", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "us-east-1", CredentialsFile: []byte("[default]")}}},
		{name: "AWS with a secret", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "us-east-1", SecretName: "creds"}}},
		{name: "AWS without region", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{SecretName: "creds"}}, want: "--aws-private-region is required"},
		{name: "AWS without credentials", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "us-east-1"}}, want: "exactly one of --aws-private-creds"},
		{name: "AWS with two credentials", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "us-east-1", SecretName: "a", RoleARN: "arn:aws:iam::1:role/op"}}, want: "exactly one"},
		{name: "AWS role that is no ARN", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "us-east-1", RoleARN: "operator"}}, want: "is not an ARN"},
		{name: "AWS with Azure flags", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "r", SecretName: "a"}, Azure: AzureCredentials{SecretName: "b"}}, want: "need --private-platform Azure"},
		{name: "Azure with a file", opts: Options{PrivatePlatform: "Azure", Azure: AzureCredentials{CredentialsFile: azureFile}}},
		{name: "Azure with a secret", opts: Options{PrivatePlatform: "Azure", Azure: AzureCredentials{SecretName: "sp"}}},
		{name: "Azure workload identity", opts: Options{PrivatePlatform: "Azure", Azure: AzureCredentials{WorkloadIdentityClientID: "c", TenantID: "t", SubscriptionID: "s"}}},
		{name: "Azure workload identity without subscription", opts: Options{PrivatePlatform: "Azure", Azure: AzureCredentials{WorkloadIdentityClientID: "c", TenantID: "t"}}, want: "--azure-subscription-id"},
		{name: "Azure without credentials", opts: Options{PrivatePlatform: "Azure"}, want: "exactly one of --azure-creds"},
		{name: "Azure with a bad file", opts: Options{PrivatePlatform: "Azure", Azure: AzureCredentials{CredentialsFile: []byte(`{"clientId":"c"}`)}}, want: "lacks subscriptionId, tenantId, clientSecret"},
		{name: "Azure with AWS flags", opts: Options{PrivatePlatform: "Azure", Azure: AzureCredentials{SecretName: "sp"}, AWS: AWSCredentials{Region: "r"}}, want: "need --private-platform AWS"},
		{name: "credentials without a platform", opts: Options{AWS: AWSCredentials{SecretName: "a"}}, want: "without --private-platform"},
		{name: "GCP with a key file", opts: Options{PrivatePlatform: "GCP", GCP: gcpPlace(GCPCredentials{KeyFile: gcpKey})}},
		{name: "GCP with a secret", opts: Options{PrivatePlatform: "GCP", GCP: gcpPlace(GCPCredentials{SecretName: "gsa-key", NATSubnets: []string{"psc-nat-a"}})}},
		{name: "GCP with GKE workload identity", opts: Options{PrivatePlatform: "GCP", GCP: gcpPlace(GCPCredentials{WorkloadIdentityServiceAccount: gcpOperatorEmail})}},
		{name: "GCP without its place", opts: Options{PrivatePlatform: "GCP", GCP: GCPCredentials{SecretName: "gsa-key"}}, want: "--gcp-project, --gcp-region, --gcp-network not set"},
		{name: "GCP with a zone for a region", opts: Options{PrivatePlatform: "GCP", GCP: GCPCredentials{Project: "hcp-management", Region: "us-central1-a", Network: "management", SecretName: "k"}}, want: "--gcp-region"},
		{name: "GCP without credentials", opts: Options{PrivatePlatform: "GCP", GCP: gcpPlace(GCPCredentials{})}, want: "exactly one of --gcp-creds"},
		{name: "GCP with two credentials", opts: Options{PrivatePlatform: "GCP", GCP: gcpPlace(GCPCredentials{SecretName: "k", WorkloadIdentityServiceAccount: gcpOperatorEmail})}, want: "exactly one of --gcp-creds"},
		{name: "GCP with a person's credentials", opts: Options{PrivatePlatform: "GCP", GCP: gcpPlace(GCPCredentials{KeyFile: []byte(`{"type":"authorized_user"}`)})}, want: `of type "authorized_user"`},
		{name: "GCP workload identity that is no email", opts: Options{PrivatePlatform: "GCP", GCP: gcpPlace(GCPCredentials{WorkloadIdentityServiceAccount: "hcplink-operator"})}, want: "is not a service account email"},
		{name: "GCP with Azure flags", opts: Options{PrivatePlatform: "GCP", GCP: gcpPlace(GCPCredentials{SecretName: "k"}), Azure: AzureCredentials{SecretName: "sp"}}, want: "need --private-platform Azure"},
		{name: "AWS with GCP flags", opts: Options{PrivatePlatform: "AWS", AWS: AWSCredentials{Region: "r", SecretName: "a"}, GCP: GCPCredentials{Project: "hcp-management"}}, want: "the --gcp-* flags need --private-platform GCP"},
		{name: "GCP flags without a platform", opts: Options{GCP: GCPCredentials{SecretName: "k"}}, want: "without --private-platform"},
		{name: "unknown platform", opts: Options{PrivatePlatform: "OpenStack"}, want: "AWS, Azure, GCP or None"},
		{name: "negative replicas", opts: Options{Replicas: -1}, want: "--replicas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestParseAzureCredentialsNeverRepeatsTheFile(t *testing.T) {
	secret := "s3cr3t-value"
	for _, data := range []string{`{"clientSecret":"` + secret + `"}`, `clientSecret: ` + secret + "\nextra: 1\n", "not: [valid"} {
		_, err := parseAzureCredentials([]byte(data))
		if err == nil {
			t.Fatalf("parseAzureCredentials(%q) = nil error, want one", data)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error %q repeats the secret", err)
		}
	}
	sp, err := parseAzureCredentials([]byte("subscriptionId: s\ntenantId: t\nclientId: c\nclientSecret: x\n"))
	if err != nil || sp.ClientSecret != "x" {
		t.Errorf("parseAzureCredentials(YAML) = %+v, %v; want the four fields", sp, err)
	}
}
