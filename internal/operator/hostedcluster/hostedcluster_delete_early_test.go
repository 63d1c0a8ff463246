package hostedcluster

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	azureplatform "github.com/hcplink/hcplink/internal/operator/platform/azure"
	gcpplatform "github.com/hcplink/hcplink/internal/operator/platform/gcp"
	"github.com/hcplink/hcplink/internal/testenv"
)

// A cluster deleted before the operator went to create its control-plane
// operator had none, so nothing of its can be in the customer's account:
// deletion waits neither for its cleanup nor for its final sweep. One
// that may have run is waited for as before.

// farGrace is a cleanup grace period far beyond any deadline of these
// tests: a deletion that waited for it would fail them.
const farGrace = time.Hour

// gcpPrivateCluster is a valid private GCP HostedCluster in the operator's
// region (testGCPRegion).
func gcpPrivateCluster(namespace, name string) *hcplinkv1beta1.HostedCluster {
	const project = "customer-project"
	return &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    "gcpdemo-8d3kq",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "gcpdemo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.10.0.0/16"}}},
			Services:   routeServices(),
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform, GCP: &hcplinkv1beta1.GCPPlatformSpec{
				Project: project, Region: testGCPRegion, Network: "customer", Subnet: "workers",
				EndpointAccess: hcplinkv1beta1.GCPEndpointAccessPrivate,
				WorkloadIdentity: &hcplinkv1beta1.GCPWorkloadIdentityConfig{
					PoolProvider:          "projects/200000000002/locations/global/workloadIdentityPools/hcplink-mgmt/providers/mgmt-oidc",
					ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{ControlPlaneOperator: "control-plane@" + project + ".iam.gserviceaccount.com"},
				},
			}},
		},
	}
}

// passCutShortBeforeTheControlPlaneOperator creates hc and runs the start
// of the operator's pass on it, as a pass cut short before the
// control-plane operator leaves it (an error, a restart): the finalizer,
// then, when withControlPlane, the namespace and the HostedControlPlane.
func passCutShortBeforeTheControlPlaneOperator(t *testing.T, cfg Config, hc *hcplinkv1beta1.HostedCluster, withControlPlane bool) {
	t.Helper()
	create(t, hc)
	r, _ := testReconciler(t, cfg)
	if err := r.ensureFinalizer(logged(t), hc); err != nil {
		t.Fatal(err)
	}
	if !withControlPlane {
		return
	}
	if err := r.ensureNamespaceAndControlPlane(logged(t), hc); err != nil {
		t.Fatal(err)
	}
}

// The fleet soak's cluster deleted two seconds after its creation: its
// namespace and HostedControlPlane existed, its control-plane operator did
// not. It is gone at once on every platform, through the running manager,
// although the grace period is an hour.
func TestDeletionBeforeTheControlPlaneOperatorWaitsForNothing(t *testing.T) {
	for _, tc := range []struct {
		platform string
		cluster  func(namespace string) *hcplinkv1beta1.HostedCluster
	}{
		{awsplatform.Name, func(ns string) *hcplinkv1beta1.HostedCluster {
			return awsCluster(ns, "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
		}},
		{azureplatform.Name, func(ns string) *hcplinkv1beta1.HostedCluster {
			return azureCluster(ns, "demo", hcplinkv1beta1.AzureTopologyPrivate)
		}},
		{gcpplatform.Name, func(ns string) *hcplinkv1beta1.HostedCluster { return gcpPrivateCluster(ns, "demo") }},
	} {
		t.Run(tc.platform, func(t *testing.T) {
			cfg := Config{PrivatePlatform: tc.platform, ControlPlaneOperatorImage: testImage, CleanupGracePeriod: farGrace}
			hc := tc.cluster(env.NewNamespace(t))
			passCutShortBeforeTheControlPlaneOperator(t, cfg, hc, true)
			cp := hcpNamespace(hc)
			if !exists(t, &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: cp, Name: hc.Name}}) {
				t.Fatal("the cut-short pass made no HostedControlPlane")
			}
			if err := env.Client.Delete(t.Context(), hc); err != nil {
				t.Fatal(err)
			}
			startManager(t, cfg, hc)
			testenv.Eventually(t, "the cluster to be deleted without waiting for a control-plane operator that never existed", func() (bool, error) {
				return !exists(t, &hcplinkv1beta1.HostedCluster{ObjectMeta: hc.ObjectMeta}), nil
			})
			assertNoControlPlaneObjects(t, cp)
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cp}}
			if exists(t, ns) && ns.DeletionTimestamp.IsZero() {
				t.Error("the namespace's deletion was not requested")
			}
		})
	}
}

// A cluster deleted before its control-plane namespace was made: nothing
// is recreated for a final sweep (there was never a control-plane operator
// to leave anything behind), and the cluster is gone in one pass.
func TestDeletionBeforeTheNamespaceRecreatesNothing(t *testing.T) {
	cfg := awsConfig()
	cfg.CleanupGracePeriod = farGrace
	hc := awsCluster(env.NewNamespace(t), "demo", hcplinkv1beta1.AWSEndpointAccessPrivate)
	passCutShortBeforeTheControlPlaneOperator(t, cfg, hc, false)
	if err := env.Client.Delete(t.Context(), hc); err != nil {
		t.Fatal(err)
	}
	r, _ := testReconciler(t, cfg)
	reconcileOnce(t, r, hc)
	if exists(t, hc) {
		t.Fatalf("the cluster is still there after one pass: %+v", hc.Status.Conditions)
	}
	cp := hcpNamespace(hc)
	if exists(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: cp}}) {
		t.Error("the control-plane namespace was recreated for a control-plane operator that never existed")
	}
	assertNoControlPlaneObjects(t, cp)
}

