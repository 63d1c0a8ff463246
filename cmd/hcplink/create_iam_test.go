package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/infra/awsiam"
)

// runIAM runs one iam command the way a user does: the standard AWS
// environment pointing at cloudsim.
func runIAM(t *testing.T, cs *cloudsimtest.Fixture, create bool, args ...string) string {
	t.Helper()
	t.Setenv("AWS_ENDPOINT_URL", cs.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", cloudsimtest.CustomerAccount)
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", cloudsimtest.Region)
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
	cmd := newDestroyIAMAWSCommand()
	if create {
		cmd = newCreateIAMAWSCommand()
	}
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	cmd.SetContext(context.Background())
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, errOut.String())
	}
	return out.String()
}

func TestCreateAndDestroyIAMAWSCommands(t *testing.T) {
	cs := cloudsimtest.Start(t, cloudsim.Options{})
	args := []string{"--infra-id", "cmd-x1", "--namespace", "clusters", "--name", "demo", "--oidc-issuer-url", "https://oidc.example.com"}
	var out awsiam.Output
	if err := json.Unmarshal([]byte(runIAM(t, cs, true, args...)), &out); err != nil {
		t.Fatalf("the output is not JSON: %v", err)
	}
	if !strings.HasSuffix(out.ControlPlaneOperatorRoleARN, ":role/cmd-x1-control-plane-operator") || out.OIDCProviderARN == "" || out.WorkerInstanceProfileName != "cmd-x1-worker" {
		t.Fatalf("output %+v", out)
	}
	runIAM(t, cs, false, "--infra-id", "cmd-x1", "--oidc-issuer-url", "https://oidc.example.com")
	roles, err := iam.NewFromConfig(cs.Config(t, cloudsimtest.CustomerAccount)).ListRoles(context.Background(), &iam.ListRolesInput{})
	if err != nil || len(roles.Roles) != 0 {
		t.Fatalf("roles after destroy: %v, %v", roles, err)
	}

	var policy struct{ Statement []struct{ Action []string } }
	if err := json.Unmarshal([]byte(runIAM(t, cs, true, "--cli")), &policy); err != nil || len(policy.Statement) != 1 || len(policy.Statement[0].Action) == 0 {
		t.Fatalf("--cli printed no policy: %+v, %v", policy, err)
	}
}

// TestCreateAndDestroyIAMAWSDiagnose: --diagnose makes diagnose's read-only
// user with a key in the credentials file, --operator with it is refused,
// and destroy --diagnose removes the user.
func TestCreateAndDestroyIAMAWSDiagnose(t *testing.T) {
	cs := cloudsimtest.Start(t, cloudsim.Options{})
	creds := filepath.Join(t.TempDir(), "diagnose.credentials")
	var out awsiam.OperatorOutput
	if err := json.Unmarshal([]byte(runIAM(t, cs, true, "--diagnose", "--credentials-file", creds)), &out); err != nil {
		t.Fatalf("the output is not JSON: %v", err)
	}
	if !strings.HasSuffix(out.UserARN, ":user/"+awsiam.DefaultDiagnoseUser) || out.CredentialsFile != creds {
		t.Fatalf("output %+v", out)
	}
	if _, err := os.Stat(creds); err != nil {
		t.Fatalf("no credentials file: %v", err)
	}
	cmd := newCreateIAMAWSCommand()
	cmd.SetArgs([]string{"--diagnose", "--operator"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err == nil {
		t.Fatal("--diagnose with --operator was accepted")
	}
	runIAM(t, cs, false, "--diagnose")
	_, err := iam.NewFromConfig(cs.Config(t, cloudsimtest.CustomerAccount)).GetUser(context.Background(), &iam.GetUserInput{UserName: aws.String(awsiam.DefaultDiagnoseUser)})
	var gone *iamtypes.NoSuchEntityException
	if !errors.As(err, &gone) {
		t.Fatalf("user after destroy --diagnose: %v, want NoSuchEntity", err)
	}
}
