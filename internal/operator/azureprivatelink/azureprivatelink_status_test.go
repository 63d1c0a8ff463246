package azureprivatelink

import (
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

const (
	guestSub = "22222222-2222-4222-8222-222222222222"
	otherSub = "33333333-3333-4333-8333-333333333333"
	guestNet = "/subscriptions/" + guestSub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/guest/subnets/workers"
	frontend = "/subscriptions/11111111-1111-4111-8111-111111111111/resourceGroups/mgmt/providers/Microsoft.Network/loadBalancers/kubernetes-internal/frontendIPConfigurations/fe"
	natNet   = "/subscriptions/11111111-1111-4111-8111-111111111111/resourceGroups/mgmt/providers/Microsoft.Network/virtualNetworks/mgmt/subnets/nat"
)

func TestSubscriptions(t *testing.T) {
	tests := []struct {
		name       string
		guest      string
		additional []string
		want       []string
	}{
		{"guest only", guestSub, nil, []string{guestSub}},
		{"guest and others, sorted and lowercased", strings.ToUpper(guestSub), []string{strings.ToUpper(otherSub), "11111111-1111-4111-8111-111111111111"},
			[]string{"11111111-1111-4111-8111-111111111111", guestSub, otherSub}},
		{"the guest's own listed again is one entry", guestSub, []string{guestSub, strings.ToUpper(guestSub)}, []string{guestSub}},
		{"nothing", "", nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := subscriptions(tt.guest, tt.additional); !slices.Equal(got, tt.want) {
				t.Errorf("subscriptions = %v, want %v", got, tt.want)
			}
		})
	}
}

func desiredForTest() desiredService {
	return desiredService{Name: "pls-x", Location: "eastus", FrontendID: frontend, NATSubnetID: natNet,
		Subscriptions: []string{guestSub, otherSub}, Tags: map[string]*string{"hcplink.io/cluster": ptr("x")}}
}

