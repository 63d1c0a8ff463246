package azure

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// Private Link Services: a service in front of internal load balancer
// frontends, with NAT IP configurations in subnets whose Private Link
// Service network policies are disabled, an alias, and visibility and
// auto-approval lists. Its private endpoint connections are child
// resources the endpoints (in any subscription) create.

func init() {
	Register(TypeSpec{
		Type: typePrivateLinkService, APIVersions: networkAPIVersions, RequiresLocation: true,
		Put: putPrivateLinkService, Get: getNetworkResource, List: listNetworkResources(typePrivateLinkService),
		Delete: deletePrivateLinkService, Removed: privateLinkServiceRemoved,
	})
	Register(TypeSpec{
		Type: typePLSConnection, APIVersions: networkAPIVersions,
		Put: putServiceConnection, Delete: deleteServiceConnection,
	})
	Register(TypeSpec{
		Type: "Microsoft.Network/locations", APIVersions: networkAPIVersions, Scope: SubscriptionScoped, Virtual: true,
		Actions: map[string]ResourceFunc{"checkPrivateLinkServiceVisibility": checkPrivateLinkServiceVisibility},
	})
}

// checkPrivateLinkServiceVisibility answers whether the caller's
// subscription may see the service with an alias (the consumer's check
// before creating an endpoint).
func checkPrivateLinkServiceVisibility(req *Request, _ *Resource) (*Reply, *Error) {
	var body armnetwork.CheckPrivateLinkServiceVisibilityRequest
	if err := req.Decode(&body); err != nil {
		return nil, err
	}
	visible := false
	for _, r := range req.Store.Find(typePrivateLinkService, func(r *Resource) bool {
		return strings.EqualFold(deref(r.Properties.(*armnetwork.PrivateLinkServiceProperties).Alias), deref(body.PrivateLinkServiceAlias))
	}) {
		visible = privateLinkServiceVisible(r.ID.Subscription, stringsOf(r.Properties.(*armnetwork.PrivateLinkServiceProperties).Visibility), req.ID.Subscription)
	}
	return &Reply{Body: armnetwork.PrivateLinkServiceVisibility{Visible: ptr(visible)}}, nil
}

func putPrivateLinkService(req *Request, existing *Resource) (*Reply, *Error) {
	if err := busy(req, existing); err != nil {
		return nil, err
	}
	props := &armnetwork.PrivateLinkServiceProperties{}
	env, err := req.Envelope(props)
	if err != nil {
		return nil, err
	}
	if err := checkServiceFrontends(req, props, NormalizeLocation(env.Location)); err != nil {
		return nil, err
	}
	if err := placeNATConfigurations(req, props); err != nil {
		return nil, err
	}
	props.Alias, props.PrivateEndpointConnections, props.NetworkInterfaces = nil, nil, nil
	if existing != nil {
		props.Alias = existing.Properties.(*armnetwork.PrivateLinkServiceProperties).Alias
	} else {
		props.Alias = ptr(privateLinkServiceAlias(req.ID.Name(), newGUID(), NormalizeLocation(env.Location)))
	}
	if props.Visibility == nil {
		props.Visibility = &armnetwork.PrivateLinkServicePropertiesVisibility{Subscriptions: []*string{}}
	}
	if props.AutoApproval == nil {
		props.AutoApproval = &armnetwork.PrivateLinkServicePropertiesAutoApproval{Subscriptions: []*string{}}
	}
	if props.EnableProxyProtocol == nil {
		props.EnableProxyProtocol = ptr(false)
	}
	if props.Fqdns == nil {
		props.Fqdns = []*string{}
	}
	res := req.NewResource(env, props)
	refreshPrivateLinkService(req.Store, res)
	return &Reply{Resource: res, Transition: networkTransition(req, delayPrivateLinkServiceUpdating)}, nil
}

// checkServiceFrontends: at least one frontend, each an existing frontend
// of a load balancer in the service's region that the caller may join. A
// load balancer in another region is, to Azure, not found: it answers
// InvalidResourceReference ("...make sure that the referenced resource
// exists, and that both resources are in the same region"), its answer to
// any cross-region reference between network resources. The endpoints
// that connect may be in any region
// (https://learn.microsoft.com/azure/private-link/private-link-service-overview).
func checkServiceFrontends(req *Request, props *armnetwork.PrivateLinkServiceProperties, location string) *Error {
	if len(props.LoadBalancerFrontendIPConfigurations) == 0 {
		return BadRequest("InvalidRequestFormat", "Cannot parse the request: private link service %s needs at least one load balancer frontend IP configuration.", req.ID)
	}
	for _, fe := range props.LoadBalancerFrontendIPConfigurations {
		id := ""
		if fe != nil {
			id = deref(fe.ID)
		}
		lb, frontend := frontendOf(req.Store, id)
		if frontend == nil || lb.Location != location {
			return ErrInvalidResourceReference(id, req.ID.String())
		}
		if err := req.AuthorizeLinked(actionFrontendJoin, id); err != nil {
			return err
		}
		if n := servicesOnLoadBalancer(req.Store, lb, req.ID); n >= MaxPrivateLinkServicesPerLoadBalancer {
			return BadRequest(CodePrivateLinkServiceLimitOnLoadBalancer,
				"Load balancer %s already has %d private link services; a load balancer can have at most %d.", lb.ID, n, MaxPrivateLinkServicesPerLoadBalancer)
		}
		*fe = armnetwork.FrontendIPConfiguration{ID: ptr(deref(frontend.ID))}
	}
	return nil
}

