// Package devenv assembles a whole management cluster on one machine: a real
// kube-apiserver and etcd (envtest) with the hcplink CRDs, cloudsim as the
// cloud, a stand-in for the cloud provider's Service load-balancer
// controller, the management operator, and one in-process control-plane
// operator per control-plane-operator Deployment (standing in for the
// kubelet). envtest runs no kube-controller-manager, so devenv also stands in
// for its namespace controller. The demo, the e2e tests and the benchmarks
// run on it.
package devenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv/lbcontroller"
	"github.com/hcplink/hcplink/internal/operator"
	"github.com/hcplink/hcplink/internal/testenv"
)

// Options configure Start. The zero value is a fast, quiet environment.
type Options struct {
	// WorkDir keeps the kubeconfig and the pods' files; empty means a new
	// temporary directory, removed by Stop.
	WorkDir string
	// CloudListen is cloudsim's address; empty means a free loopback port.
	CloudListen string
	// Delays and Faults configure cloudsim (defaults: fast, no faults);
	// AzureDelays its Azure half's named delays (nil: fast).
	Delays      *sim.Delays
	AzureDelays azure.Delays
	Faults      *sim.FaultConfig
	// Log receives the operators' logs; nil discards them.
	Log logr.Logger
	// Progress receives one line per start-up step (the first start builds
	// the envtest binaries, which takes minutes); nil discards it.
	Progress io.Writer
	// OperatorBinary, when set, runs the management operator as its own
	// process (`<binary> operator …`) instead of in this one, so that its
	// memory can be measured on its own (see OperatorPID).
	OperatorBinary string
	// DriftInterval overrides both operators' drift-check interval (zero
	// keeps their default); the benchmark shortens it to observe many checks.
	DriftInterval time.Duration
	// CustomerAccounts is how many customer accounts to seed, each with its
	// VPC, a subnet per zone and an OIDC provider (see Env.Customers). The
	// first two, Customer and SecondCustomer, are always seeded; values
	// below 2 change nothing.
	CustomerAccounts int
	// Platform is the cloud of the private clusters: PlatformAWS (empty),
	// PlatformAzure or PlatformGCP. An Azure devenv serves cloudsim over
	// HTTPS; neither it nor a GCP devenv seeds AWS accounts.
	Platform Platform
	// GCPNATSubnets is how many PSC NAT subnetworks a GCP devenv's
	// management network has: one per service attachment, so the most
	// private clusters it serves at once (0: 4).
	GCPNATSubnets int
	// AzureLoadBalancerConfigurations are the Azure cloud provider's
	// multipleStandardLoadBalancerConfigurations, by name: the stand-in
	// places Services on them, and the management operator places routers
	// on them (--azure-load-balancer-configurations). None: one shared
	// internal load balancer, kubernetes-internal, as the cloud provider's
	// default.
	AzureLoadBalancerConfigurations []string
	// OperatorReplicas runs the in-process management operator as this
	// many replicas electing one leader through a Lease, as a Deployment
	// of several replicas with --leader-elect does; 0 or 1 is one replica
	// without leader election.
	OperatorReplicas int
}

