package diagnose

import (
	"context"
	"os"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// AWSCredentials say where the CLI finds each account's credentials.
type AWSCredentials struct {
	// ManagementProfile is a shared-config profile; "" is the standard
	// chain (AWS_* environment, the default profile, an instance role).
	ManagementProfile string
	// CustomerProfile or CustomerRoleARN (assumed with the management
	// credentials) reach the customer's account; neither: no customer hops.
	CustomerProfile, CustomerRoleARN string
	// Region is the cluster's region (the environment's when empty).
	Region string
}

// LoadAWSAccounts builds both accounts' read clients; a missing or
// unusable credential is an account with Missing set, never an error.
func LoadAWSAccounts(ctx context.Context, c AWSCredentials) (mgmt, cust AWSAccount) {
	var opts []func(*config.LoadOptions) error
	if c.Region != "" && os.Getenv("AWS_REGION") == "" {
		opts = append(opts, config.WithRegion(c.Region))
	}
	mgmtOpts := opts
	if c.ManagementProfile != "" {
		mgmtOpts = append(mgmtOpts, config.WithSharedConfigProfile(c.ManagementProfile))
	}
	mgmtCfg, mgmt := awsAccount(ctx, mgmtOpts, "no management credentials (AWS_* environment, a default profile, or --management-profile)")
	switch {
	case c.CustomerProfile != "":
		_, cust = awsAccount(ctx, append(opts, config.WithSharedConfigProfile(c.CustomerProfile)), "no customer credentials in profile "+c.CustomerProfile)
	case c.CustomerRoleARN != "" && mgmt.Missing == "":
		cfg := mgmtCfg.Copy()
		cfg.Credentials = awssdk.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(mgmtCfg), c.CustomerRoleARN))
		cust = accountFromConfig(ctx, cfg, "role "+c.CustomerRoleARN+" could not be assumed with the management credentials")
	case c.CustomerRoleARN != "":
		cust = AWSAccount{Missing: "role " + c.CustomerRoleARN + " needs management credentials to be assumed"}
	default:
		cust = AWSAccount{Missing: "no customer credentials (pass --customer-profile or --customer-role-arn)"}
	}
	return mgmt, cust
}

func awsAccount(ctx context.Context, opts []func(*config.LoadOptions) error, missing string) (awssdk.Config, AWSAccount) {
	cfg, err := awscloud.LoadConfig(ctx, opts...)
	if err != nil {
		return cfg, AWSAccount{Missing: missing}
	}
	return cfg, accountFromConfig(ctx, cfg, missing)
}

// AWSAccountFromConfig builds an account's read clients from a ready
// configuration, checking the identity (one GetCallerIdentity).
func AWSAccountFromConfig(ctx context.Context, cfg awssdk.Config) AWSAccount {
	return accountFromConfig(ctx, cfg, "the credentials were refused")
}

func accountFromConfig(ctx context.Context, cfg awssdk.Config, missing string) AWSAccount {
	id, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return AWSAccount{Missing: missing + ": " + awscloud.ErrorMessage(err)}
	}
	return AWSAccount{
		EC2: ec2.NewFromConfig(cfg), ELB: elbv2.NewFromConfig(cfg), Route53: route53.NewFromConfig(cfg),
		Label: "account " + awssdk.ToString(id.Account),
	}
}

// LoadAzureClients builds the Azure identity: azidentity's default chain
// against the endpoints the AZURE_* environment names (getenv: os.Getenv).
func LoadAzureClients(getenv func(string) string, guestSubscription string) AzureClients {
	c, err := azurecloud.ConfigFromEnv(getenv)
	if err != nil {
		return AzureClients{Missing: err.Error()}
	}
	opts, err := c.ClientOptions()
	if err != nil {
		return AzureClients{Missing: err.Error()}
	}
	cred, err := azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{ClientOptions: opts.ClientOptions, TenantID: c.TenantID})
	if err != nil {
		return AzureClients{Missing: "no Azure credentials (AZURE_* environment, az login, or a managed identity)"}
	}
	return AzureClients{Credential: cred, Options: opts, GuestSubscription: guestSubscription}
}
