package aws

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

func cluster(access hcplinkv1beta1.AWSEndpointAccessType) *hcplinkv1beta1.HostedCluster {
	return &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: "clusters", Name: "demo"},
		Spec: hcplinkv1beta1.HostedClusterSpec{InfraID: "demo-x7k2p", Platform: hcplinkv1beta1.PlatformSpec{
			Type: hcplinkv1beta1.AWSPlatform,
			AWS: &hcplinkv1beta1.AWSPlatformSpec{Region: "us-east-1", EndpointAccess: access,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: "vpc-0123456789abcdef0"}},
		}},
	}
}

func TestObjectDescribesWhatEachFinalizerWouldLeak(t *testing.T) {
	hc := cluster(hcplinkv1beta1.AWSEndpointAccessPrivate)
	full := &hcplinkv1beta1.AWSEndpointService{ObjectMeta: metav1.ObjectMeta{Namespace: "clusters-demo", Name: "private-router"},
		Status: hcplinkv1beta1.AWSEndpointServiceStatus{
			EndpointServiceName: "com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0", EndpointID: "vpce-0123456789abcdef0",
			SecurityGroupID: "sg-0123456789abcdef0", DNSNames: []string{"api.demo.hypershift.local", "*.apps.demo.hypershift.local"},
			DNSZoneID: "Z0123456789", Region: "us-east-1", InfraID: "demo-x7k2p",
		}}
	empty := &hcplinkv1beta1.AWSEndpointService{ObjectMeta: metav1.ObjectMeta{Namespace: "clusters-demo", Name: "kube-apiserver-private"}}
	o, e := object(full, hc), object(empty, hc)
	tests := []struct {
		name              string
		got               string
		contains, exclude []string
	}{
		{name: "customer side (control-plane operator's finalizer)", got: o.Leak(hcplinkv1beta1.ControlPlaneFinalizer),
			contains: []string{"AWSEndpointService private-router", "region us-east-1", "kubernetes.io/cluster/demo-x7k2p", "VPC endpoint vpce-0123456789abcdef0",
				"security group sg-0123456789abcdef0", "DNS records api.demo.hypershift.local, *.apps.demo.hypershift.local in hosted zone Z0123456789"},
			exclude: []string{"vpce-svc"}},
		{name: "management side (operator's finalizer)", got: o.Leak(hcplinkv1beta1.OperatorFinalizer),
			contains: []string{"endpoint service com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0", "region us-east-1"},
			exclude:  []string{"sg-0123456789abcdef0"}},
		{name: "another finalizer: everything", got: o.Leak("example.com/other"),
			contains: []string{"vpce-svc-0123456789abcdef0", "vpce-0123456789abcdef0", "sg-0123456789abcdef0"}},
		{name: "no IDs falls back to the cluster's tag", got: e.Leak(hcplinkv1beta1.ControlPlaneFinalizer),
			contains: []string{"kube-apiserver-private", "no cloud resource IDs", "kubernetes.io/cluster/demo-x7k2p", "region us-east-1"}},
		{name: "final sweep", got: finalSweepLeak(hc),
			contains: []string{"kubernetes.io/cluster/demo-x7k2p=owned", "hcplink.io/endpoint-service", "region us-east-1", "VPC vpc-0123456789abcdef0", "demo.hypershift.local"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, s := range tt.contains {
				if !strings.Contains(tt.got, s) {
					t.Errorf("%q does not contain %q", tt.got, s)
				}
			}
			for _, s := range tt.exclude {
				if strings.Contains(tt.got, s) {
					t.Errorf("%q contains %q", tt.got, s)
				}
			}
		})
	}
}

func TestAppliesToPrivateAWSClustersOnly(t *testing.T) {
	p := Platform(Options{})
	for access, want := range map[hcplinkv1beta1.AWSEndpointAccessType]bool{
		hcplinkv1beta1.AWSEndpointAccessPublic:           false,
		hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate: true,
		hcplinkv1beta1.AWSEndpointAccessPrivate:          true,
	} {
		if got := p.IsPrivate(cluster(access)); got != want {
			t.Errorf("%s: IsPrivate = %v, want %v", access, got, want)
		}
	}
}
