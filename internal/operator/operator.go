// Package operator runs the hcplink management operator: one per management
// cluster, it creates each HostedCluster's control plane (see
// internal/operator/hostedcluster), reports each NodePool's configuration
// (internal/operator/nodepool), sets up its private platform's controllers
// from the platform registry (internal/operator/platform), checks its own
// cloud credentials, and serves health probes and Prometheus metrics.
package operator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/liveheap"
	"github.com/hcplink/hcplink/internal/operator/hostedcluster"
	"github.com/hcplink/hcplink/internal/operator/nodepool"
	"github.com/hcplink/hcplink/internal/operator/platform"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/operator/platform/azure"
)

// Private platforms (Options.PrivatePlatform).
const (
	PlatformAWS   = awsplatform.Name
	PlatformAzure = azureplatform.Name
	PlatformNone  = hostedcluster.PrivatePlatformNone
)

const (
	// LeaderElectionID names the Lease the operator replicas compete for.
	LeaderElectionID = "hcplink-operator"
	// eventSource is the reporting controller of the operator's events.
	eventSource = "hcplink-operator"
	// DefaultMaxConcurrentReconciles is each controller's worker count when
	// Options.MaxConcurrentReconciles is zero.
	DefaultMaxConcurrentReconciles = 4
)

// Platforms is the registry of private platforms the operator knows. A new
// cloud adds its package here; the HostedCluster controller and Run only
// read the registry.
func Platforms() *platform.Registry {
	return platform.New(awsplatform.Platform(), azureplatform.Platform())
}

// Options configure the management operator.
type Options struct {
	// RestConfig reaches the management cluster.
	RestConfig *rest.Config
	// PrivatePlatform is the cloud whose private connectivity this operator
	// serves: "AWS", "Azure" or "None" (empty means None). Clusters that are
	// not public on another cloud are refused (ValidConfiguration=False).
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
	// EndpointServiceDriftInterval is how often each AWS endpoint service
	// is checked against AWS, and how long the batched Describe listing
	// serves every cluster; zero means 10 minutes. Checks are jittered.
	// With Azure it is how often each Private Link Service is checked
	// (zero: 5 minutes).
	EndpointServiceDriftInterval time.Duration
	// EndpointServiceSweepInterval is how often orphaned endpoint services
	// (tagged for an AWSEndpointService that no longer exists) are looked
	// for and removed; zero means 30 minutes. Sweeps are jittered.
	EndpointServiceSweepInterval time.Duration
	// DebugLiveHeap serves the live heap after a forced collection on the
	// metrics endpoint (liveheap.Path), for the bench's memory figure. Off
	// by default: each request stops the world for a collection.
	DebugLiveHeap bool
}

// metricsOptions serves the metrics, and the live heap when asked.
func metricsOptions(opts Options) metricsserver.Options {
	m := metricsserver.Options{BindAddress: orDefault(opts.MetricsBindAddress, "0")}
	if opts.DebugLiveHeap {
		m.ExtraHandlers = map[string]http.Handler{liveheap.Path: liveheap.Handler()}
	}
	return m
}

// Run runs the operator until ctx ends.
func Run(ctx context.Context, opts Options) error {
	if opts.RestConfig == nil {
		return errors.New("operator: RestConfig is required")
	}
	platforms := Platforms()
	private := platforms.Get(opts.PrivatePlatform)
	if opts.PrivatePlatform != "" && opts.PrivatePlatform != PlatformNone && private == nil {
		return fmt.Errorf("operator: private platform must be %s or None, not %q", strings.Join(platforms.Names(), ", "), opts.PrivatePlatform)
	}
	if opts.PrivatePlatform == PlatformAWS && opts.AWSPrivateRegion == "" {
		return errors.New("operator: the AWS private region is required when the private platform is AWS")
	}
	if opts.LeaderElection && opts.LeaderElectionNamespace == "" {
		return errors.New("operator: leader election needs a namespace for its Lease")
	}
	if opts.MaxConcurrentReconciles <= 0 {
		opts.MaxConcurrentReconciles = DefaultMaxConcurrentReconciles
	}
	log := ctrl.LoggerFrom(ctx)

	mgr, err := ctrl.NewManager(opts.RestConfig, manager.Options{
		Scheme:                  scheme(),
		Logger:                  log,
		Metrics:                 metricsOptions(opts),
		HealthProbeBindAddress:  orDefault(opts.HealthProbeBindAddress, "0"),
		LeaderElection:          opts.LeaderElection,
		LeaderElectionID:        LeaderElectionID,
		LeaderElectionNamespace: opts.LeaderElectionNamespace,
		// Step down at once on shutdown, so a new replica leads without
		// waiting for the lease to expire; Run returns right after.
		LeaderElectionReleaseOnCancel: true,
		// managedFields are a large share of every cached object and
		// nothing here reads them (writes are server-side applies).
		Cache: cache.Options{ByObject: hostedcluster.CacheByObject(), DefaultTransform: cache.TransformStripManagedFields()},
	})
	if err != nil {
		return fmt.Errorf("operator: creating the manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return fmt.Errorf("operator: adding the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return fmt.Errorf("operator: adding the readiness check: %w", err)
	}
	if opts.ManagementClusterID == "" {
		if opts.ManagementClusterID, err = managementClusterID(ctx, mgr.GetAPIReader()); err != nil {
			return err
		}
	}

	// Run may be called more than once in a process (the local environment,
	// tests): controller names need not be unique then.
	copts := controller.Options{SkipNameValidation: ptr.To(true), MaxConcurrentReconciles: opts.MaxConcurrentReconciles}
	recorder := events.New(mgr.GetEventRecorder(eventSource))
	var credentials platform.Credentials
	var placer platform.Placer
	if private != nil && private.Setup != nil {
		checker, started, err := setupPlatform(ctx, mgr, private, opts, recorder)
		if err != nil {
			return err
		}
		if checker != nil {
			credentials = checker
		}
		placer = started.Placer
	}

	r := &hostedcluster.Reconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Events:    recorder,
		Config: hostedcluster.Config{
			PrivatePlatform:           opts.PrivatePlatform,
			AWSPrivateRegion:          opts.AWSPrivateRegion,
			ControlPlaneOperatorImage: opts.ControlPlaneOperatorImage,
			AzureAuthorityHost:        azureAuthorityHost(opts.Azure, os.Getenv),
			CleanupGracePeriod:        opts.CleanupGracePeriod,
			Platforms:                 platforms,
			ManagementCredentials:     credentials,
			Placer:                    placer,
		},
	}
	if err := r.SetupWithManager(mgr, copts); err != nil {
		return fmt.Errorf("operator: setting up the HostedCluster controller: %w", err)
	}
	np := &nodepool.Reconciler{Client: mgr.GetClient()}
	if err := np.SetupWithManager(mgr, copts); err != nil {
		return fmt.Errorf("operator: setting up the NodePool controller: %w", err)
	}

	log.Info("starting the management operator", "privatePlatform", orDefault(opts.PrivatePlatform, PlatformNone),
		"awsPrivateRegion", opts.AWSPrivateRegion, "controlPlaneOperatorImage", opts.ControlPlaneOperatorImage,
		"managementClusterID", opts.ManagementClusterID, "maxConcurrentReconciles", opts.MaxConcurrentReconciles)
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("operator: %w", err)
	}
	return nil
}

