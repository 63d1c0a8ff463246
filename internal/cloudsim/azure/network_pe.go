package azure

import (
	"strings"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// Private endpoints: one connection to a Private Link Service (by ID or by
// alias, possibly in another subscription), a network interface created
// with the endpoint holding its private IP, and the connection's state as
// the service's owner decided it.

func init() {
	Register(TypeSpec{
		Type: typePrivateEndpoint, APIVersions: networkAPIVersions, RequiresLocation: true,
		Put: putPrivateEndpoint, Get: getPrivateEndpoint, List: listNetworkResources(typePrivateEndpoint),
		Delete: deletePrivateEndpoint, Removed: privateEndpointRemoved,
	})
}

// getPrivateEndpoint reads an endpoint; with $expand=networkInterfaces its
// interfaces are the whole resources (their IP configurations and
// addresses), as ARM answers, instead of bare IDs: how other clients read
// an endpoint's address in one call.
func getPrivateEndpoint(req *Request, r *Resource) (*Reply, *Error) {
	refreshNetworkViews(req.Store, r)
	if !expands(req, "networkInterfaces") {
		return &Reply{Resource: r}, nil
	}
	wire := req.Cloud.render(r)
	var nics []any
	for _, n := range r.Properties.(*armnetwork.PrivateEndpointProperties).NetworkInterfaces {
		id, err := ParseID(deref(n.ID))
		nic := req.Store.Get(id)
		if err != nil || nic == nil {
			nics = append(nics, map[string]any{"id": deref(n.ID)})
			continue
		}
		refreshNetworkViews(req.Store, nic)
		nics = append(nics, req.Cloud.render(nic))
	}
	wire["properties"].(map[string]any)["networkInterfaces"] = nics
	return &Reply{Body: wire}, nil
}

// expands reports whether the request's $expand names the property (ARM
// takes a comma-separated list, case-insensitively).
func expands(req *Request, property string) bool {
	for _, p := range strings.Split(req.HTTP.URL.Query().Get("$expand"), ",") {
		if strings.EqualFold(strings.TrimSpace(p), property) {
			return true
		}
	}
	return false
}

// linkIdentifiers numbers connections, as Azure's linkIdentifier does.
var linkIdentifiers atomic.Int64

func putPrivateEndpoint(req *Request, existing *Resource) (*Reply, *Error) {
	if err := busy(req, existing); err != nil {
		return nil, err
	}
	props := &armnetwork.PrivateEndpointProperties{}
	env, err := req.Envelope(props)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		return updatePrivateEndpoint(req, existing, env, props)
	}
	subnet, _, err := subnetOf(req, props.Subnet)
	if err != nil {
		return nil, err
	}
	if vnet := req.Store.Get(subnet.ID.Parent()); vnet == nil || vnet.Location != NormalizeLocation(env.Location) {
		return nil, ErrInvalidResourceReference(subnet.ID.Parent().String(), req.ID.String())
	}
	conn, manual, err := requestedConnection(req, props)
	if err != nil {
		return nil, err
	}
	pls, err := resolveService(req, conn)
	if err != nil {
		return nil, err
	}
	status := initialConnectionStatus(stringsOf(pls.Properties.(*armnetwork.PrivateLinkServiceProperties).AutoApproval), req.ID.Subscription)
	if !manual && status != connectionApproved {
		// An automatic connection outside auto-approval needs the right to approve it.
		if err := req.AuthorizeLinked(actionConnectionApprove, pls.ID.String()); err != nil {
			return nil, err
		}
		status = connectionApproved
	}
	nic, ip, err := createEndpointInterface(req, env, props, subnet)
	if err != nil {
		return nil, err
	}
	newServiceConnection(req, pls, req.ID, NormalizeLocation(env.Location), status, int(linkIdentifiers.Add(1)))
	props.Subnet = &armnetwork.Subnet{ID: ptr(subnet.ID.String())}
	props.NetworkInterfaces = []*armnetwork.Interface{{ID: ptr(nic.ID.String())}}
	props.CustomDNSConfigs = endpointDNSConfigs(pls, ip)
	conn.ID = ptr(req.ID.String() + "/" + connectionCollection(manual) + "/" + deref(conn.Name))
	conn.Type = ptr(typePrivateEndpoint + "/" + connectionCollection(manual))
	res := req.NewResource(env, props)
	refreshPrivateEndpoint(req.Store, res)
	return &Reply{Resource: res, Transition: networkTransition(req, delayPrivateEndpointUpdating)}, nil
}

