package main

import (
	"os"

	"github.com/spf13/cobra"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/infra/azureiam"
)

// azureIAMFlags are the flags create and destroy iam azure share.
type azureIAMFlags struct {
	opts azureiam.Options
	tags []string
}

func (f *azureIAMFlags) bind(cmd *cobra.Command, create bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.opts.InfraID, "infra-id", "", "the cluster's infra ID: names the identity and its role, and tags the identity")
	fl.StringVar(&f.opts.SubscriptionID, "subscription-id", "", "the cluster's subscription (spec.platform.azure.subscriptionID)")
	fl.StringVar(&f.opts.ResourceGroup, "resource-group", "", "the cluster's resource group (spec.platform.azure.resourceGroup): the identity lives there and its role is assigned there")
	fl.StringVar(&f.opts.VNetResourceGroup, "vnet-resource-group", "", "the resource group of the cluster's VNet, when it is another; the role is assigned there too")
	if !create {
		return
	}
	fl.StringVar(&f.opts.Namespace, "namespace", "clusters", "the HostedCluster's namespace (its control-plane operator is the only one the identity trusts)")
	fl.StringVar(&f.opts.Name, "name", "", "the HostedCluster's name")
	fl.StringVar(&f.opts.IssuerURL, "oidc-issuer-url", "", "the management cluster's service-account issuer (https://...)")
	fl.StringVar(&f.opts.Location, "location", "", "the Azure region of the identity (spec.platform.azure.location)")
	fl.StringSliceVar(&f.tags, "additional-tags", nil, "extra tags for the identity, KEY=VALUE, comma-separated")
}

// azureClients signs in the azidentity way (AZURE_* variables; see
// internal/cloud/azure), the same as the operators.
func azureClients() (azureiam.Clients, error) {
	cfg, err := azurecloud.ConfigFromEnv(os.Getenv)
	if err != nil {
		return azureiam.Clients{}, err
	}
	cred, err := cfg.Credential()
	if err != nil {
		return azureiam.Clients{}, err
	}
	opts, err := cfg.ClientOptions()
	if err != nil {
		return azureiam.Clients{}, err
	}
	return azureiam.Clients{Credential: cred, Options: opts}, nil
}

func newCreateIAMAzureCommand() *cobra.Command {
	var f azureIAMFlags
	var output *outputFlags
	cmd := &cobra.Command{
		Use:   "azure",
		Short: "Create the workload identity a private Azure cluster's control-plane operator signs in as",
		Long: `Creates, with the Azure identity of the environment (AZURE_TENANT_ID, AZURE_CLIENT_ID with
AZURE_CLIENT_SECRET or AZURE_FEDERATED_TOKEN_FILE, else managed identity; AZURE_AUTHORITY_HOST and
AZURE_RESOURCE_MANAGER_ENDPOINT for another cloud), in the cluster's resource group:
a user-assigned managed identity <infra-id>-control-plane-operator, tagged hcplink.io/created-by
and hcplink.io/infra-id; its federated credential trusting exactly
system:serviceaccount:<namespace>-<name>:control-plane-operator at the management cluster's issuer
(audience api://AzureADTokenExchange); and a custom role of exactly the control-plane operator's
actions (the table in internal/cloud/azure), assigned at the cluster's resource group and the
VNet's, never at the subscription. The output's tenantID and clientID go into the HostedCluster
(spec.platform.azure.tenantID and azureAuthenticationConfig.workloadIdentities.controlPlaneOperator.clientID).
Re-running is safe: it finds what exists and changes nothing; an identity of that name that
hcplink did not make is refused.`,
		Example: `  hcplink create iam azure --infra-id demo-x1 --namespace clusters --name demo \
    --subscription-id <guest-subscription> --resource-group <guest-rg> --location eastus \
    --oidc-issuer-url https://oidc.mgmt.example.com --output-file iam.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if f.opts.Tags, err = parseInfraTags(f.tags); err != nil {
				return err
			}
			clients, err := azureClients()
			if err != nil {
				return err
			}
			out, err := azureiam.Create(cmd.Context(), clients, cmd.ErrOrStderr(), f.opts)
			if err != nil {
				return rerunIsSafe(err)
			}
			return output.writeResult(cmd, out)
		},
	}
	f.bind(cmd, true)
	output = bindOutput(cmd, formatJSON, formatYAML, formatText)
	return cmd
}

func newDestroyIAMAzureCommand() *cobra.Command {
	var f azureIAMFlags
	cmd := &cobra.Command{
		Use:     "azure",
		Short:   "Delete the control-plane operator's identity, its role and role assignments for an infra ID",
		Example: `  hcplink destroy iam azure --infra-id demo-x1 --subscription-id <guest-subscription> --resource-group <guest-rg>`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			clients, err := azureClients()
			if err != nil {
				return err
			}
			return azureiam.Destroy(cmd.Context(), clients, cmd.ErrOrStderr(), f.opts)
		},
	}
	f.bind(cmd, false)
	return cmd
}
