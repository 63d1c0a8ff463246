package azureprivatelink

import (
	"context"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// ValidatorFieldOwner is the field manager of the validator's condition.
const ValidatorFieldOwner = "hcplink-azure-validation"

// GuestNetwork is what the validator reads in the customer's
// subscription: the methods of azurecloud.GuestNetwork (nil for what does
// not exist; errors classified).
type GuestNetwork interface {
	ResourceGroup(ctx context.Context, name string) (*armresources.ResourceGroup, error)
	VNet(ctx context.Context, resourceGroup, name string) (*armnetwork.VirtualNetwork, error)
}

var _ GuestNetwork = (*azurecloud.GuestNetwork)(nil)

// GuestNetworkFactory gives the guest network reader of a subscription.
type GuestNetworkFactory interface {
	GuestNetwork(subscriptionID string) (GuestNetwork, error)
}

// Validator checks, once per generation of an Azure HostedControlPlane
// with the private configuration, what its guest credentials can see of
// its settings (AzureConfigurationValid): the resource group, the VNet and
// subnet, and that spec.location is the VNet's. Until it is True the
// router controller gives the private router no load balancer (see
// MayCreateRouters), so invalid settings create nothing anywhere, and
// deleting such a cluster has nothing to wait for. A False check is
// rechecked at growing intervals (the customer may create what is
// missing); a True one is not repeated until the spec changes.
type Validator struct {
	Client  client.Client
	Cloud   GuestNetworkFactory
	Tracker *outcome.Tracker
}

// SetupWithManager registers the validator for HostedControlPlane specs.
func (v *Validator) SetupWithManager(mgr ctrl.Manager) error {
	if v.Client == nil {
		v.Client = mgr.GetClient()
	}
	if v.Tracker == nil {
		v.Tracker = &outcome.Tracker{}
	}
	return reconcilekit.OnControlPlaneSpec(mgr, "azurevalidation", v)
}

// Reconcile checks the cluster's settings unless this generation was
// found valid already (reconcilekit.SettingsCheck).
func (v *Validator) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return reconcilekit.SettingsCheck{Client: v.Client, Tracker: v.Tracker, Condition: hcplinkv1beta1.AzureConfigurationValidCondition, FieldOwner: ValidatorFieldOwner,
		Due: func(hcp *hcplinkv1beta1.HostedControlPlane) bool {
			return PrivateConfigured(hcp) && !ConfigurationValidated(hcp)
		},
		Check: v.check}.Reconcile(ctx, req)
}

// check reads the VNet (its subnets inline) and, unless the VNet was
// found in the cluster's resource group (which proves the group exists),
// the resource group: one read, or two.
func (v *Validator) check(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane) outcome.Outcome {
	az := hcp.Spec.Platform.Azure
	guest, err := v.Cloud.GuestNetwork(az.SubscriptionID)
	if err != nil {
		return outcome.FromError(err)
	}
	vnet, err := guest.VNet(ctx, azurecloud.ResourceGroupOf(az.VnetID), azurecloud.NameOf(az.VnetID))
	if err != nil {
		return outcome.FromError(err)
	}
	rgFound := vnet != nil && strings.EqualFold(azurecloud.ResourceGroupOf(az.VnetID), az.ResourceGroupName)
	if !rgFound {
		rg, err := guest.ResourceGroup(ctx, az.ResourceGroupName)
		if azurecloud.ErrorCode(err) == azurecloud.CodeAuthorizationFailed {
			// ARM answers 403, not 404, for a resource group the identity
			// holds no role on: a group that does not exist looks the same
			// to an identity whose role is scoped to the cluster's resource
			// group. Either way the field, or the identity's role on it, is
			// what to fix.
			rg, err = nil, nil
		}
		if err != nil {
			return outcome.FromError(err)
		}
		rgFound = rg != nil
	}
	return ValidateGuestNetwork(az, rgFound, vnet)
}

// ValidateGuestNetwork is the verdict on a cluster's Azure settings given
// whether its resource group exists and its VNet as read (nil when absent):
// Ready when all hold, else a wait on a person naming the field to fix.
func ValidateGuestNetwork(az *hcplinkv1beta1.AzurePlatformSpec, resourceGroupFound bool, vnet *armnetwork.VirtualNetwork) outcome.Outcome {
	invalid := func(reason, message string) outcome.Outcome {
		return outcome.WaitOnPerson(reason, message+"; nothing is created for the cluster until it is fixed")
	}
	switch {
	case !resourceGroupFound:
		return invalid(hcplinkv1beta1.AzureResourceGroupNotFoundReason,
			"Resource group "+az.ResourceGroupName+" (spec.platform.azure.resourceGroup) does not exist in the cluster's subscription, or the control-plane operator's identity holds no role on it: correct the field, create the group, or give the identity its role there")
	case vnet == nil:
		return invalid(hcplinkv1beta1.AzureVNetNotFoundReason,
			"VNet "+azurecloud.NameOf(az.VnetID)+" (spec.platform.azure.vnetID) does not exist in resource group "+azurecloud.ResourceGroupOf(az.VnetID)+": create it or correct the field")
	case !hasSubnet(vnet, az.SubnetID):
		return invalid(hcplinkv1beta1.AzureSubnetNotFoundReason,
			"Subnet "+azurecloud.NameOf(az.SubnetID)+" (spec.platform.azure.subnetID) is not a subnet of VNet "+azurecloud.NameOf(az.VnetID)+": create it or correct the field")
	case !strings.EqualFold(normalizeLocation(az.Location), normalizeLocation(deref(vnet.Location))):
		return invalid(hcplinkv1beta1.AzureLocationMismatchReason,
			"spec.platform.azure.location is "+az.Location+" but VNet "+azurecloud.NameOf(az.VnetID)+" is in "+deref(vnet.Location)+
				": a Private Endpoint must be in its VNet's location; set the field to "+deref(vnet.Location))
	}
	return outcome.Ready(hcplinkv1beta1.AzureSuccessReason,
		"Resource group "+az.ResourceGroupName+", VNet "+azurecloud.NameOf(az.VnetID)+" and subnet "+azurecloud.NameOf(az.SubnetID)+" exist in "+deref(vnet.Location), 0)
}

func hasSubnet(vnet *armnetwork.VirtualNetwork, subnetID string) bool {
	if vnet.Properties == nil {
		return false
	}
	for _, s := range vnet.Properties.Subnets {
		if s != nil && strings.EqualFold(deref(s.Name), azurecloud.NameOf(subnetID)) {
			return true
		}
	}
	return false
}

// normalizeLocation compares "East US" and "eastus" alike.
func normalizeLocation(l string) string { return strings.ToLower(strings.ReplaceAll(l, " ", "")) }

// ConfigurationValidated reports whether the cluster's Azure settings were
// found valid for its current generation.
func ConfigurationValidated(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	c := meta.FindStatusCondition(hcp.Status.Conditions, hcplinkv1beta1.AzureConfigurationValidCondition)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == hcp.Generation
}

// MayCreateRouters is the router controller's gate: a Service that does not
// exist yet is created for an Azure cluster with the private configuration
// only once its settings were found valid (nothing is created for invalid
// input); other clusters are not held.
func MayCreateRouters(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	return !PrivateConfigured(hcp) || ConfigurationValidated(hcp)
}