// forgetControlPlaneOperatorCreation removes
// status.controlPlaneOperatorCreationTime, as on a cluster whose
// control-plane operator an operator from before that field created.
func forgetControlPlaneOperatorCreation(t *testing.T, hc *hcplinkv1beta1.HostedCluster) {
	t.Helper()
	patch := client.RawPatch(types.MergePatchType, []byte(`{"status":{"controlPlaneOperatorCreationTime":null}}`))
	if err := env.Client.Status().Patch(t.Context(), hc, patch); err != nil {
		t.Fatal(err)
	}
	if hc.Status.ControlPlaneOperatorCreationTime != nil {
		t.Fatal("status.controlPlaneOperatorCreationTime is still set")
	}
}

// Whenever the control-plane operator may have run — it was created (its
// Deployment deleted since), its Deployment exists (made before the status
// recorded it), or a private-link object carries its finalizer — deletion
// waits for it as before: for its final sweep, and for its finalizer until
// the grace period ends, which reports what may have leaked.
func TestDeletionWaitsWhenTheControlPlaneOperatorMayHaveRun(t *testing.T) {
	newFixture := func(t *testing.T, grace time.Duration) *deletionFixture {
		return newDeletionFixture(t, Config{PrivatePlatform: awsplatform.Name, ControlPlaneOperatorImage: testImage, CleanupGracePeriod: grace})
	}
	deleteDeployment := func(t *testing.T, f *deletionFixture) {
		t.Helper()
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: f.cp, Name: ControlPlaneOperatorName}}
		if err := env.Client.Delete(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	// privateLinkCleanedUp plays both components' cleanup of the endpoint
	// object, so that only the final sweep is left.
	privateLinkCleanedUp := func(t *testing.T, f *deletionFixture) {
		t.Helper()
		removeFinalizers(t, f.endpoint, cleanupFinalizers...)
		if err := env.Client.Delete(t.Context(), f.endpoint); client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
	}
	// assertWaitingFor checks that a pass waits with the given reason, says
	// that the control-plane operator never reported and when the wait
	// ends, and keeps the HostedControlPlane.
	assertWaitingFor := func(t *testing.T, f *deletionFixture, reason string) {
		t.Helper()
		if res := reconcileOnce(t, f.r, f.hc); res.RequeueAfter <= 0 {
			t.Errorf("RequeueAfter = %s, want a delay while waiting", res.RequeueAfter)
		}
		get(t, f.hc)
		c := condition(f.hc, hcplinkv1beta1.DeletingCondition)
		if c == nil || c.Reason != reason || !strings.Contains(c.Message, "never reported") || !strings.Contains(c.Message, "abandoned at") {
			t.Errorf("Deleting = %+v, want %s saying the control-plane operator never reported and when the wait ends", c, reason)
		}
		if !exists(t, &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: f.cp, Name: f.hc.Name}}) {
			t.Error("the HostedControlPlane is gone while deletion waits for the control-plane operator")
		}
	}

	t.Run("created, its Deployment deleted since", func(t *testing.T) {
		f := newFixture(t, farGrace)
		privateLinkCleanedUp(t, f)
		deleteDeployment(t, f)
		assertWaitingFor(t, f, hcplinkv1beta1.WaitingForCloudCleanupReason)
		f.clock.Step(farGrace - time.Second)
		assertWaitingFor(t, f, hcplinkv1beta1.WaitingForCloudCleanupReason)
	})
	t.Run("Deployment made before the status recorded it", func(t *testing.T) {
		f := newFixture(t, farGrace)
		forgetControlPlaneOperatorCreation(t, f.hc)
		privateLinkCleanedUp(t, f)
		assertWaitingFor(t, f, hcplinkv1beta1.WaitingForCloudCleanupReason)
	})
	t.Run("its finalizer on a private-link object", func(t *testing.T) {
		grace := 10 * time.Minute
		f := newFixture(t, grace)
		forgetControlPlaneOperatorCreation(t, f.hc)
		deleteDeployment(t, f)
		assertWaitingFor(t, f, hcplinkv1beta1.WaitingForPrivateLinkCleanupReason)
		endpoint := &hcplinkv1beta1.AWSEndpointService{ObjectMeta: f.endpoint.ObjectMeta}
		if get(t, endpoint); !equalSets(endpoint.Finalizers, cleanupFinalizers) {
			t.Errorf("endpoint object finalizers %v, want %v kept", endpoint.Finalizers, cleanupFinalizers)
		}
		// The escape hatch still bounds the wait, and reports the leak.
		f.clock.Step(grace)
		reconcileOnce(t, f.r, f.hc)
		f.assertLeak(t, customerIDs, managementIDs)
	})
}
