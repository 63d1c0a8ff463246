package azure

import (
	"net/http"
	"regexp"
	"strings"
)

// Role definitions: the built-in roles hcplink's least-privilege design
// uses, with their real IDs and action patterns, and custom roles created
// through Microsoft.Authorization/roleDefinitions.

const roleDefinitionsType = "Microsoft.Authorization/roleDefinitions"

// RoleDefinition is a role's properties as the wire carries them.
type RoleDefinition struct {
	RoleName         string       `json:"roleName"`
	Description      string       `json:"description"`
	RoleType         string       `json:"type"` // BuiltInRole or CustomRole
	Permissions      []Permission `json:"permissions"`
	AssignableScopes []string     `json:"assignableScopes"`
}

// Permission is one block of a role's permissions.
type Permission struct {
	Actions        []string `json:"actions"`
	NotActions     []string `json:"notActions"`
	DataActions    []string `json:"dataActions"`
	NotDataActions []string `json:"notDataActions"`
}

// Built-in role IDs, as Azure defines them.
const (
	RoleOwner                     = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
	RoleContributor               = "b24988ac-6180-42a0-ab88-20f7382dd24c"
	RoleReader                    = "acdd72a7-3385-48ef-bd42-f606fba81ae7"
	RoleUserAccessAdministrator   = "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9"
	RoleNetworkContributor        = "4d97b98b-1d4f-4787-a291-c67834d212e7"
	RolePrivateDNSZoneContributor = "b12aa53e-6015-4669-85d0-8515ebb3ae7f"
)

func builtIn(name, description string, actions, notActions []string) *RoleDefinition {
	if notActions == nil {
		notActions = []string{}
	}
	return &RoleDefinition{RoleName: name, Description: description, RoleType: "BuiltInRole", AssignableScopes: []string{"/"},
		Permissions: []Permission{{Actions: actions, NotActions: notActions, DataActions: []string{}, NotDataActions: []string{}}}}
}

// builtInRoles are Azure's definitions of the roles cloudsim knows.
var builtInRoles = map[string]*RoleDefinition{
	RoleOwner: builtIn("Owner", "Grants full access to manage all resources, including the ability to assign roles in Azure RBAC.",
		[]string{"*"}, nil),
	RoleContributor: builtIn("Contributor", "Grants full access to manage all resources, but does not allow you to assign roles in Azure RBAC, manage assignments in Azure Blueprints, or share image galleries.",
		[]string{"*"}, []string{
			"Microsoft.Authorization/*/Delete", "Microsoft.Authorization/*/Write", "Microsoft.Authorization/elevateAccess/Action",
			"Microsoft.Blueprint/blueprintAssignments/write", "Microsoft.Blueprint/blueprintAssignments/delete",
			"Microsoft.Compute/galleries/share/action", "Microsoft.Purview/consents/write", "Microsoft.Purview/consents/delete",
			"Microsoft.Resources/deploymentStacks/manageDenySetting/action", "Microsoft.Subscription/cancel/action", "Microsoft.Subscription/enable/action",
		}),
	RoleReader: builtIn("Reader", "View all resources, but does not allow you to make any changes.", []string{"*/read"}, nil),
	RoleUserAccessAdministrator: builtIn("User Access Administrator", "Lets you manage user access to Azure resources.",
		[]string{"*/read", "Microsoft.Authorization/*", "Microsoft.Support/*"}, nil),
	RoleNetworkContributor: builtIn("Network Contributor", "Lets you manage networks, but not access to them.", []string{
		"Microsoft.Authorization/*/read", "Microsoft.Insights/alertRules/*", "Microsoft.Network/*",
		"Microsoft.ResourceHealth/availabilityStatuses/read", "Microsoft.Resources/deployments/*",
		"Microsoft.Resources/subscriptions/resourceGroups/read", "Microsoft.Support/*",
	}, nil),
	RolePrivateDNSZoneContributor: builtIn("Private DNS Zone Contributor", "Lets you manage private DNS zone resources, but not the virtual networks they are linked to.", []string{
		"Microsoft.Authorization/*/read", "Microsoft.Insights/alertRules/*", "Microsoft.Resources/deployments/*",
		"Microsoft.Resources/subscriptions/resourceGroups/read", "Microsoft.Support/*",
		"Microsoft.Network/privateDnsZones/*", "Microsoft.Network/privateDnsOperationResults/*", "Microsoft.Network/privateDnsOperationStatuses/*",
		"Microsoft.Network/virtualNetworks/read", "Microsoft.Network/virtualNetworks/join/action",
		"Microsoft.ResourceHealth/availabilityStatuses/read",
	}, nil),
}

var guidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// roleDefinition finds a role by its ID or GUID: built-in, or custom in the
// store. The caller holds c.mu.
func (c *Cloud) roleDefinition(id string) *RoleDefinition {
	guid := strings.ToLower(id[strings.LastIndex(id, "/")+1:])
	if r := builtInRoles[guid]; r != nil {
		return r
	}
	if r := c.customRole(guid); r != nil {
		return r.Properties.(*RoleDefinition)
	}
	return nil
}

func (c *Cloud) customRole(guid string) *Resource {
	found := c.store.Find(roleDefinitionsType, func(r *Resource) bool { return strings.EqualFold(r.Name(), guid) })
	if len(found) == 0 {
		return nil
	}
	return found[0]
}

// roleIDByName resolves a role name ("Network Contributor") or GUID.
func (c *Cloud) roleIDByName(name string) string {
	if guidPattern.MatchString(name) {
		return strings.ToLower(name)
	}
	for id, r := range builtInRoles {
		if strings.EqualFold(r.RoleName, name) {
			return id
		}
	}
	for _, r := range c.store.Find(roleDefinitionsType, nil) {
		if strings.EqualFold(r.Properties.(*RoleDefinition).RoleName, name) {
			return r.Name()
		}
	}
	return ""
}

// authorizationVersions are the versions role definitions and assignments
// answer: the stable ones of specification/authorization/resource-manager/Microsoft.Authorization
// in github.com/Azure/azure-rest-api-specs (2015-07-01, 2022-04-01; checked
// 2026-11) and the previews clients still send.
var authorizationVersions = []string{"2015-07-01", "2018-01-01-preview", "2018-09-01-preview", "2020-03-01-preview", "2020-04-01-preview", "2020-08-01-preview", "2020-10-01-preview", "2022-01-01-preview", "2022-04-01", "2022-05-01-preview"}

func init() {
	Register(TypeSpec{
		Type: roleDefinitionsType, APIVersions: authorizationVersions, Scope: ExtensionScoped,
		Virtual: true, NoProvisioningState: true, PlainETag: true,
		Get: getRoleDefinition, List: listRoleDefinitions, Put: putRoleDefinition, Delete: deleteRoleDefinition,
	})
}

// extensionID is the ID of an extension resource at a scope.
func extensionID(scope ID, typ, name string) ID {
	ns, t, _ := strings.Cut(typ, "/")
	id := ID{Subscription: scope.Subscription, ResourceGroup: scope.ResourceGroup, Namespace: ns, Types: []string{t}, Names: []string{name}}
	if scope.Namespace != "" || scope.Scope != "" {
		id.Scope = scope.String()
	}
	return id
}

// scopeOf is the scope an extension resource hangs off ("" for the root).
func scopeOf(id ID) ID {
	if id.Scope != "" {
		p, _ := ParseID(id.Scope)
		return p
	}
	return ID{Subscription: id.Subscription, ResourceGroup: id.ResourceGroup}
}

func builtInResource(scope ID, guid string) *Resource {
	return &Resource{ID: extensionID(scope, roleDefinitionsType, guid), Type: roleDefinitionsType, Properties: builtInRoles[guid]}
}

