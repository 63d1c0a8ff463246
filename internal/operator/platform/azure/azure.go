// Package azureplatform registers Azure Private Link with the management
// operator's platform registry. Only what exists today is registered: the
// AzurePrivateLinkService kind, its aggregated condition, and what its
// finalizers would leave behind. There is no management-side controller
// and no final customer-side sweep yet; adding them changes this package
// only.
package azureplatform

import (
	"context"
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// Name is the --private-platform value of Azure.
const Name = "Azure"

// Platform describes Azure Private Link.
func Platform() platform.Platform {
	return platform.Platform{
		Name:           Name,
		Type:           hcplinkv1beta1.AzurePlatform,
		Kind:           "AzurePrivateLinkService",
		Prototype:      &hcplinkv1beta1.AzurePrivateLinkService{},
		ConditionTypes: []string{hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition},
		AppliesTo:      isPrivate,
		List:           list,
	}
}

func isPrivate(hc *hcplinkv1beta1.HostedCluster) bool {
	p := hc.Spec.Platform
	return p.Type == hcplinkv1beta1.AzurePlatform && p.Azure != nil && p.Azure.Topology.IsPrivate()
}

func list(ctx context.Context, c client.Reader, namespace string, _ *hcplinkv1beta1.HostedCluster) ([]platform.Object, error) {
	items := &hcplinkv1beta1.AzurePrivateLinkServiceList{}
	if err := c.List(ctx, items, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	out := make([]platform.Object, 0, len(items.Items))
	for i := range items.Items {
		o := &items.Items[i]
		out = append(out, platform.Object{Object: o, Conditions: o.Status.Conditions, Fallback: describe(o)})
	}
	return out, nil
}

// describe names the cloud resources the object recorded in its status.
func describe(o *hcplinkv1beta1.AzurePrivateLinkService) string {
	var parts []string
	add := func(label, value string) {
		if value != "" {
			parts = append(parts, label+" "+value)
		}
	}
	st := o.Status
	add("Private Link Service", st.PrivateLinkServiceID)
	add("Private Endpoint", st.PrivateEndpointID)
	if st.PrivateDNSZoneID != "" {
		add("Private DNS zone", st.PrivateDNSZoneID)
	} else {
		add("Private DNS zone", st.DNSZoneName)
	}
	if st.NATSubnetID != "" && !strings.EqualFold(st.NATSubnetID, o.Spec.NATSubnetID) {
		add("NAT subnet (created by hcplink)", st.NATSubnetID)
	}
	where := fmt.Sprintf(" (subscription %s, resource group %s)", o.Spec.SubscriptionID, o.Spec.ResourceGroupName)
	if len(parts) == 0 {
		return "AzurePrivateLinkService " + o.Name + where + ": no cloud resource IDs were recorded; look for resources tagged for the cluster"
	}
	return "AzurePrivateLinkService " + o.Name + where + ": " + strings.Join(parts, ", ")
}
