package gcpprivateserviceconnect

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
)

// TestObserverCreatesUpdatesDeletes walks the observer through the private
// router's life: no CR without an internal address, a CR with the
// cluster's settings and accept list, the accept list following the
// cluster's additional projects, and the CR deleted with its Service.
func TestObserverCreatesUpdatesDeletes(t *testing.T) {
	ctx := t.Context()
	ns := env.NewNamespace(t)
	hcp := gcpHCP(ns, "demo", hcplinkv1beta1.GCPEndpointAccessPrivate)
	hcp.Spec.Platform.GCP.Private.NATSubnet = "psc-nat-a"
	if err := env.Client.Create(ctx, hcp); err != nil {
		t.Fatal(err)
	}
	o := &Observer{Client: env.Client}
	key := types.NamespacedName{Namespace: ns, Name: hcplinkv1beta1.GCPPrivateServiceConnectName}
	reconcile := func() {
		t.Helper()
		if _, err := o.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
	}
	getCR := func() *hcplinkv1beta1.GCPPrivateServiceConnect {
		t.Helper()
		cr := &hcplinkv1beta1.GCPPrivateServiceConnect{}
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
	// An external (not internal) Service with an address: not ours.
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: hcplinkv1beta1.PrivateRouterServiceName, Namespace: ns},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
	if err := env.Client.Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "10.0.0.50"}}
	if err := env.Client.Status().Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if getCR() != nil {
		t.Fatal("CR for a Service that is not an internal load balancer")
	}
	svc.Annotations = map[string]string{LoadBalancerTypeAnnotation: LoadBalancerTypeInternal}
	if err := env.Client.Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	cr := getCR()
	if cr == nil {
		t.Fatal("no CR for the internal router")
	}
	want := hcplinkv1beta1.GCPPrivateServiceConnectSpec{LoadBalancerIP: "10.0.0.50", ConsumerAcceptList: []string{customerProject, "partner-project"},
		NATSubnet: "psc-nat-a", Project: customerProject, Region: region, Network: "customer", Subnet: "workers"}
	if !equalSpec(cr.Spec, want) {
		t.Fatalf("spec %+v, want %+v", cr.Spec, want)
	}
	if !metav1.IsControlledBy(cr, hcp) || cr.Annotations[hcplinkv1beta1.ClusterAnnotation] != "clusters/demo" {
		t.Fatalf("owner %v annotations %v", cr.OwnerReferences, cr.Annotations)
	}

	// An unchanged pass writes nothing.
	rv := cr.ResourceVersion
	reconcile()
	if getCR().ResourceVersion != rv {
		t.Fatal("an unchanged pass wrote the CR")
	}
	// The additional projects change: the accept list follows.
	patch := client.MergeFrom(hcp.DeepCopy())
	hcp.Spec.Platform.GCP.Private.AdditionalAllowedProjects = []string{"other-partner"}
	if err := env.Client.Patch(ctx, hcp, patch); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if got := getCR().Spec.ConsumerAcceptList; !slices.Equal(got, []string{customerProject, "other-partner"}) {
		t.Fatalf("accept list %v after the change", got)
	}
	// The router's address changes: followed.
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "10.0.0.51"}}
	if err := env.Client.Status().Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if got := getCR().Spec.LoadBalancerIP; got != "10.0.0.51" {
		t.Fatalf("loadBalancerIP %s", got)
	}
	// The Service goes: so does the CR.
	if err := env.Client.Delete(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if getCR() != nil {
		t.Fatal("the CR outlived its Service")
	}
}

func equalSpec(a, b hcplinkv1beta1.GCPPrivateServiceConnectSpec) bool {
	return a.LoadBalancerIP == b.LoadBalancerIP && slices.Equal(a.ConsumerAcceptList, b.ConsumerAcceptList) && a.NATSubnet == b.NATSubnet &&
		a.Project == b.Project && a.Region == b.Region && a.Network == b.Network && a.Subnet == b.Subnet
}

// Public clusters and clusters of other clouds are not the observer's.
func TestPrivateConfigured(t *testing.T) {
	tests := []struct {
		name   string
		access hcplinkv1beta1.GCPEndpointAccessType
		want   bool
	}{
		{"Public", hcplinkv1beta1.GCPEndpointAccessPublic, false},
		{"PublicAndPrivate", hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate, true},
		{"Private", hcplinkv1beta1.GCPEndpointAccessPrivate, true},
	}
	for _, tt := range tests {
		if got := PrivateConfigured(gcpHCP("ns", "x", tt.access)); got != tt.want {
			t.Errorf("%s: %v", tt.name, got)
		}
	}
	other := gcpHCP("ns", "x", hcplinkv1beta1.GCPEndpointAccessPrivate)
	other.Spec.Platform.Type = hcplinkv1beta1.AzurePlatform
	if PrivateConfigured(other) || PrivateConfigured(nil) {
		t.Error("another cloud's cluster, or none, is not GCP's")
	}
}
