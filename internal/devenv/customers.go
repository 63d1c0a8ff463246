package devenv

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
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

// seedExtraCustomers seeds customer accounts from index 2 up to n-1 (the
// first two are always seeded), each with its VPC, a subnet per zone and an
// OIDC provider.
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
		network, err := seedCustomer(ctx, cfg, account, fmt.Sprintf("devenv-customer-%d", i), customerCIDRPrefix(i))
		if err != nil {
			return fmt.Errorf("seeding customer account %d: %w", i, err)
		}
		e.Customers = append(e.Customers, Customer{AWS: cfg, Network: network})
	}
	return nil
}