// Env is a running devenv.
type Env struct {
	Kube           *rest.Config
	Client         client.Client
	KubeconfigPath string
	Cloud          *cloudsim.Server
	CloudURL       string
	// OperatorMetricsURL serves the management operator's Prometheus metrics.
	OperatorMetricsURL string

	ManagementAWS aws.Config
	CustomerAWS   aws.Config
	Management    ManagementNetwork
	Customer      CustomerNetwork
	// SecondCustomer is another customer's account and VPC (see
	// SecondCustomerAccount).
	SecondCustomerAWS aws.Config
	SecondCustomer    CustomerNetwork
	// Customers lists every seeded customer account: Customer first,
	// SecondCustomer second, then those Options.CustomerAccounts asked for.
	Customers []Customer

	// LoadBalancerCalls counts the calls of the stand-in for the cloud
	// provider's load-balancer controller (management account, ELBv2), so
	// that a benchmark can leave them out of the operators' figures.
	LoadBalancerCalls *CallCounter

	// Platform is the cloud of the private clusters (Options.Platform).
	Platform Platform
	// The Azure side (PlatformAzure only). AzureAdmin is cloudsim's
	// administrator (Owner everywhere) with AzureClientOptions (cloudsim's
	// endpoints and CA), for tests and the demo to read and change
	// cloudsim's Azure state through the SDK. AzureCABundle is the path of
	// cloudsim's CA (AZURE_CA_BUNDLE, az's REQUESTS_CA_BUNDLE).
	AzureTenantID string
	// AzureIssuerURL is the management cluster's service-account issuer
	// as Entra ID (cloudsim) knows it: what create iam azure's
	// --oidc-issuer-url names.
	AzureIssuerURL string
	// AzureOperatorPrincipalID is the principal of the management
	// operator's identity (create iam azure --operator's), as cloudsim's
	// Evaluations name it.
	AzureOperatorPrincipalID string
	AzureAdmin               azcore.TokenCredential
	AzureClientOptions       *arm.ClientOptions
	AzureCABundle            string
	AzureManagement          AzureManagementNetwork
	AzureGuest               AzureGuestNetwork

	// The GCP side (PlatformGCP only): the management and customer
	// networks; the management operator's service account, as cloudsim's
	// evaluations name it (serviceAccount:EMAIL); the management cluster's
	// issuer as the customer's pool provider trusts it; cloudsim's Compute
	// Engine and Cloud DNS endpoints, for the real clients signed in as
	// GCPAdminTokens.
	GCPManagement             GCPManagementNetwork
	GCPCustomer               GCPCustomerNetwork
	GCPOperatorServiceAccount string
	GCPIssuerURL              string
	GCPComputeEndpoint        string
	GCPDNSEndpoint            string

	// OperatorPID is the management operator's process when it runs as one
	// (Options.OperatorBinary); 0 when it runs in this process.
	OperatorPID int

	workDir     string
	ownsWorkDir bool
	azure       *azureEnv
	gcp         *gcpEnv
	// gcpOperatorFlags are the management operator's GCP flags, as
	// install's Deployment carries them.
	gcpOperatorFlags []string
	azureOperator    azurecloud.Config // the management operator's identity
	driftInterval    time.Duration
	// azureLoadBalancerConfigurations are Options.AzureLoadBalancerConfigurations.
	azureLoadBalancerConfigurations []string

	// The in-process management operator, which tests may stop and start.
	operatorOptions operator.Options
	operatorLog     logr.Logger
	// operatorAWS is the management operator's own identity: the IAM user
	// `hcplink create iam aws --operator` makes, holding exactly its policy.
	operatorAWS     aws.Config
	operatorProcess *operatorProcess // nil when the operator runs in this process
	runCtx          context.Context
	operatorMu      sync.Mutex
	replicas        []*operatorReplica // the in-process management operator's replicas
	replicaExits    int                // runs of replicas that ended on their own (operatorMu)
	// runOperator and replicaBackOff replace operator.Run and the
	// kubelet's first back-off in tests of the replicas' restarts.
	runOperator    func(context.Context, operator.Options) error
	replicaBackOff time.Duration
	kube           *envtest.Environment
	cpos           *cpoRunner
	cancel         context.CancelFunc
	stopped        []chan error

	// operatorKube is the management operator's ServiceAccount (see
	// startOperatorIdentity); operatorKubeconfigPath holds it for the
	// operator process.
	operatorKube           *rest.Config
	operatorKubeconfigPath string
}

