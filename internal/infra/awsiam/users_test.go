package awsiam

import (
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/smithy-go"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloudsim"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// TestUsersHoldExactlyTheirPolicy: each user `create iam aws` makes
// (--operator, --diagnose) is created twice with one key, holds exactly its
// table's policy, may make a call of its table and is refused one outside
// it, and destroy removes it (twice is fine) but never the key file.
func TestUsersHoldExactlyTheirPolicy(t *testing.T) {
	tests := []struct {
		name, user, policy string
		create             func(context.Context, *iam.Client, io.Writer, string, string) (*OperatorOutput, error)
		destroy            func(context.Context, *iam.Client, io.Writer, string) error
		allowed            func(context.Context, *ec2.Client) error
		deniedAction       string
		denied             func(context.Context, *ec2.Client) error
	}{
		{
			name: "management operator", user: DefaultOperatorUser, policy: awscloud.Policy(awscloud.ManagementOperator),
			create: CreateOperator, destroy: DestroyOperator,
			allowed: func(ctx context.Context, ec *ec2.Client) error {
				_, err := ec.DescribeVpcEndpointServiceConfigurations(ctx, &ec2.DescribeVpcEndpointServiceConfigurationsInput{})
				return err
			},
			deniedAction: "ec2:DescribeVpcs",
			denied: func(ctx context.Context, ec *ec2.Client) error {
				_, err := ec.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
				return err
			},
		},
		{
			name: "diagnose", user: DefaultDiagnoseUser, policy: awscloud.Policy(awscloud.Diagnose),
			create: CreateDiagnoseUser, destroy: DestroyDiagnoseUser,
			allowed: func(ctx context.Context, ec *ec2.Client) error {
				_, err := ec.DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{})
				return err
			},
			deniedAction: "ec2:CreateVpc",
			denied: func(ctx context.Context, ec *ec2.Client) error {
				_, err := ec.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.9.0.0/16")})
				return err
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			cs := cloudsimtest.Start(t, cloudsim.Options{})
			client := iam.NewFromConfig(cs.Config(t, account))
			creds := filepath.Join(t.TempDir(), "credentials")
			out, err := tt.create(ctx, client, nil, tt.user, creds)
			if err != nil {
				t.Fatalf("creating user %s: %v", tt.user, err)
			}
			if _, err := tt.create(ctx, client, nil, tt.user, creds); err != nil {
				t.Fatalf("creating user %s again: %v", tt.user, err)
			}
			keys, err := client.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String(tt.user)})
			if err != nil || len(keys.AccessKeyMetadata) != 1 {
				t.Fatalf("access keys after two creates: %v, %v; want exactly one", keys, err)
			}
			policies, err := client.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String(tt.user)})
			if err != nil || len(policies.PolicyNames) != 1 {
				t.Fatalf("policies: %v, %v; want exactly one", policies, err)
			}
			var doc string // cloudsim has no GetUserPolicy: read its model
			cs.Server.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
				doc = accounts[account].IAM.Users[tt.user].InlinePolicies[policies.PolicyNames[0]]
			})
			if doc, _ = url.QueryUnescape(doc); doc != tt.policy {
				t.Errorf("policy = %s\nwant %s", doc, tt.policy)
			}

			cfg, err := config.LoadDefaultConfig(ctx, config.WithSharedCredentialsFiles([]string{creds}), config.WithSharedConfigFiles([]string{}),
				config.WithRegion(cloudsimtest.Region), config.WithBaseEndpoint(cs.URL), config.WithRetryMaxAttempts(1))
			if err != nil {
				t.Fatalf("loading the written credentials: %v", err)
			}
			ec := ec2.NewFromConfig(cfg)
			if err := tt.allowed(ctx, ec); err != nil {
				t.Fatalf("a call of the user's table: %v", err)
			}
			var apiErr smithy.APIError
			if err := tt.denied(ctx, ec); !errors.As(err, &apiErr) || apiErr.ErrorCode() != "UnauthorizedOperation" {
				t.Fatalf("%s, outside the user's table: %v, want UnauthorizedOperation", tt.deniedAction, err)
			}
			if got := cs.Server.AWS.Evaluations(out.UserARN); got[tt.deniedAction].Denied != 1 {
				t.Fatalf("evaluations for %s: %v", out.UserARN, got)
			}

			for range 2 {
				if err := tt.destroy(ctx, client, nil, tt.user); err != nil {
					t.Fatalf("destroying user %s: %v", tt.user, err)
				}
			}
			if _, err := client.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(tt.user)}); !isNoSuchEntity(err) {
				t.Fatalf("user after destroy: %v", err)
			}
			if _, err := os.Stat(creds); err != nil {
				t.Fatalf("the credentials file is the user's to delete: %v", err)
			}
		})
	}
}
