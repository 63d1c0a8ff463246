// Package azureplatform registers Azure Private Link with the management
// operator's platform registry: the AzurePrivateLinkService kind, its
// aggregated condition, what each finalizer would leave behind, and the
// management-side Private Link Service controller on the operator's own
// identity (configured once, at install: azidentity's environment plus
// the endpoints of internal/cloud/azure). There is no final customer-side
// sweep yet.
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
		Setup:          setup,
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
		out = append(out, object(o))
	}
	return out, nil
}

// object is o as the HostedCluster controller sees it: what each
// finalizer would leave behind if given up (the control-plane operator's:
// the customer side; the operator's: the Private Link Service and the NAT
// subnet it created).
func object(o *hcplinkv1beta1.AzurePrivateLinkService) platform.Object {
	obj := platform.Object{Object: o, Conditions: o.Status.Conditions, Fallback: describe(o), Leaks: map[string]string{}}
	where := fmt.Sprintf("AzurePrivateLinkService %s (subscription %s, resource group %s): ", o.Name, o.Spec.SubscriptionID, o.Spec.ResourceGroupName)
	st := o.Status
	var mgmt []string
	if st.PrivateLinkServiceID != "" {
		mgmt = append(mgmt, "Private Link Service "+st.PrivateLinkServiceID)
	}
	if st.NATSubnetID != "" && !strings.EqualFold(st.NATSubnetID, o.Spec.NATSubnetID) {
		mgmt = append(mgmt, "NAT subnet (created by hcplink) "+st.NATSubnetID)
	}
	if len(mgmt) > 0 {
		obj.Leaks[hcplinkv1beta1.OperatorFinalizer] = where + strings.Join(mgmt, ", ")
	}
	var customer []string
	if st.PrivateEndpointID != "" {
		customer = append(customer, "Private Endpoint "+st.PrivateEndpointID)
	}
	if st.PrivateDNSZoneID != "" {
		customer = append(customer, "Private DNS zone "+st.PrivateDNSZoneID)
	} else if st.DNSZoneName != "" {
		customer = append(customer, "Private DNS zone "+st.DNSZoneName)
	}
	if len(customer) > 0 {
		obj.Leaks[hcplinkv1beta1.ControlPlaneFinalizer] = where + strings.Join(customer, ", ")
	}
	return obj
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
