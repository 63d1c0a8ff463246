package operator

import (
	"context"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
	"github.com/hcplink/hcplink/internal/testenv"
)

// With --private-platform=GCP the operator runs the service attachment
// controller on its own key, in the management project, region and
// network of its options: a private GCP cluster is valid (no longer
// refused as an unserved platform), the GCPPrivateServiceConnect of its
// router (whose internal forwarding rule is in cloudsim) gets an
// ACCEPT_MANUAL attachment accepting the cluster's project, the
// attachment's condition is folded into the HostedCluster, and a change
// of additionalAllowedProjects reaches the accept list through the
// HostedCluster watch.
func TestRunServesGCPPrivateServiceConnect(t *testing.T) {
	const (
		project  = cloudsimtest.ManagementProject
		customer = cloudsimtest.CustomerProject
		region   = cloudsimtest.GCPRegion
		routerIP = "10.0.0.50"
		partner  = "partner-project-1"
	)
	// The sim clock starts at the wall clock's: the credentials library
	// judges a token's expiry by the wall clock. The test moves it past
	// Compute Engine's operations.
	clk := sim.NewManualClock(time.Now().UTC().Truncate(time.Minute))
	f := cloudsimtest.StartGCP(t, cloudsim.Options{Clock: clk})
	// The router's internal forwarding rule, a NAT subnetwork, and the
	// operator's service account holding the shipped management role only.
	key := f.SeedGCPManagement(t, clk, project, region, routerIP, gcpcloud.RoleID(gcpcloud.ManagementOperator), gcpcloud.PermissionsOf(gcpcloud.ManagementOperator))
	admin := f.Compute(t, cloudsimtest.GCPAdminTokens())

	ctx := t.Context()
	runCtx, cancel := context.WithCancel(ctrl.LoggerInto(ctx, ctrl.Log.WithName("operator")))
	stopped := make(chan error, 1)
	go func() {
		stopped <- Run(runCtx, Options{
			RestConfig:      env.Config,
			PrivatePlatform: PlatformGCP,
			GCP: gcpplatform.Options{Project: project, Region: region, Network: "management", NATSubnets: []string{"psc-nat-a"},
				Cloud: gcpcloud.Config{CredentialsJSON: key, ComputeEndpoint: f.URL + "/compute/v1/", DNSEndpoint: f.URL + "/"}},
			ControlPlaneOperatorImage: "registry.example.com/hcplink:test",
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-stopped:
			if err != nil {
				t.Errorf("Run returned %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	})

	ns := env.NewNamespace(t)
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gcp"},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID: "gcp-run", ClusterID: "6f1c2a40-1111-4000-8000-000000000003",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "gcpdemo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "192.168.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
				Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.gcpdemo.example.com"}}}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform, GCP: &hcplinkv1beta1.GCPPlatformSpec{
				Project: customer, Region: region, Network: "customer", Subnet: "workers",
				EndpointAccess: hcplinkv1beta1.GCPEndpointAccessPrivate, Private: &hcplinkv1beta1.GCPPrivateSpec{},
				WorkloadIdentity: &hcplinkv1beta1.GCPWorkloadIdentityConfig{
					PoolProvider:          "projects/200000000002/locations/global/workloadIdentityPools/hcplink-mgmt/providers/mgmt-oidc",
					ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{ControlPlaneOperator: "control-plane@" + customer + ".iam.gserviceaccount.com"},
				},
			}},
		},
	}
	if err := env.Client.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	hcpNS := hcplinkv1beta1.HostedControlPlaneNamespace(ns, hc.Name)
	testenv.Eventually(t, "the control-plane namespace", func() (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKey{Name: hcpNS}, &corev1.Namespace{})
		return err == nil, client.IgnoreNotFound(err)
	})
	// What the control-plane operator's observer makes from the router
	// Service's internal address.
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{ObjectMeta: metav1.ObjectMeta{Namespace: hcpNS, Name: hcplinkv1beta1.GCPPrivateServiceConnectName},
		Spec: hcplinkv1beta1.GCPPrivateServiceConnectSpec{LoadBalancerIP: routerIP, ConsumerAcceptList: []string{customer},
			Project: customer, Region: region, Network: "customer", Subnet: "workers"}}
	if err := env.Client.Create(ctx, cr); err != nil {
		t.Fatal(err)
	}
	attachment := func() *compute.ServiceAttachment {
		if cr.Status.ServiceAttachmentName == "" {
			return nil
		}
		got, err := admin.ServiceAttachments.Get(project, region, cr.Status.ServiceAttachmentName).Do()
		if err != nil {
			return nil
		}
		return got
	}
	stepping(t, clk, "the attachment in status and in cloudsim", func() bool {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			return false
		}
		c := meta.FindStatusCondition(cr.Status.Conditions, hcplinkv1beta1.GCPServiceAttachmentAvailableCondition)
		return c != nil && c.Status == metav1.ConditionTrue && attachment() != nil
	})
	got := attachment()
	if got.ConnectionPreference != "ACCEPT_MANUAL" || !gcpcloud.SameConsumers(got, []gcpcloud.Consumer{{Project: customer}}) ||
		len(got.NatSubnets) != 1 || got.TargetService == "" {
		t.Fatalf("attachment %s: preference %s, accept list %+v, NAT subnets %v, target %q", got.Name, got.ConnectionPreference, got.ConsumerAcceptLists, got.NatSubnets, got.TargetService)
	}
	stepping(t, clk, "the HostedCluster valid, with the attachment's condition folded in", func() bool {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
			return false
		}
		valid := meta.FindStatusCondition(hc.Status.Conditions, hcplinkv1beta1.ValidConfigurationCondition)
		folded := meta.FindStatusCondition(hc.Status.Conditions, hcplinkv1beta1.GCPServiceAttachmentAvailableCondition)
		return valid != nil && valid.Status == metav1.ConditionTrue && folded != nil && folded.Status == metav1.ConditionTrue
	})

	// A patch, not an update: the running operator writes the status.
	base := hc.DeepCopy()
	hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = []string{partner}
	if err := env.Client.Patch(ctx, hc, client.MergeFrom(base)); err != nil {
		t.Fatal(err)
	}
	stepping(t, clk, "the added project on the accept list", func() bool {
		a := attachment()
		return a != nil && gcpcloud.SameConsumers(a, []gcpcloud.Consumer{{Project: customer}, {Project: partner}})
	})
}

// stepping polls cond, moving cloudsim's clock past Compute Engine's
// operations, until it holds or 60 s have passed.
func stepping(t *testing.T, clk *sim.ManualClock, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: did not happen within 60s", what)
		}
		clk.Advance(5 * time.Second)
		<-tick.C
	}
}