// MaxPrivateLinkServicesPerLoadBalancer is Azure's limit of Private Link
// Services on one Standard load balancer ("We allow up to eight Private
// Link services per load balancer",
// https://learn.microsoft.com/azure/private-link/private-link-faq, and
// the Private Link limits of
// https://learn.microsoft.com/azure/azure-resource-manager/management/azure-subscription-service-limits).
const MaxPrivateLinkServicesPerLoadBalancer = 8

// CodePrivateLinkServiceLimitOnLoadBalancer is cloudsim's answer to a ninth
// service on a load balancer (HTTP 400). The limit is documented; the
// exact code Azure answers is not in the documentation we could find, so
// clients (hcplink included) must not depend on it: the operator counts
// the services on a load balancer itself.
const CodePrivateLinkServiceLimitOnLoadBalancer = "PrivateLinkServicesPerLoadBalancerLimitReached"

// servicesOnLoadBalancer counts the Private Link Services other than self
// in front of any frontend of lb.
func servicesOnLoadBalancer(s *Store, lb *Resource, self ID) int {
	prefix := strings.ToLower(lb.ID.String()) + "/frontendipconfigurations/"
	n := 0
	for _, r := range s.Find(typePrivateLinkService, nil) {
		if strings.EqualFold(r.ID.String(), self.String()) {
			continue
		}
		for _, fe := range r.Properties.(*armnetwork.PrivateLinkServiceProperties).LoadBalancerFrontendIPConfigurations {
			if fe != nil && strings.HasPrefix(strings.ToLower(deref(fe.ID)), prefix) {
				n++
				break
			}
		}
	}
	return n
}

// placeNATConfigurations gives each NAT IP configuration its address in a
// subnet whose Private Link Service network policies are disabled.
func placeNATConfigurations(req *Request, props *armnetwork.PrivateLinkServiceProperties) *Error {
	if len(props.IPConfigurations) == 0 {
		return BadRequest("InvalidRequestFormat", "Cannot parse the request: private link service %s needs at least one IP configuration.", req.ID)
	}
	mine := idsPrefixed(req.ID.String())
	for i, c := range props.IPConfigurations {
		if c == nil || deref(c.Name) == "" || c.Properties == nil {
			return BadRequest("InvalidRequestFormat", "Cannot parse the request: every IP configuration of private link service %s needs a name and properties.", req.ID)
		}
		subnet, sp, err := subnetOf(req, c.Properties.Subnet)
		if err != nil {
			return err
		}
		if sp.PrivateLinkServiceNetworkPolicies == nil || *sp.PrivateLinkServiceNetworkPolicies != armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesDisabled {
			return BadRequest("PrivateLinkServiceCannotBeCreatedInSubnetThatHasNetworkPoliciesEnabled",
				"Private link service %s cannot be created in a subnet %s since it has private link service network policies enabled.", req.ID, subnet.ID)
		}
		id := childID(req.ID, "ipConfigurations", deref(c.Name))
		addr, method, err := assignIP(req, subnet, id, c.Properties.PrivateIPAllocationMethod, c.Properties.PrivateIPAddress, mine)
		if err != nil {
			return err
		}
		c.ID = ptr(id)
		c.Properties.Subnet = &armnetwork.Subnet{ID: ptr(subnet.ID.String())}
		c.Properties.PrivateIPAddress, c.Properties.PrivateIPAllocationMethod = ptr(addr), ptr(method)
		c.Properties.PrivateIPAddressVersion = ptr(armnetwork.IPVersionIPv4)
		if c.Properties.Primary == nil {
			c.Properties.Primary = ptr(i == 0)
		}
		c.Properties.ProvisioningState = succeeded
	}
	return nil
}

// refreshPrivateLinkService shows the service's connections inline.
func refreshPrivateLinkService(s *Store, r *Resource) {
	p := r.Properties.(*armnetwork.PrivateLinkServiceProperties)
	p.PrivateEndpointConnections = []*armnetwork.PrivateEndpointConnection{}
	for _, c := range s.List(r.ID, typePLSConnection) {
		p.PrivateEndpointConnections = append(p.PrivateEndpointConnections, connectionWire(c))
	}
}

