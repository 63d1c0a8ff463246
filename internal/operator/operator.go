// Package operator runs the hcplink management operator: one per management
// cluster, it creates each HostedCluster's control plane (see
// internal/operator/hostedcluster) and serves health probes and Prometheus
// metrics.
package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloud/awshttp"
	"github.com/hcplink/hcplink/internal/operator/awsendpointservice"
	"github.com/hcplink/hcplink/internal/operator/hostedcluster"
)

// Private platforms (Options.PrivatePlatform).
const (
	PlatformAWS   = hostedcluster.PrivatePlatformAWS
	PlatformAzure = hostedcluster.PrivatePlatformAzure
	PlatformNone  = hostedcluster.PrivatePlatformNone
)

const (
	// LeaderElectionID names the Lease the operator replicas compete for.
	LeaderElectionID = "hcplink-operator"
	// metricsComponent is the component label of the operator's cloud calls.
	metricsComponent = "operator"
	// eventSource is the reporting controller of the operator's events.
	eventSource = "hcplink-operator"
)

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
	// CleanupGracePeriod bounds how long deletion waits for the private-link
	// cleanup while the control plane reports invalid cloud credentials;
	// zero means 10 minutes.
	CleanupGracePeriod time.Duration
	// EndpointServiceDriftInterval is how often each AWS endpoint service
	// is checked against AWS, and how long the batched Describe listing
	// serves every cluster; zero means 10 minutes. Checks are jittered.
	EndpointServiceDriftInterval time.Duration
	// EndpointServiceSweepInterval is how often orphaned endpoint services
	// (tagged for an AWSEndpointService that no longer exists) are looked
	// for and removed; zero means 30 minutes. Sweeps are jittered.
	EndpointServiceSweepInterval time.Duration
}

// Run runs the operator until ctx ends.
func Run(ctx context.Context, opts Options) error {
	if opts.RestConfig == nil {
		return errors.New("operator: RestConfig is required")
	}
	switch opts.PrivatePlatform {
	case "", PlatformNone, PlatformAWS, PlatformAzure:
	default:
		return fmt.Errorf("operator: private platform must be AWS, Azure or None, not %q", opts.PrivatePlatform)
	}
	if opts.PrivatePlatform == PlatformAWS && opts.AWSPrivateRegion == "" {
		return errors.New("operator: the AWS private region is required when the private platform is AWS")
	}
	if opts.LeaderElection && opts.LeaderElectionNamespace == "" {
		return errors.New("operator: leader election needs a namespace for its Lease")
	}
	log := ctrl.LoggerFrom(ctx)

	mgr, err := ctrl.NewManager(opts.RestConfig, manager.Options{
		Scheme:                  scheme(),
		Logger:                  log,
		Metrics:                 metricsserver.Options{BindAddress: orDefault(opts.MetricsBindAddress, "0")},
		HealthProbeBindAddress:  orDefault(opts.HealthProbeBindAddress, "0"),
		LeaderElection:          opts.LeaderElection,
		LeaderElectionID:        LeaderElectionID,
		LeaderElectionNamespace: opts.LeaderElectionNamespace,
		// Step down at once on shutdown, so a new replica leads without
		// waiting for the lease to expire; Run returns right after.
		LeaderElectionReleaseOnCancel: true,
		Cache:                         cache.Options{ByObject: hostedcluster.CacheByObject()},
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

	if opts.PrivatePlatform == PlatformAWS {
		cfg, err := awsConfig(ctx, opts)
		if err != nil {
			// A broken configuration must not stop the operator: public and
			// Azure clusters still work. The gauge and the log say so.
			log.Error(err, "the AWS configuration could not be loaded; AWS PrivateLink will not work until it is fixed")
			credentialsValid.WithLabelValues(PlatformAWS).Set(0)
		} else {
			if err := mgr.Add(&credentialsChecker{caller: newSTSCaller(cfg), platform: PlatformAWS, log: log.WithName("credentials")}); err != nil {
				return fmt.Errorf("operator: adding the credentials check: %w", err)
			}
			if err := setupEndpointServices(mgr, cfg, opts); err != nil {
				return err
			}
		}
	}

	r := &hostedcluster.Reconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Recorder:  mgr.GetEventRecorder(eventSource),
		Config: hostedcluster.Config{
			PrivatePlatform:           opts.PrivatePlatform,
			AWSPrivateRegion:          opts.AWSPrivateRegion,
			ControlPlaneOperatorImage: opts.ControlPlaneOperatorImage,
			CleanupGracePeriod:        opts.CleanupGracePeriod,
		},
	}
	// Run may be called more than once in a process (the local environment,
	// tests): controller names need not be unique then.
	if err := r.SetupWithManager(mgr, controller.Options{SkipNameValidation: ptr.To(true)}); err != nil {
		return fmt.Errorf("operator: setting up the HostedCluster controller: %w", err)
	}

	log.Info("starting the management operator", "privatePlatform", orDefault(opts.PrivatePlatform, PlatformNone),
		"awsPrivateRegion", opts.AWSPrivateRegion, "controlPlaneOperatorImage", opts.ControlPlaneOperatorImage)
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("operator: %w", err)
	}
	return nil
}

// setupEndpointServices registers the AWSEndpointService controller and
// its orphan sweeper on the management account's EC2 and ELBv2 clients.
func setupEndpointServices(mgr manager.Manager, cfg aws.Config, opts Options) error {
	ec2Client, elbClient := ec2.NewFromConfig(cfg), elasticloadbalancingv2.NewFromConfig(cfg)
	r := &awsendpointservice.Reconciler{
		Client:        mgr.GetClient(),
		EC2:           ec2Client,
		ELB:           elbClient,
		DriftInterval: opts.EndpointServiceDriftInterval,
	}
	if err := r.SetupWithManager(mgr, controller.Options{SkipNameValidation: ptr.To(true)}); err != nil {
		return fmt.Errorf("operator: setting up the AWSEndpointService controller: %w", err)
	}
	sweeper := &awsendpointservice.Sweeper{
		Reader:   mgr.GetAPIReader(),
		EC2:      ec2Client,
		Cache:    r.Cache,
		Interval: opts.EndpointServiceSweepInterval,
	}
	if err := mgr.Add(sweeper); err != nil {
		return fmt.Errorf("operator: adding the endpoint-service sweeper: %w", err)
	}
	return nil
}

// scheme has the Kubernetes kinds and the hcplink.io kinds.
func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(hcplinkv1beta1.AddToScheme(s))
	return s
}

// awsConfig is the operator's instrumented AWS configuration.
func awsConfig(ctx context.Context, opts Options) (aws.Config, error) {
	var cfg aws.Config
	if opts.AWS != nil {
		cfg = opts.AWS.Copy()
	} else {
		loaded, err := awscloud.LoadConfig(ctx, config.WithRegion(opts.AWSPrivateRegion))
		if err != nil {
			return aws.Config{}, err
		}
		cfg = loaded
	}
	if cfg.Region == "" {
		cfg.Region = opts.AWSPrivateRegion
	}
	awshttp.Apply(&cfg)
	awscloud.Instrument(&cfg, metricsComponent)
	return cfg, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
