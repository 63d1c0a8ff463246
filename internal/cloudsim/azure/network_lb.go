package azure

import (
	"net/netip"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// Load balancers. An internal frontend takes a private IP from its subnet
// (dynamic or static); a public one names a public IP address. The inline
// collections (backend pools, probes, rules) are kept as sent, with IDs.

func init() {
	Register(TypeSpec{
		Type: typeLoadBalancer, APIVersions: networkAPIVersions, RequiresLocation: true,
		Put: putLoadBalancer, Get: getNetworkResource, List: listNetworkResources(typeLoadBalancer),
		Delete: deleteLoadBalancer, Render: renderLoadBalancer,
	})
}

// loadBalancerProps is a load balancer's properties plus its SKU, which
// goes on the wire beside properties, not inside.
type loadBalancerProps struct {
	armnetwork.LoadBalancerPropertiesFormat
	sku *armnetwork.LoadBalancerSKU
}

func renderLoadBalancer(r *Resource, wire map[string]any) {
	if p, ok := r.Properties.(*loadBalancerProps); ok && p.sku != nil {
		wire["sku"] = toMap(p.sku)
	}
}

func putLoadBalancer(req *Request, existing *Resource) (*Reply, *Error) {
	if err := busy(req, existing); err != nil {
		return nil, err
	}
	var body struct {
		SKU *armnetwork.LoadBalancerSKU `json:"sku"`
	}
	if err := req.Decode(&body); err != nil {
		return nil, err
	}
	props := &loadBalancerProps{sku: body.SKU}
	env, err := req.Envelope(&props.LoadBalancerPropertiesFormat)
	if err != nil {
		return nil, err
	}
	if props.sku == nil {
		props.sku = &armnetwork.LoadBalancerSKU{Name: ptr(armnetwork.LoadBalancerSKUNameBasic), Tier: ptr(armnetwork.LoadBalancerSKUTierRegional)}
	}
	mine := idsPrefixed(req.ID.String())
	// Frontends that keep their address are placed first, so that a new
	// one never takes an address another frontend of the load balancer
	// holds (the store's copy of this load balancer is skipped as a whole).
	var taken []netip.Addr
	for _, keeps := range []bool{true, false} {
		for _, fe := range props.FrontendIPConfigurations {
			if fe != nil && fe.Properties != nil && (deref(fe.Properties.PrivateIPAddress) != "") != keeps {
				continue
			}
			if err := placeFrontend(req, fe, mine, taken); err != nil {
				return nil, err
			}
			if fe.Properties != nil {
				if a, err := netip.ParseAddr(deref(fe.Properties.PrivateIPAddress)); err == nil {
					taken = append(taken, a)
				}
			}
		}
	}
	if existing != nil {
		if err := frontendsStillServed(req, existing, props); err != nil {
			return nil, err
		}
	}
	nameChildren(req.ID, props)
	props.ResourceGUID = keepGUID(existing, func(r *Resource) *string {
		return r.Properties.(*loadBalancerProps).ResourceGUID
	})
	res := req.NewResource(env, props)
	return &Reply{Resource: res, Transition: networkTransition(req, delayLoadBalancerUpdating)}, nil
}

// placeFrontend gives an internal frontend its private address, or checks
// a public frontend's public IP reference.
func placeFrontend(req *Request, fe *armnetwork.FrontendIPConfiguration, mine func(string) bool, taken []netip.Addr) *Error {
	if fe == nil || deref(fe.Name) == "" || fe.Properties == nil {
		return BadRequest("InvalidRequestFormat", "Cannot parse the request: every frontend IP configuration of load balancer %s needs a name and properties.", req.ID)
	}
	id := childID(req.ID, "frontendIPConfigurations", deref(fe.Name))
	fe.ID = ptr(id)
	p := fe.Properties
	p.ProvisioningState = succeeded
	if p.Subnet == nil {
		if p.PublicIPAddress == nil || deref(p.PublicIPAddress.ID) == "" {
			return BadRequest("InvalidRequestFormat", "Cannot parse the request: frontend IP configuration %s needs a subnet or a public IP address.", id)
		}
		if pip := req.Store.GetByString(deref(p.PublicIPAddress.ID)); pip == nil || !strings.EqualFold(pip.Type, typePublicIPAddress) {
			return ErrInvalidResourceReference(deref(p.PublicIPAddress.ID), req.ID.String())
		}
		return nil
	}
	subnet, _, err := subnetOf(req, p.Subnet)
	if err != nil {
		return err
	}
	p.Subnet = &armnetwork.Subnet{ID: ptr(subnet.ID.String())}
	addr, method, err := assignIP(req, subnet, id, p.PrivateIPAllocationMethod, p.PrivateIPAddress, mine, taken...)
	if err != nil {
		return err
	}
	p.PrivateIPAddress, p.PrivateIPAllocationMethod = ptr(addr), ptr(method)
	if p.PrivateIPAddressVersion == nil {
		p.PrivateIPAddressVersion = ptr(armnetwork.IPVersionIPv4)
	}
	return nil
}

// frontendsStillServed refuses to drop a frontend a Private Link Service uses.
func frontendsStillServed(req *Request, existing *Resource, next *loadBalancerProps) *Error {
	kept := map[string]bool{}
	for _, fe := range next.FrontendIPConfigurations {
		kept[strings.ToLower(deref(fe.ID))] = true
	}
	for _, fe := range existing.Properties.(*loadBalancerProps).FrontendIPConfigurations {
		if kept[strings.ToLower(deref(fe.ID))] {
			continue
		}
		if pls := serviceUsingFrontend(req.Store, deref(fe.ID)); pls != nil {
			return BadRequest("CannotDeleteLoadBalancerWithPrivateLinkService",
				"Cannot delete load balancer %s since it is referenced by private link service %s. Please delete private link service prior to deleting load balancer.", req.ID, pls.ID)
		}
	}
	return nil
}

// nameChildren gives the inline collections their IDs and states.
func nameChildren(lb ID, p *loadBalancerProps) {
	for _, b := range p.BackendAddressPools {
		if b != nil && b.Name != nil {
			b.ID = ptr(childID(lb, "backendAddressPools", *b.Name))
		}
	}
	for _, pr := range p.Probes {
		if pr != nil && pr.Name != nil {
			pr.ID = ptr(childID(lb, "probes", *pr.Name))
		}
	}
	for _, r := range p.LoadBalancingRules {
		if r != nil && r.Name != nil {
			r.ID = ptr(childID(lb, "loadBalancingRules", *r.Name))
		}
	}
}

// serviceUsingFrontend is the Private Link Service in front of a frontend, if any.
func serviceUsingFrontend(s *Store, frontendID string) *Resource {
	for _, r := range s.Find(typePrivateLinkService, nil) {
		for _, fe := range r.Properties.(*armnetwork.PrivateLinkServiceProperties).LoadBalancerFrontendIPConfigurations {
			if fe != nil && strings.EqualFold(deref(fe.ID), frontendID) {
				return r
			}
		}
	}
	return nil
}

func deleteLoadBalancer(req *Request, r *Resource) (*Reply, *Error) {
	if err := busy(req, r); err != nil {
		return nil, err
	}
	for _, fe := range r.Properties.(*loadBalancerProps).FrontendIPConfigurations {
		if pls := serviceUsingFrontend(req.Store, deref(fe.ID)); pls != nil {
			return nil, BadRequest("CannotDeleteLoadBalancerWithPrivateLinkService",
				"Cannot delete load balancer %s since it is referenced by private link service %s. Please delete private link service prior to deleting load balancer.", r.ID, pls.ID)
		}
	}
	return &Reply{Transition: deletingTransition(req)}, nil
}

// frontendOf finds a load balancer frontend by ID.
func frontendOf(s *Store, frontendID string) (*Resource, *armnetwork.FrontendIPConfiguration) {
	i := strings.LastIndex(strings.ToLower(frontendID), "/frontendipconfigurations/")
	if i < 0 {
		return nil, nil
	}
	lb := s.GetByString(frontendID[:i])
	if lb == nil || !strings.EqualFold(lb.Type, typeLoadBalancer) {
		return nil, nil
	}
	for _, fe := range lb.Properties.(*loadBalancerProps).FrontendIPConfigurations {
		if strings.EqualFold(deref(fe.ID), frontendID) {
			return lb, fe
		}
	}
	return nil, nil
}
