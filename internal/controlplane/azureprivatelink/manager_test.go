package azureprivatelink

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/testenv"
)

// TestManagerWiring runs the observer and the endpoint controller in a
// manager: the private router's internal address reaches a new CR, the
// operator's alias brings the path up, PublicAndPrivate ↔ Private moves the
// ExternalName Services, and the Service's removal deletes the CR, whose
// cleanup leaves nothing in the customer's resource group.
func TestManagerWiring(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	w := newWorld(t)
	cred := w.cpoIdentity()
	ns := env.NewNamespace(t)
	hcp := azureHCP(ns, "demo", hcplinkv1beta1.AzureTopologyPrivate)
	az := hcp.Spec.Platform.Azure
	az.SubscriptionID, az.ResourceGroupName, az.VnetID, az.SubnetID = customer, guestRG, guestVNet, guestSubnet
	if err := env.Client.Create(w.ctx, hcp); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&Observer{}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	// Operations are quick on cloudsim's clock, which the test moves fast.
	r := &Reconciler{Cloud: &ARMFactory{Credential: cred, Options: w.f.AzureClientOptions()}, OperationPoll: 200 * time.Millisecond}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(w.ctx)
	stopped := make(chan struct{})
	go func() { defer close(stopped); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-stopped })

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: hcplinkv1beta1.PrivateRouterServiceName, Namespace: ns,
		Annotations: map[string]string{azurecloud.LoadBalancerInternalAnnotation: "true"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
	if err := env.Client.Create(w.ctx, svc); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: lbIP}}
	if err := env.Client.Status().Update(w.ctx, svc); err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns, Name: hcplinkv1beta1.PrivateRouterServiceName}
	get := func() *hcplinkv1beta1.AzurePrivateLinkService {
		cr := &hcplinkv1beta1.AzurePrivateLinkService{}
		if err := env.Client.Get(w.ctx, key, cr); err != nil {
			return nil
		}
		return cr
	}
	testenv.Eventually(t, "the observer creates the CR and the controller waits for the alias", func() bool {
		cr := get()
		return cr != nil && condition(cr, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition).Reason == hcplinkv1beta1.WaitingForPrivateLinkServiceReason
	})
	// The operator's part: the PLS and its alias in status.
	c := &cluster{w: w, hcp: hcp, cr: get()}
	c.publishAlias(w.plsFor("pls-demo"))
	testenv.Eventually(t, "the path becomes available", func() bool {
		w.clk.Advance(5 * time.Second)
		cr := get()
		return cr != nil && available(cr)
	})
	c.assertPath(t)

	externalNames := func() int {
		n := 0
		for _, name := range hcplinkv1beta1.PrivateExternalServiceNames {
			if err := env.Client.Get(w.ctx, types.NamespacedName{Namespace: ns, Name: name}, &corev1.Service{}); err == nil {
				n++
			}
		}
		return n
	}
	testenv.Eventually(t, "Private has ExternalName Services", func() bool { return externalNames() == 2 })
	setTopology := func(topology hcplinkv1beta1.AzureTopology) {
		t.Helper()
		cur := &hcplinkv1beta1.HostedControlPlane{}
		if err := env.Client.Get(w.ctx, client.ObjectKeyFromObject(hcp), cur); err != nil {
			t.Fatal(err)
		}
		patch := client.MergeFrom(cur.DeepCopy())
		cur.Spec.Platform.Azure.Topology = topology
		if err := env.Client.Patch(w.ctx, cur, patch); err != nil {
			t.Fatal(err)
		}
	}
	setTopology(hcplinkv1beta1.AzureTopologyPublicAndPrivate)
	testenv.Eventually(t, "PublicAndPrivate has none", func() bool { return externalNames() == 0 })
	setTopology(hcplinkv1beta1.AzureTopologyPrivate)
	testenv.Eventually(t, "Private has them again", func() bool { return externalNames() == 2 })

	// The Service goes: the observer deletes the CR, whose finalizer
	// cleans the customer's side.
	if err := env.Client.Delete(w.ctx, svc); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the CR is cleaned up and released", func() bool {
		w.clk.Advance(5 * time.Second)
		err := env.Client.Get(w.ctx, key, &hcplinkv1beta1.AzurePrivateLinkService{})
		return apierrors.IsNotFound(err)
	})
	if eps, zones := w.endpoints(), w.zones(); len(eps) != 0 || len(zones) != 0 {
		t.Errorf("left after deletion: endpoints %v, zones %v", eps, zones)
	}
}
