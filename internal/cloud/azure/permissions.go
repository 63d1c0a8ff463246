package azure

import (
	"encoding/json"
	"slices"
)

// The Azure RBAC actions each operator and diagnose need, in one table: a
// test (permissions_test.go) follows every call of the SDK interfaces in
// sdk.go from each operator's packages and fails when the table grants an
// action the code does not call or misses one it does; diagnose's test
// (internal/diagnose/permissions_test.go) does the same for its rows (the
// actions of the SDK methods it calls, by MethodActions) and holds them to
// reads. A custom role made from
// CustomRole grants exactly what hcplink uses.

// Component is an hcplink process that calls Azure with its own identity.
type Component string

const (
	// ControlPlaneOperator runs per hosted cluster with a workload identity
	// in the customer's subscription (Private Endpoint, Private DNS).
	ControlPlaneOperator Component = "control-plane-operator"
	// ManagementOperator runs once per management cluster with the
	// management subscription's identity (Private Link Service, NAT subnet).
	ManagementOperator Component = "management-operator"
	// Diagnose is whoever runs hcplink diagnose, assigned at the management
	// subscription and the guest's resource group: it only reads.
	Diagnose Component = "diagnose"
)

// Permission is one RBAC action a component needs, and why.
type Permission struct {
	Component Component
	Action    string
	Why       string
}

// Permissions is the table. Keep it sorted by component, then action.
var Permissions = []Permission{
	{ControlPlaneOperator, "Microsoft.Network/networkInterfaces/read", "read the Private Endpoint's address from its network interface"},
	{ControlPlaneOperator, "Microsoft.Network/privateDnsZones/A/delete", "delete the api and *.apps records at deletion"},
	{ControlPlaneOperator, "Microsoft.Network/privateDnsZones/A/read", "read one A record (the provider's ARecord, which diagnose's walk also uses)"},
	{ControlPlaneOperator, "Microsoft.Network/privateDnsZones/A/write", "write the api and *.apps records"},
	{ControlPlaneOperator, "Microsoft.Network/privateDnsZones/ALL/read", "list the zone's records and SOA once per pass, to compare before writing"},
	{ControlPlaneOperator, "Microsoft.Network/privateDnsZones/SOA/write", "lower the zone's negative-caching TTL to 60 s when it is longer"},
	{ControlPlaneOperator, "Microsoft.Network/privateDnsZones/delete", "delete the zone hcplink created (never another)"},
	{ControlPlaneOperator, "Microsoft.Network/privateDnsZones/read", "find the cluster's zone and whether hcplink created it"},
	{ControlPlaneOperator, "Microsoft.Network/privateDnsZones/virtualNetworkLinks/delete", "unlink the zone at deletion"},
	{ControlPlaneOperator, "Microsoft.Network/privateDnsZones/virtualNetworkLinks/read", "check the link to the guest VNet"},
	{ControlPlaneOperator, "Microsoft.Network/privateDnsZones/virtualNetworkLinks/write", "link the zone to the guest VNet (registration off)"},
	{ControlPlaneOperator, "Microsoft.Network/privateDnsZones/write", "create the <name>.hypershift.local zone"},
	{ControlPlaneOperator, "Microsoft.Network/privateEndpoints/delete", "delete the Private Endpoint at deletion and when the service is replaced"},
	{ControlPlaneOperator, "Microsoft.Network/privateEndpoints/read", "read the endpoint's connection state and address"},
	{ControlPlaneOperator, "Microsoft.Network/privateEndpoints/write", "create the Private Endpoint to the cluster's Private Link Service"},
	{ControlPlaneOperator, "Microsoft.Network/virtualNetworks/join/action", "link the zone to the guest VNet (linked authorization on the VNet)"},
	{ControlPlaneOperator, "Microsoft.Network/virtualNetworks/read", "check before anything is created that the VNet and subnet exist, in spec.location"},
	{ControlPlaneOperator, "Microsoft.Network/virtualNetworks/subnets/join/action", "place the Private Endpoint in the guest subnet (linked authorization)"},
	{ControlPlaneOperator, "Microsoft.Resources/subscriptions/resourceGroups/read", "check before anything is created that the resource group exists"},

	{Diagnose, "Microsoft.Network/loadBalancers/read", "management: find the internal load balancer's frontend holding the router's address"},
	{Diagnose, "Microsoft.Network/networkInterfaces/read", "guest: read the private endpoint's address from its interface"},
	{Diagnose, "Microsoft.Network/privateDnsZones/A/read", "guest: read the api and *.apps A records"},
	{Diagnose, "Microsoft.Network/privateDnsZones/read", "guest: read the private DNS zone"},
	{Diagnose, "Microsoft.Network/privateDnsZones/virtualNetworkLinks/read", "guest: read the zone's link to the guest VNet"},
	{Diagnose, "Microsoft.Network/privateEndpoints/read", "guest: read the private endpoint and its connection's state"},
	{Diagnose, "Microsoft.Network/privateLinkServices/read", "management: read the private link service's visibility, auto-approval and frontend"},

	{ManagementOperator, "Microsoft.Network/loadBalancers/frontendIPConfigurations/join/action", "put the Private Link Service in front of the router's frontend (linked authorization)"},
	{ManagementOperator, "Microsoft.Network/loadBalancers/read", "find the internal load balancer frontend by the router's IP"},
	{ManagementOperator, "Microsoft.Network/privateLinkServices/delete", "delete the Private Link Service at deletion"},
	{ManagementOperator, "Microsoft.Network/privateLinkServices/privateEndpointConnections/delete", "remove rejected connections: Azure refuses to delete a service that has any"},
	{ManagementOperator, "Microsoft.Network/privateLinkServices/privateEndpointConnections/write", "reject remaining connections so that the service can be deleted"},
	{ManagementOperator, "Microsoft.Network/privateLinkServices/read", "read the service's alias, state and settings (drift)"},
	{ManagementOperator, "Microsoft.Network/privateLinkServices/write", "create the service and follow changes (subscriptions, frontend, NAT subnet)"},
	{ManagementOperator, "Microsoft.Network/virtualNetworks/read", "read the VNet's free address space for a NAT subnet"},
	{ManagementOperator, "Microsoft.Network/virtualNetworks/subnets/delete", "delete the NAT subnet hcplink created"},
	{ManagementOperator, "Microsoft.Network/virtualNetworks/subnets/join/action", "take the service's NAT address from the NAT subnet (linked authorization)"},
	{ManagementOperator, "Microsoft.Network/virtualNetworks/subnets/read", "read the NAT subnet"},
	{ManagementOperator, "Microsoft.Network/virtualNetworks/subnets/write", "create the NAT subnet with Private Link Service network policies disabled"},
}

