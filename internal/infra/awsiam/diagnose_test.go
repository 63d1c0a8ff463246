package awsiam

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/smithy-go"

	"github.com/hcplink/hcplink/internal/cloudsim"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/diagnose"
)

// TestDiagnoseUserCanReadButNotWrite: the user holds exactly diagnose's
// policy (created twice, one key), its key reads what diagnose reads and is
// refused a write, and destroy removes it.
func TestDiagnoseUserCanReadButNotWrite(t *testing.T) {
	ctx := context.Background()
	cs := cloudsimtest.Start(t, cloudsim.Options{})
	client := iam.NewFromConfig(cs.Config(t, account))
	creds := filepath.Join(t.TempDir(), "credentials")
	out, err := CreateDiagnoseUser(ctx, client, nil, DefaultDiagnoseUser, creds)
	if err != nil {
		t.Fatalf("CreateDiagnoseUser: %v", err)
	}
	if _, err := CreateDiagnoseUser(ctx, client, nil, DefaultDiagnoseUser, creds); err != nil {
		t.Fatalf("CreateDiagnoseUser again: %v", err)
	}
	keys, err := client.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String(DefaultDiagnoseUser)})
	if err != nil || len(keys.AccessKeyMetadata) != 1 {
		t.Fatalf("access keys after two creates: %v, %v; want exactly one", keys, err)
	}
	policies, err := client.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String(DefaultDiagnoseUser)})
	if err != nil || len(policies.PolicyNames) != 1 {
		t.Fatalf("policies: %v, %v; want exactly one", policies, err)
	}
	var doc string // cloudsim has no GetUserPolicy: read its model
	cs.Server.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		doc = accounts[account].IAM.Users[DefaultDiagnoseUser].InlinePolicies[policies.PolicyNames[0]]
	})
	if doc, _ = url.QueryUnescape(doc); doc != diagnose.AWSPolicy() {
		t.Errorf("policy = %s\nwant diagnose's %s", doc, diagnose.AWSPolicy())
	}

	cfg, err := config.LoadDefaultConfig(ctx, config.WithSharedCredentialsFiles([]string{creds}), config.WithSharedConfigFiles([]string{}),
		config.WithRegion(cloudsimtest.Region), config.WithBaseEndpoint(cs.URL), config.WithRetryMaxAttempts(1))
	if err != nil {
		t.Fatalf("loading the written credentials: %v", err)
	}
	ec := ec2.NewFromConfig(cfg)
	if _, err := ec.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{}); err != nil {
		t.Fatalf("a read diagnose makes: %v", err)
	}
	_, err = ec.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.9.0.0/16")})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "UnauthorizedOperation" {
		t.Fatalf("a write: %v, want UnauthorizedOperation", err)
	}
	if ev := cs.Server.AWS.Evaluations(out.UserARN); ev["ec2:DescribeVpcEndpoints"].Allowed != 1 || ev["ec2:CreateVpc"].Denied != 1 {
		t.Fatalf("evaluations for %s: %v", out.UserARN, ev)
	}

	if err := DestroyDiagnoseUser(ctx, client, nil, DefaultDiagnoseUser); err != nil {
		t.Fatalf("DestroyDiagnoseUser: %v", err)
	}
	if _, err := client.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(DefaultDiagnoseUser)}); !isNoSuchEntity(err) {
		t.Fatalf("user after destroy: %v", err)
	}
	if err := DestroyDiagnoseUser(ctx, client, nil, DefaultDiagnoseUser); err != nil {
		t.Fatalf("DestroyDiagnoseUser again: %v", err)
	}
}
