package diagnose

import gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"

// Reports built from the verdict functions over seen state that looks
// like a real cluster's, for the golden pictures.

func boolPtr(b bool) *bool { return &b }

const (
	testNLB      = "a1b2c3d4e5f6-private-router"
	testService  = "com.amazonaws.vpce.us-east-1.vpce-svc-0123456789abcdef0"
	testRole     = "arn:aws:iam::111122223333:role/alpha-control-plane-operator"
	testEndpoint = "vpce-0aaaabbbbccccdddd"
	testDNS      = "vpce-0aaaabbbbccccdddd-1a2b3c4d.vpce-svc-0123456789abcdef0.us-east-1.vpce.amazonaws.com"
)

func awsReport(broken bool) Report {
	principals := []string{testRole}
	if broken {
		principals = nil
	}
	hops := []Hop{
		pass(HopHostedCluster, SideKubernetes, "clusters/alpha AWS Private, Available"),
		pass(HopHostedControlPlane, SideKubernetes, "clusters-alpha/alpha, Available"),
		pass(HopRouterService, SideKubernetes, "clusters-alpha/private-router LoadBalancer, ingress "+testNLB+".elb.us-east-1.amazonaws.com"),
		LoadBalancerHop(LoadBalancerSeen{Name: testNLB, Found: true, State: "active", ZoneIDs: []string{"use1-az1", "use1-az2"}, CrossZone: boolPtr(false)}),
		EndpointServiceHop(EndpointServiceSeen{Name: testService, ID: "vpce-svc-0123456789abcdef0", Found: true, State: "Available", OnLoadBalancer: true, Principals: principals, WantPrincipal: testRole}),
		EndpointHop(EndpointSeen{ID: testEndpoint, Found: true, State: "available", SubnetZones: map[string]string{"subnet-0a1": "use1-az1", "subnet-0b2": "use1-az2"}, ServedZoneIDs: []string{"use1-az1", "use1-az2"}}),
		SecurityGroupHop(SecurityGroupSeen{ID: "sg-0123abcd", Found: true, Attached: true, Port: 443, Admitted: []string{"10.0.0.0/16"}, MachineCIDRs: []string{"10.0.0.0/16"}}),
		PrivateZoneHop(PrivateZoneSeen{ID: "Z0123456789ABC", Name: "alpha.hypershift.local", Found: true, VPCs: []string{"vpc-0c1"}, VPC: "vpc-0c1", NegativeTTL: 60}),
		RecordsHop(RecordsSeen{Zone: "Z0123456789ABC", Target: testDNS, Want: []string{"*.apps.alpha.hypershift.local", "api.alpha.hypershift.local"},
			Have: map[string]string{"*.apps.alpha.hypershift.local": testDNS, "api.alpha.hypershift.local": testDNS}}),
		ExternalNamesHop(ExternalNamesSeen{Namespace: "clusters-alpha", Target: testDNS, Want: []string{"kube-apiserver-private-external"}, Have: map[string]string{"kube-apiserver-private-external": testDNS}}),
	}
	return Report{Cluster: "clusters/alpha", Platform: "AWS", Management: "account 000000000001", Customer: "account 111122223333", Hops: hops}
}

const (
	testGuestSub = "22222222-2222-2222-2222-222222222222"
	testOtherSub = "33333333-3333-3333-3333-333333333333"
)

func azureReport(broken bool) Report {
	visible := []string{testGuestSub}
	if broken {
		visible = []string{testOtherSub}
	}
	hops := []Hop{
		pass(HopHostedCluster, SideKubernetes, "clusters/beta Azure Private, Available"),
		pass(HopHostedControlPlane, SideKubernetes, "clusters-beta/beta, Available"),
		pass(HopRouterService, SideKubernetes, "clusters-beta/private-router LoadBalancer, ingress 10.1.0.7"),
		InternalLoadBalancerHop(FrontendSeen{IP: "10.1.0.7", Found: true, ID: "/subscriptions/x/resourceGroups/mgmt/providers/Microsoft.Network/loadBalancers/kube-internal/frontendIPConfigurations/fe-1"}),
		PrivateLinkServiceHop(PrivateLinkServiceSeen{Name: "pls-beta-x7k2p", Found: true, State: "Succeeded", Alias: "pls-beta-x7k2p.1a2b3c.eastus.azure.privatelinkservice",
			Visibility: visible, AutoApproval: []string{testGuestSub}, Guest: testGuestSub, OnFrontend: true}),
		PrivateEndpointHop(PrivateEndpointSeen{Name: "beta-x7k2p-private-router-pe", Found: true, Status: "Approved", IP: "10.2.1.4"}),
		PrivateDNSZoneHop("beta.hypershift.local", true),
		VNetLinkHop(VNetLinkSeen{Zone: "beta.hypershift.local", Name: "beta-x7k2p-link", Found: true, VNet: "/subscriptions/y/resourceGroups/guest/providers/Microsoft.Network/virtualNetworks/guest-vnet",
			WantVNet: "/subscriptions/y/resourceGroups/guest/providers/Microsoft.Network/virtualNetworks/guest-vnet", State: "Completed"}),
		ARecordsHop(ARecordsSeen{Zone: "beta.hypershift.local", IP: "10.2.1.4", Want: []string{"api", "*.apps"}, Have: map[string][]string{"api": {"10.2.1.4"}, "*.apps": {"10.2.1.4"}}}),
		ExternalNamesHop(ExternalNamesSeen{Namespace: "clusters-beta", Target: "api.beta.hypershift.local"}),
	}
	return Report{Cluster: "clusters/beta", Platform: "Azure", Management: "subscription 11111111-1111-1111-1111-111111111111", Customer: "subscription " + testGuestSub, Hops: hops}
}

