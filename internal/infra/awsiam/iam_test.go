package awsiam

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

const account = "222222222222"

func options(infraID string) Options {
	return Options{InfraID: infraID, IssuerURL: "https://oidc.example.com/mgmt", Namespace: "clusters", Name: "demo-" + infraID}
}

// entities lists every role, instance profile and OIDC provider of the
// account, by name (providers by ARN).
func entities(t *testing.T, client *iam.Client) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	roles, err := client.ListRoles(ctx, &iam.ListRolesInput{})
	if err != nil {
		t.Fatalf("ListRoles: %v", err)
	}
	for _, r := range roles.Roles {
		out = append(out, "role "+aws.ToString(r.RoleName))
	}
	profiles, err := client.ListInstanceProfiles(ctx, &iam.ListInstanceProfilesInput{})
	if err != nil {
		t.Fatalf("ListInstanceProfiles: %v", err)
	}
	for _, p := range profiles.InstanceProfiles {
		out = append(out, "profile "+aws.ToString(p.InstanceProfileName))
	}
	providers, err := client.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{})
	if err != nil {
		t.Fatalf("ListOpenIDConnectProviders: %v", err)
	}
	for _, p := range providers.OpenIDConnectProviderList {
		out = append(out, "provider "+aws.ToString(p.Arn))
	}
	return out
}

func inlinePolicy(t *testing.T, client *iam.Client, role string) string {
	t.Helper()
	got, err := client.GetRolePolicy(context.Background(), &iam.GetRolePolicyInput{RoleName: &role, PolicyName: &role})
	if err != nil {
		t.Fatalf("GetRolePolicy(%s): %v", role, err)
	}
	doc, _ := url.QueryUnescape(aws.ToString(got.PolicyDocument))
	return doc
}

func TestCreateTwiceThenDestroyLeavesNothing(t *testing.T) {
	ctx := context.Background()
	cs := cloudsimtest.Start(t, cloudsim.Options{})
	client := iam.NewFromConfig(cs.Config(t, account))
	o := options("x1")

	var log bytes.Buffer
	first, err := Create(ctx, client, &log, o)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	again, err := Create(ctx, client, &log, o)
	if err != nil {
		t.Fatalf("Create again: %v", err)
	}
	if *first != *again {
		t.Fatalf("re-running changed the output: %+v then %+v", first, again)
	}
	if n := len(entities(t, client)); n != 4 {
		t.Fatalf("after two creates: %v, want 2 roles, 1 profile, 1 provider", entities(t, client))
	}
	if got, want := inlinePolicy(t, client, controlPlaneOperatorRole("x1")), awscloud.Policy(awscloud.ControlPlaneOperator); got != want {
		t.Fatalf("CPO policy:\n%s\nwant the table's:\n%s", got, want)
	}
	role, err := client.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(controlPlaneOperatorRole("x1"))})
	if err != nil {
		t.Fatalf("GetRole: %v", err)
	}
	trust, _ := url.QueryUnescape(aws.ToString(role.Role.AssumeRolePolicyDocument))
	if want := awscloud.ControlPlaneOperatorTrustPolicy(first.OIDCProviderARN, "oidc.example.com/mgmt", "clusters", "demo-x1"); trust != want {
		t.Fatalf("CPO trust:\n%s\nwant:\n%s", trust, want)
	}
	for _, line := range []string{"OIDC provider created", "role x1-control-plane-operator created", "role x1-control-plane-operator found", "instance profile x1-worker created"} {
		if !strings.Contains(log.String(), line) {
			t.Fatalf("log lacks %q:\n%s", line, log.String())
		}
	}

	for range 2 { // destroy is safe to re-run
		if err := Destroy(ctx, client, &log, o); err != nil {
			t.Fatalf("Destroy: %v", err)
		}
	}
	if left := entities(t, client); len(left) != 0 {
		t.Fatalf("destroy left %v", left)
	}
}

func TestSharedOIDCProviderOutlivesTheFirstCluster(t *testing.T) {
	ctx := context.Background()
	cs := cloudsimtest.Start(t, cloudsim.Options{})
	client := iam.NewFromConfig(cs.Config(t, account))
	a, b := options("a1"), options("b1")
	outA, err := Create(ctx, client, nil, a)
	if err != nil {
		t.Fatalf("Create a: %v", err)
	}
	outB, err := Create(ctx, client, nil, b)
	if err != nil {
		t.Fatalf("Create b: %v", err)
	}
	if outA.OIDCProviderARN != outB.OIDCProviderARN {
		t.Fatalf("two providers for one issuer: %s, %s", outA.OIDCProviderARN, outB.OIDCProviderARN)
	}
	var log bytes.Buffer
	if err := Destroy(ctx, client, &log, a); err != nil {
		t.Fatalf("Destroy a: %v", err)
	}
	if !strings.Contains(log.String(), "role b1-control-plane-operator still trusts it") {
		t.Fatalf("the provider b's role trusts was not kept, or not said:\n%s", log.String())
	}
	if err := Destroy(ctx, client, nil, b); err != nil {
		t.Fatalf("Destroy b: %v", err)
	}
	if left := entities(t, client); len(left) != 0 {
		t.Fatalf("destroy left %v", left)
	}
}

func TestCreateRefusesBadOptionsBeforeAnyCall(t *testing.T) {
	for _, o := range []Options{
		{IssuerURL: "https://i", Namespace: "n", Name: "c"},
		{InfraID: "x", IssuerURL: "http://insecure", Namespace: "n", Name: "c"},
		{InfraID: "x", IssuerURL: "https://i"},
		{InfraID: strings.Repeat("x", 60), IssuerURL: "https://i", Namespace: "n", Name: "c"},
	} {
		// A nil client would panic on any call: refusing first is the point.
		if _, err := Create(context.Background(), nil, nil, o); err == nil {
			t.Errorf("Create(%+v) accepted", o)
		}
	}
}

func TestCLIPolicyIsTheCLITable(t *testing.T) {
	p := CLIPolicy()
	for _, a := range []string{"ec2:CreateVpc", "ec2:DeleteVpc", "route53:CreateHostedZone"} {
		if !strings.Contains(p, `"`+a+`"`) {
			t.Errorf("CLI policy lacks %s:\n%s", a, p)
		}
	}
}
