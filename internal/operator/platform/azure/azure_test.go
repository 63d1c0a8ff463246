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
