package demo

import (
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

const (
	mgmtSub  = "11111111-1111-4111-8111-111111111111"
	guestSub = "22222222-2222-4222-8222-222222222222"
	otherSub = "33333333-3333-4333-8333-333333333333"
)

var testCloud = azureCloud{
	managementSubscription: mgmtSub, guestSubscription: guestSub,
	managementResourceGroup: "mgmt-rg", managementVNetID: "/subscriptions/" + mgmtSub + "/resourceGroups/mgmt-rg/providers/Microsoft.Network/virtualNetworks/mgmt-vnet",
	kubeconfig: "/tmp/kc", cloudURL: "https://127.0.0.1:4566/", caFile: "/tmp/ca.pem", azConfigDir: "/tmp/az",
	tenantID: "tenant-1", adminClientID: "client-1", adminClientSecret: "secret-1",
}

var testFixture = azureFixture{subscription: guestSub, resourceGroup: "guest-rg", location: "eastus",
	vnetID: "/subscriptions/" + guestSub + "/resourceGroups/guest-rg/providers/Microsoft.Network/virtualNetworks/guest-vnet"}

func TestParsePlatforms(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{in: "", want: []string{PlatformAWS, PlatformAzure, PlatformGCP}},
		{in: "all", want: []string{PlatformAWS, PlatformAzure, PlatformGCP}},
		{in: "aws", want: []string{PlatformAWS}},
		{in: "Azure", want: []string{PlatformAzure}},
		{in: " azure ", want: []string{PlatformAzure}},
		{in: "GCP", want: []string{PlatformGCP}},
		{in: "both", wantErr: true},
		{in: "aws,azure", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParsePlatforms(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParsePlatforms(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), tt.in) {
			t.Errorf("ParsePlatforms(%q) error %q does not name the value", tt.in, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("ParsePlatforms(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSubscriptionLabelNamesWhoseSubscription(t *testing.T) {
	tests := []struct{ sub, want string }{
		{mgmtSub, "management subscription " + mgmtSub},
		{strings.ToUpper(guestSub), "guest subscription " + strings.ToUpper(guestSub)},
		{otherSub, "subscription " + otherSub},
	}
	for _, tt := range tests {
		if got := subscriptionLabel(tt.sub, testCloud); got != tt.want {
			t.Errorf("subscriptionLabel(%s) = %q, want %q", tt.sub, got, tt.want)
		}
	}
	if got := subscriptionLabels(nil, testCloud); got != "no subscription" {
		t.Errorf("subscriptionLabels(nil) = %q", got)
	}
	if got := subscriptionLabels([]string{guestSub, otherSub}, testCloud); got != "guest subscription "+guestSub+", subscription "+otherSub {
		t.Errorf("subscriptionLabels = %q", got)
	}
}

func TestAzureTopologySaysWhoOwnsWhat(t *testing.T) {
	got := azureTopology(testCloud, testFixture)
	for _, want := range []string{"management subscription " + mgmtSub, "mgmt-vnet", "mgmt-rg", "guest subscription " + guestSub, "guest-vnet", "guest-rg", "workload identity"} {
		if !strings.Contains(got, want) {
			t.Errorf("topology lacks %q:\n%s", want, got)
		}
	}
}

func TestAzureKeepLinesPointEveryClientAtCloudsim(t *testing.T) {
	got := azureKeepLines(testCloud, testFixture, "clusters-demo", "demo.hypershift.local")
	for _, want := range []string{
		"export KUBECONFIG=/tmp/kc",
		"AZURE_TENANT_ID=tenant-1 AZURE_CLIENT_ID=client-1 AZURE_CLIENT_SECRET=secret-1",
		// one trailing slash on the authority, none doubled on ARM's endpoint
		"AZURE_AUTHORITY_HOST=https://127.0.0.1:4566/ AZURE_RESOURCE_MANAGER_ENDPOINT=https://127.0.0.1:4566 AZURE_CA_BUNDLE=/tmp/ca.pem",
		"AZURE_SUBSCRIPTION_ID=" + mgmtSub,
		"REQUESTS_CA_BUNDLE=/tmp/ca.pem AZURE_CONFIG_DIR=/tmp/az",
		"az cloud register -n cloudsim --endpoint-resource-manager https://127.0.0.1:4566/ ",
		"--endpoint-active-directory https://127.0.0.1:4566/adfs",
		"az cloud set -n cloudsim",
		"az login --service-principal",
		"kubectl get azureprivatelinkservices,services -n clusters-demo",
		"-g guest-rg -z demo.hypershift.local --subscription " + guestSub,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("keep lines lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "4566//") {
		t.Errorf("a doubled slash in the endpoints:\n%s", got)
	}
}

func TestAzureLeftoversFindsEveryMark(t *testing.T) {
	id := func(sub, rest string) string { return "/subscriptions/" + sub + "/resourceGroups/rg/providers/" + rest }
	tag := map[string]*string{azurecloud.ClusterTagKey(azureInfraID): to.Ptr("owned")}
	otherTag := map[string]*string{azurecloud.ClusterTagKey("other-1"): to.Ptr("owned")}
	pls := id(mgmtSub, "Microsoft.Network/privateLinkServices/pls-x")
	nat := id(mgmtSub, "Microsoft.Network/virtualNetworks/v/subnets/pls-nat-x")
	marks := clusterMarks{infraID: azureInfraID, ids: []string{pls, strings.ToUpper(nat), ""}, names: []string{"demo.hypershift.local"}}
	tests := []struct {
		name  string
		thing armThing
		left  bool
	}{
		{"tagged with the infra ID", armThing{kind: "Private Endpoint", id: id(guestSub, "Microsoft.Network/privateEndpoints/pe"), tags: tag}, true},
		{"another cluster's tag", armThing{kind: "Private Endpoint", id: id(guestSub, "Microsoft.Network/privateEndpoints/pe2"), tags: otherTag}, false},
		{"an ID the tour saw, untagged", armThing{kind: "Private Link Service", id: pls}, true},
		{"an ID the tour saw, case differs", armThing{kind: "subnet", id: nat}, true},
		{"the cluster's zone name", armThing{kind: "private zone", id: id(guestSub, "Microsoft.Network/privateDnsZones/demo.hypershift.local")}, true},
		{"a fixture subnet", armThing{kind: "subnet", id: id(mgmtSub, "Microsoft.Network/virtualNetworks/v/subnets/default")}, false},
		{"someone else's zone", armThing{kind: "private zone", id: id(guestSub, "Microsoft.Network/privateDnsZones/other.hypershift.local")}, false},
	}
	for _, tt := range tests {
		got := azureLeftovers([]armThing{tt.thing}, marks)
		if (len(got) == 1) != tt.left {
			t.Errorf("%s: leftovers = %v, want left %v", tt.name, got, tt.left)
		}
		if tt.left && len(got) == 1 && (!strings.Contains(got[0], tt.thing.kind) || !strings.Contains(got[0], azurecloud.NameOf(tt.thing.id))) {
			t.Errorf("%s: %q does not name the kind and the resource", tt.name, got[0])
		}
	}
}

func TestEndpointNICTagsMarkOnlyTheClustersEndpointInterface(t *testing.T) {
	pe := azurecloud.PrivateEndpointName(azureInfraID, routerCR)
	if endpointNICTags(pe+".nic.0f3c") == nil {
		t.Errorf("the endpoint's interface %s.nic.0f3c is not marked", pe)
	}
	if endpointNICTags("worker-nic-1") != nil {
		t.Errorf("a worker's interface is marked")
	}
}

func TestARMFieldReaders(t *testing.T) {
	lb := &armnetwork.LoadBalancer{Properties: &armnetwork.LoadBalancerPropertiesFormat{FrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{
		{Name: to.Ptr("fe-a"), Properties: &armnetwork.FrontendIPConfigurationPropertiesFormat{PrivateIPAddress: to.Ptr("10.0.0.4")}},
		{Name: to.Ptr("fe-b"), Properties: &armnetwork.FrontendIPConfigurationPropertiesFormat{PrivateIPAddress: to.Ptr("10.0.0.5")}},
	}}}
	if got := frontendWithIP(lb, "10.0.0.5"); got != "fe-b" {
		t.Errorf("frontendWithIP = %q, want fe-b", got)
	}
	if got := frontendWithIP(lb, "10.0.0.9"); got != "" {
		t.Errorf("frontendWithIP of an absent address = %q", got)
	}
	if got := frontendWithIP(&armnetwork.LoadBalancer{}, "10.0.0.5"); got != "" {
		t.Errorf("frontendWithIP of a bare load balancer = %q", got)
	}

	pe := &armnetwork.PrivateEndpoint{Properties: &armnetwork.PrivateEndpointProperties{
		ManualPrivateLinkServiceConnections: []*armnetwork.PrivateLinkServiceConnection{{Properties: &armnetwork.PrivateLinkServiceConnectionProperties{
			PrivateLinkServiceConnectionState: &armnetwork.PrivateLinkServiceConnectionState{Status: to.Ptr("Approved")},
		}}},
		Subnet: &armnetwork.Subnet{ID: to.Ptr("/x/subnets/a")},
	}}
	if got := connectionState(pe); got != "Approved" {
		t.Errorf("connectionState = %q", got)
	}
	if got := endpointSubnet(pe); got != "/x/subnets/a" {
		t.Errorf("endpointSubnet = %q", got)
	}
	if connectionState(&armnetwork.PrivateEndpoint{}) != "" || endpointSubnet(&armnetwork.PrivateEndpoint{}) != "" {
		t.Errorf("a bare endpoint reads as something")
	}

	vis := &armnetwork.PrivateLinkServicePropertiesVisibility{Subscriptions: []*string{to.Ptr(strings.ToUpper(otherSub)), to.Ptr(guestSub)}}
	if got := subscriptionsOf(vis); !slices.Equal(got, []string{guestSub, otherSub}) {
		t.Errorf("subscriptionsOf = %v", got)
	}
	soa := &armprivatedns.RecordSet{Properties: &armprivatedns.RecordSetProperties{SoaRecord: &armprivatedns.SoaRecord{MinimumTTL: to.Ptr[int64](60)}}}
	if got := soaMinimumTTL(soa); got != 60 {
		t.Errorf("soaMinimumTTL = %d", got)
	}
	if got := soaMinimumTTL(&armprivatedns.RecordSet{}); got != 0 {
		t.Errorf("soaMinimumTTL of a bare set = %d", got)
	}
}
