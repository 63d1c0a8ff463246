package gcpprivateserviceconnect

import (
	"strings"
	"testing"

	"google.golang.org/api/compute/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/outcome"
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

// TestSettingsCheckReadsTheClusterSubnet runs the settings check against
// envtest and cloudsim, signed in as a service account holding exactly the
// control-plane operator's custom role: the cluster's subnet in its
// network opens the router gate; a subnet that does not exist, one of
// another network, or a network that does not exist holds it, with the
// reason naming the field.
func TestSettingsCheckReadsTheClusterSubnet(t *testing.T) {
	w := newWorld(t)
	w.network(customerProject, "other", "other-workers", "192.168.2.0/24")
	v := &Validator{Client: env.Client, Cloud: w.factory, Tracker: &outcome.Tracker{Now: w.clock.Now}}
	tests := []struct {
		name, network, subnet string
		status                metav1.ConditionStatus
		reason, mentions      string
	}{
		{"the cluster's subnet in its network", "customer", "workers", metav1.ConditionTrue, hcplinkv1beta1.GCPSuccessReason, "workers"},
		{"a subnet that does not exist", "customer", "no-such-subnet", metav1.ConditionFalse, hcplinkv1beta1.GCPSubnetNotFoundReason, "no-such-subnet"},
		{"a subnet of another network", "customer", "other-workers", metav1.ConditionFalse, hcplinkv1beta1.GCPSubnetNotInNetworkReason, "is in network other"},
		{"a network that does not exist", "no-such-network", "workers", metav1.ConditionFalse, hcplinkv1beta1.GCPSubnetNotInNetworkReason, "not in network no-such-network"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hcp := gcpHCP(env.NewNamespace(t), "demo", hcplinkv1beta1.GCPEndpointAccessPrivate)
			g := hcp.Spec.Platform.GCP
			g.Network, g.Subnet = tt.network, tt.subnet
			g.WorkloadIdentity.PoolProvider = w.wi.Provider.Name()
			g.WorkloadIdentity.ServiceAccountsEmails.ControlPlaneOperator = hcplinkv1beta1.GCPServiceAccountEmail(w.wi.Email)
			if err := env.Client.Create(w.ctx, hcp); err != nil {
				t.Fatal(err)
			}
			if !PrivateConfigured(hcp) || MayCreateRouters(hcp) {
				t.Fatal("the router gate is open before the check")
			}
			if _, err := v.Reconcile(w.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hcp)}); err != nil {
				t.Fatal(err)
			}
			if err := env.Client.Get(w.ctx, client.ObjectKeyFromObject(hcp), hcp); err != nil {
				t.Fatal(err)
			}
			c := meta.FindStatusCondition(hcp.Status.Conditions, hcplinkv1beta1.GCPConfigurationValidCondition)
			if c == nil || c.Status != tt.status || c.Reason != tt.reason || !strings.Contains(c.Message, tt.mentions) {
				t.Fatalf("%s is %+v, want %s/%s mentioning %q", hcplinkv1beta1.GCPConfigurationValidCondition, c, tt.status, tt.reason, tt.mentions)
			}
			if open := MayCreateRouters(hcp); open != (tt.status == metav1.ConditionTrue) {
				t.Errorf("the router gate is open=%v with %s %s", open, hcplinkv1beta1.GCPConfigurationValidCondition, c.Status)
			}
		})
	}
}
