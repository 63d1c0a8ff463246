package operator

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/liveheap"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.UseDevMode(true)))
	testenv.Main(m, &env)
}

// freeAddress returns a loopback address nobody listens on now.
func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func httpGet(url string) (int, string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// metricValue finds the sample of name whose labels include all of labels
// in a Prometheus text exposition.
func metricValue(exposition, name string, labels map[string]string) (float64, bool) {
	line := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `\{([^}]*)\} (\S+)$`)
	for _, l := range strings.Split(exposition, "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		matches := true
		for k, v := range labels {
			if !strings.Contains(m[1], k+`="`+v+`"`) {
				matches = false
			}
		}
		if matches {
			v, err := strconv.ParseFloat(m[2], 64)
			return v, err == nil
		}
	}
	return 0, false
}

func TestRunServesMetricsProbesAndReconciles(t *testing.T) {
	cloud := cloudsimtest.Start(t, cloudsim.Options{})
	awsCfg := cloud.Config(t, cloudsimtest.ManagementAccount)
	metricsAddr, probeAddr := freeAddress(t), freeAddress(t)
	leaseNS := env.NewNamespace(t)

	ctx, cancel := context.WithCancel(ctrl.LoggerInto(t.Context(), ctrl.Log.WithName("operator")))
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{
			RestConfig:                env.Config,
			PrivatePlatform:           PlatformAWS,
			AWSPrivateRegion:          cloudsimtest.Region,
			AWS:                       &awsCfg,
			ControlPlaneOperatorImage: "registry.example.com/hcplink:test",
			MetricsBindAddress:        metricsAddr,
			HealthProbeBindAddress:    probeAddr,
			LeaderElection:            true,
			LeaderElectionNamespace:   leaseNS,
		})
	}()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v, want nil after its context ended", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	}
	t.Cleanup(stop)

	for _, path := range []string{"/healthz", "/readyz"} {
		testenv.Eventually(t, path+" to answer 200", func() (bool, error) {
			code, _, err := httpGet("http://" + probeAddr + path)
			return code == http.StatusOK, err
		})
	}
	testenv.Eventually(t, "the leader-election Lease in its namespace", func() (bool, error) {
		lease := &coordinationv1.Lease{}
		if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: leaseNS, Name: LeaderElectionID}, lease); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "", nil
	})

	// A cluster, to drive a reconcile.
	ns := env.NewNamespace(t)
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "public"},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    "public-x7k2p",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "public.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.0.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer,
				ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{Type: hcplinkv1beta1.LoadBalancerPublishing}}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{Region: cloudsimtest.Region}},
		},
	}
	if err := env.Client.Create(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the cluster to become Available", func() (bool, error) {
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hc), hc); err != nil {
			return false, err
		}
		for _, c := range hc.Status.Conditions {
			if c.Type == hcplinkv1beta1.AvailableCondition && c.Status == metav1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})

	wants := []struct {
		name   string
		labels map[string]string
	}{
		{"controller_runtime_reconcile_total", map[string]string{"controller": "hostedcluster", "result": "success"}},
		{"hcplink_cloud_requests_total", map[string]string{"component": "operator", "service": "STS", "operation": "GetCallerIdentity", "outcome": "success"}},
		{"hcplink_cloud_request_duration_seconds_count", map[string]string{"component": "operator", "service": "STS", "operation": "GetCallerIdentity"}},
		{"hcplink_cloud_credentials_valid", map[string]string{"platform": "AWS"}},
	}
	testenv.Eventually(t, "the metrics endpoint to serve reconcile and cloud metrics", func() (bool, error) {
		code, body, err := httpGet("http://" + metricsAddr + "/metrics")
		if err != nil || code != http.StatusOK {
			return false, err
		}
		for _, w := range wants {
			if v, ok := metricValue(body, w.name, w.labels); !ok || v < 1 {
				return false, nil
			}
		}
		return true, nil
	})
	// The live heap is served only when asked (each request forces a
	// collection).
	if code, _, err := httpGet("http://" + metricsAddr + liveheap.Path); err != nil || code != http.StatusNotFound {
		t.Errorf("GET %s without --debug-live-heap = %d, %v; want 404", liveheap.Path, code, err)
	}
	// The STS call really reached the cloud, as the management account.
	if n := cloud.Calls(cloudsimtest.ManagementAccount)["sts:GetCallerIdentity"].Total; n < 1 {
		t.Errorf("cloudsim saw %d GetCallerIdentity calls from the management account, want at least 1", n)
	}

	stop()
	lease := &coordinationv1.Lease{}
	if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: leaseNS, Name: LeaderElectionID}, lease); err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "" {
		t.Errorf("the lease is still held by %q after shutdown; it should be released", *lease.Spec.HolderIdentity)
	}
}

func TestMetricsServeTheLiveHeapOnlyWhenAsked(t *testing.T) {
	for _, on := range []bool{false, true} {
		_, served := metricsOptions(Options{MetricsBindAddress: ":8080", DebugLiveHeap: on}).ExtraHandlers[liveheap.Path]
		if served != on {
			t.Errorf("DebugLiveHeap=%v: %s served = %v", on, liveheap.Path, served)
		}
	}
}

func TestRunRefusesBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{name: "no rest config", opts: Options{}, want: "RestConfig"},
		{name: "unknown platform", opts: Options{RestConfig: env.Config, PrivatePlatform: "OpenStack"}, want: "AWS, Azure, GCP or None"},
		{name: "AWS without region", opts: Options{RestConfig: env.Config, PrivatePlatform: PlatformAWS}, want: "region"},
		{name: "GCP without its management network", opts: Options{RestConfig: env.Config, PrivatePlatform: PlatformGCP}, want: "--gcp-project, --gcp-region, --gcp-network not set"},
		{name: "leader election without namespace", opts: Options{RestConfig: env.Config, LeaderElection: true}, want: "namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Run(t.Context(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run = %v, want an error about %s", err, tt.want)
			}
		})
	}
}

func TestManagementClusterIDDefaultsToKubeSystemsUID(t *testing.T) {
	ks := &corev1.Namespace{}
	if err := env.Client.Get(t.Context(), client.ObjectKey{Name: metav1.NamespaceSystem}, ks); err != nil {
		t.Fatal(err)
	}
	got, err := managementClusterID(t.Context(), env.Client)
	if err != nil {
		t.Fatal(err)
	}
	if got == "" || got != string(ks.UID) {
		t.Errorf("management cluster ID = %q, want kube-system's UID %q", got, ks.UID)
	}
}
