package awsprivatelink

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

func TestNLBNameFromHostname(t *testing.T) {
	tests := []struct{ hostname, want string }{
		{"k8s-ns-name-db6fee3a62-8008a1b2c3d4e5f6.elb.us-east-1.amazonaws.com", "k8s-ns-name-db6fee3a62"},
		{"a1b2c3-0123456789abcdef.elb.eu-west-1.amazonaws.com", "a1b2c3"},
		{"nodash.elb.us-east-1.amazonaws.com", "nodash"},
		{"nodots", "nodots"},
		{"-leading.example.com", "-leading"},
	}
	for _, tt := range tests {
		if got := NLBNameFromHostname(tt.hostname); got != tt.want {
			t.Errorf("NLBNameFromHostname(%q) = %q, want %q", tt.hostname, got, tt.want)
		}
	}
}

func TestObserverCreatesUpdatesDeletes(t *testing.T) {
	ctx := t.Context()
	ns := env.NewNamespace(t)
	hcp := &hcplinkv1beta1.HostedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: ns, Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: "clusters/demo"}},
		Spec: hcplinkv1beta1.HostedControlPlaneSpec{
			InfraID: infraID, DNS: hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.1.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
				Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"}}}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region: "us-east-1", EndpointAccess: hcplinkv1beta1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: "vpc-0123456789abcdef0"},
				RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: "arn:aws:iam::222222222222:role/demo-cpo"},
				ResourceTags:        []hcplinkv1beta1.AWSResourceTag{{Key: "team", Value: "blue"}},
			}},
		},
	}
	if err := env.Client.Create(ctx, hcp); err != nil {
		t.Fatal(err)
	}
	o := &Observer{Client: env.Client, ServiceName: hcplinkv1beta1.PrivateRouterServiceName}
	key := types.NamespacedName{Namespace: ns, Name: hcplinkv1beta1.PrivateRouterServiceName}
	reconcile := func() {
		t.Helper()
		if _, err := o.Reconcile(ctx, ctrl.Request{NamespacedName: key}); err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
	}
	getCR := func() *hcplinkv1beta1.AWSEndpointService {
		t.Helper()
		cr := &hcplinkv1beta1.AWSEndpointService{}
		err := env.Client.Get(ctx, key, cr)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return cr
	}

	// No Service: nothing.
	reconcile()
	if getCR() != nil {
		t.Fatal("CR without a Service")
	}
	// A Service without a load-balancer address: wait.
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: ns},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
	if err := env.Client.Create(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if getCR() != nil {
		t.Fatal("CR before the Service has a hostname")
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "k8s-demo-private-1a2b3c4d5e-0123456789abcdef.elb.us-east-1.amazonaws.com"}}
	if err := env.Client.Status().Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	cr := getCR()
	if cr == nil {
		t.Fatal("no CR")
	}
	if cr.Spec.NetworkLoadBalancerName != "k8s-demo-private-1a2b3c4d5e" || len(cr.Spec.ResourceTags) != 1 || cr.Spec.ResourceTags[0].Value != "blue" ||
		cr.Annotations[hcplinkv1beta1.ClusterAnnotation] != "clusters/demo" || !metav1.IsControlledBy(cr, hcp) {
		t.Fatalf("CR %+v", cr)
	}

	// Nothing changed: no write.
	rv := cr.ResourceVersion
	reconcile()
	if getCR().ResourceVersion != rv {
		t.Error("the observer wrote an unchanged CR")
	}

	// Tags and hostname change: the observer's fields follow; the
	// operator's (subnetIDs) stay.
	patch := client.MergeFrom(cr.DeepCopy())
	cr.Spec.SubnetIDs = []string{"subnet-0123456789abcdef0"}
	if err := env.Client.Patch(ctx, cr, patch); err != nil {
		t.Fatal(err)
	}
	hpatch := client.MergeFrom(hcp.DeepCopy())
	hcp.Spec.Platform.AWS.ResourceTags = []hcplinkv1beta1.AWSResourceTag{{Key: "env", Value: "prod"}}
	if err := env.Client.Patch(ctx, hcp, hpatch); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress[0].Hostname = "k8s-demo-private-9f9f9f9f9f-0123456789abcdef.elb.us-east-1.amazonaws.com"
	if err := env.Client.Status().Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	cr = getCR()
	if cr.Spec.NetworkLoadBalancerName != "k8s-demo-private-9f9f9f9f9f" || cr.Spec.ResourceTags[0].Key != "env" || len(cr.Spec.SubnetIDs) != 1 {
		t.Fatalf("after the change CR spec %+v", cr.Spec)
	}

	// The Service goes (endpoint access changed): the CR goes with it.
	if err := env.Client.Delete(ctx, svc); err != nil {
		t.Fatal(err)
	}
	reconcile()
	if cr := getCR(); cr != nil && cr.DeletionTimestamp.IsZero() {
		t.Fatal("CR not deleted with its Service")
	}
}