// MethodActions maps each method of the SDK interfaces in sdk.go to the
// RBAC actions calling it needs (linked actions included: Azure checks
// them on the resources the request refers to). Record sets are typed at
// run time, so their methods carry the actions of the A and SOA types
// hcplink writes.
var MethodActions = map[string][]string{
	"LoadBalancersAPI.NewListPager":       {"Microsoft.Network/loadBalancers/read"},
	"VirtualNetworksAPI.Get":              {"Microsoft.Network/virtualNetworks/read"},
	"ResourceGroupsAPI.Get":               {"Microsoft.Resources/subscriptions/resourceGroups/read"},
	"SubnetsAPI.Get":                      {"Microsoft.Network/virtualNetworks/subnets/read"},
	"SubnetsAPI.BeginCreateOrUpdate":      {"Microsoft.Network/virtualNetworks/subnets/write"},
	"SubnetsAPI.BeginDelete":              {"Microsoft.Network/virtualNetworks/subnets/delete"},
	"PrivateLinkServicesAPI.Get":          {"Microsoft.Network/privateLinkServices/read"},
	"PrivateLinkServicesAPI.NewListPager": {"Microsoft.Network/privateLinkServices/read"},
	"PrivateLinkServicesAPI.BeginCreateOrUpdate": {"Microsoft.Network/privateLinkServices/write",
		"Microsoft.Network/loadBalancers/frontendIPConfigurations/join/action", "Microsoft.Network/virtualNetworks/subnets/join/action"},
	"PrivateLinkServicesAPI.BeginDelete":                          {"Microsoft.Network/privateLinkServices/delete"},
	"PrivateLinkServicesAPI.UpdatePrivateEndpointConnection":      {"Microsoft.Network/privateLinkServices/privateEndpointConnections/write"},
	"PrivateLinkServicesAPI.BeginDeletePrivateEndpointConnection": {"Microsoft.Network/privateLinkServices/privateEndpointConnections/delete"},
	"PrivateEndpointsAPI.Get":                                     {"Microsoft.Network/privateEndpoints/read"},
	"PrivateEndpointsAPI.BeginCreateOrUpdate":                     {"Microsoft.Network/privateEndpoints/write", "Microsoft.Network/virtualNetworks/subnets/join/action"},
	"PrivateEndpointsAPI.BeginDelete":                             {"Microsoft.Network/privateEndpoints/delete"},
	"InterfacesAPI.Get":                                           {"Microsoft.Network/networkInterfaces/read"},
	"PrivateZonesAPI.Get":                                         {"Microsoft.Network/privateDnsZones/read"},
	"PrivateZonesAPI.BeginCreateOrUpdate":                         {"Microsoft.Network/privateDnsZones/write"},
	"PrivateZonesAPI.BeginDelete":                                 {"Microsoft.Network/privateDnsZones/delete"},
	"VirtualNetworkLinksAPI.Get":                                  {"Microsoft.Network/privateDnsZones/virtualNetworkLinks/read"},
	"VirtualNetworkLinksAPI.BeginCreateOrUpdate":                  {"Microsoft.Network/privateDnsZones/virtualNetworkLinks/write", "Microsoft.Network/virtualNetworks/join/action"},
	"VirtualNetworkLinksAPI.BeginDelete":                          {"Microsoft.Network/privateDnsZones/virtualNetworkLinks/delete"},
	"RecordSetsAPI.Get":                                           {"Microsoft.Network/privateDnsZones/A/read"},
	"RecordSetsAPI.NewListPager":                                  {"Microsoft.Network/privateDnsZones/ALL/read"},
	"RecordSetsAPI.CreateOrUpdate":                                {"Microsoft.Network/privateDnsZones/A/write", "Microsoft.Network/privateDnsZones/SOA/write"},
	"RecordSetsAPI.Delete":                                        {"Microsoft.Network/privateDnsZones/A/delete"},
}

