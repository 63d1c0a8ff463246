package gcpprivateserviceconnect

import (
	"fmt"
	"os"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/hcplink/hcplink/internal/controlplane/credentials"
	"github.com/hcplink/hcplink/internal/events"
)

// SetupOptions configure the GCP controllers of the control-plane operator.
type SetupOptions struct {
	// Cloud signs in and builds the providers; nil reads the token file
	// and the endpoints from the environment (FactoryFromEnv).
	Cloud CloudFactory
	// Component labels the requests in the cloud request metrics.
	Component string
	// DriftInterval is how often a healthy private path is checked; zero
	// means DefaultDriftInterval.
	DriftInterval time.Duration
	// OperationPoll is the first look at an operation still running; zero
	// means 5 seconds.
	OperationPoll time.Duration
	// MaxConcurrentReconciles is the endpoint controller's worker count;
	// zero means its default.
	MaxConcurrentReconciles int
	Events                  *events.Recorder
}

// Setup registers the customer side of GCP Private Service Connect: the
// observer of the private router, the endpoint controller, the check of the
// cluster's GCP settings (GCPConfigurationValid, which holds back the router
// Services until they are valid) and the check of the GCP identity
// (ValidCloudCredentials). They act only when the
// namespace's HostedControlPlane is on GCP and served through Private
// Service Connect, and cost nothing otherwise; no sign-in happens before a
// cluster needs one.
func Setup(mgr ctrl.Manager, opts SetupOptions) error {
	factory := opts.Cloud
	if factory == nil {
		f := FactoryFromEnv(os.Getenv)
		f.Component = opts.Component
		factory = f
	}
	if err := (&Observer{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the GCP private router observer: %w", err)
	}
	if err := (&Reconciler{Client: mgr.GetClient(), Cloud: factory, DriftInterval: opts.DriftInterval,
		OperationPoll: opts.OperationPoll, MaxConcurrentReconciles: opts.MaxConcurrentReconciles, Events: opts.Events}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the GCP endpoint controller: %w", err)
	}
	if err := (&Validator{Client: mgr.GetClient(), Cloud: factory}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the GCP settings check: %w", err)
	}
	if err := (&credentials.Reconciler{Client: mgr.GetClient(), Checker: &CredentialsChecker{Cloud: factory}, Events: opts.Events}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the GCP credentials check: %w", err)
	}
	return nil
}
