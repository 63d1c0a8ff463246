package install

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/operator"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
	"github.com/hcplink/hcplink/internal/testenv"
)

// TestGCPOperatorRunsUnderTheRenderedRBAC is TestOperatorRunsUnderTheRenderedRBAC
// on GCP: the operator, as the ServiceAccount install renders for
// --private-platform GCP with exactly its ClusterRole, makes a private GCP
// cluster's control plane (its Role grants gcpprivateserviceconnects,
// which the operator may grant only by holding them) and runs the service
// attachment controller, whose finalizer and status writes on the
// GCPPrivateServiceConnect the API server allows.
func TestGCPOperatorRunsUnderTheRenderedRBAC(t *testing.T) {
	const (
		project, region, routerIP = cloudsimtest.ManagementProject, cloudsimtest.GCPRegion, "10.0.0.50"
	)
	c := kube(t)
	ns := "hcplink-rbac-gcp"
	opts := Options{Namespace: ns, PrivatePlatform: operator.PlatformGCP,
		GCP: GCPCredentials{Project: project, Region: region, Network: "management", SecretName: "gsa-key"}}
	if _, err := Apply(t.Context(), c, opts, ApplyOptions{Kinds: IdentityKinds}); err != nil {
		t.Fatal(err)
	}
	waitForCRDs(t, c)
	operatorKube := serviceAccountKube(t, c, ns)

	clk := sim.NewManualClock(time.Now().UTC().Truncate(time.Minute))
	f := cloudsimtest.StartGCP(t, cloudsim.Options{Clock: clk})
	// The router's internal forwarding rule, a NAT subnetwork, and the
	// operator's service account holding the shipped management role only.
	key := f.SeedGCPManagement(t, clk, project, region, routerIP, gcpcloud.RoleID(gcpcloud.ManagementOperator), gcpcloud.PermissionsOf(gcpcloud.ManagementOperator))

	ctx, cancel := context.WithCancel(ctrl.LoggerInto(t.Context(), ctrl.Log.WithName("operator")))
	done := make(chan error, 1)
	go func() {
		done <- operator.Run(ctx, operator.Options{
			RestConfig:      operatorKube,
			PrivatePlatform: operator.PlatformGCP,
			GCP: gcpplatform.Options{Project: project, Region: region, Network: "management",
				Cloud: gcpcloud.Config{CredentialsJSON: key, ComputeEndpoint: f.URL + "/compute/v1/", DNSEndpoint: f.URL + "/"}},
			ControlPlaneOperatorImage: "registry.example.com/hcplink:test",
			MetricsBindAddress:        "0",
			HealthProbeBindAddress:    "0",
			LeaderElection:            true,
			LeaderElectionNamespace:   ns,
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the operator stopped with %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the operator did not stop within 30s of its context ending")
		}
	})

	hc := privateGCPCluster(env.NewNamespace(t), "rbac")
	if err := c.Create(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	cpNS := hcplinkv1beta1.HostedControlPlaneNamespace(hc.Namespace, hc.Name)
	name := "control-plane-operator"
	testenv.EventuallyWithin(t, settleWithin, "the operator, as its ServiceAccount, to create the control plane's Role and Deployment", func() (bool, error) {
		for _, obj := range []client.Object{&rbacv1.Role{}, &appsv1.Deployment{}} {
			if err := c.Get(t.Context(), client.ObjectKey{Namespace: cpNS, Name: name}, obj); err != nil {
				return false, client.IgnoreNotFound(err)
			}
		}
		return true, nil
	})
	// What the control-plane operator's observer makes from the router.
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{ObjectMeta: metav1.ObjectMeta{Namespace: cpNS, Name: hcplinkv1beta1.GCPPrivateServiceConnectName},
		Spec: hcplinkv1beta1.GCPPrivateServiceConnectSpec{LoadBalancerIP: routerIP, ConsumerAcceptList: []string{cloudsimtest.CustomerProject},
			Project: cloudsimtest.CustomerProject, Region: region, Network: "customer", Subnet: "workers"}}
	if err := c.Create(t.Context(), cr); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := c.Get(t.Context(), client.ObjectKeyFromObject(cr), cr); err != nil {
			t.Fatal(err)
		}
		cond := meta.FindStatusCondition(cr.Status.Conditions, hcplinkv1beta1.GCPServiceAttachmentAvailableCondition)
		if cond != nil && cond.Status == metav1.ConditionTrue && len(cr.Finalizers) > 0 && cr.Status.ServiceAttachmentName != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the attachment was not recorded within 60s: finalizers %v, status %+v", cr.Finalizers, cr.Status)
		}
		clk.Advance(5 * time.Second) // past Compute Engine's operations
		<-tick.C
	}
}

// privateGCPCluster is a private GCP HostedCluster with its workload
// identity.
func privateGCPCluster(namespace, name string) *hcplinkv1beta1.HostedCluster {
	return &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID: name + "-x7k2p", ClusterID: "6f1c2a40-1111-4000-8000-000000000004",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "gcpdemo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "192.168.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
				Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.gcpdemo.example.com"}}}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform, GCP: &hcplinkv1beta1.GCPPlatformSpec{
				Project: cloudsimtest.CustomerProject, Region: cloudsimtest.GCPRegion, Network: "customer", Subnet: "workers",
				EndpointAccess: hcplinkv1beta1.GCPEndpointAccessPrivate, Private: &hcplinkv1beta1.GCPPrivateSpec{},
				WorkloadIdentity: &hcplinkv1beta1.GCPWorkloadIdentityConfig{
					PoolProvider:          "projects/" + cloudsimtest.CustomerProjectNumber + "/locations/global/workloadIdentityPools/hcplink/providers/control-plane",
					ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{ControlPlaneOperator: "control-plane@" + cloudsimtest.CustomerProject + ".iam.gserviceaccount.com"},
				},
			}},
		},
	}
}

// TestGCPInstallDryRun has the API server validate what install makes for
// GCP with a key file (its Secret included), writing nothing.
func TestGCPInstallDryRun(t *testing.T) {
	c := kube(t)
	opts := Options{Namespace: "hcplink-gcp-dry-run", PrivatePlatform: operator.PlatformGCP, GCP: gcpPlace(GCPCredentials{KeyFile: gcpKey})}
	objs, err := Objects(opts)
	if err != nil {
		t.Fatal(err)
	}
	// The cluster-scoped objects (the ClusterRole and its binding) are
	// shared by every install in this API server; other tests may have
	// applied them for real.
	existedBefore := map[client.Object]bool{}
	for _, obj := range objs {
		existedBefore[obj] = exists(t, c, obj)
	}
	results, err := Apply(t.Context(), c, opts, ApplyOptions{DryRun: true})
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if len(results) != len(objs) {
		t.Fatalf("dry run reported %d objects, want %d", len(results), len(objs))
	}
	for _, obj := range objs {
		if obj.GetObjectKind().GroupVersionKind().Kind != "CustomResourceDefinition" && !existedBefore[obj] && exists(t, c, obj) {
			t.Errorf("the dry run wrote %s %s", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName())
		}
	}
}
