package gcp

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// IAM's custom roles of a project
// (https://cloud.google.com/iam/docs/reference/rest/v1/projects.roles):
// create, get, list, patch, delete and undelete. A deleted role grants
// nothing and keeps its ID: creating it again is refused until it is
// undeleted (https://cloud.google.com/iam/docs/creating-custom-roles#deleting-custom-role).

const iamService = "iam.googleapis.com"

// roleID is what CreateRoleRequest.roleId allows: 3 to 64 letters, digits,
// "_" and ".".
var roleID = regexp.MustCompile(`^[a-zA-Z0-9_.]{3,64}$`)

func iamAPI(method, permission string) api {
	return api{service: iamService, method: method, permission: permission}
}

func (c *Cloud) registerRoles(mux *http.ServeMux) {
	const roles = "/iam/v1/projects/{project}/roles"
	c.handle(mux, "POST "+roles, iamAPI("projects.roles.create", ""), createRole)
	c.handle(mux, "GET "+roles, iamAPI("projects.roles.list", "iam.roles.list"), listRoles)
	c.handle(mux, "GET "+roles+"/{role}", iamAPI("projects.roles.get", "iam.roles.get"), getRole)
	c.handle(mux, "PATCH "+roles+"/{role}", iamAPI("projects.roles.patch", "iam.roles.update"), patchRole)
	c.handle(mux, "DELETE "+roles+"/{role}", iamAPI("projects.roles.delete", "iam.roles.delete"), deleteRole)
	c.handle(mux, "POST "+roles+"/{role}", iamAPI("projects.roles.{action}", ""), undeleteRole)
	c.handle(mux, "POST /iam/v1/permissions:queryTestablePermissions", iamAPI("permissions.queryTestablePermissions", ""), testablePermissions)
}

// testablePermissions is permissions.queryTestablePermissions, which
// gcloud iam roles create asks before creating a role: every permission
// cloudsim checks, each supported in custom roles.
func testablePermissions(*call) (any, *Error) {
	out := make([]map[string]string, 0, len(permissions))
	for _, p := range permissions {
		out = append(out, map[string]string{"name": p, "stage": "GA", "customRolesSupportLevel": "SUPPORTED"})
	}
	return map[string]any{"permissions": out}, nil
}

func createRole(x *call) (any, *Error) {
	var req struct {
		RoleID string `json:"roleId"`
		Role   Role   `json:"role"`
	}
	if err := x.decode(&req); err != nil {
		return nil, err
	}
	name := "projects/" + x.project.ID + "/roles/" + req.RoleID
	if err := x.require("iam.roles.create", name); err != nil {
		return nil, err
	}
	if !roleID.MatchString(req.RoleID) {
		return nil, errInvalid("The role ID %q is invalid: 3 to 64 letters, digits, underscores and periods.", req.RoleID)
	}
	if old, ok := x.c.st.customRoles[name]; ok {
		if old.Deleted {
			return nil, &Error{Code: http.StatusBadRequest, Reason: "failedPrecondition",
				Message: "You can't create a role with role_id (" + req.RoleID + ") where there is an existing role with that role_id in a deleted state."}
		}
		return nil, &Error{Code: http.StatusConflict, Reason: "alreadyExists", Message: "A role named " + req.RoleID + " in projects/" + x.project.ID + " already exists."}
	}
	if err := x.c.validPermissions(req.Role.IncludedPermissions); err != nil {
		return nil, err
	}
	role := req.Role
	role.Name, role.Etag, role.Deleted = name, x.c.etag(), false
	if role.Stage == "" {
		role.Stage = "ALPHA" // IAM's default launch stage
	}
	role.IncludedPermissions = slices.Clone(role.IncludedPermissions)
	x.c.st.customRoles[name] = role
	return role, nil
}

// validPermissions refuses a permission IAM (as cloudsim models it) does
// not know, as IAM refuses it, and one a test made NOT_SUPPORTED in custom
// roles (SetCustomRolesSupport), with the same answer: Google's wording
// for the second was not at hand, and callers read the class (400
// invalid), not the words.
func (c *Cloud) validPermissions(perms []string) *Error {
	for _, p := range perms {
		if !slices.Contains(permissions, p) || c.st.notInCustomRoles[p] {
			return errInvalid("Permission %s is not valid.", p)
		}
	}
	return nil
}