func TestDrift(t *testing.T) {
	d := desiredForTest()
	matching := func() *armnetwork.PrivateLinkService {
		b := d.body()
		b.Name = ptr(d.Name)
		b.Properties.ProvisioningState = ptr(armnetwork.ProvisioningStateSucceeded)
		b.Properties.LoadBalancerFrontendIPConfigurations[0].ID = ptr(strings.ToLower(frontend)) // Azure may change case
		b.Tags["someone-else"] = ptr("kept")
		return &b
	}
	tests := []struct {
		name   string
		mutate func(*armnetwork.PrivateLinkService)
		want   []string
	}{
		{"matches", func(*armnetwork.PrivateLinkService) {}, nil},
		{"subscriptions in another order and case", func(p *armnetwork.PrivateLinkService) {
			p.Properties.Visibility.Subscriptions = []*string{ptr(strings.ToUpper(otherSub)), ptr(guestSub)}
		}, nil},
		{"another frontend", func(p *armnetwork.PrivateLinkService) {
			p.Properties.LoadBalancerFrontendIPConfigurations[0].ID = ptr(frontend + "2")
		}, []string{"load balancer frontend"}},
		{"a second frontend", func(p *armnetwork.PrivateLinkService) {
			p.Properties.LoadBalancerFrontendIPConfigurations = append(p.Properties.LoadBalancerFrontendIPConfigurations, &armnetwork.FrontendIPConfiguration{ID: ptr(frontend + "2")})
		}, []string{"load balancer frontend"}},
		{"another NAT subnet", func(p *armnetwork.PrivateLinkService) {
			p.Properties.IPConfigurations[0].Properties.Subnet.ID = ptr(natNet + "2")
		}, []string{"NAT subnet"}},
		{"failed", func(p *armnetwork.PrivateLinkService) {
			p.Properties.ProvisioningState = ptr(armnetwork.ProvisioningStateFailed)
		}, []string{"provisioning state Failed"}},
		{"a subscription removed from visibility", func(p *armnetwork.PrivateLinkService) {
			p.Properties.Visibility.Subscriptions = []*string{ptr(guestSub)}
		}, []string{"visibility subscriptions"}},
		{"a subscription added to auto-approval", func(p *armnetwork.PrivateLinkService) {
			p.Properties.AutoApproval.Subscriptions = append(p.Properties.AutoApproval.Subscriptions, ptr("44444444-4444-4444-8444-444444444444"))
		}, []string{"auto-approval subscriptions"}},
		{"no lists at all", func(p *armnetwork.PrivateLinkService) {
			p.Properties.Visibility, p.Properties.AutoApproval = nil, nil
		}, []string{"visibility subscriptions", "auto-approval subscriptions"}},
		{"our tag changed", func(p *armnetwork.PrivateLinkService) {
			p.Tags["hcplink.io/cluster"] = ptr("y")
		}, []string{"tags"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pls := matching()
			tt.mutate(pls)
			if got := drift(pls, d); !slices.Equal(got, tt.want) {
				t.Errorf("drift = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBodyHasOneNATConfigurationAndTheSameListsTwice(t *testing.T) {
	b := desiredForTest().body()
	p := b.Properties
	if len(p.IPConfigurations) != 1 || *p.IPConfigurations[0].Properties.Subnet.ID != natNet || !*p.IPConfigurations[0].Properties.Primary {
		t.Errorf("NAT IP configurations = %+v", p.IPConfigurations)
	}
	if !slices.Equal(normalized(p.Visibility.Subscriptions), []string{guestSub, otherSub}) ||
		!slices.Equal(normalized(p.AutoApproval.Subscriptions), []string{guestSub, otherSub}) {
		t.Errorf("visibility %v, auto-approval %v", normalized(p.Visibility.Subscriptions), normalized(p.AutoApproval.Subscriptions))
	}
	// The two lists must not share a backing array: the SDK may be handed
	// one and the other changed.
	p.Visibility.Subscriptions[0] = ptr("changed")
	if *p.AutoApproval.Subscriptions[0] == "changed" {
		t.Error("visibility and auto-approval share their list")
	}
}

func TestServiceStateOutcome(t *testing.T) {
	tests := []struct {
		state    armnetwork.ProvisioningState
		done     bool
		gone     bool
		reason   string
		positive bool
	}{
		{armnetwork.ProvisioningStateSucceeded, true, false, "", false},
		{armnetwork.ProvisioningStateFailed, true, false, "", false}, // repaired by a PUT (drift)
		{armnetwork.ProvisioningStateUpdating, false, false, hcplinkv1beta1.WaitingForPrivateLinkServiceReason, true},
		{armnetwork.ProvisioningStateDeleting, false, true, hcplinkv1beta1.WaitingForPrivateLinkServiceReason, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.state), func(t *testing.T) {
			pls := &armnetwork.PrivateLinkService{Name: ptr("pls-x"), Properties: &armnetwork.PrivateLinkServiceProperties{ProvisioningState: ptr(tt.state)}}
			o, gone := serviceStateOutcome(pls)
			if o.Done() != tt.done || gone != tt.gone || o.Reason != tt.reason || (o.After > 0) != tt.positive {
				t.Errorf("outcome = %+v gone=%v", o, gone)
			}
			if !tt.done && o.Status != metav1.ConditionFalse {
				t.Errorf("status = %s", o.Status)
			}
		})
	}
}

// Messages never name a subscription: only resource names and counts.
func TestMessagesNameNoSubscription(t *testing.T) {
	for _, msg := range []string{
		waitingForIP().Message, frontendNotFound("10.0.1.4", mgmtRG).Message,
		frontendAmbiguous("10.0.1.4", []Frontend{{SubnetID: "/subscriptions/" + guestSub + "/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/a/subnets/s"}}).Message, natSubnetNotFound("nat").Message,
		natSubnetPoliciesOn("nat").Message, notOurs("pls-x", "it is tagged for another cluster").Message,
		connectionsPending("pls-x", 2).Message, waitingForControlPlane().Message, deleting("the NAT subnet").Message,
		createdMessage("pls-x", []string{guestSub, otherSub}),
	} {
		for _, s := range []string{guestSub, otherSub, "/subscriptions/", "http"} {
			if strings.Contains(msg, s) {
				t.Errorf("message %q contains %q", msg, s)
			}
		}
	}
}