// Start brings the environment up; Stop takes it down.
func Start(ctx context.Context, opts Options) (_ *Env, err error) {
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	step := func(format string, args ...any) { fmt.Fprintf(progress, "devenv: "+format+"\n", args...) }
	e := &Env{workDir: opts.WorkDir, driftInterval: opts.DriftInterval, Platform: opts.Platform,
		azureLoadBalancerConfigurations: opts.AzureLoadBalancerConfigurations}
	if e.Platform == "" {
		e.Platform = PlatformAWS
	}
	defer func() {
		if err != nil {
			_ = e.Stop()
		}
	}()
	if e.workDir == "" {
		if e.workDir, err = os.MkdirTemp("", "hcplink-devenv-"); err != nil {
			return nil, err
		}
		e.ownsWorkDir = true
	}
	runCtx, cancel := context.WithCancel(context.Background())
	e.runCtx, e.cancel = runCtx, cancel

	step("starting kube-apiserver and etcd (the first run builds them from source: about 15 minutes)")
	e.kube, e.Kube, err = testenv.StartEnvironment(ctx, testenv.Options{Progress: progress})
	if err != nil {
		return nil, err
	}
	if e.Client, err = client.New(e.Kube, client.Options{Scheme: testenv.Scheme()}); err != nil {
		return nil, err
	}
	e.KubeconfigPath = filepath.Join(e.workDir, "kubeconfig")
	if err := os.WriteFile(e.KubeconfigPath, e.kube.KubeConfig, 0o600); err != nil {
		return nil, fmt.Errorf("writing kubeconfig: %w", err)
	}

	step("starting cloudsim")
	e.Cloud = cloudsim.New(cloudsim.Options{Delays: opts.Delays, AzureDelays: opts.AzureDelays, Faults: opts.Faults, TLS: e.Platform == PlatformAzure})
	listen := opts.CloudListen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	if err := e.Cloud.Start(runCtx, listen); err != nil {
		return nil, err
	}
	e.CloudURL = e.Cloud.URL()
	switch e.Platform {
	case PlatformAzure:
		step("seeding the management and guest subscriptions")
		if err := e.startAzure(ctx); err != nil {
			return nil, err
		}
	case PlatformGCP:
		step("seeding the management and customer projects")
		if err := e.startGCP(ctx, opts.GCPNATSubnets); err != nil {
			return nil, err
		}
	default:
		if err := e.seedAWS(ctx, opts, step); err != nil {
			return nil, err
		}
	}

	step("starting the stand-ins for the cloud provider's load-balancer controller, the kubelet and the namespace controller")
	if err := e.startInfrastructureControllers(runCtx, opts.Log); err != nil {
		return nil, err
	}

	step("starting the management operator")
	if e.Platform == PlatformAWS {
		if err := e.loadOperatorIdentity(ctx); err != nil {
			return nil, err
		}
	}
	metricsAddr, err := freeLoopbackAddress()
	if err != nil {
		return nil, err
	}
	e.OperatorMetricsURL = "http://" + metricsAddr + "/metrics"
	e.operatorLog = opts.Log.WithName("operator")
	if err := e.startOperatorIdentity(ctx); err != nil {
		return nil, err
	}
	if opts.OperatorBinary != "" {
		if err := e.startOperatorProcess(runCtx, opts.OperatorBinary, metricsAddr); err != nil {
			return nil, err
		}
	} else {
		e.operatorOptions = operator.Options{
			RestConfig:                   e.operatorKube,
			PrivatePlatform:              operator.PlatformAWS,
			AWSPrivateRegion:             Region,
			ControlPlaneOperatorImage:    "hcplink:devenv",
			MetricsBindAddress:           metricsAddr,
			HealthProbeBindAddress:       "0",
			EndpointServiceDriftInterval: opts.DriftInterval,
		}
		switch e.Platform {
		case PlatformAzure:
			e.operatorOptions.PrivatePlatform, e.operatorOptions.AWSPrivateRegion = operator.PlatformAzure, ""
			e.operatorOptions.Azure = &e.azureOperator
			e.operatorOptions.AzureLoadBalancerConfigurations = opts.AzureLoadBalancerConfigurations
		case PlatformGCP:
			e.operatorOptions.PrivatePlatform, e.operatorOptions.AWSPrivateRegion = operator.PlatformGCP, ""
			if e.operatorOptions.GCP, err = e.gcpOperatorOptions(); err != nil {
				return nil, err
			}
		}
		e.replicas = []*operatorReplica{{}}
		if opts.OperatorReplicas > 1 {
			e.operatorOptions.LeaderElection, e.operatorOptions.LeaderElectionNamespace = true, operatorNamespace
			for range opts.OperatorReplicas - 1 {
				e.replicas = append(e.replicas, &operatorReplica{})
			}
		}
		e.StartOperator()
	}
	step("ready: KUBECONFIG=%s, cloud at %s", e.KubeconfigPath, e.CloudURL)
	return e, nil
}

