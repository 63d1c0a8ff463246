package azure

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Role assignments: Microsoft.Authorization/roleAssignments at any scope
// (root, subscription, resource group, resource), created by armauthorization
// or az role assignment create, and read by authorize on every request.

const roleAssignmentsType = "Microsoft.Authorization/roleAssignments"

// RoleAssignment is an assignment's properties as the wire carries them.
type RoleAssignment struct {
	RoleDefinitionID string `json:"roleDefinitionId"`
	PrincipalID      string `json:"principalId"`
	PrincipalType    string `json:"principalType"`
	Scope            string `json:"scope"`
	Description      string `json:"description,omitempty"`
	Condition        string `json:"condition,omitempty"`
	ConditionVersion string `json:"conditionVersion,omitempty"`
	CreatedOn        string `json:"createdOn"`
	UpdatedOn        string `json:"updatedOn"`
	CreatedBy        string `json:"createdBy"`
	UpdatedBy        string `json:"updatedBy"`
}

func (a *RoleAssignment) roleGUID() string {
	return strings.ToLower(a.RoleDefinitionID[strings.LastIndex(a.RoleDefinitionID, "/")+1:])
}

func init() {
	Register(TypeSpec{
		Type: roleAssignmentsType, APIVersions: authorizationVersions, Scope: ExtensionScoped, NoProvisioningState: true,
		Put: putRoleAssignment, List: listRoleAssignments,
		Delete: func(_ *Request, r *Resource) (*Reply, *Error) { return &Reply{Resource: r}, nil },
	})
}

// assignment is what authorize needs of a role assignment.
type assignment struct {
	Scope            string
	RoleDefinitionID string
}

// assignmentsOf lists a principal's role assignments. The caller holds c.mu.
func (c *Cloud) assignmentsOf(objectID string) []assignment {
	var out []assignment
	for _, r := range c.store.Find(roleAssignmentsType, nil) {
		if a := r.Properties.(*RoleAssignment); strings.EqualFold(a.PrincipalID, objectID) {
			out = append(out, assignment{Scope: a.Scope, RoleDefinitionID: a.RoleDefinitionID})
		}
	}
	return out
}

func putRoleAssignment(req *Request, existing *Resource) (*Reply, *Error) {
	if !guidPattern.MatchString(req.ID.Name()) {
		return nil, BadRequest("InvalidRoleAssignmentId", "The role assignment ID '%s' is not valid. The role assignment ID must be a GUID.", req.ID.Name())
	}
	var props RoleAssignment
	if _, err := req.Envelope(&props); err != nil {
		return nil, err
	}
	if err := req.Cloud.checkAssignment(req, &props); err != nil {
		return nil, err
	}
	if existing != nil {
		old := existing.Properties.(*RoleAssignment)
		if !strings.EqualFold(old.PrincipalID, props.PrincipalID) || old.roleGUID() != props.roleGUID() {
			return nil, Conflict("RoleAssignmentUpdateNotPermitted", "Tenant ID, application ID, principal ID, and scope are not allowed to be updated.")
		}
		old.Description, old.UpdatedOn, old.UpdatedBy = props.Description, props.UpdatedOn, props.UpdatedBy
		return &Reply{Resource: existing}, nil
	}
	return &Reply{Resource: &Resource{Properties: &props}}, nil
}

