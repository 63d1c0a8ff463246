// Package azure registers Azure Private Link with the management
// operator's platform registry: which clusters are private on Azure, the
// control-plane operator's workload identity (controlplane.go), the
// placement of routers (placement.go), the AzurePrivateLinkService kind, its
// aggregated condition, what each finalizer would leave behind, and the
// management-side Private Link Service controller on the operator's own
// identity (configured once, at install: azidentity's environment plus
// the endpoints of internal/cloud/azure). There is no final customer-side
// sweep yet.
package azure

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// Name is the --private-platform value of Azure.
const Name = "Azure"

// Options are the operator's own Azure options.
type Options struct {
	// Config is the operator's Azure identity and endpoints; nil reads them
	// from the environment (azidentity's variables, AZURE_SUBSCRIPTION_ID
	// for the management subscription, and the endpoint overrides of
	// internal/cloud/azure).
	Config *azurecloud.Config
	// LoadBalancerConfigurations are the Azure cloud provider's
	// load-balancer configurations the operator places each private
	// cluster's routers on (--azure-load-balancer-configurations); none:
	// the cloud provider's default placement.
	LoadBalancerConfigurations []string
}

// Platform describes Azure Private Link for an operator with opts.
func Platform(opts Options) platform.Platform {
	authorityHost := authorityHost(opts.Config, os.Getenv)
	return platform.Platform{
		Name:      Name,
		Type:      hcplinkv1beta1.AzurePlatform,
		Mechanism: "Azure Private Link",
		IsPrivate: isPrivate,
		PrivacySetting: func(hc *hcplinkv1beta1.HostedCluster) (string, string) {
			return "spec.platform.azure.topology", string(hc.Spec.Platform.Azure.Topology)
		},
		ControlPlaneOperator: func(hc *hcplinkv1beta1.HostedCluster, w *platform.Workload) {
			controlPlaneOperator(hc, authorityHost, w)
		},
		ValidateNodePool: validateNodePool,
		ControlPlaneSpec: controlPlaneSpec,
		Kind:             "AzurePrivateLinkService",
		Resource:         "azureprivatelinkservices",
		Prototype:        &hcplinkv1beta1.AzurePrivateLinkService{},
		// Both sides, as on AWS: the operator's Private Link Service and
		// the control-plane operator's endpoint and DNS.
		ConditionTypes: []string{
			hcplinkv1beta1.AzurePLSCreatedCondition,
			hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition,
		},
		// The control-plane operator checks the cluster's Azure settings
		// (resource group, VNet, subnet) before it makes anything.
		SettingsCondition: hcplinkv1beta1.AzureConfigurationValidCondition,
		List:              list,
		// Five minutes, the reference's: ARM's request buckets are per
		// principal and refill faster than AWS's account-wide ones.
		DriftDefault: intervals.AzureDrift,
		// No orphan sweeper on Azure yet: SweepDefault stays zero.
		Setup: func(ctx context.Context, mgr manager.Manager, so platform.SetupOptions) (platform.Started, error) {
			return setup(ctx, mgr, opts, so)
		},
	}
}

// isPrivate: the API type's test of privacy on Azure.
func isPrivate(hc *hcplinkv1beta1.HostedCluster) bool {
	return hc.Spec.Platform.Type == hcplinkv1beta1.AzurePlatform && hc.Spec.Platform.Azure.IsPrivate()
}

// validateNodePool refuses an Azure NodePool whose subnet is not in its
// cluster's subscription: the cluster's identities cannot reach it.
func validateNodePool(np *hcplinkv1beta1.NodePool, hc *hcplinkv1beta1.HostedCluster) *platform.Problem {
	pool, cluster := np.Spec.Platform.Azure, hc.Spec.Platform.Azure
	if pool == nil || cluster == nil {
		return nil
	}
	if strings.HasPrefix(strings.ToLower(pool.SubnetID), "/subscriptions/"+strings.ToLower(cluster.SubscriptionID)+"/") {
		return nil
	}
	return &platform.Problem{Reason: hcplinkv1beta1.SubnetNotInClusterSubscriptionReason, Message: fmt.Sprintf(
		"spec.platform.azure.subnetID is not in the subscription of HostedCluster %s (its spec.platform.azure.subscriptionID); use a subnet of the cluster's subscription",
		hc.Name)}
}

