package devenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	simazure "github.com/hcplink/hcplink/internal/cloudsim/azure"
)

// startAzure sets up the Azure side of a started cloudsim: subscriptions,
// the management and guest networks, and the management operator's
// identity as `hcplink create iam azure --operator` makes it. It fills the Env's Azure fields and
// returns nothing to start: the operators start later.
func (e *Env) startAzure(ctx context.Context) error {
	a, err := newAzureEnv(e.Cloud)
	if err != nil {
		return err
	}
	e.azure = a
	e.AzureTenantID = simazure.DefaultTenantID
	e.AzureIssuerURL = azureIssuer
	e.AzureAdmin, e.AzureClientOptions = a.admin, a.opts
	e.AzureCABundle = filepath.Join(e.workDir, "cloudsim-ca.pem")
	if err := os.WriteFile(e.AzureCABundle, a.caPEM, 0o600); err != nil {
		return fmt.Errorf("writing cloudsim's CA bundle: %w", err)
	}
	if e.AzureManagement, e.AzureGuest, err = seedAzureNetworks(ctx, a.admin, a.opts); err != nil {
		return fmt.Errorf("seeding the Azure networks: %w", err)
	}
	a.guest = e.AzureGuest
	if e.azureOperator, err = a.managementOperator(ctx, e.workDir, e.AzureManagement); err != nil {
		return fmt.Errorf("registering the management operator's identity: %w", err)
	}
	e.AzureOperatorPrincipalID = a.operatorPrincipalID
	// As install --azure-pls-resource-group sets it: the load balancers
	// are looked for in the management cluster's group only.
	e.azureOperator.ResourceGroup = e.AzureManagement.ResourceGroup
	return nil
}
