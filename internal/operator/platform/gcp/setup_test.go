package gcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"google.golang.org/api/compute/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"k8s.io/utils/ptr"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/operator/platform"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

const (
	mgmtProject     = cloudsimtest.ManagementProject
	customerProject = cloudsimtest.CustomerProject
	region          = cloudsimtest.GCPRegion
	routerIP        = "10.0.0.50"
)

// gcpWorld is cloudsim's Google Cloud with the management network (the
// router's rule, one PSC NAT subnetwork) and the operator's key file,
// whose service account holds the management operator's custom role.
type gcpWorld struct {
	f     *cloudsimtest.Fixture
	clk   *sim.ManualClock
	admin *compute.Service
	key   []byte
	email string
}

func newGCPWorld(t *testing.T) *gcpWorld {
	t.Helper()
	clk := sim.NewManualClock(time.Now().UTC().Truncate(time.Minute))
	f := cloudsimtest.StartGCP(t, cloudsim.Options{Clock: clk})
	w := &gcpWorld{f: f, clk: clk, admin: f.Compute(t, cloudsimtest.GCPAdminTokens())}
	do := func(_ *compute.Operation, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
	}
	do(w.admin.Networks.Insert(mgmtProject, &compute.Network{Name: "management", ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do())
	do(w.admin.Subnetworks.Insert(mgmtProject, region, &compute.Subnetwork{Name: "nodes", Network: "global/networks/management", IpCidrRange: "10.0.0.0/24"}).Do())
	do(w.admin.Subnetworks.Insert(mgmtProject, region, &compute.Subnetwork{Name: "psc-nat-a", Network: "global/networks/management",
		IpCidrRange: "10.1.0.0/28", Purpose: gcpcloud.PurposePrivateServiceConnect}).Do())
	do(w.admin.ForwardingRules.Insert(mgmtProject, region, &compute.ForwardingRule{Name: "router", LoadBalancingScheme: "INTERNAL",
		BackendService: "regions/" + region + "/backendServices/router", Subnetwork: "regions/" + region + "/subnetworks/nodes",
		Network: "global/networks/management", IPAddress: routerIP, Ports: []string{"443"}}).Do())
	sa, err := f.Server.GCP.AddServiceAccount(mgmtProject, "hcplink-operator", "")
	if err != nil {
		t.Fatal(err)
	}
	if w.key, err = f.Server.GCP.AddServiceAccountKey(sa.Email, f.URL+"/oauth2/token"); err != nil {
		t.Fatal(err)
	}
	w.email = sa.Email
	role, err := f.Server.GCP.AddCustomRole(mgmtProject, gcpcloud.RoleID(gcpcloud.ManagementOperator), gcpcloud.PermissionsOf(gcpcloud.ManagementOperator))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Server.GCP.Grant(mgmtProject, role.Name, "serviceAccount:"+sa.Email, nil); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *gcpWorld) options(key []byte) Options {
	return Options{Project: mgmtProject, Region: region, Network: "management",
		Cloud: gcpcloud.Config{CredentialsJSON: key, ComputeEndpoint: w.f.URL + "/compute/v1/", DNSEndpoint: w.f.URL + "/"}}
}

// The credentials check asks for a token: the operator's key is valid; a
// key of a service account Google does not know is access denied (the
// operator reports its credentials Invalid), not a transient failure.
func TestTokenCaller(t *testing.T) {
	w := newGCPWorld(t)
	unknown := []byte(strings.Replace(string(w.key), w.email, "nobody@"+mgmtProject+".iam.gserviceaccount.com", 1))
	for _, tc := range []struct {
		name  string
		key   []byte
		class cloud.Class
	}{
		{"the operator's key", w.key, cloud.ClassNone},
		{"a key of an unknown service account", unknown, cloud.ClassAccessDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := loadOptions(w.options(tc.key))
			if err != nil {
				t.Fatal(err)
			}
			clients, err := gcpcloud.NewClients(t.Context(), o.Cloud)
			if err != nil {
				t.Fatal(err)
			}
			identity, err := TokenCaller(clients, mgmtProject)(t.Context())
			if got := cloud.ClassOf(err); got != tc.class {
				t.Fatalf("class %q (%v), want %q", got, err, tc.class)
			}
			if err == nil && !strings.Contains(identity, mgmtProject) {
				t.Fatalf("identity %q", identity)
			}
		})
	}
}

// Setup runs the controller in a manager: a private GCP cluster gets its
// attachment, and a change of the cluster's additionalAllowedProjects
// reaches the accept list through the HostedCluster watch, without
// waiting for a drift pass.
func TestSetupRunsTheControllerWithItsWatches(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	w := newGCPWorld(t)
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	started, err := Platform(w.options(w.key)).Setup(t.Context(), mgr, platform.SetupOptions{ManagementClusterID: "mgmt-1", DriftInterval: time.Hour})
	if err != nil || started.Identity == nil {
		t.Fatalf("setup: %+v, %v", started, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	ns := env.NewNamespace(t)
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "demo"},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    "demo-x7k2p",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "gcpdemo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "192.168.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
				Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.gcpdemo.example.com"}}}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform, GCP: &hcplinkv1beta1.GCPPlatformSpec{
				Project: customerProject, Region: region, Network: "customer", Subnet: "workers",
				EndpointAccess: hcplinkv1beta1.GCPEndpointAccessPrivate, Private: &hcplinkv1beta1.GCPPrivateSpec{},
				WorkloadIdentity: &hcplinkv1beta1.GCPWorkloadIdentityConfig{
					PoolProvider:          "projects/200000000002/locations/global/workloadIdentityPools/hcplink-mgmt/providers/mgmt-oidc",
					ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{ControlPlaneOperator: "control-plane@" + customerProject + ".iam.gserviceaccount.com"},
				},
			}},
		},
	}
	hcpNS := hcplinkv1beta1.HostedControlPlaneNamespace(ns, hc.Name)
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{ObjectMeta: metav1.ObjectMeta{Namespace: hcpNS, Name: "private-router"},
		Spec: hcplinkv1beta1.GCPPrivateServiceConnectSpec{LoadBalancerIP: routerIP, ConsumerAcceptList: []string{customerProject},
			Project: customerProject, Region: region, Network: "customer", Subnet: "workers"}}
	for _, obj := range []client.Object{hc, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hcpNS}}, cr} {
		if err := env.Client.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, w, "the attachment is published", func() bool {
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); err != nil {
			return false
		}
		c := meta.FindStatusCondition(cr.Status.Conditions, hcplinkv1beta1.GCPServiceAttachmentAvailableCondition)
		return c != nil && c.Status == metav1.ConditionTrue && cr.Status.ServiceAttachmentURI != ""
	})

	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hc), hc); err != nil {
		t.Fatal(err)
	}
	hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = []string{"partner-project-1"}
	if err := env.Client.Update(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	want := []gcpcloud.Consumer{{Project: customerProject}, {Project: "partner-project-1"}}
	eventually(t, w, "the accept list follows the HostedCluster", func() bool {
		sa, err := w.admin.ServiceAttachments.Get(mgmtProject, region, cr.Status.ServiceAttachmentName).Do()
		return err == nil && gcpcloud.SameConsumers(sa, want)
	})
}

// eventually polls cond, stepping cloudsim's clock past Compute Engine's
// operations, until it holds or the deadline has passed.
func eventually(t *testing.T, w *gcpWorld, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		w.clk.Advance(5 * time.Second)
		<-tick.C
	}
}