// connectionWire is a connection as its service shows it inline.
func connectionWire(r *Resource) *armnetwork.PrivateEndpointConnection {
	p := *r.Properties.(*armnetwork.PrivateEndpointConnectionProperties)
	p.ProvisioningState = ptr(armnetwork.ProvisioningState(r.ProvisioningState))
	return &armnetwork.PrivateEndpointConnection{ID: ptr(r.ID.String()), Name: ptr(r.Name()), Type: ptr(typePLSConnection), Etag: ptr(r.ETag), Properties: &p}
}

// deletePrivateLinkService is refused while connections remain, as Azure
// does: the owner deletes them (or their endpoints go) first.
func deletePrivateLinkService(req *Request, r *Resource) (*Reply, *Error) {
	if err := busy(req, r); err != nil {
		return nil, err
	}
	if n := len(req.Store.List(r.ID, typePLSConnection)); n > 0 {
		return nil, BadRequest("PrivateLinkServiceWithPrivateEndpointConnectionsCannotBeDeleted",
			"Private link service %s cannot be deleted since it has %d private endpoint connections. Please delete all private endpoint connections before deleting the private link service.", r.ID, n)
	}
	return &Reply{Transition: deletingTransition(req)}, nil
}

// privateLinkServiceRemoved needs nothing: endpoints read their state from
// the connection, which went with the service, and show Disconnected.
func privateLinkServiceRemoved(*Cloud, *Resource) {}

// --- private endpoint connections (the service owner's side) ---

// putServiceConnection is the owner approving or rejecting a connection
// (armnetwork's UpdatePrivateEndpointConnection: a synchronous PUT).
func putServiceConnection(req *Request, existing *Resource) (*Reply, *Error) {
	if existing == nil {
		return nil, ErrResourceNotFound(req.ID)
	}
	var body struct {
		Properties *armnetwork.PrivateEndpointConnectionProperties `json:"properties"`
	}
	if err := req.Decode(&body); err != nil {
		return nil, err
	}
	if body.Properties == nil || body.Properties.PrivateLinkServiceConnectionState == nil {
		return nil, BadRequest("InvalidRequestFormat", "Cannot parse the request: privateLinkServiceConnectionState is required.")
	}
	next := body.Properties.PrivateLinkServiceConnectionState
	status := deref(next.Status)
	switch {
	case strings.EqualFold(status, connectionApproved):
		status = connectionApproved
	case strings.EqualFold(status, connectionRejected):
		status = connectionRejected
	case strings.EqualFold(status, connectionPending):
		status = connectionPending
	default:
		return nil, BadRequest("InvalidRequestFormat", "Cannot parse the request: private endpoint connection status '%s' is not one of Approved, Rejected, Pending.", status)
	}
	p := existing.Properties.(*armnetwork.PrivateEndpointConnectionProperties)
	actions := "None"
	if next.ActionsRequired != nil {
		actions = *next.ActionsRequired
	}
	p.PrivateLinkServiceConnectionState = &armnetwork.PrivateLinkServiceConnectionState{Status: ptr(status), Description: next.Description, ActionsRequired: ptr(actions)}
	return &Reply{Resource: existing, Status: http.StatusOK}, nil
}

// deleteServiceConnection removes a connection; its endpoint stays and
// shows Disconnected.
func deleteServiceConnection(req *Request, r *Resource) (*Reply, *Error) {
	if err := busy(req, r); err != nil {
		return nil, err
	}
	return &Reply{Transition: deletingTransition(req)}, nil
}

// newServiceConnection files an endpoint's request on the service.
func newServiceConnection(req *Request, pls *Resource, endpoint ID, location, status string, link int) *Resource {
	name := endpoint.Name() + "." + newGUID()
	props := &armnetwork.PrivateEndpointConnectionProperties{
		PrivateEndpoint:         &armnetwork.PrivateEndpoint{ID: ptr(endpoint.String())},
		PrivateEndpointLocation: ptr(location),
		LinkIdentifier:          ptr(strconv.Itoa(link)),
		PrivateLinkServiceConnectionState: &armnetwork.PrivateLinkServiceConnectionState{
			Status: ptr(status), Description: ptr(connectionDescription(status)), ActionsRequired: ptr("None"),
		},
	}
	c := &Resource{ID: pls.ID.Child("privateEndpointConnections", name), Type: typePLSConnection, Properties: props,
		ProvisioningState: "Succeeded", ETag: newETag(nil), CreatedBy: req.Principal.ObjectID, CreatedAt: req.Now}
	req.Store.Put(c)
	return c
}

// connectionOfEndpoint is the service-side connection an endpoint made, if
// it still exists.
func connectionOfEndpoint(s *Store, endpointID string) *Resource {
	found := s.Find(typePLSConnection, func(r *Resource) bool {
		p := r.Properties.(*armnetwork.PrivateEndpointConnectionProperties)
		return p.PrivateEndpoint != nil && strings.EqualFold(deref(p.PrivateEndpoint.ID), endpointID)
	})
	if len(found) == 0 {
		return nil
	}
	return found[0]
}
