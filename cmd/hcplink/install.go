package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/install"
	"github.com/hcplink/hcplink/internal/operator"
)

// installFlags are the flags install reads into install.Options; the
// credentials files are read when the command runs.
type installFlags struct {
	opts                         install.Options
	render, dryRun               bool
	renderDir                    string
	awsCredsFile, azureCredsFile string
	gcpCredsFile                 string
}

func newInstallCommand() *cobra.Command {
	f := &installFlags{}
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install the management operator (or render its manifests)",
		Long: `Install applies, with server-side apply, everything a management cluster
needs to run the hcplink management operator: the hcplink CRDs, the
namespace, the operator's ServiceAccount, ClusterRole (what the operator
uses, plus what it grants each control-plane operator) and binding, its
Deployment (two replicas with leader election, probes, resources, spread
across nodes), a PodDisruptionBudget, the metrics Service, and the private
platform's credentials. Re-running it is safe: unchanged objects stay
untouched. --dry-run has the API server validate everything and writes
nothing. --render prints the manifests instead (--render-dir writes one
file per object and a kustomization.yaml); with --aws-private-creds or
--azure-creds or --gcp-creds they hold the credentials Secret, so keep them
private.

The management operator's cloud identity, one way per platform:
  AWS    --aws-private-region R and one of --aws-private-creds FILE (a shared
         credentials file, stored in a Secret), --aws-private-secret NAME (an
         existing Secret in the namespace with the file under "credentials")
         or --aws-private-role-arn ARN (STS web identity with the pod's token).
  Azure  one of --azure-creds FILE (JSON or YAML with subscriptionId,
         tenantId, clientId, clientSecret; stored in a Secret),
         --azure-secret NAME (an existing Secret whose keys are AZURE_CLIENT_ID,
         AZURE_TENANT_ID, AZURE_CLIENT_SECRET, AZURE_SUBSCRIPTION_ID) or
         --azure-workload-identity-client-id ID with --azure-tenant-id and
         --azure-subscription-id (a federated credential for the ServiceAccount
         system:serviceaccount:<namespace>:hcplink-operator, audience
         api://AzureADTokenExchange); --azure-pls-resource-group RG names
         the management cluster's resource group, where the operator looks
         for its load balancers (default: read from a Node's providerID),
         --azure-vnet-id ID its VNet, and --azure-load-balancer-configurations
         A,B the cloud provider's load-balancer configurations to place
         routers on (Azure allows 8 Private Link Services per load balancer).
  GCP    --gcp-project P --gcp-region R --gcp-network N (the management
         project, region and network; --gcp-nat-subnets A,B the PSC NAT
         subnetworks the service attachments may take, default all of the
         network's in the region) and one of --gcp-creds FILE (a service
         account key file, stored in a Secret), --gcp-secret NAME (an
         existing Secret with the key file under "key.json") or
         --gcp-workload-identity-service-account EMAIL (GKE workload
         identity: the ServiceAccount is annotated to act as that Google
         service account, which must grant roles/iam.workloadIdentityUser
         to serviceAccount:<cluster project>.svc.id.goog[<namespace>/hcplink-operator]).
         hcplink permissions gcp management-operator prints its custom role.

The cluster is reached the standard way (--kubeconfig, KUBECONFIG,
in-cluster).`,
		Example: `  # Review what would be installed, as files kustomize can take
  hcplink install --private-platform AWS --aws-private-region us-east-1 \
    --aws-private-role-arn arn:aws:iam::111122223333:role/hcplink-operator --render-dir ./hcplink

  # Install on AWS with a credentials file, checking first with the API server
  hcplink install --private-platform AWS --aws-private-region us-east-1 --aws-private-creds ~/.aws/hcplink --dry-run
  hcplink install --private-platform AWS --aws-private-region us-east-1 --aws-private-creds ~/.aws/hcplink

  # The alerting rules and the Grafana dashboard too, for review
  hcplink install --private-platform None --monitoring --render

  # Install on Azure with a workload identity
  hcplink install --private-platform Azure --azure-workload-identity-client-id 00000000-0000-0000-0000-000000000000 \
    --azure-tenant-id 11111111-1111-1111-1111-111111111111 --azure-subscription-id 22222222-2222-2222-2222-222222222222

  # Install on GKE with workload identity
  hcplink install --private-platform GCP --gcp-project hcp-management --gcp-region us-central1 --gcp-network management \
    --gcp-workload-identity-service-account hcplink-operator@hcp-management.iam.gserviceaccount.com`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runInstall(cmd, f) },
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.render, "render", false, "print the manifests to stdout instead of applying them")
	fl.StringVar(&f.renderDir, "render-dir", "", "write the manifests to this directory (one file per object and a kustomization.yaml) instead of applying them")
	fl.BoolVar(&f.opts.Monitoring, "monitoring", false, "also install the alerting rules (a PrometheusRule; needs the Prometheus Operator) and a Grafana dashboard (a ConfigMap labelled for Grafana's sidecar)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "have the API server validate every object (server-side dry run) without writing anything")
	fl.StringVar(&f.opts.Namespace, "namespace", install.DefaultNamespace, "namespace of the operator")
	fl.StringVar(&f.opts.Image, "image", install.DefaultImage(), "image of the management operator")
	fl.StringVar(&f.opts.ControlPlaneOperatorImage, "control-plane-operator-image", "", "image of the control-plane operators (default: --image)")
	fl.Int32Var(&f.opts.Replicas, "replicas", install.DefaultReplicas, "replicas of the operator (one leads at a time)")
	fl.StringVar(&f.opts.ManagementClusterID, "management-cluster-id", "", "names this management cluster on the cloud resources it owns (default: the kube-system namespace's UID)")
	fl.StringVar(&f.opts.PrivatePlatform, "private-platform", operator.PlatformNone, "cloud whose private connectivity the operator serves: AWS, Azure, GCP or None")
	fl.StringVar(&f.opts.AWS.Region, "aws-private-region", "", "AWS region of the management cluster (with --private-platform AWS)")
	fl.StringVar(&f.awsCredsFile, "aws-private-creds", "", "AWS shared credentials file of the operator, stored in a Secret")
	fl.StringVar(&f.opts.AWS.SecretName, "aws-private-secret", "", "existing Secret in --namespace with the operator's AWS credentials file under the key \"credentials\"")
	fl.StringVar(&f.opts.AWS.RoleARN, "aws-private-role-arn", "", "IAM role the operator assumes with its ServiceAccount token (web identity)")
	fl.StringVar(&f.azureCredsFile, "azure-creds", "", "Azure service principal file (subscriptionId, tenantId, clientId, clientSecret), stored in a Secret")
	fl.StringVar(&f.opts.Azure.SecretName, "azure-secret", "", "existing Secret in --namespace whose keys are the operator's AZURE_* variables")
	fl.StringVar(&f.opts.Azure.WorkloadIdentityClientID, "azure-workload-identity-client-id", "", "client ID of the identity federated with the operator's ServiceAccount")
	fl.StringVar(&f.opts.Azure.TenantID, "azure-tenant-id", "", "tenant of the workload identity")
	fl.StringVar(&f.opts.Azure.SubscriptionID, "azure-subscription-id", "", "management subscription (required with a workload identity)")
	fl.StringVar(&f.opts.Azure.PLSResourceGroup, "azure-pls-resource-group", "", "the management cluster's resource group, where the operator looks for its internal load balancers (default: the resource group in the first Node's spec.providerID)")
	fl.StringVar(&f.opts.Azure.VNetID, "azure-vnet-id", "", "the management cluster's VNet (resource ID): only load balancer frontends in it are the cluster's")
	fl.StringSliceVar(&f.opts.Azure.LoadBalancerConfigurations, "azure-load-balancer-configurations", nil, "the cloud provider's load-balancer configurations (multipleStandardLoadBalancerConfigurations) the operator places each new private cluster's routers on, one with room for its Private Link Service")
	fl.StringVar(&f.opts.GCP.Project, "gcp-project", "", "the management project, where the routers' forwarding rules, PSC NAT subnetworks and service attachments are (with --private-platform GCP)")
	fl.StringVar(&f.opts.GCP.Region, "gcp-region", "", "the management cluster's region; private GCP clusters must be in it")
	fl.StringVar(&f.opts.GCP.Network, "gcp-network", "", "the management cluster's VPC network, by name or as projects/<host project>/global/networks/<name>")
	fl.StringSliceVar(&f.opts.GCP.NATSubnets, "gcp-nat-subnets", nil, "the PSC NAT subnetworks the service attachments may take (default: every one of the network in the region)")
	fl.StringVar(&f.gcpCredsFile, "gcp-creds", "", "the operator's service account key file, stored in a Secret")
	fl.StringVar(&f.opts.GCP.SecretName, "gcp-secret", "", "existing Secret in --namespace with the operator's key file under the key \"key.json\"")
	fl.StringVar(&f.opts.GCP.WorkloadIdentityServiceAccount, "gcp-workload-identity-service-account", "", "Google service account the operator's ServiceAccount acts as through GKE workload identity")
	addKubeconfigFlag(cmd)
	return cmd
}

