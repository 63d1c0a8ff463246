package azureplatform

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

func TestDescribeNamesWhatTheObjectRecorded(t *testing.T) {
	pls := &hcplinkv1beta1.AzurePrivateLinkService{ObjectMeta: metav1.ObjectMeta{Name: "private-router"},
		Spec: hcplinkv1beta1.AzurePrivateLinkServiceSpec{SubscriptionID: "550e8400-e29b-41d4-a716-446655440000", ResourceGroupName: "customer-rg"},
		Status: hcplinkv1beta1.AzurePrivateLinkServiceStatus{PrivateLinkServiceID: "/subscriptions/x/pls", PrivateEndpointID: "/subscriptions/x/pe",
			DNSZoneName: "azdemo.hypershift.local", NATSubnetID: "/subscriptions/x/subnets/nat"}}
	got := describe(pls)
	for _, s := range []string{"AzurePrivateLinkService private-router", "Private Link Service /subscriptions/x/pls", "Private Endpoint /subscriptions/x/pe",
		"Private DNS zone azdemo.hypershift.local", "NAT subnet (created by hcplink) /subscriptions/x/subnets/nat", "resource group customer-rg"} {
		if !strings.Contains(got, s) {
			t.Errorf("%q does not contain %q", got, s)
		}
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
