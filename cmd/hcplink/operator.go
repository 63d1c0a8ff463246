package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/liveheap"
	"github.com/hcplink/hcplink/internal/operator"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
)

func newOperatorCommand() *cobra.Command {
	opts := operator.Options{}
	var azurePLSResourceGroup, azureVNetID, gcpCredentialsFile string
	zapOpts := zap.Options{}
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Run the management operator: control planes of HostedClusters and their private connectivity",
		Long: `The management operator runs once per management cluster (several replicas
with --leader-elect). For every HostedCluster it creates the control-plane
namespace, the HostedControlPlane and the control-plane operator, folds the
private-link conditions into the HostedCluster's status and deletes it all in
order when the HostedCluster is deleted.

It reads the management cluster's kubeconfig the standard way (--kubeconfig,
KUBECONFIG, in-cluster) and, with --private-platform=AWS, its AWS credentials
the standard way (AWS_* variables, shared files, web identity). With
--private-platform=Azure its identity is configured once, at install, the
azidentity way (AZURE_CLIENT_ID and AZURE_TENANT_ID with
AZURE_FEDERATED_TOKEN_FILE for workload identity, AZURE_CLIENT_SECRET for a
service principal, else managed identity), AZURE_SUBSCRIPTION_ID names the
management subscription, and AZURE_AUTHORITY_HOST,
AZURE_RESOURCE_MANAGER_ENDPOINT and AZURE_CA_BUNDLE point it at another cloud
(cloudsim). With --private-platform=GCP it works in the management project,
region and network given by --gcp-project, --gcp-region and --gcp-network,
signed in with the service account key of --gcp-credentials-file, else with
Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, or the
metadata server: GKE workload identity); HCPLINK_GCP_COMPUTE_ENDPOINT and
HCPLINK_GCP_DNS_ENDPOINT point it at another cloud (cloudsim).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
			cfg, err := ctrl.GetConfig()
			if err != nil {
				return err
			}
			opts.RestConfig = cfg
			if opts.Azure, err = azureOperatorConfig(opts.PrivatePlatform, azurePLSResourceGroup, azureVNetID, os.Getenv); err != nil {
				return err
			}
			if err := checkLoadBalancerConfigurations(opts.PrivatePlatform, opts.AzureLoadBalancerConfigurations); err != nil {
				return err
			}
			if opts.GCP, err = gcpOperatorOptions(opts.PrivatePlatform, opts.GCP, gcpCredentialsFile, os.Getenv); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return operator.Run(ctrl.LoggerInto(ctx, ctrl.Log.WithName("operator")), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.PrivatePlatform, "private-platform", operator.PlatformNone, "cloud whose private connectivity this operator serves: AWS, Azure, GCP or None")
	f.StringVar(&opts.AWSPrivateRegion, "aws-private-region", "", "AWS region of the management cluster; private AWS clusters must be in it (required with --private-platform=AWS)")
	f.StringVar(&opts.ControlPlaneOperatorImage, "control-plane-operator-image", "", "image of the control-plane operator Deployments")
	f.StringVar(&opts.MetricsBindAddress, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint; 0 disables it")
	f.StringVar(&opts.HealthProbeBindAddress, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz probes; 0 disables them")
	f.BoolVar(&opts.LeaderElection, "leader-elect", false, "elect one active replica through a Lease")
	f.StringVar(&opts.LeaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader-election Lease (required with --leader-elect)")
	f.DurationVar(&opts.CleanupGracePeriod, "cleanup-grace-period", 0, "how long deletion waits for a component's cleanup while its cloud credentials are invalid (the control plane's, or the operator's own) or were never checked, before it gives up that component's part and reports what may have leaked (0: 10m)")
	f.IntVar(&opts.MaxConcurrentReconciles, "max-concurrent-reconciles", operator.DefaultMaxConcurrentReconciles, "workers of each controller, so that one slow cluster never holds the others")
	f.StringVar(&opts.ManagementClusterID, "management-cluster-id", "", "names this management cluster on the cloud resources it owns (tag hcplink.io/management-cluster), so that management clusters sharing an account never touch each other's (default: the kube-system namespace's UID)")
	f.DurationVar(&opts.EndpointServiceDriftInterval, "drift-interval", 0, "how often each AWS endpoint service, Azure Private Link Service or GCP service attachment is checked for drift, jittered (0: the platform's default: "+operator.DriftHelp()+")")
	f.StringVar(&azurePLSResourceGroup, "azure-pls-resource-group", "", "with --private-platform=Azure: the management cluster's resource group, where its internal load balancers are looked for (default: the resource group in the first Node's spec.providerID)")
	f.StringVar(&azureVNetID, "azure-vnet-id", "", "with --private-platform=Azure: the management cluster's VNet (resource ID); only load balancer frontends in it are taken (needed when clusters with the same address ranges share the resource group)")
	f.StringSliceVar(&opts.AzureLoadBalancerConfigurations, "azure-load-balancer-configurations", nil, "with --private-platform=Azure: the cloud provider's load-balancer configurations (cloud-provider-azure multipleStandardLoadBalancerConfigurations, comma-separated) to place each new private cluster's routers on, one whose internal load balancer has room for its Private Link Service (Azure allows 8 per load balancer); the choice is kept in the HostedCluster's status.azureLoadBalancerConfiguration (default: none; the cloud provider places the routers, on one shared internal load balancer unless configured otherwise)")
	f.StringVar(&opts.GCP.Project, "gcp-project", "", "with --private-platform=GCP: the management project, where the routers' forwarding rules, the PSC NAT subnetworks and the service attachments are (required)")
	f.StringVar(&opts.GCP.Region, "gcp-region", "", "with --private-platform=GCP: the management cluster's region; private GCP clusters must be in it (required)")
	f.StringVar(&opts.GCP.Network, "gcp-network", "", "with --private-platform=GCP: the management cluster's VPC network, by name or as projects/<host project>/global/networks/<name> (Shared VPC); only its forwarding rules and subnetworks are used (required)")
	f.StringSliceVar(&opts.GCP.NATSubnets, "gcp-nat-subnets", nil, "with --private-platform=GCP: the PSC NAT subnetworks (names, comma-separated) the fleet's service attachments may take, one per attachment (default: every subnetwork of purpose PRIVATE_SERVICE_CONNECT in the network and region)")
	f.StringVar(&gcpCredentialsFile, "gcp-credentials-file", "", "with --private-platform=GCP: the operator's service account key file (default: Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS, else the metadata server, as with GKE workload identity)")
	f.DurationVar(&opts.EndpointServiceSweepInterval, "sweep-interval", 0, "how often endpoint services tagged for objects that no longer exist are looked for, jittered (0: the platform's default: "+operator.SweepHelp()+"; a platform not listed has no sweeper)")
	f.BoolVar(&opts.DebugLiveHeap, "debug-live-heap", false, "serve the live heap after a forced garbage collection at "+liveheap.Path+" on the metrics endpoint (for hcplink bench; each request pauses the operator briefly)")
	_ = cmd.MarkFlagRequired("control-plane-operator-image")
	goFlags := flag.NewFlagSet("zap", flag.ContinueOnError)
	zapOpts.BindFlags(goFlags)
	if kubeconfig := flag.CommandLine.Lookup("kubeconfig"); kubeconfig != nil {
		goFlags.Var(kubeconfig.Value, kubeconfig.Name, kubeconfig.Usage) // read by ctrl.GetConfig
	}
	f.AddGoFlagSet(goFlags)
	return cmd
}

// azureOperatorConfig is the Azure configuration the operator's flags add
// to the environment's; nil (the environment's alone) when they add none.
func azureOperatorConfig(platform, plsResourceGroup, vnetID string, getenv func(string) string) (*azurecloud.Config, error) {
	if plsResourceGroup == "" && vnetID == "" {
		return nil, nil
	}
	if platform != operator.PlatformAzure {
		return nil, fmt.Errorf("--azure-pls-resource-group and --azure-vnet-id need --private-platform=Azure, not %q", platform)
	}
	if vnetID != "" {
		if _, err := azurecloud.ParseVNetID(vnetID); err != nil {
			return nil, fmt.Errorf("--azure-vnet-id: %w", err)
		}
	}
	cfg, err := azurecloud.ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	cfg.ResourceGroup, cfg.VNetID = plsResourceGroup, vnetID
	return &cfg, nil
}

// loadBalancerConfigurationName is an Azure load balancer name that still
// fits with "-internal" after it (80 characters; letters, digits,
// underscores, periods and hyphens; beginning with a letter or digit,
// ending with a letter, digit or underscore:
// https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules#microsoftnetwork).
var loadBalancerConfigurationName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9_.-]{0,69}[A-Za-z0-9_])?$`)

