package hostedcluster

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	testingclock "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	azcloud "github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	hcpevents "github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/operator/platform"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/operator/platform/azure"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
	"github.com/hcplink/hcplink/internal/testenv"
)

// env is one API server for the package's tests.
var env *testenv.Env

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.UseDevMode(true)))
	testenv.Main(m, &env)
}

// Values the fixtures are built from.
const (
	testRegion  = "us-east-1"
	testImage   = "registry.example.com/hcplink:test"
	testRoleARN = "arn:aws:iam::222222222222:role/hcplink/demo-control-plane-operator"
	testVPC     = "vpc-0123456789abcdef0"
	subnetA     = "subnet-0a1b2c3d4e5f60718"
	subnetB     = "subnet-1a2b3c4d"
	subnetC     = "subnet-0c0c0c0c0c0c0c0c0"

	azSubscription = "550e8400-e29b-41d4-a716-446655440000"
	azVNet         = "/subscriptions/" + azSubscription + "/resourceGroups/customer-rg/providers/Microsoft.Network/virtualNetworks/customer-vnet"
	azSubnet       = azVNet + "/subnets/workers"
	azTenant       = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	azClientID     = "3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"
)

// awsConfig is the operator configuration of most tests: AWS PrivateLink
// in testRegion.
func awsConfig() Config {
	return Config{PrivatePlatform: awsplatform.Name, ControlPlaneOperatorImage: testImage, Platforms: testPlatforms()}
}

func routeServices() []hcplinkv1beta1.ServicePublishingStrategyMapping {
	return []hcplinkv1beta1.ServicePublishingStrategyMapping{
		{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
			Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"}}},
		{Service: hcplinkv1beta1.OAuthServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
			Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "oauth.demo.example.com"}}},
	}
}

// awsCluster is a valid AWS HostedCluster with the given endpoint access;
// a non-public one has the role, VPC and tags it needs.
func awsCluster(namespace, name string, access hcplinkv1beta1.AWSEndpointAccessType) *hcplinkv1beta1.HostedCluster {
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    "demo-x7k2p",
			ClusterID:  "0f3c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.0.0.0/16"}}},
			Services:   routeServices(),
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region: testRegion, EndpointAccess: access,
			}},
		},
	}
	if access.IsPrivate() {
		aws := hc.Spec.Platform.AWS
		aws.CloudProviderConfig = &hcplinkv1beta1.AWSCloudProviderConfig{VPC: testVPC, Subnet: &hcplinkv1beta1.AWSSubnetReference{ID: subnetA}, Zone: "us-east-1a"}
		aws.RolesRef = &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: testRoleARN}
		aws.ResourceTags = []hcplinkv1beta1.AWSResourceTag{{Key: "team", Value: "platform"}}
		aws.AdditionalAllowedPrincipals = []string{"arn:aws:iam::210987654321:root"}
	}
	return hc
}

// azureCluster is a valid Azure HostedCluster with the given topology.
func azureCluster(namespace, name string, topology hcplinkv1beta1.AzureTopology) *hcplinkv1beta1.HostedCluster {
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    "azdemo-4fj2q",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "azdemo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.1.0.0/16"}}},
			Services:   routeServices(),
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
				SubscriptionID: azSubscription, ResourceGroupName: "customer-rg", Location: "eastus",
				VnetID: azVNet, SubnetID: azSubnet, Topology: topology,
			}},
		},
	}
	if topology.IsPrivate() {
		hc.Spec.Platform.Azure.Private = &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink}
		hc.Spec.Platform.Azure.TenantID = azTenant
		hc.Spec.Platform.Azure.AzureAuthenticationConfig = hcplinkv1beta1.WorkloadIdentitiesConfig(azClientID)
	}
	return hc
}

func awsNodePool(namespace, name, cluster, subnet string) *hcplinkv1beta1.NodePool {
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.NodePoolSpec{ClusterName: cluster,
			Platform: hcplinkv1beta1.NodePoolPlatform{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSNodePoolPlatform{}}},
	}
	if subnet != "" {
		np.Spec.Platform.AWS.Subnet = &hcplinkv1beta1.AWSSubnetReference{ID: subnet}
	}
	return np
}

