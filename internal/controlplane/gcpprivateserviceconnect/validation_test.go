package gcpprivateserviceconnect

import (
	"strings"
	"testing"

	"google.golang.org/api/compute/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// TestValidateCustomerSubnet: the verdict on the cluster's subnet as read,
// a stable reason naming the field to fix, in plain words.
func TestValidateCustomerSubnet(t *testing.T) {
	g := &hcplinkv1beta1.GCPPlatformSpec{Project: "customer-project", Region: "us-central1", Network: "customer-vpc", Subnet: "workers"}
	link := func(network string) string {
		return "https://www.googleapis.com/compute/v1/projects/customer-project/global/networks/" + network
	}
	tests := []struct {
		name     string
		subnet   *compute.Subnetwork
		reason   string
		mentions []string
	}{
		{"in the cluster's network", &compute.Subnetwork{Name: "workers", Network: link("customer-vpc")},
			hcplinkv1beta1.GCPSuccessReason, []string{"workers", "customer-vpc"}},
		{"missing from the project and region", nil,
			hcplinkv1beta1.GCPSubnetNotFoundReason, []string{"spec.platform.gcp.subnet", "workers", "us-central1", "customer-project", "create it in network customer-vpc"}},
		{"in another network", &compute.Subnetwork{Name: "workers", Network: link("other-vpc")},
			hcplinkv1beta1.GCPSubnetNotInNetworkReason, []string{"spec.platform.gcp.network", "other-vpc", "not in network customer-vpc"}},
		{"in a network of a similar name", &compute.Subnetwork{Name: "workers", Network: link("customer-vpc-2")},
			hcplinkv1beta1.GCPSubnetNotInNetworkReason, []string{"customer-vpc-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ValidateCustomerSubnet(g, tt.subnet)
			if o.Reason != tt.reason {
				t.Fatalf("reason %s (%s), want %s", o.Reason, o.Message, tt.reason)
			}
			want := metav1.ConditionFalse
			if tt.reason == hcplinkv1beta1.GCPSuccessReason {
				want = metav1.ConditionTrue
			}
			if o.Status != want {
				t.Errorf("status %s, want %s", o.Status, want)
			}
			for _, m := range tt.mentions {
				if !strings.Contains(o.Message, m) {
					t.Errorf("message %q does not mention %q", o.Message, m)
				}
			}
			if leakPattern.MatchString(o.Message) {
				t.Errorf("message %q carries a URL, resource path or number", o.Message)
			}
		})
	}
}