func getRoleDefinition(req *Request, r *Resource) (*Reply, *Error) {
	guid := strings.ToLower(req.ID.Name())
	if builtInRoles[guid] != nil {
		return &Reply{Resource: builtInResource(scopeOf(req.ID), guid)}, nil
	}
	if custom := req.Cloud.customRole(guid); custom != nil {
		return &Reply{Resource: custom}, nil
	}
	return nil, NewError(http.StatusNotFound, "RoleDefinitionDoesNotExist", "The specified role definition with ID '%s' does not exist.", req.ID.Name())
}

// listRoleDefinitions answers every role usable at the scope, filtered as
// az and the SDK ask: $filter=roleName eq 'X' or type eq 'BuiltInRole'.
func listRoleDefinitions(req *Request, scope ID) ([]*Resource, *Error) {
	filter := req.HTTP.URL.Query().Get("$filter")
	var out []*Resource
	for guid := range builtInRoles {
		out = append(out, builtInResource(scope, guid))
	}
	out = append(out, req.Store.Find(roleDefinitionsType, nil)...)
	kept := out[:0]
	for _, r := range out {
		if roleMatchesFilter(r.Properties.(*RoleDefinition), filter) {
			kept = append(kept, r)
		}
	}
	sortResources(kept)
	return kept, nil
}

var filterEq = regexp.MustCompile(`(?i)(roleName|type)\s+eq\s+'([^']*)'`)

func roleMatchesFilter(r *RoleDefinition, filter string) bool {
	for _, m := range filterEq.FindAllStringSubmatch(filter, -1) {
		value := r.RoleName
		if strings.EqualFold(m[1], "type") {
			value = r.RoleType
		}
		if !strings.EqualFold(value, m[2]) {
			return false
		}
	}
	return true
}

func putRoleDefinition(req *Request, existing *Resource) (*Reply, *Error) {
	if !guidPattern.MatchString(req.ID.Name()) {
		return nil, BadRequest("InvalidRoleDefinitionId", "The role definition ID '%s' is not valid. The role definition ID must be a GUID.", req.ID.Name())
	}
	if builtInRoles[strings.ToLower(req.ID.Name())] != nil {
		return nil, NewError(http.StatusForbidden, "RoleDefinitionUpdateNotPermitted", "Built-in role definitions cannot be changed.")
	}
	var props RoleDefinition
	if _, err := req.Envelope(&props); err != nil {
		return nil, err
	}
	if props.RoleName == "" || len(props.Permissions) == 0 || len(props.AssignableScopes) == 0 {
		return nil, BadRequest("InvalidRoleDefinition", "A custom role needs a roleName, permissions and assignableScopes.")
	}
	if id := req.Cloud.roleIDByName(props.RoleName); id != "" && !strings.EqualFold(id, req.ID.Name()) {
		return nil, Conflict("RoleDefinitionWithSameNameExists", "A custom role with the same name already exists in this directory. Use a different name.")
	}
	props.RoleType = "CustomRole"
	for i := range props.Permissions {
		props.Permissions[i] = normalizedPermission(props.Permissions[i])
	}
	res := &Resource{Properties: &props}
	if existing != nil {
		existing.Properties = &props
		res = existing
	}
	return &Reply{Resource: res, Status: http.StatusCreated}, nil // the SDK expects 201 for updates too
}

func normalizedPermission(p Permission) Permission {
	for _, list := range []*[]string{&p.Actions, &p.NotActions, &p.DataActions, &p.NotDataActions} {
		if *list == nil {
			*list = []string{}
		}
	}
	return p
}

func deleteRoleDefinition(req *Request, r *Resource) (*Reply, *Error) {
	if r == nil {
		return &Reply{Status: http.StatusNoContent}, nil
	}
	for _, a := range req.Store.Find(roleAssignmentsType, nil) {
		if strings.EqualFold(a.Properties.(*RoleAssignment).roleGUID(), r.Name()) {
			return nil, Conflict("RoleDefinitionHasAssignments", "There are existing role assignments referencing role (code: RoleDefinitionHasAssignments).")
		}
	}
	return &Reply{Resource: r}, nil
}
