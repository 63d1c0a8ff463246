package diagnose

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

const (
	testKASNLB      = "f6e5d4c3b2a1-kube-apiserver-private"
	testKASService  = "com.amazonaws.vpce.us-east-1.vpce-svc-0fedcba9876543210"
	testKASEndpoint = "vpce-0eeeeffff00001111"
	testKASDNS      = "vpce-0eeeeffff00001111-9z8y7x6w.vpce-svc-0fedcba9876543210.us-east-1.vpce.amazonaws.com"
)

// awsTwoEndpointReport is a cluster whose API server is published by
// LoadBalancer: the router's path (*.apps) and the API server's own (api);
// broken points the api record elsewhere.
func awsTwoEndpointReport(broken bool) Report {
	apiTarget := testKASDNS
	if broken {
		apiTarget = "elsewhere.example.com"
	}
	shared := []Hop{
		pass(HopHostedCluster, SideKubernetes, "clusters/alpha AWS Private, Available"),
		pass(HopHostedControlPlane, SideKubernetes, "clusters-alpha/alpha, Available"),
	}
	router := onEndpoint("private-router", []Hop{
		pass(HopRouterService, SideKubernetes, "clusters-alpha/private-router LoadBalancer, ingress "+testNLB+".elb.us-east-1.amazonaws.com"),
		LoadBalancerHop(LoadBalancerSeen{Name: testNLB, Found: true, State: "active", ZoneIDs: []string{"use1-az1", "use1-az2"}, CrossZone: boolPtr(true)}),
		EndpointServiceHop(EndpointServiceSeen{Name: testService, ID: "vpce-svc-0123456789abcdef0", Found: true, State: "Available", OnLoadBalancer: true, Principals: []string{testRole}, WantPrincipal: testRole}),
		EndpointHop(EndpointSeen{ID: testEndpoint, Found: true, State: "available", SubnetZones: map[string]string{"subnet-0a1": "use1-az1", "subnet-0b2": "use1-az2"}, ServedZoneIDs: []string{"use1-az1", "use1-az2"}}),
		SecurityGroupHop(SecurityGroupSeen{ID: "sg-0123abcd", Found: true, Attached: true, Port: 443, Admitted: []string{"10.0.0.0/16"}, MachineCIDRs: []string{"10.0.0.0/16"}}),
		PrivateZoneHop(PrivateZoneSeen{ID: "Z0123456789ABC", Name: "alpha.hypershift.local", Found: true, VPCs: []string{"vpc-0c1"}, VPC: "vpc-0c1", NegativeTTL: 60}),
		RecordsHop(RecordsSeen{Zone: "Z0123456789ABC", Target: testDNS, Want: []string{"*.apps.alpha.hypershift.local"}, Have: map[string]string{"*.apps.alpha.hypershift.local": testDNS}}),
		ExternalNamesHop(ExternalNamesSeen{Namespace: "clusters-alpha", Target: testDNS}),
	})
	kas := onEndpoint("kube-apiserver-private", []Hop{
		PrivateServiceHop("clusters-alpha/kube-apiserver-private", &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{Hostname: testKASNLB + ".elb.us-east-1.amazonaws.com"}}}}}),
		LoadBalancerHop(LoadBalancerSeen{Name: testKASNLB, Found: true, State: "active", ZoneIDs: []string{"use1-az1", "use1-az2"}, CrossZone: boolPtr(true)}),
		EndpointServiceHop(EndpointServiceSeen{Name: testKASService, ID: "vpce-svc-0fedcba9876543210", Found: true, State: "Available", OnLoadBalancer: true, Principals: []string{testRole}, WantPrincipal: testRole}),
		EndpointHop(EndpointSeen{ID: testKASEndpoint, Found: true, State: "available", SubnetZones: map[string]string{"subnet-0a1": "use1-az1", "subnet-0b2": "use1-az2"}, ServedZoneIDs: []string{"use1-az1", "use1-az2"}}),
		SecurityGroupHop(SecurityGroupSeen{ID: "sg-0456efab", Found: true, Attached: true, Port: 6443, Admitted: []string{"10.0.0.0/16"}, MachineCIDRs: []string{"10.0.0.0/16"}}),
		PrivateZoneHop(PrivateZoneSeen{ID: "Z0123456789ABC", Name: "alpha.hypershift.local", Found: true, VPCs: []string{"vpc-0c1"}, VPC: "vpc-0c1", NegativeTTL: 60}),
		RecordsHop(RecordsSeen{Zone: "Z0123456789ABC", Target: testKASDNS, Want: []string{"api.alpha.hypershift.local"}, Have: map[string]string{"api.alpha.hypershift.local": apiTarget}}),
	})
	hops := append(append(shared, router...), kas...)
	return Report{Cluster: "clusters/alpha", Platform: "AWS", Management: "account 000000000001", Customer: "account 111122223333", Hops: hops}
}

