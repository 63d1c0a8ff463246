package diagnose

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

func TestKubernetesVerdicts(t *testing.T) {
	awsCluster := func(access hcplinkv1beta1.AWSEndpointAccessType) *hcplinkv1beta1.HostedCluster {
		return &hcplinkv1beta1.HostedCluster{Spec: hcplinkv1beta1.HostedClusterSpec{Platform: hcplinkv1beta1.PlatformSpec{
			Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{EndpointAccess: access}}}}
	}
	azureCluster := &hcplinkv1beta1.HostedCluster{Spec: hcplinkv1beta1.HostedClusterSpec{Platform: hcplinkv1beta1.PlatformSpec{
		Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{Topology: hcplinkv1beta1.AzureTopologyPrivate,
			Private: &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink}}}}}
	deleting := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &metav1.Time{}}}
	lb := func(typ corev1.ServiceType, ingress ...corev1.LoadBalancerIngress) *corev1.Service {
		return &corev1.Service{Spec: corev1.ServiceSpec{Type: typ}, Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ingress}}}
	}
	checkVerdicts(t, []verdictCase{
		{"no HostedCluster", HostedClusterHop("ns/a", nil), Fail, "<namespace>/<cluster>"},
		{"AWS Private", HostedClusterHop("ns/a", awsCluster(hcplinkv1beta1.AWSEndpointAccessPrivate)), Pass, ""},
		{"AWS PublicAndPrivate", HostedClusterHop("ns/a", awsCluster(hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate)), Pass, ""},
		{"AWS Public", HostedClusterHop("ns/a", awsCluster(hcplinkv1beta1.AWSEndpointAccessPublic)), Fail, "is public"},
		{"Azure Private", HostedClusterHop("ns/a", azureCluster), Pass, ""},
		{"no HostedControlPlane", HostedControlPlaneHop("ns-a/a", nil), Fail, "HostedCluster's conditions"},
		{"HostedControlPlane", HostedControlPlaneHop("ns-a/a", &hcplinkv1beta1.HostedControlPlane{}), Pass, ""},
		{"HostedControlPlane deleting", HostedControlPlaneHop("ns-a/a", deleting), Fail, "is being deleted"},
		{"no router Service", RouterServiceHop("ns-a/private-router", nil), Fail, "creates Service ns-a/private-router"},
		{"router with a hostname", RouterServiceHop("ns-a/private-router", lb(corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{Hostname: "nlb.example"})), Pass, ""},
		{"router with an IP", RouterServiceHop("ns-a/private-router", lb(corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{IP: "10.1.0.7"})), Pass, ""},
		{"router without address", RouterServiceHop("ns-a/private-router", lb(corev1.ServiceTypeLoadBalancer)), Fail, "has no load balancer yet"},
		{"router not a LoadBalancer", RouterServiceHop("ns-a/private-router", lb(corev1.ServiceTypeClusterIP)), Fail, "recreates it as a LoadBalancer"},
	})
}
