package azureprivatelink

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// TestObserverCreatesUpdatesDeletes walks the observer through the private
// router's life: no CR without an internal address, a CR with the
// cluster's settings, updates of the mutable fields only when they differ,
// and the CR deleted with its Service.
func TestObserverCreatesUpdatesDeletes(t *testing.T) {
	ctx := t.Context()
	ns := env.NewNamespace(t)
	hcp := azureHCP(ns, "demo", hcplinkv1beta1.AzureTopologyPrivate)
	if err := env.Client.Create(ctx, hcp); err != nil {
		t.Fatal(err)
	}
	o := &Observer{Client: env.Client}
	key := types.NamespacedName{Namespace: ns, Name: hcplinkv1beta1.PrivateRouterServiceName}
	reconcile := func() {
		t.Helper()
		if _, err := o.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
	}
	getCR := func() *hcplinkv1beta1.AzurePrivateLinkService {
		t.Helper()
		cr := &hcplinkv1beta1.AzurePrivateLinkService{}
		err := env.Client.Get(ctx, key, cr)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return cr
	}

	reconcile()
	if getCR() != nil {
		t.Fatal("CR without a Service")
	}
	// A public (not internal) Service with an address: not ours.
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: ns},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
	if err := env.Client.Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "10.0.0.9"}}
	if err := env.Client.Status().Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if getCR() != nil {
		t.Fatal("CR for a Service without the internal annotation")
	}
	// Internal, no address yet: wait.
	svc.Annotations = map[string]string{azurecloud.LoadBalancerInternalAnnotation: "true"}
	if err := env.Client.Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = nil
	if err := env.Client.Status().Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if getCR() != nil {
		t.Fatal("CR before the Service has an address")
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "10.0.0.9"}}
	if err := env.Client.Status().Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	cr := getCR()
	if cr == nil {
		t.Fatal("no CR")
	}
	if cr.Spec.LoadBalancerIP != "10.0.0.9" || cr.Spec.GuestSubnetID != testSubnet || cr.Spec.GuestVNetID != testVNet ||
		cr.Spec.SubscriptionID != testSub || cr.Spec.BaseDomain != "example.com" ||
		cr.Annotations[hcplinkv1beta1.ClusterAnnotation] != "clusters/demo" || !metav1.IsControlledBy(cr, hcp) {
		t.Fatalf("CR %+v", cr)
	}

	// Nothing changed: no write.
	rv := cr.ResourceVersion
	reconcile()
	if getCR().ResourceVersion != rv {
		t.Error("the observer wrote an unchanged CR")
	}

	// The address and the additional subscriptions change: they follow.
	extra := "33333333-3333-4333-8333-333333333333"
	hpatch := client.MergeFrom(hcp.DeepCopy())
	hcp.Spec.Platform.Azure.Private.PrivateLink = &hcplinkv1beta1.AzurePrivateLinkSpec{AdditionalAllowedSubscriptions: []string{extra}}
	if err := env.Client.Patch(ctx, hcp, hpatch); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress[0].IP = "10.0.0.10"
	if err := env.Client.Status().Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	cr = getCR()
	if cr.Spec.LoadBalancerIP != "10.0.0.10" || !slices.Equal(cr.Spec.AdditionalAllowedSubscriptions, []string{extra}) {
		t.Fatalf("after the change CR spec %+v", cr.Spec)
	}
	// Removed again: removed from the CR.
	hpatch = client.MergeFrom(hcp.DeepCopy())
	hcp.Spec.Platform.Azure.Private.PrivateLink = nil
	if err := env.Client.Patch(ctx, hcp, hpatch); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if cr = getCR(); len(cr.Spec.AdditionalAllowedSubscriptions) != 0 {
		t.Fatalf("subscriptions not removed: %v", cr.Spec.AdditionalAllowedSubscriptions)
	}

	// The Service goes (the topology changed): the CR goes with it.
	if err := env.Client.Delete(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if cr := getCR(); cr != nil && cr.DeletionTimestamp.IsZero() {
		t.Fatal("CR not deleted with its Service")
	}
}
