package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/infra/azureiam"
	"github.com/hcplink/hcplink/internal/install"
)

// azureIAMFlags are the flags create and destroy iam azure share: a
// cluster's control-plane operator identity, or with --operator the
// management operator's (whose flags are named as install's).
type azureIAMFlags struct {
	opts     azureiam.Options
	operator bool
	op       azureiam.OperatorOptions
	tags     []string
}

func (f *azureIAMFlags) bind(cmd *cobra.Command, create bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.opts.InfraID, "infra-id", "", "the cluster's infra ID: names the identity and its role, and tags the identity")
	fl.StringVar(&f.opts.SubscriptionID, "subscription-id", "", "the cluster's subscription (spec.platform.azure.subscriptionID); with --operator the management subscription")
	fl.StringVar(&f.opts.ResourceGroup, "resource-group", "", "the cluster's resource group (spec.platform.azure.resourceGroup): the identity lives there and its role is assigned there; with --operator where the identity lives (default: --azure-pls-resource-group)")
	fl.StringVar(&f.opts.VNetResourceGroup, "vnet-resource-group", "", "the resource group of the cluster's VNet, when it is another; the role is assigned there too")
	fl.BoolVar(&f.operator, "operator", false, "the management operator's own identity, in the management subscription, instead of a cluster's")
	fl.StringVar(&f.op.IdentityName, "operator-identity", azureiam.DefaultOperatorIdentity, "with --operator: the identity's name")
	fl.StringVar(&f.op.LoadBalancerResourceGroup, "azure-pls-resource-group", "", "with --operator: the management cluster's load balancers' resource group, as install takes it (the role is assigned there)")
	fl.StringVar(&f.op.VNetID, "azure-vnet-id", "", "with --operator: the management cluster's VNet, as install takes it (passed on to install; the role is assigned at its resource group too when that is another, for NAT subnets)")
	cmd.MarkFlagsMutuallyExclusive("operator", "infra-id")
	cmd.MarkFlagsMutuallyExclusive("operator", "vnet-resource-group")
	if !create {
		return
	}
	fl.StringVar(&f.opts.Namespace, "namespace", "clusters", "the HostedCluster's namespace (its control-plane operator is the only one the identity trusts); with --operator install's namespace (default "+install.DefaultNamespace+")")
	fl.StringVar(&f.opts.Name, "name", "", "the HostedCluster's name")
	fl.StringVar(&f.opts.IssuerURL, "oidc-issuer-url", "", "the management cluster's service-account issuer (https://...)")
	fl.StringVar(&f.opts.Location, "location", "", "the Azure region of the identity (spec.platform.azure.location)")
	fl.StringSliceVar(&f.tags, "additional-tags", nil, "extra tags for the identity, KEY=VALUE, comma-separated")
	cmd.MarkFlagsMutuallyExclusive("operator", "name")
}

// operatorOptions are the flags' options for --operator: the shared flags
// say the same things of the management operator's identity.
func (f *azureIAMFlags) operatorOptions(cmd *cobra.Command) azureiam.OperatorOptions {
	o := f.op
	o.SubscriptionID, o.ResourceGroup, o.Location, o.IssuerURL = f.opts.SubscriptionID, f.opts.ResourceGroup, f.opts.Location, f.opts.IssuerURL
	o.Namespace, o.Tags = f.opts.Namespace, f.opts.Tags
	if fl := cmd.Flags().Lookup("namespace"); fl != nil && !fl.Changed {
		o.Namespace = install.DefaultNamespace
	}
	return o
}

// refuseOperatorFlags refuses the management operator's flags without
// --operator: they would be ignored.
func (f *azureIAMFlags) refuseOperatorFlags(cmd *cobra.Command) error {
	for _, name := range []string{"operator-identity", "azure-pls-resource-group", "azure-vnet-id"} {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("--%s is for the management operator's identity: add --operator", name)
		}
	}
	return nil
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
		Short: "Create the workload identity a private Azure cluster's control-plane operator signs in as, or the management operator's",
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
hcplink did not make is refused.

--operator instead creates the management operator's identity, in the management subscription:
a user-assigned managed identity (--operator-identity, default hcplink-operator, in
--resource-group or else --azure-pls-resource-group) trusting exactly
system:serviceaccount:<namespace>:hcplink-operator, the ServiceAccount hcplink install renders
(--namespace defaults to install's, hcplink); and a custom role of exactly the management
operator's actions, assigned at the management cluster's load balancers' resource group
(--azure-pls-resource-group) and its VNet's (--azure-vnet-id, when that group is another), never
at the subscription. Its output's installFlags are hcplink install's flags for this identity; a
line on stderr prints the whole install command.`,
		Example: `  hcplink create iam azure --infra-id demo-x1 --namespace clusters --name demo \
    --subscription-id <guest-subscription> --resource-group <guest-rg> --location eastus \
    --oidc-issuer-url https://oidc.mgmt.example.com --output-file iam.json

  # The management operator's identity, in the management subscription:
  hcplink create iam azure --operator --subscription-id <management-subscription> \
    --azure-pls-resource-group <management-cluster-rg> --location eastus \
    --oidc-issuer-url https://oidc.mgmt.example.com --output-file operator-iam.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if f.opts.Tags, err = parseInfraTags(f.tags); err != nil {
				return err
			}
			if !f.operator {
				if err := f.refuseOperatorFlags(cmd); err != nil {
					return err
				}
			}
			clients, err := azureClients()
			if err != nil {
				return err
			}
			if f.operator {
				return createAzureOperatorIdentity(cmd, output, clients, f.operatorOptions(cmd))
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
		Use:   "azure",
		Short: "Delete the control-plane operator's identity, its role and role assignments for an infra ID, or the management operator's",
		Long: `Deletes what create iam azure made: the role's assignments, the role and the identity with
its federated credential, saying each on stderr. Only an identity carrying hcplink's tags (for
the infra ID, or with --operator for the management operator) is deleted; any other is left
and said.`,
		Example: `  hcplink destroy iam azure --infra-id demo-x1 --subscription-id <guest-subscription> --resource-group <guest-rg>
  hcplink destroy iam azure --operator --subscription-id <management-subscription> --azure-pls-resource-group <management-cluster-rg>`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !f.operator {
				if err := f.refuseOperatorFlags(cmd); err != nil {
					return err
				}
			}
			clients, err := azureClients()
			if err != nil {
				return err
			}
			if f.operator {
				return azureiam.DestroyOperator(cmd.Context(), clients, cmd.ErrOrStderr(), f.operatorOptions(cmd))
			}
			return azureiam.Destroy(cmd.Context(), clients, cmd.ErrOrStderr(), f.opts)
		},
	}
	f.bind(cmd, false)
	return cmd
}

// createAzureOperatorIdentity makes the management operator's identity,
// writes its result, and tells on stderr how to install the operator as it.
func createAzureOperatorIdentity(cmd *cobra.Command, output *outputFlags, clients azureiam.Clients, o azureiam.OperatorOptions) error {
	out, err := azureiam.CreateOperator(cmd.Context(), clients, cmd.ErrOrStderr(), o)
	if err != nil {
		return rerunIsSafe(err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "install the operator as this identity: hcplink install --image <image> %s\n", strings.Join(out.InstallFlags, " "))
	return output.writeResult(cmd, out)
}
