// Package controlplane runs the control-plane operator: one per hosted
// control plane, in that control plane's namespace, with RBAC for that
// namespace only and the customer's cloud credentials. Its manager caches
// and watches that one namespace and never reads a cluster-scoped resource,
// so it works under a namespace-scoped Role (and, in the local environment,
// through a rest.Config that impersonates its ServiceAccount). It uses no
// leader election, and many of them can share one process.
package controlplane

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/controlplane/credentials"
	"github.com/hcplink/hcplink/internal/controlplane/platform"
	"github.com/hcplink/hcplink/internal/controlplane/routers"
	"github.com/hcplink/hcplink/internal/events"
)

// MetricsComponent is the component label of the control-plane operator's
// cloud-call metrics.
const MetricsComponent = "control-plane-operator"

// EventSource is the reporting controller of the control-plane operator's
// Events.
const EventSource = "hcplink-control-plane-operator"

// Options configure Run.
type Options struct {
	// RestConfig reaches the management cluster's API server.
	RestConfig *rest.Config
	// Namespace is the control-plane namespace; the operator reads and
	// writes nothing outside it.
	Namespace string
	// MetricsBindAddress and HealthProbeBindAddress are listen addresses;
	// "0" disables the endpoint.
	MetricsBindAddress, HealthProbeBindAddress string
	// Platform is the one platform whose controllers and credentials check
	// run ("AWS", "Azure", "GCP": the HostedControlPlane's platform type,
	// which the management operator renders as --platform); "" runs every
	// platform's, as the Deployments of a management operator older than
	// the flag ask.
	Platform string
	// Platforms are each platform's settings, by platform name ("AWS",
	// "Azure"); a platform not named gets its defaults and loads its
	// cloud configuration the standard way.
	Platforms map[string]platform.Settings
}

// Run runs the control-plane operator until ctx ends.
func Run(ctx context.Context, opts Options) error {
	mgr, err := NewManager(ctx, opts)
	if err != nil {
		return err
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running the control-plane operator in %s: %w", opts.Namespace, err)
	}
	return nil
}

// NewManager builds the control-plane operator's manager with its
// controllers, ready to Start.
func NewManager(ctx context.Context, opts Options) (ctrl.Manager, error) {
	if opts.RestConfig == nil {
		return nil, errors.New("the control-plane operator needs a Kubernetes client configuration")
	}
	if opts.Namespace == "" {
		return nil, errors.New("the control-plane operator needs its namespace (--namespace)")
	}
	registry := Platforms()
	served, err := Serving(registry, opts.Platform)
	if err != nil {
		return nil, err
	}

	log := ctrl.LoggerFrom(ctx).WithValues("controlPlaneNamespace", opts.Namespace)
	mgr, err := ctrl.NewManager(opts.RestConfig, ctrl.Options{
		Scheme: Scheme(),
		Logger: log,
		Cache: cache.Options{
			// The namespace-scoped Role allows nothing else.
			DefaultNamespaces: map[string]cache.Config{opts.Namespace: {}},
		},
		Metrics:                metricsserver.Options{BindAddress: opts.MetricsBindAddress},
		HealthProbeBindAddress: opts.HealthProbeBindAddress,
		LeaderElection:         false,
		Controller: config.Controller{
			// Many control-plane operators share one process in devenv.
			SkipNameValidation: ptr.To(true),
		},
	})
	if err != nil {
		return nil, fmt.Errorf("creating the control-plane operator's manager for %s: %w", opts.Namespace, err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding the health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("adding the readiness check: %w", err)
	}

	recorder := events.New(mgr.GetEventRecorder(EventSource))
	// The router controller is every cluster's, whatever its platform; it
	// reads the registry's annotations and gates only, and calls no cloud.
	if err := (&routers.Reconciler{Client: mgr.GetClient(), MayCreate: registry.MayCreateRouters, Annotations: registry}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("setting up the router controller: %w", err)
	}
	for _, p := range served {
		if err := setupPlatform(ctx, mgr, &p, opts, recorder); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}

// Serving returns the platforms of registry a control-plane operator
// started for name runs: that one, or every one when name is "". An
// unknown name is refused, naming the known ones.
func Serving(registry *platform.Registry, name string) ([]platform.Platform, error) {
	if name == "" {
		return registry.All(), nil
	}
	p := registry.Get(name)
	if p == nil {
		return nil, fmt.Errorf("the control-plane operator serves no platform %q (--platform): use one of %s, the HostedControlPlane's platform type",
			name, strings.Join(registry.Names(), ", "))
	}
	return []platform.Platform{*p}, nil
}

// setupPlatform registers one platform's controllers and its credentials
// check, with its settings resolved against its defaults.
func setupPlatform(ctx context.Context, mgr ctrl.Manager, p *platform.Platform, opts Options, recorder *events.Recorder) error {
	settings := opts.Platforms[p.Name]
	settings.DriftInterval = p.Drift(settings)
	settings.MaxConcurrentReconciles = platform.Workers(settings)
	started, err := p.Setup(ctx, mgr, platform.SetupOptions{Settings: settings, Namespace: opts.Namespace,
		MetricsComponent: MetricsComponent, Events: recorder})
	if err != nil {
		return fmt.Errorf("setting up %s: %w", p.Name, err)
	}
	if started.Credentials == nil {
		return nil
	}
	if err := (&credentials.Reconciler{Client: mgr.GetClient(), Checker: started.Credentials, Events: recorder}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the %s credentials check: %w", p.Name, err)
	}
	return nil
}

// Scheme returns the kinds the control-plane operator reads and writes:
// the Kubernetes built-in kinds and hcplink.io/v1beta1.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(hcplinkv1beta1.AddToScheme(s))
	return s
}
