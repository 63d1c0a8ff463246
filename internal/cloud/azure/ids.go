package azure

import (
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"

	"github.com/hcplink/hcplink/internal/cloud"
)

// SubnetRef is a subnet's place: its subscription, resource group, VNet
// and name, read from its resource ID.
type SubnetRef struct {
	SubscriptionID string
	ResourceGroup  string
	VNet           string
	Name           string
}

// ParseSubnetID reads a subnet's resource ID
// (/subscriptions/<s>/resourceGroups/<rg>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<name>).
// The error is a classified invalid_input *cloud.Error.
func ParseSubnetID(id string) (SubnetRef, error) {
	r, err := arm.ParseResourceID(id)
	if err != nil || !strings.EqualFold(r.ResourceType.String(), "Microsoft.Network/virtualNetworks/subnets") || r.Parent == nil {
		return SubnetRef{}, invalidID("subnet", id)
	}
	return SubnetRef{SubscriptionID: r.SubscriptionID, ResourceGroup: r.ResourceGroupName, VNet: r.Parent.Name, Name: r.Name}, nil
}

// ID is the subnet's resource ID.
func (s SubnetRef) ID() string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/virtualNetworks/%s/subnets/%s", s.SubscriptionID, s.ResourceGroup, s.VNet, s.Name)
}

// VNetID is the resource ID of the subnet's VNet.
func (s SubnetRef) VNetID() string {
	return VNetRef{SubscriptionID: s.SubscriptionID, ResourceGroup: s.ResourceGroup, Name: s.VNet}.ID()
}

// VNetRef is a VNet's place.
type VNetRef struct {
	SubscriptionID string
	ResourceGroup  string
	Name           string
}

// ParseVNetID reads a VNet's resource ID; the error is a classified
// invalid_input *cloud.Error.
func ParseVNetID(id string) (VNetRef, error) {
	r, err := arm.ParseResourceID(id)
	if err != nil || !strings.EqualFold(r.ResourceType.String(), "Microsoft.Network/virtualNetworks") {
		return VNetRef{}, invalidID("virtual network", id)
	}
	return VNetRef{SubscriptionID: r.SubscriptionID, ResourceGroup: r.ResourceGroupName, Name: r.Name}, nil
}

// ID is the VNet's resource ID.
func (v VNetRef) ID() string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/virtualNetworks/%s", v.SubscriptionID, v.ResourceGroup, v.Name)
}

// SubscriptionOf is the subscription of any resource ID ("" when id is not
// one).
func SubscriptionOf(id string) string {
	r, err := arm.ParseResourceID(id)
	if err != nil {
		return ""
	}
	return r.SubscriptionID
}

// ResourceGroupOf is the resource group of any resource ID ("" when id is
// not one).
func ResourceGroupOf(id string) string {
	r, err := arm.ParseResourceID(id)
	if err != nil {
		return ""
	}
	return r.ResourceGroupName
}

// ResourceGroupOfNode is the resource group of a Node's spec.providerID
// when it is an Azure VM (or scale-set VM) in subscription: the Azure
// cloud provider, AKS and OpenShift on Azure write
// azure:///subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.Compute/...
// and the cluster's internal load balancers live in that group. "" when
// the ID is not one, or is in another subscription.
func ResourceGroupOfNode(providerID, subscription string) string {
	id, ok := strings.CutPrefix(providerID, "azure://")
	if !ok || !strings.HasPrefix(id, "/subscriptions/") {
		return ""
	}
	if !strings.EqualFold(SubscriptionOf(id), subscription) {
		return ""
	}
	return ResourceGroupOf(id)
}

// NameOf is the last name of any resource ID ("" when id is not one).
func NameOf(id string) string {
	r, err := arm.ParseResourceID(id)
	if err != nil {
		return ""
	}
	return r.Name
}

// invalidID says, without repeating the ID (it carries a subscription), that
// a resource ID is malformed.
// PrivateZoneID is the resource ID of the private DNS zone zone in a
// subscription's resource group (what ARM answers as the zone's id).
func PrivateZoneID(subscription, resourceGroup, zone string) string {
	return fmt.Sprintf("/subscriptions/%s/resourceGroups/%s/providers/Microsoft.Network/privateDnsZones/%s", subscription, resourceGroup, zone)
}

func invalidID(what, id string) error {
	msg := "the " + what + " ID is not a valid Azure resource ID of a " + what + "."
	if id == "" {
		msg = "the " + what + " ID is empty."
	}
	return &cloud.Error{Doing: "reading the " + what + " ID", Class: cloud.ClassInvalidInput, Code: "InvalidResourceID", Message: msg}
}
