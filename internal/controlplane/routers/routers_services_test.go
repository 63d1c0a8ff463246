package routers

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

var (
	awsInternalAnnotations = map[string]string{
		"service.beta.kubernetes.io/aws-load-balancer-type":                              "nlb",
		"service.beta.kubernetes.io/aws-load-balancer-internal":                          "true",
		"service.beta.kubernetes.io/aws-load-balancer-scheme":                            "internal",
		"service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled": "true",
		"service.beta.kubernetes.io/aws-load-balancer-attributes":                        "load_balancing.cross_zone.enabled=true",
		"hcplink.io/cluster": testCluster,
	}
	awsPublicAnnotations = map[string]string{
		"service.beta.kubernetes.io/aws-load-balancer-type":   "nlb",
		"service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing",
		"hcplink.io/cluster": testCluster,
	}
	azureInternalAnnotations = map[string]string{
		"service.beta.kubernetes.io/azure-load-balancer-internal": "true",
		"hcplink.io/cluster": testCluster,
	}
	azurePublicAnnotations = map[string]string{
		"service.beta.kubernetes.io/azure-load-balancer-internal": "false",
		"hcplink.io/cluster": testCluster,
	}
	gcpInternalAnnotations = map[string]string{
		"networking.gke.io/load-balancer-type": "Internal",
		"hcplink.io/cluster":                   testCluster,
	}
	gcpPublicAnnotations = map[string]string{
		"hcplink.io/cluster": testCluster,
	}
	routerPorts = []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromString("https")}}
	kasPorts    = []corev1.ServicePort{{Name: "client", Protocol: corev1.ProtocolTCP, Port: 6443, TargetPort: intstr.FromString("client")}}
	routerApp   = map[string]string{"app": "private-router"}
	kasApp      = map[string]string{"app": "kube-apiserver"}
)

// wantService is what a desired Service must look like, besides what every
// one has (namespace, type LoadBalancer, owner, managed-by label).
type wantService struct {
	name        string
	annotations map[string]string
	ports       []corev1.ServicePort
	selector    map[string]string
}

func TestDesiredServices(t *testing.T) {
	privateRouter := func(a map[string]string) wantService {
		return wantService{"private-router", a, routerPorts, routerApp}
	}
	router := func(a map[string]string) wantService { return wantService{"router", a, routerPorts, routerApp} }
	kas := wantService{"kube-apiserver-private", awsInternalAnnotations, kasPorts, kasApp}

	const (
		public           = hcplinkv1beta1.AWSEndpointAccessPublic
		publicAndPrivate = hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate
		private          = hcplinkv1beta1.AWSEndpointAccessPrivate
		route            = hcplinkv1beta1.RoutePublishing
		lb               = hcplinkv1beta1.LoadBalancerPublishing
	)
	azureNoPrivateConfig := azureHCP("ns", hcplinkv1beta1.AzureTopologyPrivate)
	azureNoPrivateConfig.Spec.Platform.Azure.Private = nil
	azurePlaced := azureHCP("ns", hcplinkv1beta1.AzureTopologyPublicAndPrivate)
	azurePlaced.Spec.AzureLoadBalancerConfiguration = "lb-2"
	placed := func(a map[string]string) map[string]string {
		out := map[string]string{azurecloud.LoadBalancerConfigurationsAnnotation: "lb-2"}
		for k, v := range a {
			out[k] = v
		}
		return out
	}

	tests := []struct {
		name string
		hcp  *hcplinkv1beta1.HostedControlPlane
		want []wantService
	}{
		{"AWS Public, APIServer Route", awsHCP("ns", public, route), []wantService{router(awsPublicAnnotations)}},
		{"AWS Public, APIServer LoadBalancer", awsHCP("ns", public, lb), []wantService{router(awsPublicAnnotations)}},
		{"AWS PublicAndPrivate, APIServer Route", awsHCP("ns", publicAndPrivate, route), []wantService{privateRouter(awsInternalAnnotations), router(awsPublicAnnotations)}},
		{"AWS PublicAndPrivate, APIServer LoadBalancer", awsHCP("ns", publicAndPrivate, lb), []wantService{privateRouter(awsInternalAnnotations), router(awsPublicAnnotations), kas}},
		{"AWS Private, APIServer Route", awsHCP("ns", private, route), []wantService{privateRouter(awsInternalAnnotations)}},
		{"AWS Private, APIServer LoadBalancer", awsHCP("ns", private, lb), []wantService{privateRouter(awsInternalAnnotations), kas}},
		{"AWS empty endpointAccess is Public", awsHCP("ns", "", route), []wantService{router(awsPublicAnnotations)}},
		{"Azure Public", azureHCP("ns", hcplinkv1beta1.AzureTopologyPublic), nil},
		{"Azure PublicAndPrivate", azureHCP("ns", hcplinkv1beta1.AzureTopologyPublicAndPrivate), []wantService{privateRouter(azureInternalAnnotations), router(azurePublicAnnotations)}},
		{"Azure Private", azureHCP("ns", hcplinkv1beta1.AzureTopologyPrivate), []wantService{privateRouter(azureInternalAnnotations)}},
		{"Azure Private without the private configuration", azureNoPrivateConfig, nil},
		{"Azure placed on a load-balancer configuration: both routers name it", azurePlaced, []wantService{privateRouter(placed(azureInternalAnnotations)), router(placed(azurePublicAnnotations))}},
		{"GCP Public", gcpHCP("ns", hcplinkv1beta1.GCPEndpointAccessPublic), nil},
		{"GCP PublicAndPrivate", gcpHCP("ns", hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate), []wantService{privateRouter(gcpInternalAnnotations), router(gcpPublicAnnotations)}},
		{"GCP Private", gcpHCP("ns", hcplinkv1beta1.GCPEndpointAccessPrivate), []wantService{privateRouter(gcpInternalAnnotations)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DesiredServices(tt.hcp, platforms)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d Services %v, want %d", len(got), names(got), len(tt.want))
			}
			for i, w := range tt.want {
				svc := got[i]
				if svc.Name != w.name {
					t.Errorf("Service %d is %q, want %q", i, svc.Name, w.name)
				}
				if svc.Namespace != "ns" {
					t.Errorf("%s: namespace %q, want ns", svc.Name, svc.Namespace)
				}
				if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
					t.Errorf("%s: type %q, want LoadBalancer", svc.Name, svc.Spec.Type)
				}
				if d := diff(w.annotations, svc.Annotations); d != "" {
					t.Errorf("%s: annotations:\n%s", svc.Name, d)
				}
				if d := diff(w.ports, svc.Spec.Ports); d != "" {
					t.Errorf("%s: ports:\n%s", svc.Name, d)
				}
				if d := diff(w.selector, svc.Spec.Selector); d != "" {
					t.Errorf("%s: selector:\n%s", svc.Name, d)
				}
				if svc.Labels["app.kubernetes.io/managed-by"] != "hcplink" {
					t.Errorf("%s: labels %v, want app.kubernetes.io/managed-by=hcplink", svc.Name, svc.Labels)
				}
				wantOwner := []metav1.OwnerReference{{APIVersion: "hcplink.io/v1beta1", Kind: "HostedControlPlane", Name: "demo", UID: tt.hcp.UID, Controller: ptr.To(true)}}
				if d := diff(wantOwner, svc.OwnerReferences); d != "" {
					t.Errorf("%s: owner references:\n%s", svc.Name, d)
				}
			}
		})
	}
}