func runInstall(cmd *cobra.Command, f *installFlags) error {
	if f.render && f.renderDir != "" {
		return errors.New("give --render or --render-dir, not both")
	}
	if f.dryRun && (f.render || f.renderDir != "") {
		return errors.New("--dry-run checks an apply; it does not go with --render or --render-dir")
	}
	var err error
	if f.opts.AWS.CredentialsFile, err = readCredentials(f.awsCredsFile, "--aws-private-creds"); err != nil {
		return err
	}
	if f.opts.Azure.CredentialsFile, err = readCredentials(f.azureCredsFile, "--azure-creds"); err != nil {
		return err
	}
	if f.opts.GCP.KeyFile, err = readCredentials(f.gcpCredsFile, "--gcp-creds"); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	switch {
	case f.render:
		return install.Render(out, f.opts)
	case f.renderDir != "":
		files, err := install.RenderDir(f.renderDir, f.opts)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "wrote %d files to %s (apply them with: kubectl apply --server-side -k %s)\n", len(files), f.renderDir, f.renderDir)
		return err
	}
	if err := f.opts.Validate(); err != nil {
		return err // before reaching for a cluster
	}
	c, err := kubeClient()
	if err != nil {
		return err
	}
	_, err = install.Apply(cmd.Context(), c, f.opts, install.ApplyOptions{DryRun: f.dryRun, Progress: out})
	return err
}