// seedAWS makes the AWS accounts' configurations and seeds their networks.
func (e *Env) seedAWS(ctx context.Context, opts Options, step func(string, ...any)) error {
	var err error
	if e.ManagementAWS, err = e.accountConfig(ctx, ManagementAccount); err != nil {
		return err
	}
	if e.CustomerAWS, err = e.accountConfig(ctx, CustomerAccount); err != nil {
		return err
	}
	if e.SecondCustomerAWS, err = e.accountConfig(ctx, SecondCustomerAccount); err != nil {
		return err
	}
	step("seeding the management VPC and the customer networks (as `hcplink create infra aws` makes them)")
	if e.Management, err = seedManagement(ctx, e.ManagementAWS); err != nil {
		return fmt.Errorf("seeding cloud fixtures: %w", err)
	}
	if e.Customer, err = seedCustomer(ctx, e.CustomerAWS, CustomerAccount, "devenv-customer", customerVPCCIDR(0)); err != nil {
		return fmt.Errorf("seeding the customer: %w", err)
	}
	if e.SecondCustomer, err = seedCustomer(ctx, e.SecondCustomerAWS, SecondCustomerAccount, "devenv-second-customer", customerVPCCIDR(1)); err != nil {
		return fmt.Errorf("seeding the second customer: %w", err)
	}
	e.Customers = []Customer{{AWS: e.CustomerAWS, Network: e.Customer}, {AWS: e.SecondCustomerAWS, Network: e.SecondCustomer}}
	return e.seedExtraCustomers(ctx, opts.CustomerAccounts)
}

// accountConfig is an SDK configuration for one cloudsim account, built the
// standard way with the endpoint that AWS_ENDPOINT_URL would set.
func (e *Env) accountConfig(ctx context.Context, account string) (aws.Config, error) {
	return awscloud.LoadConfig(ctx,
		config.WithRegion(Region),
		config.WithBaseEndpoint(e.CloudURL),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(account, "devenv", "")),
		config.WithSharedConfigFiles([]string{}),
		config.WithSharedCredentialsFiles([]string{}),
	)
}

