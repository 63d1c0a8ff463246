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
	"github.com/hcplink/hcplink/internal/liveheap"
	"github.com/hcplink/hcplink/internal/operator"
)

func newOperatorCommand() *cobra.Command {
	opts := operator.Options{}
	var azurePLSResourceGroup, azureVNetID string
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
(cloudsim).`,
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
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return operator.Run(ctrl.LoggerInto(ctx, ctrl.Log.WithName("operator")), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.PrivatePlatform, "private-platform", operator.PlatformNone, "cloud whose private connectivity this operator serves: AWS, Azure or None")
	f.StringVar(&opts.AWSPrivateRegion, "aws-private-region", "", "AWS region of the management cluster; private AWS clusters must be in it (required with --private-platform=AWS)")
	f.StringVar(&opts.ControlPlaneOperatorImage, "control-plane-operator-image", "", "image of the control-plane operator Deployments")
	f.StringVar(&opts.MetricsBindAddress, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint; 0 disables it")
	f.StringVar(&opts.HealthProbeBindAddress, "health-probe-bind-address", ":8081", "address of the /healthz and /readyz probes; 0 disables them")
	f.BoolVar(&opts.LeaderElection, "leader-elect", false, "elect one active replica through a Lease")
	f.StringVar(&opts.LeaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader-election Lease (required with --leader-elect)")
	f.DurationVar(&opts.CleanupGracePeriod, "cleanup-grace-period", 0, "how long deletion waits for a component's cleanup while its cloud credentials are invalid (the control plane's, or the operator's own) or were never checked, before it gives up that component's part and reports what may have leaked (0: 10m)")
	f.IntVar(&opts.MaxConcurrentReconciles, "max-concurrent-reconciles", operator.DefaultMaxConcurrentReconciles, "workers of each controller, so that one slow cluster never holds the others")
	f.StringVar(&opts.ManagementClusterID, "management-cluster-id", "", "names this management cluster on the cloud resources it owns (tag hcplink.io/management-cluster), so that management clusters sharing an account never touch each other's (default: the kube-system namespace's UID)")
	f.DurationVar(&opts.EndpointServiceDriftInterval, "drift-interval", 0, "how often each AWS endpoint service or Azure Private Link Service is checked for drift, jittered (0: the platform's default: "+operator.DriftHelp()+")")
	f.StringVar(&azurePLSResourceGroup, "azure-pls-resource-group", "", "with --private-platform=Azure: the management cluster's resource group, where its internal load balancers are looked for (default: the resource group in the first Node's spec.providerID)")
	f.StringVar(&azureVNetID, "azure-vnet-id", "", "with --private-platform=Azure: the management cluster's VNet (resource ID); only load balancer frontends in it are taken (needed when clusters with the same address ranges share the resource group)")
	f.StringSliceVar(&opts.AzureLoadBalancerConfigurations, "azure-load-balancer-configurations", nil, "with --private-platform=Azure: the cloud provider's load-balancer configurations (cloud-provider-azure multipleStandardLoadBalancerConfigurations, comma-separated) to place each new private cluster's routers on, one whose internal load balancer has room for its Private Link Service (Azure allows 8 per load balancer); the choice is kept in the HostedCluster's status.azureLoadBalancerConfiguration (default: none; the cloud provider places the routers, on one shared internal load balancer unless configured otherwise)")
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