// setupPlatform runs the private platform's setup and starts the check of
// the management credentials it returns (nil when it returns none). A
// configuration that cannot be loaded does not stop the operator (public
// clusters still work): the log and the gauge say so, and the credentials
// count as invalid from now on, so that the operator's own cleanup, which
// cannot run, may be given up at deletion after the grace period.
func setupPlatform(ctx context.Context, mgr manager.Manager, p *platform.Platform, opts Options, recorder *events.Recorder) (*credentialsChecker, platform.Started, error) {
	log := ctrl.LoggerFrom(ctx)
	checker := newCredentialsChecker(p.Name, nil, log.WithName("credentials"))
	var cloud any
	switch {
	case opts.AWS != nil && p.Name == PlatformAWS:
		cloud = opts.AWS
	case opts.Azure != nil && p.Name == PlatformAzure:
		cloud = opts.Azure
	}
	started, err := p.Setup(ctx, mgr, platform.SetupOptions{
		Log:                     log,
		Region:                  opts.AWSPrivateRegion,
		Cloud:                   cloud,
		MaxConcurrentReconciles: opts.MaxConcurrentReconciles,
		ManagementClusterID:     opts.ManagementClusterID,
		DriftInterval:           opts.EndpointServiceDriftInterval,
		SweepInterval:           opts.EndpointServiceSweepInterval,
		Events:                  recorder,
		Placements:              opts.AzureLoadBalancerConfigurations,
	})
	switch {
	case platform.IsConfigError(err):
		log.Error(err, "the cloud configuration could not be loaded; private connectivity will not work until it is fixed", "platform", p.Name)
		credentialsValid.WithLabelValues(p.Name).Set(0)
		checker.set(platform.CredentialsInvalid)
		return checker, started, nil
	case err != nil:
		return nil, started, fmt.Errorf("operator: setting up %s: %w", p.Name, err)
	case started.Identity == nil:
		return nil, started, nil
	}
	checker.caller = started.Identity
	if err := mgr.Add(checker); err != nil {
		return nil, started, fmt.Errorf("operator: adding the credentials check: %w", err)
	}
	return checker, started, nil
}

// azureAuthorityHost is the Entra ID authority of the operator's own Azure
// configuration, or of its environment: the control-plane operators it
// renders sign in at the same cloud (public, sovereign, or cloudsim). ""
// leaves the rendering's default, Azure's public cloud.
func azureAuthorityHost(cfg *azurecloud.Config, getenv func(string) string) string {
	if cfg != nil && cfg.Cloud.ActiveDirectoryAuthorityHost != "" {
		return cfg.Cloud.ActiveDirectoryAuthorityHost
	}
	return getenv(azurecloud.EnvAuthorityHost)
}

// managementClusterID is the kube-system namespace's UID: stable for the
// life of the management cluster and different for every cluster.
func managementClusterID(ctx context.Context, reader client.Reader) (string, error) {
	ns := &corev1.Namespace{}
	if err := reader.Get(ctx, client.ObjectKey{Name: metav1.NamespaceSystem}, ns); err != nil {
		return "", fmt.Errorf("operator: reading the kube-system namespace for the management cluster ID (or set it explicitly): %w", err)
	}
	return string(ns.UID), nil
}

// scheme has the Kubernetes kinds and the hcplink.io kinds.
func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(hcplinkv1beta1.AddToScheme(s))
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
