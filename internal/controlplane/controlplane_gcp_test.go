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
	ctrl "sigs.k8s.io/controller-runtime"

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
// that it has no workload identity token to sign in with).
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
