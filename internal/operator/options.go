package operator

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"k8s.io/client-go/rest"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/operator/hostedcluster"
	"github.com/hcplink/hcplink/internal/operator/platform"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/operator/platform/azure"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
)

// This file is the one place of the operator that names the clouds: the
// options each cloud reads and the registry assembled from them. A new
// cloud adds its options here and its descriptor to registry; Run and the
// HostedCluster controller only read the registry.

// Private platforms (Options.PrivatePlatform).
const (
	PlatformAWS   = awsplatform.Name
	PlatformAzure = azureplatform.Name
	PlatformGCP   = gcpplatform.Name
	PlatformNone  = hostedcluster.PrivatePlatformNone
)

// registry is the platforms the operator knows, each given the options it
// reads.
func registry(opts Options) *platform.Registry {
	return platform.New(
		awsplatform.Platform(awsplatform.Options{Region: opts.AWSPrivateRegion, Config: opts.AWS}),
		azureplatform.Platform(azureplatform.Options{Config: opts.Azure, LoadBalancerConfigurations: opts.AzureLoadBalancerConfigurations}),
		gcpplatform.Platform(opts.GCP),
	)
}

// Platforms is the registry of platforms with no options of their own:
// what the flags' help and the tests read (names, kinds, defaults).
func Platforms() *platform.Registry {
	return registry(Options{})
}

// Options configure the management operator.
type Options struct {
	// RestConfig reaches the management cluster.
	RestConfig *rest.Config
	// PrivatePlatform is the cloud whose private connectivity this operator
	// serves: "AWS", "Azure", "GCP" or "None" (empty means None). Clusters
	// that are not public on another cloud are refused
	// (ValidConfiguration=False).
	PrivatePlatform string
	// AWSPrivateRegion is the AWS region of the management cluster; private
	// AWS clusters must be in it.
	AWSPrivateRegion string
	// AWS is the operator's AWS configuration; nil loads it the standard way
	// (environment, shared files, web identity). Used only when
	// PrivatePlatform is AWS.
	AWS *aws.Config
	// Azure is the operator's Azure identity and endpoints; nil reads them
	// from the environment (azidentity's variables, AZURE_SUBSCRIPTION_ID
	// for the management subscription, and the endpoint overrides of
	// internal/cloud/azure). Used only when PrivatePlatform is Azure.
	Azure *azurecloud.Config
	// AzureLoadBalancerConfigurations are the Azure cloud provider's
	// load-balancer configurations (multipleStandardLoadBalancerConfigurations)
	// the operator places each private cluster's routers on, one with
	// room for its Private Link Service; none: the cloud provider's
	// default placement. Used only when PrivatePlatform is Azure.
	AzureLoadBalancerConfigurations []string
	// GCP is the operator's GCP configuration: the management project,
	// region and network (--gcp-project, --gcp-region, --gcp-network),
	// the PSC NAT subnetworks the fleet may take (--gcp-nat-subnets) and
	// the sign-in (a key file, else Application Default Credentials);
	// its zero Cloud reads the sign-in and the endpoints from the
	// environment. Used only when PrivatePlatform is GCP.
	GCP gcpplatform.Options
	// MaxConcurrentReconciles is the worker count of each controller, so
	// that one slow cluster never holds the others; zero means
	// DefaultMaxConcurrentReconciles.
	MaxConcurrentReconciles int
	// ManagementClusterID names this management cluster on the cloud
	// resources it owns, so that management clusters sharing an account
	// never touch each other's; empty means the kube-system namespace's
	// UID, read at start-up.
	ManagementClusterID string
	// ControlPlaneOperatorImage is the image of the control-plane operator
	// Deployments.
	ControlPlaneOperatorImage string
	// MetricsBindAddress and HealthProbeBindAddress are where the metrics
	// and the /healthz and /readyz probes are served; "0" disables them.
	MetricsBindAddress, HealthProbeBindAddress string
	// LeaderElection makes replicas elect one leader through a Lease in
	// LeaderElectionNamespace.
	LeaderElection          bool
	LeaderElectionNamespace string
	// CleanupGracePeriod bounds how long deletion waits for a component's
	// cleanup while its cloud credentials are invalid (the control plane's,
	// or the operator's own) or were never checked; zero means 10 minutes.
	CleanupGracePeriod time.Duration
	// EndpointServiceDriftInterval is how often each private-link object
	// of the private platform (AWS endpoint service, Azure Private Link
	// Service) is checked against the cloud; on AWS also how long the
	// batched Describe listing serves every cluster. Zero means the
	// platform's default (platform.Platform.DriftDefault). Checks are
	// jittered.
	EndpointServiceDriftInterval time.Duration
	// EndpointServiceSweepInterval is how often the private platform's
	// orphans (endpoint services tagged for an AWSEndpointService that no
	// longer exists) are looked for and removed; zero means the platform's
	// default (platform.Platform.SweepDefault). Sweeps are jittered.
	EndpointServiceSweepInterval time.Duration
	// DebugLiveHeap serves the live heap after a forced collection on the
	// metrics endpoint (liveheap.Path), for the bench's memory figure. Off
	// by default: each request stops the world for a collection.
	DebugLiveHeap bool
}

// DriftHelp and SweepHelp describe each platform's default drift-check
// and orphan-sweep intervals for the flags' help ("AWS 10m0s, Azure 5m0s").
func DriftHelp() string {
	return Platforms().DefaultsHelp(func(p platform.Platform) time.Duration { return p.DriftDefault })
}

// SweepHelp: see DriftHelp; a platform without a sweeper is left out.
func SweepHelp() string {
	return Platforms().DefaultsHelp(func(p platform.Platform) time.Duration { return p.SweepDefault })
}
