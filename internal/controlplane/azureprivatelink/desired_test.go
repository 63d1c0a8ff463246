package azureprivatelink

import (
	"reflect"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/outcome"
)

const (
	testSub    = "22222222-2222-4222-8222-222222222222"
	testVNet   = "/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/guest"
	testSubnet = testVNet + "/subnets/workers"
)

// azureHCP is a valid Azure HostedControlPlane named name with the given
// topology and the private configuration.
func azureHCP(namespace, name string, topology hcplinkv1beta1.AzureTopology) *hcplinkv1beta1.HostedControlPlane {
	return &hcplinkv1beta1.HostedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: "clusters/" + name}},
		Spec: hcplinkv1beta1.HostedControlPlaneSpec{
			InfraID: name + "-x7k2p", ClusterID: "0f0e0d0c-0b0a-4908-8706-050403020100",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.1.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{
				{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api." + name + ".example.com"}}},
				{Service: hcplinkv1beta1.OAuthServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "oauth." + name + ".example.com"}}},
			},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
				SubscriptionID: testSub, ResourceGroupName: "rg", Location: "eastus", VnetID: testVNet, SubnetID: testSubnet, Topology: topology,
				Private:  &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink},
				TenantID: "72f988bf-86f1-41af-91ab-2d7cd011db47", AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig("3a9a5ad2-4b1f-4c8e-9d1e-0f2b6c7d8e9f"),
			}},
		},
	}
}

func TestPrivateDNSZoneName(t *testing.T) {
	if got := azurecloud.PrivateDNSZoneName("Demo"); got != "demo.hypershift.local" {
		t.Errorf("PrivateDNSZoneName = %q", got)
	}
}