func TestDesiredServicesWithoutClusterAnnotation(t *testing.T) {
	hcp := awsHCP("ns", hcplinkv1beta1.AWSEndpointAccessPrivate, hcplinkv1beta1.RoutePublishing)
	hcp.Annotations = nil
	got := DesiredServices(hcp, platforms)
	if len(got) != 1 {
		t.Fatalf("got %v, want private-router", names(got))
	}
	if v, ok := got[0].Annotations[hcplinkv1beta1.ClusterAnnotation]; ok {
		t.Errorf("cluster annotation %q set although the HostedControlPlane has none", v)
	}
}

func TestDesiredServicesDoNotShareMaps(t *testing.T) {
	hcp := awsHCP("ns", hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate, hcplinkv1beta1.LoadBalancerPublishing)
	got := DesiredServices(hcp, platforms)
	got[0].Annotations["x"] = "y"
	for _, svc := range got[1:] {
		if _, ok := svc.Annotations["x"]; ok {
			t.Fatalf("%s shares its annotations with %s", svc.Name, got[0].Name)
		}
	}
	if _, ok := DesiredServices(hcp, platforms)[0].Annotations["x"]; ok {
		t.Fatal("a later call sees an earlier result's annotations")
	}
}

func TestMergeService(t *testing.T) {
	hcp := awsHCP("ns", hcplinkv1beta1.AWSEndpointAccessPrivate, hcplinkv1beta1.RoutePublishing)
	desired := DesiredServices(hcp, platforms)[0] // private-router

	// live is desired as the API server and others left it.
	live := func() *corev1.Service {
		s := desired.DeepCopy()
		s.ResourceVersion = "42"
		s.UID = "svc-uid"
		s.Finalizers = []string{"service.kubernetes.io/load-balancer-cleanup"}
		s.Annotations["example.com/other"] = "kept"
		s.Labels["example.com/other"] = "kept"
		s.Spec.ClusterIP = "10.96.0.10"
		s.Spec.ClusterIPs = []string{"10.96.0.10"}
		s.Spec.Ports[0].NodePort = 31443
		s.Spec.SessionAffinity = corev1.ServiceAffinityNone
		s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "k8s-ns-privater-0123456789-0123456789abcdef.elb.us-east-1.amazonaws.com"}}
		return s
	}

	tests := []struct {
		name   string
		mutate func(*corev1.Service)
		// check inspects the merged Service; changed says whether it must
		// differ from the live one.
		changed bool
		check   func(t *testing.T, merged *corev1.Service)
	}{
		{
			name:    "unchanged: nothing to write, server and foreign fields kept",
			mutate:  func(*corev1.Service) {},
			changed: false,
		},
		{
			name: "missing and stale managed annotations are fixed, foreign ones kept",
			mutate: func(s *corev1.Service) {
				delete(s.Annotations, awscloud.LoadBalancerCrossZoneAnnotation)
				s.Annotations[azurecloud.LoadBalancerInternalAnnotation] = "true"
			},
			changed: true,
			check: func(t *testing.T, m *corev1.Service) {
				if m.Annotations[awscloud.LoadBalancerCrossZoneAnnotation] != "true" {
					t.Error("cross-zone annotation not restored")
				}
				if _, ok := m.Annotations[azurecloud.LoadBalancerInternalAnnotation]; ok {
					t.Error("stale managed annotation kept")
				}
				if m.Annotations["example.com/other"] != "kept" {
					t.Error("foreign annotation dropped")
				}
			},
		},
		{
			name: "selector and type are restored, clusterIP, nodePort, finalizers and status kept",
			mutate: func(s *corev1.Service) {
				s.Spec.Selector = map[string]string{"app": "other"}
				s.Spec.Type = corev1.ServiceTypeNodePort
			},
			changed: true,
			check: func(t *testing.T, m *corev1.Service) {
				if m.Spec.Selector["app"] != "private-router" || m.Spec.Type != corev1.ServiceTypeLoadBalancer {
					t.Errorf("selector %v type %s", m.Spec.Selector, m.Spec.Type)
				}
				if m.Spec.ClusterIP != "10.96.0.10" || m.Spec.Ports[0].NodePort != 31443 {
					t.Errorf("clusterIP %q nodePort %d not kept", m.Spec.ClusterIP, m.Spec.Ports[0].NodePort)
				}
				if len(m.Finalizers) != 1 || len(m.Status.LoadBalancer.Ingress) != 1 {
					t.Errorf("finalizers %v status %v not kept", m.Finalizers, m.Status)
				}
				if m.ResourceVersion != "42" {
					t.Errorf("resourceVersion %q, want the live one", m.ResourceVersion)
				}
			},
		},
		{
			name:    "a changed port drops its node port",
			mutate:  func(s *corev1.Service) { s.Spec.Ports[0].Port = 8443 },
			changed: true,
			check: func(t *testing.T, m *corev1.Service) {
				if p := m.Spec.Ports[0]; p.Port != 443 || p.NodePort != 0 {
					t.Errorf("port %d nodePort %d, want 443 and 0", p.Port, p.NodePort)
				}
			},
		},
		{
			name: "a predecessor's owner reference is replaced, others kept in place",
			mutate: func(s *corev1.Service) {
				s.OwnerReferences = []metav1.OwnerReference{
					{APIVersion: "example.com/v1", Kind: "Thing", Name: "t", UID: "thing"},
					{APIVersion: "hcplink.io/v1beta1", Kind: "HostedControlPlane", Name: "demo", UID: "old", Controller: ptr.To(true)},
				}
			},
			changed: true,
			check: func(t *testing.T, m *corev1.Service) {
				want := []metav1.OwnerReference{
					{APIVersion: "example.com/v1", Kind: "Thing", Name: "t", UID: "thing"},
					{APIVersion: "hcplink.io/v1beta1", Kind: "HostedControlPlane", Name: "demo", UID: hcp.UID, Controller: ptr.To(true)},
				}
				if d := diff(want, m.OwnerReferences); d != "" {
					t.Errorf("owner references:\n%s", d)
				}
			},
		},
		{
			name: "an adopted Service without annotations or labels gets ours",
			mutate: func(s *corev1.Service) {
				s.Annotations, s.Labels, s.OwnerReferences = nil, nil, nil
			},
			changed: true,
			check: func(t *testing.T, m *corev1.Service) {
				if d := diff(awsInternalAnnotations, m.Annotations); d != "" {
					t.Errorf("annotations:\n%s", d)
				}
				if len(m.OwnerReferences) != 1 || m.OwnerReferences[0].UID != hcp.UID {
					t.Errorf("owner references %v", m.OwnerReferences)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have := live()
			tt.mutate(have)
			before := have.DeepCopy()
			merged := MergeService(have, desired, platforms.RouterAnnotationKeys())
			if !equality.Semantic.DeepEqual(before, have) {
				t.Fatal("MergeService modified its input")
			}
			if changed := !equality.Semantic.DeepEqual(have, merged); changed != tt.changed {
				t.Fatalf("changed = %v, want %v; live vs merged:\n%s", changed, tt.changed, diff(have, merged))
			}
			if tt.check != nil {
				tt.check(t, merged)
			}
			// Merging the result again changes nothing.
			if again := MergeService(merged, desired, platforms.RouterAnnotationKeys()); !equality.Semantic.DeepEqual(merged, again) {
				t.Errorf("a second merge changes the Service:\n%s", diff(merged, again))
			}
		})
	}
}

// diff returns "" when want and got are semantically equal, else both.
func diff(want, got any) string {
	if equality.Semantic.DeepEqual(want, got) {
		return ""
	}
	return fmt.Sprintf("want %+v\n got %+v", want, got)
}

func names(svcs []*corev1.Service) []string {
	out := make([]string, 0, len(svcs))
	for _, s := range svcs {
		out = append(out, s.Name)
	}
	return out
}