// requestedConnection is the endpoint's one connection and whether it is manual.
func requestedConnection(req *Request, props *armnetwork.PrivateEndpointProperties) (*armnetwork.PrivateLinkServiceConnection, bool, *Error) {
	n := len(props.PrivateLinkServiceConnections) + len(props.ManualPrivateLinkServiceConnections)
	if n != 1 {
		return nil, false, BadRequest("InvalidRequestFormat", "Cannot parse the request: private endpoint %s must have exactly one private link service connection, it has %d.", req.ID, n)
	}
	manual := len(props.ManualPrivateLinkServiceConnections) == 1
	conn := append(props.PrivateLinkServiceConnections, props.ManualPrivateLinkServiceConnections...)[0]
	if conn == nil || deref(conn.Name) == "" || conn.Properties == nil || deref(conn.Properties.PrivateLinkServiceID) == "" {
		return nil, false, BadRequest("InvalidRequestFormat", "Cannot parse the request: the private link service connection of %s needs a name and a privateLinkServiceId.", req.ID)
	}
	return conn, manual, nil
}

func connectionCollection(manual bool) string {
	if manual {
		return "manualPrivateLinkServiceConnections"
	}
	return "privateLinkServiceConnections"
}

// resolveService finds the service a connection names, by ID or alias, and
// refuses it unless the endpoint's subscription may see it.
func resolveService(req *Request, conn *armnetwork.PrivateLinkServiceConnection) (*Resource, *Error) {
	target := deref(conn.Properties.PrivateLinkServiceID)
	var pls *Resource
	if looksLikeAlias(target) {
		found := req.Store.Find(typePrivateLinkService, func(r *Resource) bool {
			return strings.EqualFold(deref(r.Properties.(*armnetwork.PrivateLinkServiceProperties).Alias), target)
		})
		if len(found) == 1 {
			pls = found[0]
		}
	} else if r := req.Store.GetByString(target); r != nil && strings.EqualFold(r.Type, typePrivateLinkService) {
		pls = r
	}
	if pls == nil || !privateLinkServiceVisible(pls.ID.Subscription, stringsOf(pls.Properties.(*armnetwork.PrivateLinkServiceProperties).Visibility), req.ID.Subscription) {
		return nil, BadRequest("ThirdPartyPrivateLinkServiceProvidedDuringPrivateEndpointCreationDoesNotExistOrIsNotVisible",
			"Third-party Private Link Service Id %s provided during private endpoint %s creation does not exist or is not visible to subscription %s.", target, req.ID, req.ID.Subscription)
	}
	return pls, nil
}

// createEndpointInterface creates the endpoint's network interface, with
// its private IP from the subnet (a static one when the endpoint asks).
func createEndpointInterface(req *Request, env Envelope, props *armnetwork.PrivateEndpointProperties, subnet *Resource) (*Resource, string, *Error) {
	name := deref(props.CustomNetworkInterfaceName)
	if name == "" {
		name = req.ID.Name() + ".nic." + newGUID()
	}
	nicID := ID{Subscription: req.ID.Subscription, ResourceGroup: req.ID.ResourceGroup, Namespace: "Microsoft.Network",
		Types: []string{"networkInterfaces"}, Names: []string{name}}
	ipcID := childID(nicID, "ipConfigurations", "privateEndpointIpConfig."+newGUID())
	var requested *string
	var method *armnetwork.IPAllocationMethod
	for _, c := range props.IPConfigurations {
		if c != nil && c.Properties != nil && deref(c.Properties.PrivateIPAddress) != "" {
			requested, method = c.Properties.PrivateIPAddress, ptr(armnetwork.IPAllocationMethodStatic)
		}
	}
	addr, alloc, err := assignIP(req, subnet, ipcID, method, requested, nil)
	if err != nil {
		return nil, "", err
	}
	nicProps := &armnetwork.InterfacePropertiesFormat{
		PrivateEndpoint: &armnetwork.PrivateEndpoint{ID: ptr(req.ID.String())},
		IPConfigurations: []*armnetwork.InterfaceIPConfiguration{{
			ID: ptr(ipcID), Name: ptr(ipcID[strings.LastIndex(ipcID, "/")+1:]),
			Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{
				Subnet: &armnetwork.Subnet{ID: ptr(subnet.ID.String())}, PrivateIPAddress: ptr(addr),
				PrivateIPAllocationMethod: ptr(alloc), PrivateIPAddressVersion: ptr(armnetwork.IPVersionIPv4),
				Primary: ptr(true), ProvisioningState: succeeded,
			},
		}},
		ResourceGUID: ptr(newGUID()),
	}
	nic := &Resource{ID: nicID, Type: typeNetworkInterface, Location: NormalizeLocation(env.Location), Tags: env.Tags,
		Properties: nicProps, ProvisioningState: "Succeeded", ETag: newETag(nil), CreatedBy: req.Principal.ObjectID, CreatedAt: req.Now}
	req.Store.Put(nic)
	return nic, addr, nil
}

