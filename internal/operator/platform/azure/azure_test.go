package azure

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

const (
	testSub = "550e8400-e29b-41d4-a716-446655440000"
	mgmtSub = "6ba7b810-9dad-41d1-80b4-00c04fd430c8"
)

func TestDescribeNamesWhatTheObjectRecorded(t *testing.T) {
	pls := &hcplinkv1beta1.AzurePrivateLinkService{ObjectMeta: metav1.ObjectMeta{Name: "private-router"},
		Spec: hcplinkv1beta1.AzurePrivateLinkServiceSpec{SubscriptionID: testSub, ResourceGroupName: "customer-rg"},
		Status: hcplinkv1beta1.AzurePrivateLinkServiceStatus{
			PrivateLinkServiceID: "/subscriptions/" + mgmtSub + "/resourceGroups/mgmt-rg/providers/Microsoft.Network/privateLinkServices/pls-abc",
			PrivateEndpointID:    "/subscriptions/" + testSub + "/resourceGroups/customer-rg/providers/Microsoft.Network/privateEndpoints/pe-abc",
			DNSZoneName:          "azdemo.hypershift.local",
			NATSubnetID:          "/subscriptions/" + mgmtSub + "/resourceGroups/mgmt-rg/providers/Microsoft.Network/virtualNetworks/mgmt/subnets/pls-nat-abc"}}
	got := describe(pls)
	for _, s := range []string{"AzurePrivateLinkService private-router", "Private Link Service pls-abc in resource group mgmt-rg",
		"Private Endpoint pe-abc in resource group customer-rg", "Private DNS zone azdemo.hypershift.local in resource group customer-rg",
		"NAT subnet (created by hcplink) pls-nat-abc of mgmt in resource group mgmt-rg"} {
		if !strings.Contains(got, s) {
			t.Errorf("%q does not contain %q", got, s)
		}
	}
}

// What may have leaked reaches the HostedCluster's conditions and Events:
// names and resource groups, never a subscription ID (issue 18, item 9).
func TestLeakReportsNameNoSubscription(t *testing.T) {
	pls := &hcplinkv1beta1.AzurePrivateLinkService{ObjectMeta: metav1.ObjectMeta{Name: "private-router"},
		Spec: hcplinkv1beta1.AzurePrivateLinkServiceSpec{SubscriptionID: testSub, ResourceGroupName: "customer-rg"},
		Status: hcplinkv1beta1.AzurePrivateLinkServiceStatus{
			PrivateLinkServiceID: "/subscriptions/" + mgmtSub + "/resourceGroups/mgmt-rg/providers/Microsoft.Network/privateLinkServices/pls-abc",
			PrivateEndpointID:    "/subscriptions/" + testSub + "/resourceGroups/customer-rg/providers/Microsoft.Network/privateEndpoints/pe-abc",
			PrivateDNSZoneID:     "/subscriptions/" + testSub + "/resourceGroups/customer-rg/providers/Microsoft.Network/privateDnsZones/azdemo.hypershift.local",
			NATSubnetID:          "/subscriptions/" + mgmtSub + "/resourceGroups/mgmt-rg/providers/Microsoft.Network/virtualNetworks/mgmt/subnets/pls-nat-abc"}}
	o := object(pls)
	empty := object(&hcplinkv1beta1.AzurePrivateLinkService{ObjectMeta: metav1.ObjectMeta{Name: "private-router"}, Spec: pls.Spec})
	for name, text := range map[string]string{
		"operator's":      o.Leak(hcplinkv1beta1.OperatorFinalizer),
		"control plane's": o.Leak(hcplinkv1beta1.ControlPlaneFinalizer),
		"fallback":        o.Fallback,
		"empty fallback":  empty.Fallback,
	} {
		if strings.Contains(text, testSub) || strings.Contains(text, mgmtSub) || strings.Contains(text, "/subscriptions/") {
			t.Errorf("the %s leak report names a subscription: %q", name, text)
		}
	}
	if cpo := o.Leak(hcplinkv1beta1.ControlPlaneFinalizer); !strings.Contains(cpo, "Private DNS zone azdemo.hypershift.local in resource group customer-rg") {
		t.Errorf("control-plane finalizer leaks %q", cpo)
	}
}

// Each finalizer names only its own side's leftovers: the operator's the
// Private Link Service and the NAT subnet it created, the control-plane
// operator's the endpoint and the zone.
func TestObjectLeaksPerFinalizer(t *testing.T) {
	pls := &hcplinkv1beta1.AzurePrivateLinkService{ObjectMeta: metav1.ObjectMeta{Name: "private-router"},
		Spec: hcplinkv1beta1.AzurePrivateLinkServiceSpec{SubscriptionID: "550e8400-e29b-41d4-a716-446655440000", ResourceGroupName: "customer-rg"},
		Status: hcplinkv1beta1.AzurePrivateLinkServiceStatus{PrivateLinkServiceID: "/x/pls", PrivateEndpointID: "/x/pe",
			DNSZoneName: "azdemo.hypershift.local", NATSubnetID: "/x/subnets/pls-nat-1"}}
	o := object(pls)
	operator, cpo := o.Leak(hcplinkv1beta1.OperatorFinalizer), o.Leak(hcplinkv1beta1.ControlPlaneFinalizer)
	if !strings.Contains(operator, "Private Link Service /x/pls") || !strings.Contains(operator, "NAT subnet (created by hcplink) /x/subnets/pls-nat-1") ||
		strings.Contains(operator, "Private Endpoint") {
		t.Errorf("operator finalizer leaks %q", operator)
	}
	if !strings.Contains(cpo, "Private Endpoint /x/pe") || !strings.Contains(cpo, "azdemo.hypershift.local") || strings.Contains(cpo, "Private Link Service") {
		t.Errorf("control-plane finalizer leaks %q", cpo)
	}
	pls.Spec.NATSubnetID = "/x/subnets/pls-nat-1" // given: never ours to delete
	if strings.Contains(object(pls).Leak(hcplinkv1beta1.OperatorFinalizer), "NAT subnet") {
		t.Error("a given NAT subnet is reported as ours")
	}
}