// controlPlaneSpec records, in the HostedControlPlane, the load-balancer
// configuration the routers were placed on (written to the cluster's
// status before its control plane exists, so that the routers are made
// where it says).
func controlPlaneSpec(hc *hcplinkv1beta1.HostedCluster, spec *hcplinkv1beta1.HostedControlPlaneSpec) {
	spec.AzureLoadBalancerConfiguration = hc.Status.AzureLoadBalancerConfiguration
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
// subnet it created). The reports reach conditions and Events, so they
// name resources by name and resource group, never by ID: an ID carries
// its subscription.
func object(o *hcplinkv1beta1.AzurePrivateLinkService) platform.Object {
	obj := platform.Object{Object: o, Conditions: o.Status.Conditions, Fallback: describe(o), Leaks: map[string]string{}}
	where := "AzurePrivateLinkService " + o.Name + ": "
	if mgmt := managementSide(o); len(mgmt) > 0 {
		obj.Leaks[hcplinkv1beta1.OperatorFinalizer] = where + strings.Join(mgmt, ", ")
	}
	if customer := customerSide(o); len(customer) > 0 {
		obj.Leaks[hcplinkv1beta1.ControlPlaneFinalizer] = where + strings.Join(customer, ", ")
	}
	return obj
}

// managementSide names what the operator made in the management
// subscription.
func managementSide(o *hcplinkv1beta1.AzurePrivateLinkService) []string {
	st := o.Status
	var out []string
	if st.PrivateLinkServiceID != "" {
		out = append(out, "Private Link Service "+named(st.PrivateLinkServiceID))
	}
	if st.NATSubnetID != "" && !strings.EqualFold(st.NATSubnetID, o.Spec.NATSubnetID) {
		out = append(out, "NAT subnet (created by hcplink) "+named(st.NATSubnetID))
	}
	return out
}

// customerSide names what the control-plane operator made in the
// cluster's subscription.
func customerSide(o *hcplinkv1beta1.AzurePrivateLinkService) []string {
	st := o.Status
	var out []string
	if st.PrivateEndpointID != "" {
		out = append(out, "Private Endpoint "+named(st.PrivateEndpointID))
	}
	if st.PrivateDNSZoneID != "" {
		out = append(out, "Private DNS zone "+named(st.PrivateDNSZoneID))
	} else if st.DNSZoneName != "" {
		out = append(out, "Private DNS zone "+st.DNSZoneName+" in resource group "+o.Spec.ResourceGroupName)
	}
	return out
}

// describe names the cloud resources the object recorded in its status.
func describe(o *hcplinkv1beta1.AzurePrivateLinkService) string {
	parts := append(managementSide(o), customerSide(o)...)
	if len(parts) == 0 {
		return "AzurePrivateLinkService " + o.Name + " (resource group " + o.Spec.ResourceGroupName + "): no cloud resource IDs were recorded; look for resources tagged for the cluster"
	}
	return "AzurePrivateLinkService " + o.Name + ": " + strings.Join(parts, ", ")
}

// named is a resource ID as "NAME in resource group RG" (a subnet also
// names its VNet); anything else is scrubbed as every Azure message is.
func named(id string) string {
	r, err := arm.ParseResourceID(id)
	if err != nil || r.Name == "" || r.ResourceGroupName == "" {
		return azurecloud.Scrub(id)
	}
	out := r.Name
	if p := r.Parent; p != nil && !strings.EqualFold(p.ResourceType.String(), arm.ResourceGroupResourceType.String()) {
		out += " of " + p.Name
	}
	return out + " in resource group " + r.ResourceGroupName
}
