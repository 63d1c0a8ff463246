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
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/liveheap"
	"github.com/hcplink/hcplink/internal/operator/hostedcluster"
	"github.com/hcplink/hcplink/internal/operator/nodepool"
	"github.com/hcplink/hcplink/internal/operator/platform"
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
	platforms := registry(opts)
	private := platforms.Get(opts.PrivatePlatform)
	if opts.PrivatePlatform != "" && opts.PrivatePlatform != PlatformNone && private == nil {
		return fmt.Errorf("operator: private platform must be %s or None, not %q", strings.Join(platforms.Names(), ", "), opts.PrivatePlatform)
	}
	if private != nil && private.Check != nil {
		if err := private.Check(); err != nil {
			return fmt.Errorf("operator: %w", err)
		}
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
			ControlPlaneOperatorImage: opts.ControlPlaneOperatorImage,
			CleanupGracePeriod:        opts.CleanupGracePeriod,
			Platforms:                 platforms,
			ManagementCredentials:     credentials,
			Placer:                    placer,
		},
	}
	if err := r.SetupWithManager(mgr, copts); err != nil {
		return fmt.Errorf("operator: setting up the HostedCluster controller: %w", err)
	}
	np := &nodepool.Reconciler{Client: mgr.GetClient(), Platforms: platforms}
	if err := np.SetupWithManager(mgr, copts); err != nil {
		return fmt.Errorf("operator: setting up the NodePool controller: %w", err)
	}

	log.Info("starting the management operator", "privatePlatform", orDefault(opts.PrivatePlatform, PlatformNone),
		"controlPlaneOperatorImage", opts.ControlPlaneOperatorImage,
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
	started, err := p.Setup(ctx, mgr, platform.SetupOptions{
		Log:                     log,
		MaxConcurrentReconciles: opts.MaxConcurrentReconciles,
		ManagementClusterID:     opts.ManagementClusterID,
		DriftInterval:           orDefaultDuration(opts.EndpointServiceDriftInterval, p.DriftDefault),
		SweepInterval:           orDefaultDuration(opts.EndpointServiceSweepInterval, p.SweepDefault),
		Events:                  recorder,
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

func orDefaultDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