func newUninstallCommand() *cobra.Command {
	opts := install.UninstallOptions{}
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove what install made",
		Long: `Uninstall removes what install made: the operator's Deployment, disruption
budget, metrics Service, credentials Secret, RBAC, ServiceAccount and
namespace, and the hcplink CRDs. It refuses while any HostedCluster exists:
delete them first, so that the operator removes their cloud resources. A CRD
is kept while objects of its kind remain, and the namespace while it holds
Secrets install did not make. Re-running it is safe.`,
		Example: `  kubectl get hostedclusters -A   # must list none
  hcplink uninstall`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := kubeClient()
			if err != nil {
				return err
			}
			opts.Progress = cmd.OutOrStdout()
			return install.Uninstall(cmd.Context(), c, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Namespace, "namespace", install.DefaultNamespace, "namespace install used")
	addKubeconfigFlag(cmd)
	return cmd
}

func readCredentials(path, flagName string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the %s file: %w", flagName, err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("the %s file %s is empty", flagName, path)
	}
	return data, nil
}

func kubeClient() (client.Client, error) {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("finding the management cluster (--kubeconfig, KUBECONFIG or in-cluster): %w", err)
	}
	return install.NewClient(cfg)
}

// addKubeconfigFlag exposes controller-runtime's --kubeconfig, which
// ctrl.GetConfig reads.
func addKubeconfigFlag(cmd *cobra.Command) {
	if kubeconfig := flag.CommandLine.Lookup("kubeconfig"); kubeconfig != nil {
		goFlags := flag.NewFlagSet("kube", flag.ContinueOnError)
		goFlags.Var(kubeconfig.Value, kubeconfig.Name, kubeconfig.Usage)
		cmd.Flags().AddGoFlagSet(goFlags)
	}
}
