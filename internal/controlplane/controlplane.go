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
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/route53"
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
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloud/awshttp"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/controlplane/awsprivatelink"
	"github.com/hcplink/hcplink/internal/controlplane/azureprivatelink"
	"github.com/hcplink/hcplink/internal/controlplane/credentials"
	"github.com/hcplink/hcplink/internal/controlplane/routers"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/outcome"
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
	// AWS is the customer-side AWS configuration. Nil loads it the standard
	// way (environment, shared files, web identity).
	AWS *aws.Config
	// MetricsBindAddress and HealthProbeBindAddress are listen addresses;
	// "0" disables the endpoint.
	MetricsBindAddress, HealthProbeBindAddress string
	// AWSDriftInterval is how often a healthy VPC endpoint is checked
	// against the cloud (jittered by ±15%); zero means
	// awsprivatelink.DefaultDriftInterval (10 minutes).
	AWSDriftInterval time.Duration
	// AWSMaxConcurrentReconciles is the AWS endpoint controller's worker
	// count; zero means awsprivatelink.DefaultMaxConcurrentReconciles (2).
	AWSMaxConcurrentReconciles int
	// Azure is the customer-side Azure identity and endpoints. Nil reads
	// them from the environment (AZURE_CLIENT_ID, AZURE_TENANT_ID,
	// AZURE_FEDERATED_TOKEN_FILE, AZURE_AUTHORITY_HOST,
	// AZURE_RESOURCE_MANAGER_ENDPOINT, AZURE_CA_BUNDLE, ...); the
	// credential is built only when an Azure cluster needs it.
	Azure *azurecloud.Config
	// AzureDriftInterval is how often a healthy Azure private path is
	// checked (jittered by ±15%); zero means
	// azureprivatelink.DefaultDriftInterval (5 minutes).
	AzureDriftInterval time.Duration
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

	var awsConfig aws.Config
	if opts.AWS != nil {
		awsConfig = opts.AWS.Copy() // Instrument appends to it; leave the caller's alone
	} else {
		cfg, err := awscloud.LoadConfig(ctx)
		if err != nil {
			return nil, err
		}
		awsConfig = cfg
	}
	awshttp.Apply(&awsConfig)
	awscloud.Instrument(&awsConfig, MetricsComponent)
	// Every successful call proves the credentials; the credentials check
	// then needs none of its own.
	proof := &awscloud.LastSuccess{}
	proof.Observe(&awsConfig)

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
	if err := (&routers.Reconciler{Client: mgr.GetClient(), MayCreate: azureprivatelink.MayCreateRouters}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("setting up the router controller: %w", err)
	}
	if err := (&credentials.Reconciler{Client: mgr.GetClient(), Checker: &credentials.AWSChecker{AWS: awsConfig, Proof: proof},
		Events: recorder}).SetupWithManager(mgr); err != nil {
		return nil, fmt.Errorf("setting up the credentials controller: %w", err)
	}
	if err := setupAWSPrivateLink(mgr, opts, awsConfig, recorder); err != nil {
		return nil, err
	}
	if err := setupAzurePrivateLink(mgr, opts, recorder); err != nil {
		return nil, err
	}
	return mgr, nil
}

// setupAzurePrivateLink registers the customer side of Azure Private Link:
// the observer of the private router, the endpoint controller and the
// check of the Azure identity (ValidCloudCredentials). They act
// only when the namespace's HostedControlPlane is on Azure with the
// private configuration, and cost nothing otherwise.
func setupAzurePrivateLink(mgr ctrl.Manager, opts Options, recorder *events.Recorder) error {
	azConfig := opts.Azure
	if azConfig == nil {
		cfg, err := azurecloud.ConfigFromEnv(os.Getenv)
		if err != nil {
			return fmt.Errorf("reading the Azure configuration: %w", err)
		}
		azConfig = &cfg
	}
	withComponent := *azConfig
	withComponent.Component = MetricsComponent
	azConfig = &withComponent
	if err := (&azureprivatelink.Observer{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the Azure private router observer: %w", err)
	}
	factory := &azureprivatelink.ARMFactory{Config: azConfig}
	if err := (&azureprivatelink.Reconciler{Client: mgr.GetClient(), Cloud: factory,
		DriftInterval: opts.AzureDriftInterval, Events: recorder}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the Azure endpoint controller: %w", err)
	}
	if err := (&azureprivatelink.Validator{Client: mgr.GetClient(), Cloud: factory}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the Azure settings check: %w", err)
	}
	if err := (&credentials.Reconciler{Client: mgr.GetClient(), Checker: &azureprivatelink.CredentialsChecker{Cloud: factory},
		Events: recorder}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the Azure credentials check: %w", err)
	}
	return nil
}

// setupAWSPrivateLink registers the customer side of AWS PrivateLink: the
// observers of the private load-balancer Services, the endpoint controller
// and the tag sweeper. They act only when the namespace's
// HostedControlPlane is on AWS (the operator knows the platform only once
// the HostedControlPlane is read), and cost nothing otherwise.
func setupAWSPrivateLink(mgr ctrl.Manager, opts Options, awsConfig aws.Config, recorder *events.Recorder) error {
	for _, name := range []string{hcplinkv1beta1.PrivateRouterServiceName, hcplinkv1beta1.KubeAPIServerPrivateServiceName} {
		if err := (&awsprivatelink.Observer{Client: mgr.GetClient(), ServiceName: name}).SetupWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the %s observer: %w", name, err)
		}
	}
	ec2Client, r53Client := ec2.NewFromConfig(awsConfig), route53.NewFromConfig(awsConfig)
	tracker := &outcome.Tracker{}
	if err := (&awsprivatelink.Reconciler{Client: mgr.GetClient(), EC2: ec2Client, Route53: r53Client, DriftInterval: opts.AWSDriftInterval,
		Tracker: tracker, MaxConcurrentReconciles: opts.AWSMaxConcurrentReconciles, Events: recorder}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the AWS endpoint controller: %w", err)
	}
	if err := (&awsprivatelink.CleanupReconciler{Client: mgr.GetClient(), EC2: ec2Client, Route53: r53Client, Tracker: tracker}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the AWS final sweep: %w", err)
	}
	if err := mgr.Add(&awsprivatelink.Sweeper{Client: mgr.GetClient(), EC2: ec2Client, Namespace: opts.Namespace, Events: recorder}); err != nil {
		return fmt.Errorf("adding the AWS endpoint sweeper: %w", err)
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
