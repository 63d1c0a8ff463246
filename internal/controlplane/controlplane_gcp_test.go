package controlplane

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	gcpplatform "github.com/hcplink/hcplink/internal/controlplane/platform/gcp"
	"github.com/hcplink/hcplink/internal/testenv"
)

// TestRunServesAGCPControlPlane runs the control-plane operator of a
// private GCP cluster as its ServiceAccount, with only the Role the
// operator grants it: the private router is an internal GKE load
// balancer, its address reaches a new GCPPrivateServiceConnect accepting
// the cluster's projects, and the endpoint controller reports on it (here
// that it has no workload identity token to sign in with). Before any of
// it, the router waits for the check of the cluster's settings, which
// cannot sign in either.
func TestRunServesAGCPControlPlane(t *testing.T) {
	t.Setenv("HCPLINK_GCP_TOKEN_FILE", t.TempDir()+"/no-token")
	ns := env.NewNamespace(t)
	grantControlPlaneOperator(t, ns, "gcpprivateserviceconnects")
	hcp := privateGCPHCP(ns)
	if err := env.Client.Create(t.Context(), hcp); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctrl.LoggerInto(t.Context(), testenv.Logger(t)))
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{RestConfig: asServiceAccount(ns), Namespace: ns, Platform: gcpplatform.Name, MetricsBindAddress: "0", HealthProbeBindAddress: "0"})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(deadline):
			t.Error("Run did not return after its context ended")
		}
	})

	// Without a token the settings check cannot read the cluster's subnet,
	// so nothing is made: the router waits for the check.
	testenv.Eventually(t, "the settings check to fail", func(ctx context.Context) error {
		got := &hcplinkv1beta1.HostedControlPlane{}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(hcp), got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, hcplinkv1beta1.GCPConfigurationValidCondition)
		if c == nil || c.Status != metav1.ConditionFalse {
			return fmt.Errorf("%s is %+v, want False", hcplinkv1beta1.GCPConfigurationValidCondition, c)
		}
		return nil
	})
	if err := serviceExists(ns, hcplinkv1beta1.PrivateRouterServiceName, false)(t.Context()); err != nil {
		t.Fatalf("the router was made before the cluster's settings were checked: %v", err)
	}
	// This test has no cloud: the check's True verdict, as it would write it
	// on finding the subnet, opens the gate.
	markSettingsValid(t, hcp)
	testenv.Eventually(t, "private-router is created", serviceExists(ns, hcplinkv1beta1.PrivateRouterServiceName, true))
	svc := &corev1.Service{}
	if err := env.Client.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: hcplinkv1beta1.PrivateRouterServiceName}, svc); err != nil {
		t.Fatal(err)
	}
	if got := svc.Annotations[gcpcloud.LoadBalancerTypeAnnotation]; got != gcpcloud.LoadBalancerTypeInternal {
		t.Fatalf("private-router's %s is %q, want %q", gcpcloud.LoadBalancerTypeAnnotation, got, gcpcloud.LoadBalancerTypeInternal)
	}
	// GKE gives the Service its internal forwarding rule's address.
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "10.0.0.50"}}
	if err := env.Client.Status().Update(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the GCPPrivateServiceConnect of the router, with a condition", func(ctx context.Context) error {
		cr := &hcplinkv1beta1.GCPPrivateServiceConnect{}
		if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: hcplinkv1beta1.GCPPrivateServiceConnectName}, cr); err != nil {
			return err
		}
		if cr.Spec.LoadBalancerIP != "10.0.0.50" || len(cr.Spec.ConsumerAcceptList) != 2 || cr.Spec.ConsumerAcceptList[0] != "customer-project" {
			return fmt.Errorf("spec %+v", cr.Spec)
		}
		if c := meta.FindStatusCondition(cr.Status.Conditions, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition); c == nil || c.Status == metav1.ConditionTrue {
			return fmt.Errorf("%s is %+v, want a condition that is not True", hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition, c)
		}
		return nil
	})
}

// markSettingsValid writes GCPConfigurationValid=True for hcp's current
// generation, as the settings check does when it finds the subnet.
func markSettingsValid(t *testing.T, hcp *hcplinkv1beta1.HostedControlPlane) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got := &hcplinkv1beta1.HostedControlPlane{}
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hcp), got); err != nil {
			return err
		}
		meta.SetStatusCondition(&got.Status.Conditions, metav1.Condition{Type: hcplinkv1beta1.GCPConfigurationValidCondition,
			Status: metav1.ConditionTrue, Reason: hcplinkv1beta1.GCPSuccessReason, Message: "Subnet workers exists in network customer in us-central1",
			ObservedGeneration: got.Generation})
		return env.Client.Status().Update(t.Context(), got)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// privateGCPHCP is a Private GCP HostedControlPlane in namespace with one
// additional allowed project.
func privateGCPHCP(namespace string) *hcplinkv1beta1.HostedControlPlane {
	return &hcplinkv1beta1.HostedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: namespace, Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: "clusters/demo"}},
		Spec: hcplinkv1beta1.HostedControlPlaneSpec{
			InfraID:    "demo-x7k2p",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "192.168.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
				Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"}}}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform, GCP: &hcplinkv1beta1.GCPPlatformSpec{
				Project: "customer-project", Region: "us-central1", Network: "customer", Subnet: "workers",
				EndpointAccess: hcplinkv1beta1.GCPEndpointAccessPrivate,
				Private:        &hcplinkv1beta1.GCPPrivateSpec{AdditionalAllowedProjects: []string{"partner-project"}},
				WorkloadIdentity: &hcplinkv1beta1.GCPWorkloadIdentityConfig{
					PoolProvider:          "projects/200000000002/locations/global/workloadIdentityPools/hcplink/providers/control-plane",
					ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{ControlPlaneOperator: "control-plane@customer-project.iam.gserviceaccount.com"},
				},
			}},
		},
	}
}