func TestEndpointNames(t *testing.T) {
	hcp := func(access hcplinkv1beta1.AWSEndpointAccessType, apiServer hcplinkv1beta1.PublishingStrategyType) *hcplinkv1beta1.HostedControlPlane {
		return &hcplinkv1beta1.HostedControlPlane{Spec: hcplinkv1beta1.HostedControlPlaneSpec{
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{EndpointAccess: access}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer,
				ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{Type: apiServer}}},
		}}
	}
	for _, tc := range []struct {
		name     string
		hcp      *hcplinkv1beta1.HostedControlPlane
		existing []string
		want     []string
	}{
		{"API server by Route", hcp(hcplinkv1beta1.AWSEndpointAccessPrivate, hcplinkv1beta1.RoutePublishing), []string{"private-router"}, []string{"private-router"}},
		{"API server by LoadBalancer", hcp(hcplinkv1beta1.AWSEndpointAccessPrivate, hcplinkv1beta1.LoadBalancerPublishing), []string{"private-router", "kube-apiserver-private"},
			[]string{"private-router", "kube-apiserver-private"}},
		{"LoadBalancer, before the CRs exist", hcp(hcplinkv1beta1.AWSEndpointAccessPublicAndPrivate, hcplinkv1beta1.LoadBalancerPublishing), nil,
			[]string{"private-router", "kube-apiserver-private"}},
		{"a CR left over after a change to Route", hcp(hcplinkv1beta1.AWSEndpointAccessPrivate, hcplinkv1beta1.RoutePublishing), []string{"kube-apiserver-private", "private-router"},
			[]string{"private-router", "kube-apiserver-private"}},
		{"no HostedControlPlane", nil, nil, []string{"private-router"}},
		{"no HostedControlPlane, CRs there", nil, []string{"kube-apiserver-private", "private-router"}, []string{"private-router", "kube-apiserver-private"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := endpointNames(tc.hcp, tc.existing); !slices.Equal(got, tc.want) {
				t.Errorf("endpoints %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAPIServerServiceVerdicts(t *testing.T) {
	lb := func(typ corev1.ServiceType, ingress ...corev1.LoadBalancerIngress) *corev1.Service {
		return &corev1.Service{Spec: corev1.ServiceSpec{Type: typ}, Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ingress}}}
	}
	key := "ns-a/kube-apiserver-private"
	cases := []verdictCase{
		{"no Service", PrivateServiceHop(key, nil), Fail, "creates Service " + key},
		{"with a hostname", PrivateServiceHop(key, lb(corev1.ServiceTypeLoadBalancer, corev1.LoadBalancerIngress{Hostname: "nlb.example"})), Pass, ""},
		{"without address", PrivateServiceHop(key, lb(corev1.ServiceTypeLoadBalancer)), Fail, "has no load balancer yet"},
		{"not a LoadBalancer", PrivateServiceHop(key, lb(corev1.ServiceTypeClusterIP)), Fail, "recreates it as a LoadBalancer"},
		{"its endpoint service on another NLB", EndpointServiceHop(EndpointServiceSeen{Name: testKASService, ID: "vpce-svc-2", Found: true, State: "Available",
			Principals: []string{testRole}, WantPrincipal: testRole}), Fail, "not on its Service's load balancer"},
		{"its security group without 6443", SecurityGroupHop(SecurityGroupSeen{ID: "sg-2", Found: true, Attached: true, Port: 6443, Admitted: nil, MachineCIDRs: []string{"10.0.0.0/16"}}),
			Fail, "Allow tcp 6443 from 10.0.0.0/16"},
	}
	checkVerdicts(t, cases)
	for _, tc := range cases[:4] {
		if tc.hop.Name != HopAPIServerService {
			t.Errorf("%s: hop %q, want %q", tc.name, tc.hop.Name, HopAPIServerService)
		}
	}
}

// TestTwoEndpointReport: each hop names its endpoint, the text says which
// endpoint a hop is on, and the summary names the broken hop's endpoint.
func TestTwoEndpointReport(t *testing.T) {
	healthy, broken := awsTwoEndpointReport(false), awsTwoEndpointReport(true)
	if got := healthy.Endpoints(); !slices.Equal(got, []string{"private-router", "kube-apiserver-private"}) {
		t.Fatalf("endpoints %v", got)
	}
	if healthy.ExitCode() != ExitHealthy {
		t.Fatalf("the healthy fixture is not healthy:\n%s", Text(healthy))
	}
	f := broken.FirstFailure()
	if broken.ExitCode() != ExitBroken || f == nil || f.Name != HopRecords || f.Endpoint != "kube-apiserver-private" || !strings.Contains(f.Fix, "Point api.alpha.hypershift.local at "+testKASDNS) {
		t.Fatalf("want the API server's records broken, got %+v", f)
	}
	text := Text(broken)
	for _, want := range []string{
		"✓ VPC endpoint (private-router) [customer]",
		"✗ DNS records (kube-apiserver-private) [customer]",
		"Broken at DNS records (kube-apiserver-private).\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	// One path: the text stays as it was, without endpoint names.
	one := awsReport(true)
	one.Hops = onEndpoint("private-router", one.Hops[2:])
	if text := Text(one); strings.Contains(text, "(private-router)") {
		t.Errorf("a single path names its endpoint:\n%s", text)
	}
}
