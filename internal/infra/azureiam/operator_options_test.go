package azureiam

import (
	"slices"
	"strings"
	"testing"
)

const testSub = "11111111-1111-4111-8111-111111111111"

func validOperatorOptions() OperatorOptions {
	return OperatorOptions{Namespace: "hcplink", IssuerURL: "https://oidc.example.com", SubscriptionID: testSub,
		LoadBalancerResourceGroup: "lb-rg", Location: "eastus"}.withDefaults()
}

// The management operator's role goes to the load balancers' group and
// the VNet's when it is another; never more, never the subscription.
func TestOperatorScopes(t *testing.T) {
	rg := func(name string) string { return "/subscriptions/" + testSub + "/resourceGroups/" + name }
	vnet := func(group string) string {
		return rg(group) + "/providers/Microsoft.Network/virtualNetworks/mgmt"
	}
	for _, tc := range []struct {
		name, vnetID string
		want         []string
	}{
		{"no VNet given", "", []string{rg("lb-rg")}},
		{"VNet in the load balancers' group", vnet("lb-rg"), []string{rg("lb-rg")}},
		{"VNet in the load balancers' group, other case", vnet("LB-RG"), []string{rg("lb-rg")}},
		{"VNet in another group", vnet("net-rg"), []string{rg("lb-rg"), rg("net-rg")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := validOperatorOptions()
			o.VNetID = tc.vnetID
			if got := o.scopes(); !slices.Equal(got, tc.want) {
				t.Errorf("scopes = %v, want %v", got, tc.want)
			}
		})
	}
}

// Bad input is refused before anything is made, naming the flag.
func TestOperatorOptionsRefuseBadInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*OperatorOptions)
		flag   string
	}{
		{"no subscription", func(o *OperatorOptions) { o.SubscriptionID = "" }, "--subscription-id"},
		{"no load balancers' group", func(o *OperatorOptions) { o.LoadBalancerResourceGroup, o.ResourceGroup = "", "" }, "--azure-pls-resource-group"},
		{"a VNet that is not one", func(o *OperatorOptions) { o.VNetID = "/subscriptions/" + testSub + "/resourceGroups/x" }, "--azure-vnet-id"},
		{"a VNet in another subscription", func(o *OperatorOptions) {
			o.VNetID = "/subscriptions/22222222-2222-4222-8222-222222222222/resourceGroups/x/providers/Microsoft.Network/virtualNetworks/v"
		}, "--azure-vnet-id"},
		{"no namespace", func(o *OperatorOptions) { o.Namespace = "" }, "--namespace"},
		{"no location", func(o *OperatorOptions) { o.Location = "" }, "--location"},
		{"an issuer that is not https", func(o *OperatorOptions) { o.IssuerURL = "http://oidc.example.com" }, "--oidc-issuer-url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := validOperatorOptions()
			tc.change(&o)
			if err := o.validate(true); err == nil || !strings.Contains(err.Error(), tc.flag) {
				t.Errorf("validate = %v, want an error naming %s", err, tc.flag)
			}
		})
	}
	if err := validOperatorOptions().validate(true); err != nil {
		t.Errorf("valid options refused: %v", err)
	}
}
