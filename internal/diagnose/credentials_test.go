package diagnose

import (
	"context"
	"strings"
	"testing"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// TestAWSAccountFromConfig: valid keys give read clients labelled with the
// account cloudsim answers for; temporary keys STS never issued give an account that
// says why it is missing (its hops become "?"), never an error.
func TestAWSAccountFromConfig(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	ctx := context.Background()
	ok := AWSAccountFromConfig(ctx, f.Config(t, cloudsimtest.CustomerAccount))
	if !ok.usable() || ok.Label != "account "+cloudsimtest.CustomerAccount {
		t.Errorf("valid keys: usable %v, label %q, missing %q", ok.usable(), ok.Label, ok.Missing)
	}
	bad := AWSAccountFromConfig(ctx, f.ConfigWithKeys(t, "ASIANEVERISSUED00000", "secret", "token"))
	if bad.usable() || !strings.HasPrefix(bad.Missing, "the credentials were refused: ") {
		t.Errorf("unknown keys: usable %v, missing %q", bad.usable(), bad.Missing)
	}
}

// TestNoCustomerCredentials: without a customer profile or role the
// customer account is missing, with what to pass.
func TestNoCustomerCredentials(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE000000000")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1") // nothing listens: the management check fails fast
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	mgmt, cust := LoadAWSAccounts(context.Background(), AWSCredentials{Region: "us-east-1"})
	if !strings.Contains(cust.Missing, "--customer-profile or --customer-role-arn") {
		t.Errorf("customer: %q", cust.Missing)
	}
	if mgmt.usable() || !strings.HasPrefix(mgmt.Missing, "no management credentials") {
		t.Errorf("management: usable %v, missing %q", mgmt.usable(), mgmt.Missing)
	}
}
