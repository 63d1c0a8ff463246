package main

import (
	"flag"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/hcplink/hcplink/internal/controlplane"
	"github.com/hcplink/hcplink/internal/controlplane/platform"
	azureplatform "github.com/hcplink/hcplink/internal/controlplane/platform/azure"
)

func newControlPlaneOperatorCommand() *cobra.Command {
	opts := controlplane.Options{}
	var flags controlPlaneFlags
	zapOpts := zap.Options{}
	cmd := &cobra.Command{
		Use:   "control-plane-operator",
		Short: "Run the control-plane operator of one hosted control plane (in its namespace)",
		Long: `The control-plane operator runs in a hosted control plane's namespace with
that namespace's permissions only and the customer's cloud credentials. It
keeps the router Services (private-router, router, kube-apiserver-private)
that the cluster's endpoint access calls for, and reports in the
HostedControlPlane's ValidCloudCredentials condition whether its AWS
credentials work.

AWS credentials come the standard way: AWS_SHARED_CREDENTIALS_FILE (a web
identity profile), AWS_REGION, AWS_ENDPOINT_URL, ...

For an Azure cluster with the private configuration it also keeps the
AzurePrivateLinkService of the private router and, in the customer's
subscription, the Private Endpoint, private DNS zone, VNet link and records.
The Azure identity comes the standard way too (workload identity:
AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_FEDERATED_TOKEN_FILE), with the
endpoints configurable (AZURE_AUTHORITY_HOST, AZURE_RESOURCE_MANAGER_ENDPOINT,
AZURE_CA_BUNDLE) so that the same binary runs on Azure or cloudsim.

--platform names the cluster's platform type, as the management operator
renders it: only that cloud's controllers and credentials check run, so the
operator asks for and needs only that platform's private-link objects.

For a GCP cluster served through Private Service Connect it keeps the
GCPPrivateServiceConnect of the private router and, in the customer's
project, the PSC endpoint (an internal address and a forwarding rule to the
service attachment), the private Cloud DNS zone and its records. It signs in
by workload identity federation only, as the HostedControlPlane names it,
with the ServiceAccount token the operator renders at HCPLINK_GCP_TOKEN_FILE;
HCPLINK_GCP_COMPUTE_ENDPOINT, HCPLINK_GCP_DNS_ENDPOINT,
HCPLINK_GCP_STS_ENDPOINT and HCPLINK_GCP_IAMCREDENTIALS_ENDPOINT point it at
another cloud (cloudsim).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := zap.New(zap.UseFlagOptions(&zapOpts))
			ctrl.SetLogger(log)
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			cfg, err := ctrl.GetConfig()
			if err != nil {
				return err
			}
			opts.RestConfig = cfg
			opts.Platforms = flags.settings(cmd.Flags().Changed("azure-drift-interval"))
			return controlplane.Run(ctrl.LoggerInto(ctx, log.WithName("control-plane-operator")), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Namespace, "namespace", "", "the hosted control plane's namespace (required)")
	cmd.Flags().StringVar(&opts.Platform, "platform", "", "the hosted control plane's platform type ("+strings.Join(controlplane.Platforms().Names(), ", ")+
		"): only its controllers and credentials check run, as its Role allows; empty runs every platform's (Deployments rendered by a management operator older than this flag)")
	cmd.Flags().StringVar(&opts.MetricsBindAddress, "metrics-bind-address", ":8080", `address of the metrics endpoint; "0" disables it`)
	cmd.Flags().StringVar(&opts.HealthProbeBindAddress, "health-probe-bind-address", ":8081", `address of the health and readiness probes; "0" disables them`)
	cmd.Flags().DurationVar(&flags.drift, "drift-interval", 0, "how often a healthy private path (AWS: VPC endpoint, security group, records; Azure: Private Endpoint, private zone, link, records) is checked for drift, jittered (0: the platform's default: "+controlplane.Platforms().DriftHelp()+")")
	cmd.Flags().DurationVar(&flags.azureDrift, "azure-drift-interval", 0, "--drift-interval for the Azure path alone")
	_ = cmd.Flags().MarkDeprecated("azure-drift-interval", "use --drift-interval, which applies to either cloud")
	cmd.Flags().IntVar(&flags.workers, "max-concurrent-reconciles", platform.DefaultMaxConcurrentReconciles, "workers of the cluster's endpoint controller (AWS, Azure or GCP), so that one hung call never holds the others")
	_ = cmd.MarkFlagRequired("namespace")
	goFlags := flag.NewFlagSet("zap", flag.ContinueOnError)
	zapOpts.BindFlags(goFlags)
	cmd.Flags().AddGoFlagSet(goFlags)
	return cmd
}

// controlPlaneFlags are the control-plane operator's per-platform flags,
// each given once for every platform.
type controlPlaneFlags struct {
	drift, azureDrift time.Duration
	workers           int
}

// settings gives every platform --drift-interval and
// --max-concurrent-reconciles; the older --azure-drift-interval, when
// given, still wins for Azure.
func (f controlPlaneFlags) settings(azureGiven bool) map[string]platform.Settings {
	out := map[string]platform.Settings{}
	for _, name := range controlplane.Platforms().Names() {
		out[name] = platform.Settings{DriftInterval: f.drift, MaxConcurrentReconciles: f.workers}
	}
	if azureGiven {
		s := out[azureplatform.Name]
		s.DriftInterval = f.azureDrift
		out[azureplatform.Name] = s
	}
	return out
}