// Actions lists, sorted, the RBAC actions one component needs.
func Actions(c Component) []string {
	var out []string
	for _, p := range Permissions {
		if p.Component == c {
			out = append(out, p.Action)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// RoleDefinition is a custom role as az role definition create takes it.
type RoleDefinition struct {
	Name             string   `json:"Name"`
	Description      string   `json:"Description"`
	Actions          []string `json:"Actions"`
	NotActions       []string `json:"NotActions"`
	AssignableScopes []string `json:"AssignableScopes"`
}

// CustomRole is the custom role of a component, assignable at scopes (the
// subscription or the resource groups it works in).
func CustomRole(c Component, scopes ...string) RoleDefinition {
	return RoleDefinition{
		Name:             "hcplink " + string(c),
		Description:      roleDescription(c),
		Actions:          Actions(c),
		NotActions:       []string{},
		AssignableScopes: scopes,
	}
}

// roleDescription says what a component's custom role grants.
func roleDescription(c Component) string {
	if c == Diagnose {
		return "What hcplink diagnose reads, and nothing else."
	}
	return "What hcplink's " + string(c) + " calls, and nothing else."
}

// CustomRoleJSON renders CustomRole as indented JSON.
func CustomRoleJSON(c Component, scopes ...string) string { return CustomRole(c, scopes...).JSON() }

// JSON renders the role as indented JSON, as `az role definition create
// --role-definition @FILE` takes it.
func (r RoleDefinition) JSON() string {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		panic(err) // a fixed structure of strings always marshals
	}
	return string(b)
}