func TestGuestSubnetID(t *testing.T) {
	other := testVNet + "/subnets/pool-b"
	foreign := "/subscriptions/" + testSub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/elsewhere/subnets/x"
	tests := []struct {
		name  string
		pools []hcplinkv1beta1.HostedControlPlaneNodePool
		want  string
	}{
		{"no NodePools: the cluster's subnet", nil, testSubnet},
		{"a NodePool naming none", []hcplinkv1beta1.HostedControlPlaneNodePool{{Name: "a"}}, testSubnet},
		{"the first NodePool by name", []hcplinkv1beta1.HostedControlPlaneNodePool{{Name: "z", SubnetID: testSubnet}, {Name: "b", SubnetID: other}}, other},
		{"a subnet outside the VNet is skipped", []hcplinkv1beta1.HostedControlPlaneNodePool{{Name: "a", SubnetID: foreign}, {Name: "b", SubnetID: other}}, other},
		{"AWS subnets are skipped", []hcplinkv1beta1.HostedControlPlaneNodePool{{Name: "a", SubnetID: "subnet-0123456789abcdef0"}}, testSubnet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hcp := azureHCP("ns", "demo", hcplinkv1beta1.AzureTopologyPrivate)
			hcp.Spec.NodePools = tt.pools
			if got := GuestSubnetID(hcp); got != tt.want {
				t.Errorf("GuestSubnetID = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDesiredSpec(t *testing.T) {
	hcp := azureHCP("ns", "demo", hcplinkv1beta1.AzureTopologyPrivate)
	nat := testVNet + "/subnets/nat"
	hcp.Spec.Platform.Azure.Private.PrivateLink = &hcplinkv1beta1.AzurePrivateLinkSpec{NATSubnetID: nat,
		AdditionalAllowedSubscriptions: []string{"33333333-3333-4333-8333-333333333333"}}
	got := DesiredSpec(hcp, "10.0.0.9")
	want := hcplinkv1beta1.AzurePrivateLinkServiceSpec{LoadBalancerIP: "10.0.0.9", SubscriptionID: testSub, ResourceGroupName: "rg",
		Location: "eastus", NATSubnetID: nat, GuestSubnetID: testSubnet, GuestVNetID: testVNet, BaseDomain: "example.com",
		AdditionalAllowedSubscriptions: []string{"33333333-3333-4333-8333-333333333333"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DesiredSpec =\n%+v\nwant\n%+v", got, want)
	}
	hcp.Spec.Platform.Azure.Private.PrivateLink = nil
	if got := DesiredSpec(hcp, "10.0.0.9"); got.NATSubnetID != "" || got.AdditionalAllowedSubscriptions != nil {
		t.Errorf("without privateLink: %+v", got)
	}
}

func TestPrivateConfigured(t *testing.T) {
	noPrivate := azureHCP("ns", "demo", hcplinkv1beta1.AzureTopologyPublic)
	noPrivate.Spec.Platform.Azure.Private = nil
	aws := azureHCP("ns", "demo", hcplinkv1beta1.AzureTopologyPrivate)
	aws.Spec.Platform.Type = hcplinkv1beta1.AWSPlatform
	for _, tt := range []struct {
		name string
		hcp  *hcplinkv1beta1.HostedControlPlane
		want bool
	}{
		{"Private", azureHCP("ns", "demo", hcplinkv1beta1.AzureTopologyPrivate), true},
		{"PublicAndPrivate", azureHCP("ns", "demo", hcplinkv1beta1.AzureTopologyPublicAndPrivate), true},
		{"without the private configuration", noPrivate, false},
		{"another platform", aws, false},
		{"none", nil, false},
	} {
		if got := PrivateConfigured(tt.hcp); got != tt.want {
			t.Errorf("%s: PrivateConfigured = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDesiredExternalNames(t *testing.T) {
	private := azureHCP("ns", "demo", hcplinkv1beta1.AzureTopologyPrivate)
	noHostname := azureHCP("ns", "demo", hcplinkv1beta1.AzureTopologyPrivate)
	noHostname.Spec.Services[1].ServicePublishingStrategy.Route.Hostname = ""
	tests := []struct {
		name string
		hcp  *hcplinkv1beta1.HostedControlPlane
		want map[string]string
	}{
		{"Private: both", private, map[string]string{hcplinkv1beta1.KubeAPIServerPrivateExternalService: "api.demo.example.com", hcplinkv1beta1.OAuthPrivateExternalService: "oauth.demo.example.com"}},
		{"PublicAndPrivate: none", azureHCP("ns", "demo", hcplinkv1beta1.AzureTopologyPublicAndPrivate), map[string]string{}},
		{"a Route without hostname: skipped", noHostname, map[string]string{hcplinkv1beta1.KubeAPIServerPrivateExternalService: "api.demo.example.com"}},
	}
	for _, tt := range tests {
		if got := hcplinkv1beta1.AzureExternalNames(tt.hcp); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := azurecloud.ExternalNameTarget("demo.hypershift.local"); got != "api.demo.hypershift.local" {
		t.Errorf("ExternalNameTarget = %q", got)
	}
}

func TestEndpointOutcome(t *testing.T) {
	tests := []struct {
		name       string
		ep         endpointView
		wantReason string
		wantGrows  bool
	}{
		{"approved with an address", endpointView{ProvisioningState: "Succeeded", ConnectionStatus: "Approved", IP: "10.1.0.4"}, "", false},
		{"pending approval", endpointView{ProvisioningState: "Succeeded", ConnectionStatus: "Pending"}, hcplinkv1beta1.PrivateEndpointPendingReason, true},
		{"still provisioning", endpointView{ProvisioningState: "Updating", ConnectionStatus: "Approved"}, hcplinkv1beta1.PrivateEndpointPendingReason, true},
		{"no address yet", endpointView{ProvisioningState: "Succeeded", ConnectionStatus: "Approved"}, hcplinkv1beta1.PrivateEndpointPendingReason, true},
		{"rejected", endpointView{ProvisioningState: "Succeeded", ConnectionStatus: "Rejected"}, hcplinkv1beta1.PrivateEndpointRejectedReason, true},
		{"disconnected", endpointView{ProvisioningState: "Succeeded", ConnectionStatus: "Disconnected"}, hcplinkv1beta1.PrivateEndpointRejectedReason, true},
		{"failed", endpointView{ProvisioningState: "Failed", ConnectionStatus: "Approved"}, hcplinkv1beta1.PrivateEndpointFailedReason, true},
		{"deleting", endpointView{ProvisioningState: "Deleting"}, hcplinkv1beta1.PrivateEndpointPendingReason, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := EndpointOutcome("demo-pe", tt.ep)
			if o.Reason != tt.wantReason || o.Grows() != tt.wantGrows {
				t.Errorf("EndpointOutcome = %q (grows %v), want %q (grows %v)", o.Reason, o.Grows(), tt.wantReason, tt.wantGrows)
			}
			if tt.wantReason != "" && (o.Status != metav1.ConditionFalse || o.After <= 0) {
				t.Errorf("a wait must be False with a delay: %+v", o)
			}
		})
	}
}

func TestConditionsOf(t *testing.T) {
	pending := outcome.Poll(hcplinkv1beta1.PrivateEndpointPendingReason, "waiting", pendingFirstPoll, pendingMostPoll)
	ready := outcome.Ready(hcplinkv1beta1.AzureSuccessReason, "ok", DefaultDriftInterval)
	conds := conditionsOf(pending, outcome.Continue(), pending, "demo-pe", "", "demo.hypershift.local", false)
	if conds[0].Status != metav1.ConditionFalse || conds[1].Status != metav1.ConditionFalse || conds[2].Reason != hcplinkv1beta1.PrivateEndpointPendingReason {
		t.Errorf("pending: %+v", conds)
	}
	conds = conditionsOf(outcome.Continue(), outcome.Continue(), ready, "demo-pe", "10.1.0.4", "demo.hypershift.local", true)
	for _, c := range conds {
		if c.Status != metav1.ConditionTrue || c.Reason != hcplinkv1beta1.AzureSuccessReason {
			t.Errorf("ready: %+v", c)
		}
	}
	denied := outcome.WaitOnPerson(hcplinkv1beta1.AccessDeniedReason, "denied")
	conds = conditionsOf(outcome.Continue(), denied, denied, "demo-pe", "10.1.0.4", "demo.hypershift.local", true)
	if conds[0].Status != metav1.ConditionTrue || conds[1].Reason != hcplinkv1beta1.AccessDeniedReason || conds[2].Status != metav1.ConditionFalse {
		t.Errorf("DNS denied: %+v", conds)
	}
}

func TestReplaced(t *testing.T) {
	const alias = "pls-demo.6b1f0c2e-1d4a-4f7e-9c3b-2a1d0e9f8c7b.eastus.azure.privatelinkservice"
	const id = "/subscriptions/11111111-1111-1111-1111-111111111111/resourceGroups/mgmt-rg/providers/Microsoft.Network/privateLinkServices/pls-demo"
	ok := func(ref string) endpointView { return endpointView{ProvisioningState: "Succeeded", ServiceRef: ref} }
	tests := []struct {
		name             string
		ep               endpointView
		alias, serviceID string
		want             bool
	}{
		{"the alias", ok(alias), alias, id, false},
		{"the alias, other case", ok(strings.ToUpper(alias)), alias, id, false},
		{"the service's resource ID instead of its alias", ok(id), alias, id, false},
		{"the resource ID, other case", ok(strings.ToLower(id)), alias, id, false},
		{"a resource ID while the service's is unknown", ok(id), alias, "", false},
		{"another alias: the service was recreated", ok("pls-demo.0000.eastus.azure.privatelinkservice"), alias, id, true},
		{"another service's resource ID", ok(id + "-old"), alias, id, true},
		{"failed", endpointView{ProvisioningState: "Failed", ServiceRef: alias}, alias, id, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Replaced(tt.ep, tt.alias, tt.serviceID); got != tt.want {
				t.Errorf("Replaced = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCreateEndpointOutcome(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantReason string
		person     bool
	}{
		{"service not known yet", &cloud.Error{Class: cloud.ClassInvalidInput, Code: CodeInvalidPrivateLinkServiceID, Err: &azcore.ResponseError{ErrorCode: CodeInvalidPrivateLinkServiceID, StatusCode: 400}},
			hcplinkv1beta1.PrivateEndpointPendingReason, false},
		{"invalid input", &cloud.Error{Class: cloud.ClassInvalidInput, Code: "InvalidRequestFormat", Err: &azcore.ResponseError{ErrorCode: "InvalidRequestFormat", StatusCode: 400}},
			hcplinkv1beta1.InvalidParameterReason, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := CreateEndpointOutcome("demo-pe", tt.err)
			if o.Reason != tt.wantReason {
				t.Errorf("reason %q, want %q", o.Reason, tt.wantReason)
			}
			if !tt.person && (o.After > pendingFirstPoll || !o.Grows()) {
				t.Errorf("a service not known yet is retried after %v (grows %v); want within %v", o.After, o.Grows(), pendingFirstPoll)
			}
		})
	}
}
