package azure

import (
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// Network interfaces: each IP configuration takes an address in its subnet.
// A private endpoint's interface is created and deleted with the endpoint
// and cannot be changed or deleted on its own.

func init() {
	Register(TypeSpec{
		Type: typeNetworkInterface, APIVersions: networkAPIVersions, RequiresLocation: true,
		Put: putNetworkInterface, Get: getNetworkResource, List: listNetworkResources(typeNetworkInterface),
		Delete: deleteNetworkInterface, Patch: patchNetworkInterface,
	})
}

func putNetworkInterface(req *Request, existing *Resource) (*Reply, *Error) {
	if err := busy(req, existing); err != nil {
		return nil, err
	}
	if err := managedByEndpoint(existing); err != nil {
		return nil, err
	}
	props := &armnetwork.InterfacePropertiesFormat{}
	env, err := req.Envelope(props)
	if err != nil {
		return nil, err
	}
	if len(props.IPConfigurations) == 0 {
		return nil, BadRequest("InvalidRequestFormat", "Cannot parse the request: network interface %s has no IP configuration.", req.ID)
	}
	props.PrivateEndpoint, props.MacAddress = nil, nil
	mine := idsPrefixed(req.ID.String())
	for i, c := range props.IPConfigurations {
		if c == nil || deref(c.Name) == "" || c.Properties == nil {
			return nil, BadRequest("InvalidRequestFormat", "Cannot parse the request: every IP configuration of network interface %s needs a name and properties.", req.ID)
		}
		id := childID(req.ID, "ipConfigurations", deref(c.Name))
		subnet, _, err := subnetOf(req, c.Properties.Subnet)
		if err != nil {
			return nil, err
		}
		addr, method, err := assignIP(req, subnet, id, c.Properties.PrivateIPAllocationMethod, c.Properties.PrivateIPAddress, mine)
		if err != nil {
			return nil, err
		}
		c.ID = ptr(id)
		c.Properties.Subnet = &armnetwork.Subnet{ID: ptr(subnet.ID.String())}
		c.Properties.PrivateIPAddress, c.Properties.PrivateIPAllocationMethod = ptr(addr), ptr(method)
		c.Properties.PrivateIPAddressVersion = ptr(armnetwork.IPVersionIPv4)
		c.Properties.Primary = ptr(i == 0)
		c.Properties.ProvisioningState = succeeded
	}
	props.ResourceGUID = keepGUID(existing, func(r *Resource) *string {
		return r.Properties.(*armnetwork.InterfacePropertiesFormat).ResourceGUID
	})
	return &Reply{Resource: req.NewResource(env, props), Transition: networkTransition(req, delayNetworkInterfaceUpdating)}, nil
}

// managedByEndpoint refuses changes to a private endpoint's interface.
func managedByEndpoint(r *Resource) *Error {
	if r == nil {
		return nil
	}
	p := r.Properties.(*armnetwork.InterfacePropertiesFormat)
	if p.PrivateEndpoint == nil {
		return nil
	}
	return BadRequest("CannotModifyNicAttachedToPrivateEndpoint",
		"Network interface %s is attached to private endpoint %s. It can not be modified by user.", r.ID, deref(p.PrivateEndpoint.ID))
}

func deleteNetworkInterface(req *Request, r *Resource) (*Reply, *Error) {
	if err := busy(req, r); err != nil {
		return nil, err
	}
	if err := managedByEndpoint(r); err != nil {
		return nil, err
	}
	return &Reply{Transition: deletingTransition(req)}, nil
}

// interfacesOfEndpoint lists the interfaces a private endpoint owns.
func interfacesOfEndpoint(s *Store, endpointID string) []*Resource {
	return s.Find(typeNetworkInterface, func(r *Resource) bool {
		p := r.Properties.(*armnetwork.InterfacePropertiesFormat)
		return p.PrivateEndpoint != nil && strings.EqualFold(deref(p.PrivateEndpoint.ID), endpointID)
	})
}

// patchNetworkInterface updates tags, except on an endpoint's interface.
func patchNetworkInterface(req *Request, r *Resource) (*Reply, *Error) {
	if err := managedByEndpoint(r); err != nil {
		return nil, err
	}
	var body struct {
		Tags map[string]string `json:"tags"`
	}
	if err := req.Decode(&body); err != nil {
		return nil, err
	}
	if body.Tags != nil {
		r.Tags = body.Tags
	}
	return &Reply{Resource: r}, nil
}