// SetCustomRolesSupport sets a permission's custom-role support level, as
// IAM's Permission.customRolesSupportLevel has it
// (https://cloud.google.com/iam/docs/custom-roles-permissions-support):
// NOT_SUPPORTED refuses roles.create and roles.patch of a custom role that
// includes it; SUPPORTED (every permission's level by default) and TESTING
// allow it.
func (c *Cloud) SetCustomRolesSupport(permission, level string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st.notInCustomRoles == nil {
		c.st.notInCustomRoles = map[string]bool{}
	}
	c.st.notInCustomRoles[permission] = level == "NOT_SUPPORTED"
}

// roleOf finds the path's role, deleted or not.
func roleOf(x *call) (string, Role, *Error) {
	id, _, _ := strings.Cut(x.r.PathValue("role"), ":")
	name := "projects/" + x.project.ID + "/roles/" + id
	role, ok := x.c.st.customRoles[name]
	if !ok {
		return name, role, errNotFound(name)
	}
	return name, role, nil
}

func getRole(x *call) (any, *Error) {
	_, role, err := roleOf(x)
	if err != nil {
		return nil, err
	}
	return role, nil
}

// listRoles answers the project's custom roles; deleted ones only with
// showDeleted=true.
func listRoles(x *call) (any, *Error) {
	showDeleted := x.r.URL.Query().Get("showDeleted") == "true"
	var roles []Role
	for _, k := range sortedKeys(x.c.st.customRoles) {
		if r := x.c.st.customRoles[k]; strings.HasPrefix(k, "projects/"+x.project.ID+"/roles/") && (showDeleted || !r.Deleted) {
			roles = append(roles, r)
		}
	}
	return map[string]any{"roles": roles}, nil
}

// patchRole updates the fields updateMask names (all of title,
// description, includedPermissions and stage without one); an etag, when
// given, must be the role's.
func patchRole(x *call) (any, *Error) {
	name, role, err := roleOf(x)
	if err != nil {
		return nil, err
	}
	var req Role
	if err := x.decode(&req); err != nil {
		return nil, err
	}
	if req.Etag != "" && req.Etag != role.Etag {
		return nil, errAborted()
	}
	if role.Deleted {
		return nil, &Error{Code: http.StatusBadRequest, Reason: "failedPrecondition", Message: "You can't update a deleted role."}
	}
	mask := x.r.URL.Query().Get("updateMask")
	if mask == "" {
		mask = "title,description,includedPermissions,stage"
	}
	for _, field := range strings.Split(mask, ",") {
		switch strings.TrimSpace(field) {
		case "title":
			role.Title = req.Title
		case "description":
			role.Description = req.Description
		case "includedPermissions", "included_permissions":
			if err := x.c.validPermissions(req.IncludedPermissions); err != nil {
				return nil, err
			}
			role.IncludedPermissions = slices.Clone(req.IncludedPermissions)
		case "stage":
			role.Stage = req.Stage
		default:
			return nil, errInvalid("Invalid update mask field %q.", field)
		}
	}
	role.Etag = x.c.etag()
	x.c.st.customRoles[name] = role
	return role, nil
}

func deleteRole(x *call) (any, *Error) {
	name, role, err := roleOf(x)
	if err != nil {
		return nil, err
	}
	if role.Deleted {
		return nil, &Error{Code: http.StatusBadRequest, Reason: "failedPrecondition", Message: "You can't delete role_id (" + lastSegment(name) + ") as it is already deleted."}
	}
	role.Deleted, role.Etag = true, x.c.etag()
	x.c.st.customRoles[name] = role
	return role, nil
}

func undeleteRole(x *call) (any, *Error) {
	if x.api.method != "projects.roles.undelete" {
		return nil, &Error{Code: http.StatusNotFound, Reason: "notFound", Message: "Method not found."}
	}
	id, _, _ := strings.Cut(x.r.PathValue("role"), ":")
	if err := x.require("iam.roles.undelete", "projects/"+x.project.ID+"/roles/"+id); err != nil {
		return nil, err
	}
	name, role, err := roleOf(x)
	if err != nil {
		return nil, err
	}
	if !role.Deleted {
		return nil, &Error{Code: http.StatusBadRequest, Reason: "failedPrecondition", Message: "You can't undelete role_id (" + lastSegment(name) + ") as it is not deleted."}
	}
	role.Deleted, role.Etag = false, x.c.etag()
	x.c.st.customRoles[name] = role
	return role, nil
}

// errAborted is IAM's answer to a stale etag: the read-modify-write must
// start again.
func errAborted() *Error {
	return &Error{Code: http.StatusConflict, Reason: "aborted",
		Message: "There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff."}
}