// checkAssignment validates a new assignment and fills in what ARM fills in.
func (c *Cloud) checkAssignment(req *Request, props *RoleAssignment) *Error {
	if props.RoleDefinitionID == "" || props.PrincipalID == "" {
		return BadRequest("InvalidRoleAssignmentRequest", "The request must name a roleDefinitionId and a principalId.")
	}
	if c.roleDefinition(props.RoleDefinitionID) == nil {
		return BadRequest("RoleDefinitionDoesNotExist", "The specified role definition with ID '%s' does not exist.", props.roleGUID())
	}
	if c.directory.principalByObjectID(props.PrincipalID) == nil {
		return BadRequest("PrincipalNotFound", "Principal %s does not exist in the directory %s. Check that you have the correct principal ID.",
			strings.ReplaceAll(props.PrincipalID, "-", ""), req.Principal.TenantID)
	}
	scope := scopeOf(req.ID).String()
	for _, r := range c.store.Find(roleAssignmentsType, nil) {
		a := r.Properties.(*RoleAssignment)
		if r.ID.Key() != req.ID.Key() && strings.EqualFold(a.PrincipalID, props.PrincipalID) &&
			a.roleGUID() == props.roleGUID() && strings.EqualFold(a.Scope, scope) {
			return Conflict("RoleAssignmentExists", "The role assignment already exists.")
		}
	}
	now := req.Now.UTC().Format(time.RFC3339Nano)
	if props.PrincipalType == "" {
		props.PrincipalType = "ServicePrincipal"
	}
	props.Scope = scope
	if scope == "" {
		props.Scope = "/"
	}
	props.CreatedOn, props.UpdatedOn, props.CreatedBy, props.UpdatedBy = now, now, req.Principal.ObjectID, req.Principal.ObjectID
	return nil
}

var principalFilter = regexp.MustCompile(`(?i)(?:principalId\s+eq\s+|assignedTo\()'([^']+)'`)

// listRoleAssignments answers the assignments that apply at the scope
// (at it and above) and, unless $filter=atScope(), those beneath it.
func listRoleAssignments(req *Request, scope ID) ([]*Resource, *Error) {
	filter := req.HTTP.URL.Query().Get("$filter")
	atScope := strings.Contains(strings.ToLower(filter), "atscope()")
	principal := ""
	if m := principalFilter.FindStringSubmatch(filter); m != nil {
		principal = m[1]
	}
	s := scope.String()
	var out []*Resource
	for _, r := range req.Store.Find(roleAssignmentsType, nil) {
		a := r.Properties.(*RoleAssignment)
		applies := IsUnder(s, a.Scope) || (!atScope && IsUnder(a.Scope, s))
		if applies && (principal == "" || strings.EqualFold(a.PrincipalID, principal)) {
			out = append(out, r)
		}
	}
	return out, nil
}

// AssignRole gives a principal a role (by name or GUID) at a scope ("/"
// for the root), as an administrator would; tests use it to set up
// principals, and create assignments through armauthorization when the
// assignment itself is under test.
func (c *Cloud) AssignRole(principalObjectID, role, scope string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.assignRole(principalObjectID, role, scope)
}

func (c *Cloud) assignRole(principalObjectID, role, scope string) (string, error) {
	guid := c.roleIDByName(role)
	if guid == "" || c.roleDefinition(guid) == nil {
		return "", fmt.Errorf("role %q does not exist", role)
	}
	scopeID, err := ParseID(scope)
	if err != nil {
		return "", err
	}
	name := newGUID()
	id := extensionID(scopeID, roleAssignmentsType, name)
	now := c.now().UTC().Format(time.RFC3339Nano)
	props := &RoleAssignment{
		RoleDefinitionID: "/providers/Microsoft.Authorization/roleDefinitions/" + guid, PrincipalID: principalObjectID,
		PrincipalType: "ServicePrincipal", Scope: "/" + strings.Trim(scope, "/"), CreatedOn: now, UpdatedOn: now,
	}
	c.store.Put(&Resource{ID: id, Type: roleAssignmentsType, Properties: props, ETag: newETag(nil), ProvisioningState: "Succeeded"})
	return id.String(), nil
}

// bootstrapAdmin makes the administrator application Owner at the root.
func (c *Cloud) bootstrapAdmin() {
	if _, err := c.assignRole(adminObjectID, RoleOwner, "/"); err != nil {
		panic(err) // a built-in role at the root always exists
	}
}