// checkLoadBalancerConfigurations refuses --azure-load-balancer-configurations
// without the Azure platform, and names Azure would refuse.
func checkLoadBalancerConfigurations(platform string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	if platform != operator.PlatformAzure {
		return fmt.Errorf("--azure-load-balancer-configurations needs --private-platform=Azure, not %q", platform)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if !loadBalancerConfigurationName.MatchString(n) {
			return fmt.Errorf("--azure-load-balancer-configurations: %q is not a load-balancer name Azure accepts (up to 71 letters, digits, underscores, periods and hyphens, beginning with a letter or digit and ending with a letter, digit or underscore)", n)
		}
		if seen[strings.ToLower(n)] {
			return fmt.Errorf("--azure-load-balancer-configurations: %q is named twice", n)
		}
		seen[strings.ToLower(n)] = true
	}
	return nil
}

// gcpOperatorOptions checks the --gcp-* flags against the platform and
// completes given with the sign-in: the key file of --gcp-credentials-file
// over the environment's endpoints, else nothing (the operator reads
// Application Default Credentials and the endpoints from the environment).
func gcpOperatorOptions(platform string, given gcpplatform.Options, credentialsFile string, getenv func(string) string) (gcpplatform.Options, error) {
	set := given.Project != "" || given.Region != "" || given.Network != "" || len(given.NATSubnets) > 0 || credentialsFile != ""
	if !set {
		return given, nil
	}
	if platform != operator.PlatformGCP {
		return gcpplatform.Options{}, fmt.Errorf("--gcp-project, --gcp-region, --gcp-network, --gcp-nat-subnets and --gcp-credentials-file need --private-platform=GCP, not %q", platform)
	}
	if credentialsFile == "" {
		return given, nil
	}
	cfg, err := gcpcloud.ConfigFromEnv(getenv)
	if err != nil {
		return gcpplatform.Options{}, err
	}
	if cfg.CredentialsJSON, err = os.ReadFile(credentialsFile); err != nil {
		return gcpplatform.Options{}, fmt.Errorf("--gcp-credentials-file: %w", err)
	}
	if err := gcpcloud.CheckCredentials(cfg.CredentialsJSON); err != nil {
		return gcpplatform.Options{}, fmt.Errorf("--gcp-credentials-file: %w", err)
	}
	given.Cloud = cfg
	return given, nil
}