func awsEndpointService(namespace, name string) *hcplinkv1beta1.AWSEndpointService {
	return &hcplinkv1beta1.AWSEndpointService{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       hcplinkv1beta1.AWSEndpointServiceSpec{NetworkLoadBalancerName: "k8s-demo-privater-db6fee3a62"},
	}
}

// testPlatforms is the registry the operator runs with: AWS in testRegion,
// Azure, and GCP in testGCPRegion.
func testPlatforms() *platform.Registry {
	return platformsWith(testRegion, "")
}

// platformsWith is the registry of an operator whose AWS private region
// and Azure authority host are the given ones ("": none, the default).
func platformsWith(region, authorityHost string) *platform.Registry {
	azure := azureplatform.Options{}
	if authorityHost != "" {
		azure.Config = &azurecloud.Config{Cloud: azcloud.Configuration{ActiveDirectoryAuthorityHost: authorityHost}}
	}
	return platform.New(awsplatform.Platform(awsplatform.Options{Region: region}), azureplatform.Platform(azure),
		gcpplatform.Platform(gcpplatform.Options{Region: testGCPRegion}))
}

// testGCPRegion is the GCP operator's region in testPlatforms.
const testGCPRegion = "us-central1"

// withPlatforms gives cfg the operator's registry unless it has one.
func withPlatforms(cfg Config) Config {
	if cfg.Platforms == nil {
		cfg.Platforms = testPlatforms()
	}
	return cfg
}

// testReconciler builds a Reconciler on the uncached test client with a
// fake clock at the current time and a real event recorder.
func testReconciler(t *testing.T, cfg Config) (*Reconciler, *testingclock.FakeClock) {
	t.Helper()
	cfg = withPlatforms(cfg)
	clk := testingclock.NewFakeClock(time.Now())
	return &Reconciler{Client: env.Client, Events: hcpevents.New(newRecorder(t)), Clock: clk, Config: cfg}, clk
}

// newRecorder writes events.k8s.io events to the test API server.
func newRecorder(t *testing.T) events.EventRecorder {
	t.Helper()
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	b := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
	stop := make(chan struct{})
	b.StartRecordingToSink(stop)
	t.Cleanup(func() { close(stop); b.Shutdown() })
	return b.NewRecorder(env.Scheme, "hcplink-operator-test")
}

// reconcileOnce runs one pass for hc and fails the test on error.
func reconcileOnce(t *testing.T, r *Reconciler, hc *hcplinkv1beta1.HostedCluster) ctrl.Result {
	t.Helper()
	res, err := r.Reconcile(logged(t), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hc)})
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	return res
}

func logged(t *testing.T) context.Context {
	return ctrl.LoggerInto(t.Context(), ctrl.Log.WithName(t.Name()))
}

func create(t *testing.T, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := env.Client.Create(t.Context(), o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

func get(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatalf("reading %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
	}
}

// update reads obj, applies mutate and writes it, again on conflicts (the
// controller may write the object meanwhile).
func update(t *testing.T, obj client.Object, mutate func()) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		get(t, obj)
		mutate()
		return env.Client.Update(t.Context(), obj)
	})
	if err != nil {
		t.Fatalf("updating %T %s: %v", obj, obj.GetName(), err)
	}
}

// exists reports whether obj exists (and reads it).
func exists(t *testing.T, obj client.Object) bool {
	t.Helper()
	err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj)
	if client.IgnoreNotFound(err) != nil {
		t.Fatalf("reading %T %s: %v", obj, client.ObjectKeyFromObject(obj), err)
	}
	return err == nil
}

// condition returns hc's condition of type t, or nil.
func condition(hc *hcplinkv1beta1.HostedCluster, t string) *metav1.Condition {
	return findCondition(hc.Status.Conditions, t)
}

// hcpNamespace is the control-plane namespace of hc.
func hcpNamespace(hc *hcplinkv1beta1.HostedCluster) string {
	return hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name)
}
