package nodepool

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/operator/platform/azure"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.UseDevMode(true)))
	testenv.Main(m, &env)
}

// startManager runs the controller on a cache that sees only namespace.
func startManager(t *testing.T, namespace string) {
	t.Helper()
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&Reconciler{Client: mgr.GetClient(), Platforms: platform.New(awsplatform.Platform(awsplatform.Options{}), azureplatform.Platform(azureplatform.Options{}))}).SetupWithManager(mgr, controller.Options{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctrl.LoggerInto(t.Context(), ctrl.Log.WithName(t.Name())))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
}

func awsNodePool(namespace, name, cluster string) *hcplinkv1beta1.NodePool {
	return &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.NodePoolSpec{ClusterName: cluster,
			Platform: hcplinkv1beta1.NodePoolPlatform{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSNodePoolPlatform{}}},
	}
}

func publicAWSCluster(namespace, name string) *hcplinkv1beta1.HostedCluster {
	return &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    "demo-x7k2p",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.0.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer,
				ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{Type: hcplinkv1beta1.RoutePublishing,
					Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"}}}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform,
				AWS: &hcplinkv1beta1.AWSPlatformSpec{Region: "us-east-1", EndpointAccess: hcplinkv1beta1.AWSEndpointAccessPublic}},
		},
	}
}

// waitForCondition polls np until its ValidConfiguration has status and
// reason, and returns it.
func waitForCondition(t *testing.T, np *hcplinkv1beta1.NodePool, status metav1.ConditionStatus, reason string) metav1.Condition {
	t.Helper()
	var got metav1.Condition
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(np), np); err != nil {
			return false, err
		}
		for _, c := range np.Status.Conditions {
			if c.Type == hcplinkv1beta1.NodePoolValidConfigurationCondition {
				got = c
				return c.Status == status && c.Reason == reason, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("ValidConfiguration = %+v, want %s/%s: %v", got, status, reason, err)
	}
	return got
}

func TestNodePoolReportsWhetherItsClusterExists(t *testing.T) {
	ns := env.NewNamespace(t)
	startManager(t, ns)
	np := awsNodePool(ns, "workers", "demo")
	if err := env.Client.Create(t.Context(), np); err != nil {
		t.Fatal(err)
	}
	c := waitForCondition(t, np, metav1.ConditionFalse, hcplinkv1beta1.HostedClusterNotFoundReason)
	for _, s := range []string{"spec.clusterName is demo", "no HostedCluster demo in namespace " + ns} {
		if !strings.Contains(c.Message, s) {
			t.Errorf("message %q does not contain %q", c.Message, s)
		}
	}
	if c.ObservedGeneration != np.Generation {
		t.Errorf("observedGeneration = %d, want %d", c.ObservedGeneration, np.Generation)
	}

	// The cluster appears: True, without touching the NodePool.
	hc := publicAWSCluster(ns, "demo")
	if err := env.Client.Create(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	waitForCondition(t, np, metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason)

	// The cluster goes; the NodePool outlives it and says so.
	if err := env.Client.Delete(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	waitForCondition(t, np, metav1.ConditionFalse, hcplinkv1beta1.HostedClusterNotFoundReason)
}

func TestNodePoolOnAnotherPlatformIsRefused(t *testing.T) {
	ns := env.NewNamespace(t)
	startManager(t, ns)
	if err := env.Client.Create(t.Context(), publicAWSCluster(ns, "demo")); err != nil {
		t.Fatal(err)
	}
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "azure-workers"},
		Spec: hcplinkv1beta1.NodePoolSpec{ClusterName: "demo", Platform: hcplinkv1beta1.NodePoolPlatform{Type: hcplinkv1beta1.AzurePlatform,
			Azure: &hcplinkv1beta1.AzureNodePoolPlatform{SubnetID: "/subscriptions/550e8400-e29b-41d4-a716-446655440000/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/workers-vnet/subnets/s"}}},
	}
	if err := env.Client.Create(t.Context(), np); err != nil {
		t.Fatal(err)
	}
	c := waitForCondition(t, np, metav1.ConditionFalse, hcplinkv1beta1.PlatformMismatchReason)
	if !strings.Contains(c.Message, "spec.platform.type is Azure") {
		t.Errorf("message %q does not name the field", c.Message)
	}
}
