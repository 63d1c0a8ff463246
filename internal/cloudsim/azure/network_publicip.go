package azure

import (
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// Public IP addresses, as far as a public load balancer needs them: an
// address handed out at creation, and no deletion while a frontend uses it.

func init() {
	Register(TypeSpec{
		Type: typePublicIPAddress, APIVersions: networkAPIVersions, RequiresLocation: true,
		Put: putPublicIPAddress, Get: getNetworkResource, List: listNetworkResources(typePublicIPAddress),
		Delete: deletePublicIPAddress,
	})
}

func putPublicIPAddress(req *Request, existing *Resource) (*Reply, *Error) {
	if err := busy(req, existing); err != nil {
		return nil, err
	}
	props := &armnetwork.PublicIPAddressPropertiesFormat{}
	env, err := req.Envelope(props)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		props.IPAddress = existing.Properties.(*armnetwork.PublicIPAddressPropertiesFormat).IPAddress
	} else {
		props.IPAddress = ptr(nextPublicAddress(req.Store))
	}
	if props.PublicIPAllocationMethod == nil {
		props.PublicIPAllocationMethod = ptr(armnetwork.IPAllocationMethodStatic)
	}
	if props.PublicIPAddressVersion == nil {
		props.PublicIPAddressVersion = ptr(armnetwork.IPVersionIPv4)
	}
	props.ResourceGUID = keepGUID(existing, func(r *Resource) *string {
		return r.Properties.(*armnetwork.PublicIPAddressPropertiesFormat).ResourceGUID
	})
	return &Reply{Resource: req.NewResource(env, props), Transition: networkTransition(req, delayNetworkInterfaceUpdating)}, nil
}

// nextPublicAddress hands out addresses from 20.0.0.0/8 (a documentation
// stand-in for Azure's public ranges), skipping those in use.
func nextPublicAddress(s *Store) string {
	taken := map[string]bool{}
	for _, r := range s.Find(typePublicIPAddress, nil) {
		taken[deref(r.Properties.(*armnetwork.PublicIPAddressPropertiesFormat).IPAddress)] = true
	}
	for i := 1; ; i++ {
		a := fmt.Sprintf("20.%d.%d.%d", (i>>16)&0xff, (i>>8)&0xff, i&0xff)
		if !taken[a] {
			return a
		}
	}
}

func deletePublicIPAddress(req *Request, r *Resource) (*Reply, *Error) {
	if err := busy(req, r); err != nil {
		return nil, err
	}
	for _, lb := range req.Store.Find(typeLoadBalancer, nil) {
		for _, fe := range lb.Properties.(*loadBalancerProps).FrontendIPConfigurations {
			if fe.Properties != nil && fe.Properties.PublicIPAddress != nil && strings.EqualFold(deref(fe.Properties.PublicIPAddress.ID), r.ID.String()) {
				return nil, BadRequest("PublicIPAddressCannotBeDeleted",
					"Public IP address %s can not be deleted since it is still allocated to resource %s. In order to delete the public IP, disassociate/detach the Public IP address from the resource.  To learn how to do this, see aka.ms/deletepublicip.", r.ID, deref(fe.ID))
			}
		}
	}
	return &Reply{Transition: deletingTransition(req)}, nil
}
