package azure

import (
	"net/netip"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// Virtual networks and their subnets. A subnet is stored as a child
// resource; a virtual network's PUT carries the whole set of its subnets
// (those left out are deleted, as on Azure), and its GET shows them inline.

func init() {
	Register(TypeSpec{
		Type: typeVirtualNetwork, APIVersions: networkAPIVersions, RequiresLocation: true,
		Put: putVirtualNetwork, Get: getNetworkResource, List: listNetworkResources(typeVirtualNetwork),
		Delete: deleteVirtualNetwork,
	})
	Register(TypeSpec{
		Type: typeSubnet, APIVersions: networkAPIVersions,
		Put: putSubnet, Get: getNetworkResource, List: listNetworkResources(typeSubnet),
		Delete: deleteSubnet,
	})
}

// getNetworkResource answers a GET with the derived fields brought up to date.
func getNetworkResource(req *Request, r *Resource) (*Reply, *Error) {
	refreshNetworkViews(req.Store, r)
	return &Reply{Resource: r}, nil
}

// listNetworkResources lists a type beneath the parent, with derived fields.
func listNetworkResources(typ string) func(req *Request, parent ID) ([]*Resource, *Error) {
	return func(req *Request, parent ID) ([]*Resource, *Error) {
		items := req.Store.List(parent, typ)
		for _, r := range items {
			refreshNetworkViews(req.Store, r)
		}
		return items, nil
	}
}

// refreshNetworkViews recomputes what a resource shows of others: a VNet's
// subnets, a subnet's users, a service's connections, an endpoint's state.
func refreshNetworkViews(s *Store, r *Resource) {
	switch r.Type {
	case typeVirtualNetwork:
		p := r.Properties.(*armnetwork.VirtualNetworkPropertiesFormat)
		p.Subnets = []*armnetwork.Subnet{}
		for _, sr := range s.List(r.ID, typeSubnet) {
			refreshNetworkViews(s, sr)
			p.Subnets = append(p.Subnets, subnetWire(sr))
		}
	case typeSubnet:
		p := r.Properties.(*armnetwork.SubnetPropertiesFormat)
		p.IPConfigurations, p.PrivateEndpoints = nil, nil
		for _, c := range subnetIPConfigs(s, r.ID.String()) {
			p.IPConfigurations = append(p.IPConfigurations, &armnetwork.IPConfiguration{ID: ptr(c.ID)})
		}
		for _, pe := range subnetPrivateEndpoints(s, r.ID.String()) {
			p.PrivateEndpoints = append(p.PrivateEndpoints, &armnetwork.PrivateEndpoint{ID: ptr(pe)})
		}
	case typePrivateLinkService:
		refreshPrivateLinkService(s, r)
	case typePrivateEndpoint:
		refreshPrivateEndpoint(s, r)
	}
}

// subnetWire is a subnet as its VNet shows it inline.
func subnetWire(r *Resource) *armnetwork.Subnet {
	p := *r.Properties.(*armnetwork.SubnetPropertiesFormat)
	p.ProvisioningState = ptr(armnetwork.ProvisioningState(r.ProvisioningState))
	return &armnetwork.Subnet{ID: ptr(r.ID.String()), Name: ptr(r.Name()), Type: ptr(typeSubnet), Etag: ptr(r.ETag), Properties: &p}
}

// --- virtual networks ---

func putVirtualNetwork(req *Request, existing *Resource) (*Reply, *Error) {
	if err := busyNetwork(req, req.ID); err != nil {
		return nil, err
	}
	props := &armnetwork.VirtualNetworkPropertiesFormat{}
	env, err := req.Envelope(props)
	if err != nil {
		return nil, err
	}
	if existing != nil && NormalizeLocation(env.Location) != existing.Location {
		return nil, BadRequest("InvalidResourceLocation", "The resource '%s' already exists in location '%s' in resource group '%s'. A resource with the same name cannot be created in location '%s'. Please select a new resource name.", req.ID.Name(), existing.Location, req.ID.ResourceGroup, NormalizeLocation(env.Location))
	}
	spaces, aerr := addressSpaces(req, props)
	if aerr != nil {
		return nil, aerr
	}
	desired, aerr := desiredSubnets(req, props.Subnets, spaces)
	if aerr != nil {
		return nil, aerr
	}
	// Subnets left out of the body are deleted, unless something uses them.
	if existing != nil {
		for _, sr := range req.Store.List(req.ID, typeSubnet) {
			if _, keep := desired[strings.ToLower(sr.Name())]; !keep {
				if err := subnetInUse(req.Store, sr); err != nil {
					return nil, err
				}
			}
		}
	}
	subnets := props.Subnets
	props.Subnets = nil
	props.ResourceGUID = keepGUID(existing, func(r *Resource) *string {
		return r.Properties.(*armnetwork.VirtualNetworkPropertiesFormat).ResourceGUID
	})
	res := req.NewResource(env, props)
	if existing != nil {
		res.CreatedAt, res.CreatedBy = existing.CreatedAt, existing.CreatedBy
		for _, sr := range req.Store.List(req.ID, typeSubnet) {
			if _, keep := desired[strings.ToLower(sr.Name())]; !keep {
				req.Cloud.Remove(sr.ID)
			}
		}
	}
	for _, s := range subnets {
		storeSubnet(req, req.ID.Child("subnets", deref(s.Name)), s.Properties)
	}
	refreshNetworkViews(req.Store, res)
	return &Reply{Resource: res, Transition: networkTransition(req, delayVirtualNetworkUpdating)}, nil
}

// addressSpaces parses the VNet's address space (at least one prefix).
func addressSpaces(req *Request, props *armnetwork.VirtualNetworkPropertiesFormat) ([]netip.Prefix, *Error) {
	if props.AddressSpace == nil || len(props.AddressSpace.AddressPrefixes) == 0 {
		return nil, BadRequest("InvalidAddressSpace", "Address space of virtual network %s is not valid: it has no address prefixes.", req.ID)
	}
	var spaces []netip.Prefix
	for _, s := range props.AddressSpace.AddressPrefixes {
		p, err := parseAddressPrefix(deref(s), req.ID.String())
		if err != nil {
			return nil, asARM(err)
		}
		spaces = append(spaces, p)
	}
	return spaces, nil
}

// desiredSubnets checks the subnets a VNet body lists against its address
// space and each other, by lower-cased name.
func desiredSubnets(req *Request, subnets []*armnetwork.Subnet, spaces []netip.Prefix) (map[string]netip.Prefix, *Error) {
	desired := map[string]netip.Prefix{}
	var placed []namedPrefix
	for _, s := range subnets {
		if s == nil || deref(s.Name) == "" || s.Properties == nil {
			return nil, BadRequest("InvalidRequestFormat", "Cannot parse the request: every subnet of virtual network %s needs a name and properties.", req.ID)
		}
		name := deref(s.Name)
		p, err := parseSubnetPrefix(req.ID.Child("subnets", name).String(), s.Properties)
		if err != nil {
			return nil, err
		}
		if rerr := checkSubnetPlacement(name, req.ID.Name(), p, spaces, placed); rerr != nil {
			return nil, asARM(rerr)
		}
		placed = append(placed, namedPrefix{name, p})
		desired[strings.ToLower(name)] = p
	}
	// Addresses already handed out must stay inside their subnet.
	for _, sr := range req.Store.List(req.ID, typeSubnet) {
		if p, ok := desired[strings.ToLower(sr.Name())]; ok {
			if err := checkPrefixKeepsUsers(req.Store, sr, p); err != nil {
				return nil, err
			}
		}
	}
	return desired, nil
}

// parseSubnetPrefix reads addressPrefix (or the first of addressPrefixes).
func parseSubnetPrefix(subnetID string, p *armnetwork.SubnetPropertiesFormat) (netip.Prefix, *Error) {
	s := deref(p.AddressPrefix)
	if s == "" && len(p.AddressPrefixes) > 0 {
		s = deref(p.AddressPrefixes[0])
	}
	if s == "" {
		return netip.Prefix{}, BadRequest("NetcfgInvalidSubnet", "Subnet %s is not valid in its virtual network: it has no address prefix.", subnetID)
	}
	pfx, err := parseAddressPrefix(s, subnetID)
	if err != nil {
		return netip.Prefix{}, asARM(err)
	}
	return pfx, nil
}

// checkPrefixKeepsUsers refuses a new prefix that would strand an address
// already handed out in the subnet.
func checkPrefixKeepsUsers(s *Store, subnet *Resource, p netip.Prefix) *Error {
	for _, c := range subnetIPConfigs(s, subnet.ID.String()) {
		if a, err := netip.ParseAddr(c.Address); err == nil && !p.Contains(a) {
			return BadRequest("InUseSubnetCannotBeUpdated", "Subnet %s is in use and cannot be updated.", subnet.Name())
		}
	}
	return nil
}

// storeSubnet creates or replaces a subnet child resource with Azure's
// defaults filled in.
func storeSubnet(req *Request, id ID, props *armnetwork.SubnetPropertiesFormat) *Resource {
	p := *props
	p.IPConfigurations, p.PrivateEndpoints, p.ProvisioningState = nil, nil, nil
	if p.PrivateEndpointNetworkPolicies == nil {
		p.PrivateEndpointNetworkPolicies = ptr(armnetwork.VirtualNetworkPrivateEndpointNetworkPoliciesDisabled)
	}
	if p.PrivateLinkServiceNetworkPolicies == nil {
		p.PrivateLinkServiceNetworkPolicies = ptr(armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesEnabled)
	}
	r := &Resource{ID: id, Type: typeSubnet, Properties: &p, ProvisioningState: "Succeeded", ETag: newETag(nil),
		CreatedBy: req.Principal.ObjectID, CreatedAt: req.Now}
	if old := req.Store.Get(id); old != nil {
		r.CreatedAt, r.CreatedBy = old.CreatedAt, old.CreatedBy
	}
	req.Store.Put(r)
	return r
}

func deleteVirtualNetwork(req *Request, r *Resource) (*Reply, *Error) {
	if err := busyNetwork(req, r.ID); err != nil {
		return nil, err
	}
	for _, sr := range req.Store.List(r.ID, typeSubnet) {
		if err := subnetInUse(req.Store, sr); err != nil {
			return nil, err
		}
	}
	return &Reply{Transition: deletingTransition(req)}, nil
}

// --- subnets ---

func putSubnet(req *Request, existing *Resource) (*Reply, *Error) {
	vnet := req.Store.Get(req.ID.Parent())
	if err := busyNetwork(req, vnet.ID); err != nil {
		return nil, err
	}
	props := &armnetwork.SubnetPropertiesFormat{}
	if _, err := req.Envelope(props); err != nil {
		return nil, err
	}
	p, err := parseSubnetPrefix(req.ID.String(), props)
	if err != nil {
		return nil, err
	}
	spaces, err := addressSpaces(req, vnet.Properties.(*armnetwork.VirtualNetworkPropertiesFormat))
	if err != nil {
		return nil, err
	}
	var siblings []namedPrefix
	for _, sr := range req.Store.List(vnet.ID, typeSubnet) {
		siblings = append(siblings, namedPrefix{sr.Name(), subnetPrefix(sr.Properties.(*armnetwork.SubnetPropertiesFormat))})
	}
	if rerr := checkSubnetPlacement(req.ID.Name(), vnet.Name(), p, spaces, siblings); rerr != nil {
		return nil, asARM(rerr)
	}
	if existing != nil {
		if err := checkPrefixKeepsUsers(req.Store, existing, p); err != nil {
			return nil, err
		}
		if err := checkPolicyChange(req.Store, existing, props); err != nil {
			return nil, err
		}
	}
	res := storeSubnet(req, req.ID, props)
	refreshNetworkViews(req.Store, res)
	return &Reply{Resource: res, Transition: networkTransition(req, delaySubnetUpdating)}, nil
}

// checkPolicyChange refuses to turn Private Link Service network policies
// back on in a subnet that holds a service's NAT IP configuration.
func checkPolicyChange(s *Store, subnet *Resource, next *armnetwork.SubnetPropertiesFormat) *Error {
	if next.PrivateLinkServiceNetworkPolicies == nil || *next.PrivateLinkServiceNetworkPolicies != armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesEnabled {
		return nil
	}
	for _, c := range subnetIPConfigs(s, subnet.ID.String()) {
		if strings.Contains(strings.ToLower(c.ID), "/microsoft.network/privatelinkservices/") {
			return BadRequest("PrivateLinkServiceNetworkPoliciesCannotBeEnabledOnPrivateLinkServiceSubnet",
				"Private link service network policies cannot be enabled on private link service subnet %s.", subnet.ID)
		}
	}
	return nil
}

func deleteSubnet(req *Request, r *Resource) (*Reply, *Error) {
	if err := busyNetwork(req, r.ID.Parent()); err != nil {
		return nil, err
	}
	if err := subnetInUse(req.Store, r); err != nil {
		return nil, err
	}
	return &Reply{Transition: deletingTransition(req)}, nil
}

// subnetInUse is Azure's refusal to delete a subnet that still holds an IP
// configuration or a private endpoint.
func subnetInUse(s *Store, subnet *Resource) *Error {
	users := subnetPrivateEndpoints(s, subnet.ID.String())
	for _, c := range subnetIPConfigs(s, subnet.ID.String()) {
		users = append(users, c.ID)
	}
	if len(users) == 0 {
		return nil
	}
	return BadRequest("InUseSubnetCannotBeDeleted",
		"Subnet %s is in use by %s and cannot be deleted. In order to delete the subnet, delete all the resources within the subnet. See aka.ms/deletesubnet.",
		subnet.Name(), users[0])
}

// keepGUID keeps a resource's GUID across updates, or makes one.
func keepGUID(existing *Resource, get func(*Resource) *string) *string {
	if existing != nil {
		if g := get(existing); g != nil {
			return g
		}
	}
	return ptr(newGUID())
}
