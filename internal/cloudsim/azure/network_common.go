package azure

import (
	"net/netip"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// Helpers the Microsoft.Network handlers share.

// asARM turns a rule's refusal into the framework's ARM error (a 400).
func asARM(e *networkRuleError) *Error {
	if e == nil {
		return nil
	}
	return BadRequest(e.Code, "%s", e.Message)
}

// linkedAuthorize is req.AuthorizeLinked (LinkedAuthorizationFailed); kept
// because the Private DNS handlers call it by this name.
func linkedAuthorize(req *Request, action, linkedScope string) *Error {
	return req.AuthorizeLinked(action, linkedScope)
}

// Action strings checked on linked resources.
const (
	actionSubnetJoin        = "Microsoft.Network/virtualNetworks/subnets/join/action"
	actionFrontendJoin      = "Microsoft.Network/loadBalancers/frontendIPConfigurations/join/action"
	actionConnectionApprove = "Microsoft.Network/privateLinkServices/privateEndpointConnectionsApproval/action"
)

// networkTransition is the Updating state a network write shows for delay.
func networkTransition(req *Request, delay string) *Transition {
	return &Transition{State: "Updating", Duration: req.Delay(delay)}
}

// deletingTransition is the Deleting state of a network delete.
func deletingTransition(req *Request) *Transition {
	return &Transition{State: "Deleting", Duration: req.Delay(delayNetworkDeleting)}
}

// busy refuses a write to a resource whose operation is still running,
// naming the operation's status URL as NRP does.
func busy(req *Request, r *Resource) *Error {
	if r == nil || r.Operation == nil {
		return nil
	}
	op := r.Operation
	return ErrAnotherOperationInProgress(r.ID, baseURL(req.HTTP)+"/subscriptions/"+op.Subscription+"/providers/"+op.Namespace+
		"/locations/"+op.Location+"/operations/"+op.ID+"?api-version="+req.APIVersion)
}

// busyNetwork is busy for a virtual network and every subnet in it: the
// network provider runs one operation at a time on a VNet and its children.
func busyNetwork(req *Request, vnet ID) *Error {
	if err := busy(req, req.Store.Get(vnet)); err != nil {
		return err
	}
	for _, sr := range req.Store.List(vnet, typeSubnet) {
		if err := busy(req, sr); err != nil {
			return err
		}
	}
	return nil
}

// subnetOf resolves a subnet reference of resource referencedBy: it must
// exist (InvalidResourceReference) and the caller must be allowed to join
// it (LinkedAuthorizationFailed).
func subnetOf(req *Request, ref *armnetwork.Subnet) (*Resource, *armnetwork.SubnetPropertiesFormat, *Error) {
	if ref == nil || ref.ID == nil || *ref.ID == "" {
		return nil, nil, BadRequest("InvalidRequestFormat", "Cannot parse the request: the subnet of resource %s is required.", req.ID)
	}
	r := req.Store.GetByString(*ref.ID)
	if r == nil || !strings.EqualFold(r.Type, typeSubnet) {
		return nil, nil, ErrInvalidResourceReference(*ref.ID, req.ID.String())
	}
	if err := req.AuthorizeLinked(actionSubnetJoin, r.ID.String()); err != nil {
		return nil, nil, err
	}
	return r, r.Properties.(*armnetwork.SubnetPropertiesFormat), nil
}

// subnetPrefix is the subnet's (first) address prefix.
func subnetPrefix(p *armnetwork.SubnetPropertiesFormat) netip.Prefix {
	s := deref(p.AddressPrefix)
	if s == "" && len(p.AddressPrefixes) > 0 {
		s = deref(p.AddressPrefixes[0])
	}
	pfx, _ := netip.ParsePrefix(s)
	return pfx
}

// assignIP gives an IP configuration its address in subnet: the requested
// static one, checked, or the lowest free one. mine tells the configurations
// of the resource being written, whose current addresses do not count as taken.
func assignIP(req *Request, subnet *Resource, ipConfigID string, method *armnetwork.IPAllocationMethod, requested *string, mine func(string) bool, taken ...netip.Addr) (string, armnetwork.IPAllocationMethod, *Error) {
	props := subnet.Properties.(*armnetwork.SubnetPropertiesFormat)
	prefix := subnetPrefix(props)
	used := usedAddresses(req.Store, subnet.ID.String(), mine)
	for _, a := range taken {
		used[a] = "another configuration of " + req.ID.String()
	}
	static := method != nil && *method == armnetwork.IPAllocationMethodStatic
	if static || (method == nil && deref(requested) != "") {
		a, err := checkStaticIP(ipConfigID, subnet.ID.String(), prefix, deref(requested), used)
		if err != nil {
			return "", "", asARM(err)
		}
		return a.String(), armnetwork.IPAllocationMethodStatic, nil
	}
	// A dynamic configuration keeps the address it already holds.
	if cur := deref(requested); cur != "" {
		if a, err := netip.ParseAddr(cur); err == nil && prefix.Contains(a) && !isReservedAddress(prefix, a) {
			if _, taken := used[a]; !taken {
				return a.String(), armnetwork.IPAllocationMethodDynamic, nil
			}
		}
	}
	a, err := allocateDynamicIP(subnet.ID.String(), prefix, used)
	if err != nil {
		return "", "", asARM(err)
	}
	return a.String(), armnetwork.IPAllocationMethodDynamic, nil
}

// childID is the ID of an inline child (a frontend, an IP configuration).
func childID(parent ID, typ, name string) string {
	return parent.String() + "/" + typ + "/" + name
}

// idsPrefixed builds a func telling whether an ID lies beneath prefix.
func idsPrefixed(prefix string) func(string) bool {
	p := strings.ToLower(prefix) + "/"
	return func(id string) bool { return strings.HasPrefix(strings.ToLower(id), p) }
}

func ptr[T any](v T) *T { return &v }

var succeeded = ptr(armnetwork.ProvisioningStateSucceeded)
