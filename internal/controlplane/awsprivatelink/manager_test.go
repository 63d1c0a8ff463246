package awsprivatelink

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/testenv"
)

// TestManagerWiring runs the observer and the endpoint controller in a
// manager: the Service's load balancer reaches the CR, the endpoint becomes
// available, and deleting the CR cleans the cloud and releases the CR.
func TestManagerWiring(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	x := newFixture(t, cloudOpts{})
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{x.cr.Namespace: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&Observer{ServiceName: hcplinkv1beta1.PrivateRouterServiceName}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	r := x.newReconciler()
	r.Client = nil
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(x.ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: hcplinkv1beta1.PrivateRouterServiceName, Namespace: x.cr.Namespace},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
	if err := env.Client.Create(x.ctx, svc); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "k8s-demo-privater-0a0b0c0d0e-0123456789abcdef.elb.us-east-1.amazonaws.com"}}
	if err := env.Client.Status().Update(x.ctx, svc); err != nil {
		t.Fatal(err)
	}

	testenv.Eventually(t, "the observer sets the NLB name and the endpoint becomes available", func() bool {
		x.clk.Advance(5 * time.Second)
		cr := x.get()
		c := meta.FindStatusCondition(cr.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition)
		return cr.Spec.NetworkLoadBalancerName == "k8s-demo-privater-0a0b0c0d0e" && c != nil && c.Status == metav1.ConditionTrue
	})

	// The Service goes (the cluster no longer needs the private router):
	// the observer deletes the CR, whose finalizer cleans the cloud.
	if err := env.Client.Delete(x.ctx, svc); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the CR is cleaned up and released", func() bool {
		x.clk.Advance(5 * time.Second)
		err := env.Client.Get(x.ctx, client.ObjectKeyFromObject(x.cr), &hcplinkv1beta1.AWSEndpointService{})
		if apierrors.IsNotFound(err) {
			return true
		}
		return false // no other finalizer holds it here (the operator's is absent)
	})
	if n := len(x.endpoints()) + len(x.securityGroups()) + len(x.records()); n != 0 {
		t.Fatalf("%d cloud resources left after deletion", n)
	}
}