// startInfrastructureControllers runs what a real management cluster gets
// from its cloud provider and its kubelets.
func (e *Env) startInfrastructureControllers(ctx context.Context, log logr.Logger) error {
	mgr, err := ctrl.NewManager(e.Kube, ctrl.Options{
		Scheme:                 testenv.Scheme(),
		Logger:                 log.WithName("devenv"),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return fmt.Errorf("creating the devenv manager: %w", err)
	}
	if err := e.setupLoadBalancers(mgr); err != nil {
		return err
	}
	if err := (&namespaceFinalizer{client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return err
	}
	e.cpos = &cpoRunner{client: mgr.GetClient(), apiServer: e.Kube, cloudURL: e.CloudURL, workDir: e.workDir, driftInterval: e.driftInterval, azure: e.azure, gcp: e.gcp,
		log: log.WithName("kubelet"), running: map[types.NamespacedName]*runningCPO{}, held: map[types.NamespacedName]bool{}}
	if err := e.cpos.SetupWithManager(mgr); err != nil {
		return err
	}
	e.goRun(func() error { return mgr.Start(ctx) })
	return nil
}

// setupLoadBalancers registers the stand-in for the cloud provider's
// load-balancer controller of the devenv's cloud.
func (e *Env) setupLoadBalancers(mgr ctrl.Manager) error {
	switch e.Platform {
	case PlatformAzure:
		return e.setupAzureLoadBalancers(mgr)
	case PlatformGCP:
		return e.setupGCPLoadBalancers(mgr)
	}
	lbAWS := e.ManagementAWS.Copy()
	lbAWS.APIOptions = slices.Clone(lbAWS.APIOptions)
	e.LoadBalancerCalls = newCallCounter("elasticloadbalancing")
	e.LoadBalancerCalls.instrument(&lbAWS)
	lbs := &lbcontroller.Reconciler{Client: mgr.GetClient(), Options: lbcontroller.Options{
		AWS:     lbAWS,
		Subnets: map[string][]string{"internal": e.Management.PrivateSubnets, "internet-facing": e.Management.PublicSubnets},
	}}
	return lbs.SetupWithManager(mgr)
}

// goRun runs a component until the environment stops and keeps its result.
func (e *Env) goRun(run func() error) {
	done := make(chan error, 1)
	e.stopped = append(e.stopped, done)
	go func() { done <- run() }()
}

// StartOperator starts the in-process management operator's replicas
// that are not running (Start does it; tests call it again after
// StopOperator, to play a restart). It does nothing when the operator runs
// as its own process.
func (e *Env) StartOperator() {
	for i := range e.replicas {
		e.StartOperatorReplica(i)
	}
}

// StopOperator stops every replica of the in-process management operator
// and waits until they have stopped.
func (e *Env) StopOperator() error {
	var errs []error
	for i := range e.replicas {
		errs = append(errs, e.StopOperatorReplica(i))
	}
	return errors.Join(errs...)
}

// StopControlPlaneOperator stops the control-plane operator of one
// control-plane namespace and keeps it stopped until
// StartControlPlaneOperator, as if its pod were gone.
func (e *Env) StopControlPlaneOperator(namespace string) {
	e.cpos.hold(types.NamespacedName{Namespace: namespace, Name: cpoName})
}

// StartControlPlaneOperator lets a stopped control-plane operator run again.
func (e *Env) StartControlPlaneOperator(ctx context.Context, namespace string) error {
	key := types.NamespacedName{Namespace: namespace, Name: cpoName}
	e.cpos.release(key)
	return e.touchDeployment(ctx, key)
}

// touchDeployment annotates a control-plane operator's Deployment so that
// the kubelet stand-in looks at it again (and starts it if it is stopped).
func (e *Env) touchDeployment(ctx context.Context, key types.NamespacedName) error {
	var deploy appsv1.Deployment
	if err := e.Client.Get(ctx, key, &deploy); err != nil {
		return err
	}
	patch := client.MergeFrom(deploy.DeepCopy())
	if deploy.Annotations == nil {
		deploy.Annotations = map[string]string{}
	}
	deploy.Annotations["devenv.hcplink.io/restarted-at"] = time.Now().UTC().Format(time.RFC3339Nano)
	return e.Client.Patch(ctx, &deploy, patch)
}

// RunningControlPlaneOperators lists the HCP namespaces whose control-plane
// operator runs now.
func (e *Env) RunningControlPlaneOperators() []string { return e.cpos.Running() }

// Stop takes everything down: operators first, then the cloud and the API
// server, then the working directory if Start made it.
func (e *Env) Stop() error {
	var errs []error
	if e.cancel != nil {
		e.cancel()
	}
	if e.cpos != nil {
		e.cpos.stopAll()
	}
	if err := e.StopOperator(); err != nil {
		errs = append(errs, err)
	}
	for _, done := range e.stopped {
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				errs = append(errs, err)
			}
		case <-time.After(30 * time.Second):
			errs = append(errs, errors.New("a devenv component did not stop within 30s"))
		}
	}
	if e.Cloud != nil {
		errs = append(errs, e.Cloud.Close())
	}
	if e.kube != nil {
		errs = append(errs, e.kube.Stop())
	}
	if e.ownsWorkDir {
		errs = append(errs, os.RemoveAll(e.workDir))
	}
	return errors.Join(errs...)
}

func freeLoopbackAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