// endpointDNSConfigs lists the service's FQDNs at the endpoint's address.
func endpointDNSConfigs(pls *Resource, ip string) []*armnetwork.CustomDNSConfigPropertiesFormat {
	out := []*armnetwork.CustomDNSConfigPropertiesFormat{}
	for _, f := range pls.Properties.(*armnetwork.PrivateLinkServiceProperties).Fqdns {
		if deref(f) != "" {
			out = append(out, &armnetwork.CustomDNSConfigPropertiesFormat{Fqdn: ptr(deref(f)), IPAddresses: []*string{ptr(ip)}})
		}
	}
	return out
}

// updatePrivateEndpoint allows changing tags; the subnet and the
// connection are fixed once created, as on Azure.
func updatePrivateEndpoint(req *Request, existing *Resource, env Envelope, props *armnetwork.PrivateEndpointProperties) (*Reply, *Error) {
	cur := existing.Properties.(*armnetwork.PrivateEndpointProperties)
	if props.Subnet != nil && !strings.EqualFold(deref(props.Subnet.ID), deref(cur.Subnet.ID)) {
		return nil, BadRequest("CannotChangeSubnetOnExistingPrivateEndpoint",
			"Cannot change the subnet in which the network interface for private endpoint %s is created. Current subnet: '%s.' Requested subnet: '%s.'", existing.ID, deref(cur.Subnet.ID), deref(props.Subnet.ID))
	}
	if conn, _, err := requestedConnection(req, props); err == nil {
		curConn := append(cur.PrivateLinkServiceConnections, cur.ManualPrivateLinkServiceConnections...)[0]
		if !strings.EqualFold(deref(conn.Name), deref(curConn.Name)) || !strings.EqualFold(deref(conn.Properties.PrivateLinkServiceID), deref(curConn.Properties.PrivateLinkServiceID)) {
			return nil, BadRequest("CannotChangePrivateLinkConnectionOnPrivateEndpoint",
				"Cannot change the private link connection on private endpoint %s. Please ensure you are not updating the details of existing private link connection: '%s'. That is not allowed.", existing.ID, deref(curConn.ID))
		}
	}
	existing.Tags = env.Tags
	refreshPrivateEndpoint(req.Store, existing)
	return &Reply{Resource: existing, Transition: networkTransition(req, delayPrivateEndpointUpdating)}, nil
}

// refreshPrivateEndpoint mirrors the service side's decision into the
// endpoint's connection (Disconnected once the service side is gone).
func refreshPrivateEndpoint(s *Store, r *Resource) {
	p := r.Properties.(*armnetwork.PrivateEndpointProperties)
	state := &armnetwork.PrivateLinkServiceConnectionState{Status: ptr(connectionDisconnected), Description: ptr(""), ActionsRequired: ptr("None")}
	if c := connectionOfEndpoint(s, r.ID.String()); c != nil {
		cs := *c.Properties.(*armnetwork.PrivateEndpointConnectionProperties).PrivateLinkServiceConnectionState
		state = &cs
	}
	for _, conn := range append(p.PrivateLinkServiceConnections, p.ManualPrivateLinkServiceConnections...) {
		if conn != nil && conn.Properties != nil {
			st := *state
			conn.Properties.PrivateLinkServiceConnectionState = &st
			conn.Properties.ProvisioningState = succeeded
		}
	}
}

func deletePrivateEndpoint(req *Request, r *Resource) (*Reply, *Error) {
	if err := busy(req, r); err != nil {
		return nil, err
	}
	return &Reply{Transition: deletingTransition(req)}, nil
}

// privateEndpointRemoved takes the endpoint's interface and its connection
// on the service with it.
func privateEndpointRemoved(c *Cloud, r *Resource) {
	for _, nic := range interfacesOfEndpoint(c.store, r.ID.String()) {
		c.Remove(nic.ID)
	}
	if conn := connectionOfEndpoint(c.store, r.ID.String()); conn != nil {
		c.Remove(conn.ID)
	}
}

// stringsOf reads a visibility or auto-approval list.
func stringsOf(list any) []string {
	var in []*string
	switch l := list.(type) {
	case *armnetwork.PrivateLinkServicePropertiesVisibility:
		if l != nil {
			in = l.Subscriptions
		}
	case *armnetwork.PrivateLinkServicePropertiesAutoApproval:
		if l != nil {
			in = l.Subscriptions
		}
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		out = append(out, deref(s))
	}
	return out
}
