package devenv

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/route53"

	awsinfra "github.com/hcplink/hcplink/internal/infra/aws"
)

// Customer is one customer account of the local cloud: its SDK
// configuration and its VPC.
type Customer struct {
	AWS     aws.Config
	Network CustomerNetwork
}

// CustomerAccountID is the account number of the i-th customer account
// (0-based): CustomerAccount, then SecondCustomerAccount, then
// 6000000000NN. cloudsim creates an account on its first call.
func CustomerAccountID(i int) string {
	switch i {
	case 0:
		return CustomerAccount
	case 1:
		return SecondCustomerAccount
	default:
		return fmt.Sprintf("6000000000%02d", i)
	}
}

// customerCIDRPrefix is the /16 of the i-th customer's VPC: 10.1, 10.2 as
// before, then 10.<i+1>.
func customerCIDRPrefix(i int) string { return fmt.Sprintf("10.%d", i+1) }

// customerVPCCIDR is the i-th customer's VPC CIDR block.
func customerVPCCIDR(i int) string { return customerCIDRPrefix(i) + ".0.0/16" }

// customerBaseDomain is the public zone every customer account holds, as a
// platform team has its domain before it runs `hcplink create infra aws`.
const customerBaseDomain = "customer.example.com"

// customerInfraPoll is how often the customer network's create reads its
// NAT gateway: cloudsim makes it available in a fraction of a second, and
// the CLI's 3 s poll would add seconds to every devenv start.
const customerInfraPoll = 50 * time.Millisecond

// seedCustomer creates a customer account's network as `hcplink create
// infra aws --single-nat-gateway` makes it (internal/infra/aws, tagged for
// infraID), on the zones devenv uses, and the OIDC provider its
// control-plane operator roles trust. One NAT gateway keeps to cloudsim's
// five Elastic IPs per account and leaves the workers' subnets private.
func seedCustomer(ctx context.Context, cfg aws.Config, account, infraID, cidr string) (CustomerNetwork, error) {
	c := CustomerNetwork{Account: account}
	zones, err := zoneNames(ctx, ec2.NewFromConfig(cfg))
	if err != nil {
		return c, err
	}
	if _, err := route53.NewFromConfig(cfg).CreateHostedZone(ctx, &route53.CreateHostedZoneInput{
		Name: aws.String(customerBaseDomain), CallerReference: aws.String("devenv-" + customerBaseDomain)}); err != nil {
		return c, fmt.Errorf("public zone %s in %s: %w", customerBaseDomain, account, err)
	}
	out, err := awsinfra.Create(ctx, awsinfra.Options{InfraID: infraID, BaseDomain: customerBaseDomain, Region: Region,
		Zones: zones, VPCCIDR: cidr, SingleNATGateway: true},
		awsinfra.Deps{Clients: awsinfra.NewClients(cfg, Region), PollInterval: customerInfraPoll})
	if err != nil {
		return c, fmt.Errorf("customer network %s in %s: %w", infraID, account, err)
	}
	c.VPCID, c.CIDR = out.VPCID, out.MachineCIDR
	c.SubnetByAZ = map[string]string{}
	for _, z := range out.Zones {
		c.Zones = append(c.Zones, z.Name)
		c.SubnetByAZ[z.Name] = z.SubnetID
	}
	c.OIDCProvider, err = createOIDCProvider(ctx, cfg, account)
	return c, err
}

// createOIDCProvider makes the identity provider for the devenv issuer that
// the customer's control-plane operator roles trust.
func createOIDCProvider(ctx context.Context, cfg aws.Config, account string) (string, error) {
	out, err := iam.NewFromConfig(cfg).CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{
		Url:            aws.String("https://" + oidcHost),
		ClientIDList:   []string{tokenAudience},
		ThumbprintList: []string{strings.Repeat("0", 40)},
	})
	if err != nil {
		return "", fmt.Errorf("customer OIDC provider in %s: %w", account, err)
	}
	return aws.ToString(out.OpenIDConnectProviderArn), nil
}

// seedExtraCustomers seeds customer accounts from index 2 up to n-1 (the
// first two are always seeded), each with its network and an OIDC
// provider.
func (e *Env) seedExtraCustomers(ctx context.Context, n int) error {
	if n > 98 {
		return fmt.Errorf("devenv seeds at most 98 customer accounts, asked for %d", n)
	}
	for i := 2; i < n; i++ {
		account := CustomerAccountID(i)
		cfg, err := e.accountConfig(ctx, account)
		if err != nil {
			return err
		}
		network, err := seedCustomer(ctx, cfg, account, fmt.Sprintf("devenv-customer-%d", i), customerVPCCIDR(i))
		if err != nil {
			return fmt.Errorf("seeding customer account %d: %w", i, err)
		}
		e.Customers = append(e.Customers, Customer{AWS: cfg, Network: network})
	}
	return nil
}