const (
	testMgmtProject = "hcp-management"
	testCustProject = "customer-project"
	testAttachment  = "hcplink-psc-3f1b7c9e-gamma-x7k2p-private-router"
	testPSCIP       = "192.168.1.2"
)

// gcpReport is a Private GCP cluster with an additional allowed project;
// broken drops that project from the attachment's accept list.
func gcpReport(broken bool) Report {
	accepts := []string{testCustProject, "partner-project"}
	if broken {
		accepts = []string{testCustProject}
	}
	hops := []Hop{
		pass(HopHostedCluster, SideKubernetes, "clusters/gamma GCP Private, Available"),
		pass(HopHostedControlPlane, SideKubernetes, "clusters-gamma/gamma, Available"),
		pass(HopRouterService, SideKubernetes, "clusters-gamma/private-router LoadBalancer, ingress 10.0.0.50"),
		ForwardingRuleHop(ForwardingRuleSeen{Name: "a1b2c3d4e5f6-private-router", Project: testMgmtProject, Found: true, Scheme: "INTERNAL", IP: "10.0.0.50", WantIP: "10.0.0.50",
			Service: "clusters-gamma/private-router", Object: "clusters-gamma/private-router"}),
		ServiceAttachmentHop(ServiceAttachmentSeen{Name: testAttachment, Project: testMgmtProject, Found: true, Object: "clusters-gamma/private-router",
			Target: "a1b2c3d4e5f6-private-router", WantTarget: "a1b2c3d4e5f6-private-router", Preference: gcpcloud.ConnectionPreferenceManual,
			Accepts: accepts, Want: []string{testCustProject, "partner-project"}, Connections: []gcpcloud.Connection{{Project: testCustProject, Status: gcpcloud.PSCAccepted}}}),
		PSCEndpointHop(PSCEndpointSeen{Name: "gamma-x7k2p-private-router-psc", Project: testCustProject, Found: true,
			Target: "projects/" + testMgmtProject + "/regions/us-central1/serviceAttachments/" + testAttachment, Status: gcpcloud.PSCAccepted, IP: testPSCIP,
			Address: "gamma-x7k2p-private-router-psc-ip", AddressStatus: "IN_USE", AttachmentRead: true, Attachment: testAttachment, Accepts: accepts}),
		CloudDNSZoneHop(CloudDNSZoneSeen{Name: "hcplink-gamma-x7k2p", Project: testCustProject, Found: true, DNSName: "gamma.hypershift.local.", WantDNSName: "gamma.hypershift.local.",
			Networks: []string{"customer"}, WantNetwork: "customer", Ours: true}),
		ARecordsHop(ARecordsSeen{Zone: "gamma.hypershift.local.", IP: testPSCIP, Want: []string{"api", "*.apps"}, Have: map[string][]string{"api": {testPSCIP}, "*.apps": {testPSCIP}}}),
		ExternalNamesHop(ExternalNamesSeen{Namespace: "clusters-gamma", Target: "api.gamma.hypershift.local", Want: []string{"kube-apiserver-private-external"},
			Have: map[string]string{"kube-apiserver-private-external": "api.gamma.hypershift.local"}}),
	}
	return Report{Cluster: "clusters/gamma", Platform: "GCP", Management: "project " + testMgmtProject, Customer: "project " + testCustProject,
		Hops: onEndpoint("private-router", hops)}
}
