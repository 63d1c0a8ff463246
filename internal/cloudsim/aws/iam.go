package aws

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
)

// IAM: roles (with inline and attached policies and tags), customer managed
// policies, instance profiles and OpenID Connect providers. Policy documents
// are stored exactly as given and returned URL-encoded, as IAM does.

func init() {
	for action, h := range map[string]Handler{
		"CreateRole":                    createRole,
		"GetRole":                       getRole,
		"ListRoles":                     listRoles,
		"DeleteRole":                    deleteRole,
		"UpdateRole":                    updateRole,
		"UpdateAssumeRolePolicy":        updateAssumeRolePolicy,
		"TagRole":                       tagRole,
		"UntagRole":                     untagRole,
		"ListRoleTags":                  listRoleTags,
		"PutRolePolicy":                 forRole(putInlinePolicy),
		"GetRolePolicy":                 getRolePolicy,
		"DeleteRolePolicy":              forRole(deleteInlinePolicy),
		"ListRolePolicies":              forRole(listInlinePolicies),
		"CreatePolicy":                  createPolicy,
		"GetPolicy":                     getPolicy,
		"GetPolicyVersion":              getPolicyVersion,
		"DeletePolicy":                  deletePolicy,
		"ListPolicies":                  listPolicies,
		"AttachRolePolicy":              forRole(attachManagedPolicy),
		"DetachRolePolicy":              forRole(detachManagedPolicy),
		"ListAttachedRolePolicies":      forRole(listAttachedPolicies),
		"CreateInstanceProfile":         createInstanceProfile,
		"GetInstanceProfile":            getInstanceProfile,
		"DeleteInstanceProfile":         deleteInstanceProfile,
		"AddRoleToInstanceProfile":      addRoleToInstanceProfile,
		"RemoveRoleFromInstanceProfile": removeRoleFromInstanceProfile,
		"ListInstanceProfiles":          listInstanceProfiles,
		"ListInstanceProfilesForRole":   listInstanceProfilesForRole,
	} {
		registerQuery("iam", action, h)
	}
}

// Errors, with IAM's codes and statuses.

func iamErr(status int, code, format string, args ...any) *APIError {
	return &APIError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func noSuchEntity(format string, args ...any) *APIError {
	return iamErr(http.StatusNotFound, "NoSuchEntity", format, args...)
}

func entityAlreadyExists(format string, args ...any) *APIError {
	return iamErr(http.StatusConflict, "EntityAlreadyExists", format, args...)
}

func deleteConflict(format string, args ...any) *APIError {
	return iamErr(http.StatusConflict, "DeleteConflict", format, args...)
}

func iamLimitExceeded(format string, args ...any) *APIError {
	return iamErr(http.StatusConflict, "LimitExceeded", format, args...)
}

func iamValidation(format string, args ...any) *APIError {
	return iamErr(http.StatusBadRequest, "ValidationError", format, args...)
}

func malformedPolicy(format string, args ...any) *APIError {
	return iamErr(http.StatusBadRequest, "MalformedPolicyDocument", format, args...)
}

func noSuchRole(name string) *APIError {
	return noSuchEntity("The role with name %s cannot be found.", name)
}

// Parameter checks.

var iamNamePattern = regexp.MustCompile(`^[\w+=,.@-]+$`)

// iamName reads a required IAM name parameter and checks it against IAM's
// pattern and length limit; field is the name IAM's messages use.
func iamName(call *Call, param, field string, maxLen int) (string, *APIError) {
	v := call.Str(param)
	if v == "" {
		return "", iamValidation("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	if len(v) > maxLen {
		return "", iamValidation("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", v, field, maxLen)
	}
	if !iamNamePattern.MatchString(v) {
		return "", iamValidation("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+", v, field)
	}
	return v, nil
}

var iamPathPattern = regexp.MustCompile(`^(/|/[\x21-\x7E]+/)$`)

func iamPath(call *Call) (string, *APIError) {
	p := call.Str("Path")
	if p == "" {
		return "/", nil
	}
	if len(p) > 512 || !iamPathPattern.MatchString(p) {
		return "", iamValidation("The specified value for path is invalid. It must begin and end with / and contain only alphanumeric characters and/or / characters.")
	}
	return p, nil
}

func iamRequired(call *Call, param, field string) (string, *APIError) {
	v := call.Str(param)
	if v == "" {
		return "", iamValidation("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
	}
	return v, nil
}

// policyDocument reads a policy document parameter and checks what IAM
// checks before accepting it. trust selects the rules of a role's trust
// policy (Principal required, Resource prohibited) over those of a
// permissions policy (Resource required, Principal prohibited).
func policyDocument(call *Call, param, field string, trust bool) (string, *APIError) {
	doc, err := iamRequired(call, param, field)
	if err != nil {
		return "", err
	}
	var parsed map[string]any
	if json.Unmarshal([]byte(doc), &parsed) != nil {
		return "", malformedPolicy("This policy contains invalid Json")
	}
	if v, ok := parsed["Version"]; ok && v != "2012-10-17" && v != "2008-10-17" {
		return "", malformedPolicy("The policy failed legacy parsing")
	}
	var statements []any
	switch st := parsed["Statement"].(type) {
	case []any:
		statements = st
	case map[string]any:
		statements = []any{st}
	default:
		return "", malformedPolicy("Syntax errors in policy.")
	}
	if len(statements) == 0 {
		return "", malformedPolicy("Syntax errors in policy.")
	}
	for _, s := range statements {
		st, ok := s.(map[string]any)
		if !ok {
			return "", malformedPolicy("Syntax errors in policy.")
		}
		if e := st["Effect"]; e != "Allow" && e != "Deny" {
			return "", malformedPolicy("Syntax errors in policy.")
		}
		_, hasAction := st["Action"]
		_, hasNotAction := st["NotAction"]
		if !hasAction && !hasNotAction {
			return "", malformedPolicy("Policy statement must contain actions.")
		}
		_, hasPrincipal := st["Principal"]
		_, hasNotPrincipal := st["NotPrincipal"]
		_, hasResource := st["Resource"]
		_, hasNotResource := st["NotResource"]
		if trust {
			if !hasPrincipal && !hasNotPrincipal {
				return "", malformedPolicy("Missing required field Principal")
			}
			if hasResource || hasNotResource {
				return "", malformedPolicy("Has prohibited field Resource")
			}
		} else {
			if hasPrincipal || hasNotPrincipal {
				return "", malformedPolicy("Policy document should not specify a principal.")
			}
			if !hasResource && !hasNotResource {
				return "", malformedPolicy("Policy statement must contain resources.")
			}
		}
	}
	return doc, nil
}

// policySize is how IAM measures policies against its quotas: characters
// other than white space.
func policySize(doc string) int {
	n := 0
	for _, r := range doc {
		if r != ' ' && r != '\t' && r != '\n' && r != '\r' {
			n++
		}
	}
	return n
}

// encodePolicy URL-encodes a document as IAM returns it (RFC 3986, so a
// space is %20 and clients decode it with a plain unquote).
func encodePolicy(doc string) string {
	var b strings.Builder
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func iamTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func newIAMID(prefix string) string { return prefix + randomUpperAlnum(17) }

// Tags.

type iamTagXML struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

const maxIAMTags = 50

func iamTagsWire(tags map[string]string) []iamTagXML {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]iamTagXML, 0, len(keys))
	for _, k := range keys {
		out = append(out, iamTagXML{Key: k, Value: tags[k]})
	}
	return out
}

// tagMembers is a resource's Tags element: absent when it has no tags, as
// IAM leaves it out.
func tagMembers(tags map[string]string) *members[iamTagXML] {
	if len(tags) == 0 {
		return nil
	}
	return &members[iamTagXML]{iamTagsWire(tags)}
}

// mergeIAMTags adds the request's Tags.member.N to existing tags, enforcing
// IAM's per-resource quota (kind names it: Role, Policy, …).
func mergeIAMTags(call *Call, existing map[string]string, kind string) (map[string]string, *APIError) {
	add := call.MemberTags("Tags")
	out := map[string]string{}
	for k, v := range existing {
		out[k] = v
	}
	for k, v := range add {
		if k == "" || len(k) > 128 || len(v) > 256 {
			return nil, iamValidation("1 validation error detected: Value at 'tags' failed to satisfy constraint: a tag key must be 1 to 128 characters and a value at most 256")
		}
		out[k] = v
	}
	if len(out) > maxIAMTags {
		return nil, iamLimitExceeded("Cannot exceed quota for TagsPer%s: %d", kind, maxIAMTags)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// members is a Query-protocol list that is written even when empty, as IAM
// writes <Roles/> for no roles.
type members[T any] struct {
	Items []T `xml:"member"`
}

// Pagination: IAM's Marker / MaxItems / IsTruncated.

func iamPage[T any](call *Call, items []T, key func(T) string) ([]T, bool, string, *APIError) {
	maxItems, err := call.Int("MaxItems", 100)
	if err != nil {
		return nil, false, "", err
	}
	if maxItems < 1 || maxItems > 1000 {
		return nil, false, "", iamValidation("1 validation error detected: Value '%d' at 'maxItems' failed to satisfy constraint: Member must have value between 1 and 1000", maxItems)
	}
	page, next, perr := Paginate(items, key, call.Str("Marker"), maxItems, 100)
	if perr != nil {
		return nil, false, "", iamValidation("Invalid Marker: %s", call.Str("Marker"))
	}
	return page, next != "", next, nil
}

// Roles.

type iamRoleXML struct {
	Path                     string              `xml:"Path"`
	RoleName                 string              `xml:"RoleName"`
	RoleID                   string              `xml:"RoleId"`
	Arn                      string              `xml:"Arn"`
	CreateDate               string              `xml:"CreateDate"`
	AssumeRolePolicyDocument string              `xml:"AssumeRolePolicyDocument,omitempty"`
	Description              string              `xml:"Description,omitempty"`
	MaxSessionDuration       int                 `xml:"MaxSessionDuration,omitempty"`
	PermissionsBoundary      *iamBoundaryXML     `xml:"PermissionsBoundary,omitempty"`
	Tags                     *members[iamTagXML] `xml:"Tags,omitempty"`
	RoleLastUsed             *struct{}           `xml:"RoleLastUsed,omitempty"`
}

type iamBoundaryXML struct {
	Type string `xml:"PermissionsBoundaryType"`
	Arn  string `xml:"PermissionsBoundaryArn"`
}

// wire renders a role; withTags is false for ListRoles, which leaves tags
// and the permissions boundary out as IAM does.
func (r *Role) wire(withTags bool) iamRoleXML {
	w := iamRoleXML{
		Path: r.Path, RoleName: r.Name, RoleID: r.ID, Arn: r.ARN, CreateDate: iamTime(r.CreatedAt),
		AssumeRolePolicyDocument: encodePolicy(r.AssumeRolePolicyDocument),
		Description:              r.Description, MaxSessionDuration: r.MaxSessionDuration,
	}
	if withTags {
		w.Tags = tagMembers(r.Tags)
		if r.PermissionsBoundary != "" {
			w.PermissionsBoundary = &iamBoundaryXML{Type: "Policy", Arn: r.PermissionsBoundary}
		}
	}
	return w
}

type roleResult struct {
	Role iamRoleXML `xml:"Role"`
}

func roleARN(account, path, name string) string {
	return "arn:aws:iam::" + account + ":role" + path + name
}

func createRole(call *Call) (any, *APIError) {
	name, err := iamName(call, "RoleName", "roleName", 64)
	if err != nil {
		return nil, err
	}
	path, err := iamPath(call)
	if err != nil {
		return nil, err
	}
	doc, err := policyDocument(call, "AssumeRolePolicyDocument", "assumeRolePolicyDocument", true)
	if err != nil {
		return nil, err
	}
	if n := policySize(doc); n > 2048 {
		return nil, iamLimitExceeded("Cannot exceed quota for ACLSizePerRole: 2048")
	}
	maxSession, err := call.Int("MaxSessionDuration", 3600)
	if err != nil {
		return nil, err
	}
	if maxSession < 3600 || maxSession > 43200 {
		return nil, iamValidation("1 validation error detected: Value '%d' at 'maxSessionDuration' failed to satisfy constraint: Member must have value between 3600 and 43200", maxSession)
	}
	iam := call.Account.IAM
	if iam.Role(name) != nil {
		return nil, entityAlreadyExists("Role with name %s already exists.", name)
	}
	boundary := call.Str("PermissionsBoundary")
	if boundary != "" && iam.Policies[boundary] == nil {
		return nil, noSuchEntity("Scope ARN: %s does not exist or is not attachable.", boundary)
	}
	tags, err := mergeIAMTags(call, nil, "Role")
	if err != nil {
		return nil, err
	}
	r := &Role{
		Name: name, Path: path, ARN: roleARN(call.Account.ID, path, name), AssumeRolePolicyDocument: doc,
		ID: newIAMID("AROA"), Description: call.Str("Description"), MaxSessionDuration: maxSession,
		PermissionsBoundary: boundary, CreatedAt: call.Now, Tags: tags,
	}
	iam.Roles[name] = r
	return roleResult{Role: r.wire(true)}, nil
}

// roleParam returns the role named by the RoleName parameter.
func roleParam(call *Call) (*Role, *APIError) {
	name, err := iamRequired(call, "RoleName", "roleName")
	if err != nil {
		return nil, err
	}
	r := call.Account.IAM.Role(name)
	if r == nil {
		return nil, noSuchRole(name)
	}
	return r, nil
}

func getRole(call *Call) (any, *APIError) {
	r, err := roleParam(call)
	if err != nil {
		return nil, err
	}
	w := r.wire(true)
	w.RoleLastUsed = &struct{}{}
	return roleResult{Role: w}, nil
}

type listRolesResult struct {
	Roles       members[iamRoleXML] `xml:"Roles"`
	IsTruncated bool                `xml:"IsTruncated"`
	Marker      string              `xml:"Marker,omitempty"`
}

func listRoles(call *Call) (any, *APIError) {
	prefix := call.Str("PathPrefix")
	var roles []*Role
	for _, r := range call.Account.IAM.Roles {
		if strings.HasPrefix(r.Path, prefix) {
			roles = append(roles, r)
		}
	}
	page, truncated, marker, err := iamPage(call, roles, func(r *Role) string { return r.Name })
	if err != nil {
		return nil, err
	}
	out := listRolesResult{IsTruncated: truncated, Marker: marker}
	for _, r := range page {
		out.Roles.Items = append(out.Roles.Items, r.wire(false))
	}
	return out, nil
}

func deleteRole(call *Call) (any, *APIError) {
	r, err := roleParam(call)
	if err != nil {
		return nil, err
	}
	iam := call.Account.IAM
	if len(r.InlinePolicies) > 0 {
		return nil, deleteConflict("Cannot delete entity, must delete policies first.")
	}
	if len(r.AttachedPolicies) > 0 {
		return nil, deleteConflict("Cannot delete entity, must detach all policies first.")
	}
	for _, p := range iam.InstanceProfiles {
		if contains(p.RoleNames, r.Name) {
			return nil, deleteConflict("Cannot delete entity, must remove roles from instance profile first.")
		}
	}
	delete(iam.Roles, r.Name)
	return nil, nil
}

func updateRole(call *Call) (any, *APIError) {
	r, err := roleParam(call)
	if err != nil {
		return nil, err
	}
	if _, given := call.Params["MaxSessionDuration"]; given {
		d, err := call.Int("MaxSessionDuration", r.MaxSessionDuration)
		if err != nil {
			return nil, err
		}
		if d < 3600 || d > 43200 {
			return nil, iamValidation("1 validation error detected: Value '%d' at 'maxSessionDuration' failed to satisfy constraint: Member must have value between 3600 and 43200", d)
		}
		r.MaxSessionDuration = d
	}
	if _, given := call.Params["Description"]; given {
		r.Description = call.Str("Description")
	}
	return nil, nil
}

func updateAssumeRolePolicy(call *Call) (any, *APIError) {
	r, err := roleParam(call)
	if err != nil {
		return nil, err
	}
	doc, err := policyDocument(call, "PolicyDocument", "policyDocument", true)
	if err != nil {
		return nil, err
	}
	if policySize(doc) > 2048 {
		return nil, iamLimitExceeded("Cannot exceed quota for ACLSizePerRole: 2048")
	}
	r.AssumeRolePolicyDocument = doc
	return nil, nil
}

func tagRole(call *Call) (any, *APIError) {
	r, err := roleParam(call)
	if err != nil {
		return nil, err
	}
	tags, err := mergeIAMTags(call, r.Tags, "Role")
	if err != nil {
		return nil, err
	}
	r.Tags = tags
	return nil, nil
}

func untagRole(call *Call) (any, *APIError) {
	r, err := roleParam(call)
	if err != nil {
		return nil, err
	}
	for _, k := range call.Members("TagKeys") {
		delete(r.Tags, k)
	}
	return nil, nil
}

type listTagsResult struct {
	Tags        members[iamTagXML] `xml:"Tags"`
	IsTruncated bool               `xml:"IsTruncated"`
	Marker      string             `xml:"Marker,omitempty"`
}

func listRoleTags(call *Call) (any, *APIError) {
	r, err := roleParam(call)
	if err != nil {
		return nil, err
	}
	page, truncated, marker, err := iamPage(call, iamTagsWire(r.Tags), func(t iamTagXML) string { return t.Key })
	if err != nil {
		return nil, err
	}
	return listTagsResult{Tags: members[iamTagXML]{page}, IsTruncated: truncated, Marker: marker}, nil
}

// Inline role policies.

type getRolePolicyResult struct {
	RoleName       string `xml:"RoleName"`
	PolicyName     string `xml:"PolicyName"`
	PolicyDocument string `xml:"PolicyDocument"`
}

func getRolePolicy(call *Call) (any, *APIError) {
	r, err := roleParam(call)
	if err != nil {
		return nil, err
	}
	name, err := iamRequired(call, "PolicyName", "policyName")
	if err != nil {
		return nil, err
	}
	doc, ok := r.InlinePolicies[name]
	if !ok {
		return nil, noSuchEntity("The role policy with name %s cannot be found.", name)
	}
	return getRolePolicyResult{RoleName: r.Name, PolicyName: name, PolicyDocument: encodePolicy(doc)}, nil
}

// Managed policies.

type iamPolicyXML struct {
	PolicyName                    string              `xml:"PolicyName"`
	PolicyID                      string              `xml:"PolicyId"`
	Arn                           string              `xml:"Arn"`
	Path                          string              `xml:"Path"`
	DefaultVersionID              string              `xml:"DefaultVersionId"`
	AttachmentCount               int                 `xml:"AttachmentCount"`
	PermissionsBoundaryUsageCount int                 `xml:"PermissionsBoundaryUsageCount"`
	IsAttachable                  bool                `xml:"IsAttachable"`
	Description                   string              `xml:"Description,omitempty"`
	CreateDate                    string              `xml:"CreateDate"`
	UpdateDate                    string              `xml:"UpdateDate"`
	Tags                          *members[iamTagXML] `xml:"Tags,omitempty"`
}

// policyUsage counts the roles and users a policy is attached to and the
// roles it bounds.
func policyUsage(iam *IAMState, arn string) (attached, boundaries int) {
	for _, r := range iam.Roles {
		if contains(r.AttachedPolicies, arn) {
			attached++
		}
		if r.PermissionsBoundary == arn {
			boundaries++
		}
	}
	for _, u := range iam.Users {
		if contains(u.AttachedPolicies, arn) {
			attached++
		}
	}
	return attached, boundaries
}

func (p *ManagedPolicy) wire(iam *IAMState, withTags bool) iamPolicyXML {
	attached, boundaries := policyUsage(iam, p.ARN)
	w := iamPolicyXML{
		PolicyName: p.Name, PolicyID: p.ID, Arn: p.ARN, Path: p.Path, DefaultVersionID: "v1",
		AttachmentCount: attached, PermissionsBoundaryUsageCount: boundaries, IsAttachable: true,
		Description: p.Description, CreateDate: iamTime(p.CreatedAt), UpdateDate: iamTime(p.CreatedAt),
	}
	if withTags {
		w.Tags = tagMembers(p.Tags)
	}
	return w
}

type policyResult struct {
	Policy iamPolicyXML `xml:"Policy"`
}

func createPolicy(call *Call) (any, *APIError) {
	name, err := iamName(call, "PolicyName", "policyName", 128)
	if err != nil {
		return nil, err
	}
	path, err := iamPath(call)
	if err != nil {
		return nil, err
	}
	doc, err := policyDocument(call, "PolicyDocument", "policyDocument", false)
	if err != nil {
		return nil, err
	}
	if policySize(doc) > 6144 {
		return nil, iamLimitExceeded("Cannot exceed quota for PolicySize: 6144")
	}
	iam := call.Account.IAM
	for _, p := range iam.Policies {
		if strings.EqualFold(p.Name, name) {
			return nil, entityAlreadyExists("A policy called %s already exists. Duplicate names are not allowed.", name)
		}
	}
	tags, err := mergeIAMTags(call, nil, "Policy")
	if err != nil {
		return nil, err
	}
	p := &ManagedPolicy{
		Name: name, Path: path, ARN: "arn:aws:iam::" + call.Account.ID + ":policy" + path + name, ID: newIAMID("ANPA"),
		Description: call.Str("Description"), Document: doc, CreatedAt: call.Now, Tags: tags,
	}
	iam.Policies[p.ARN] = p
	return policyResult{Policy: p.wire(iam, true)}, nil
}

func policyParam(call *Call) (*ManagedPolicy, *APIError) {
	arn, err := iamRequired(call, "PolicyArn", "policyArn")
	if err != nil {
		return nil, err
	}
	p := call.Account.IAM.Policies[arn]
	if p == nil {
		return nil, noSuchEntity("Policy %s was not found.", arn)
	}
	return p, nil
}

func getPolicy(call *Call) (any, *APIError) {
	p, err := policyParam(call)
	if err != nil {
		return nil, err
	}
	return policyResult{Policy: p.wire(call.Account.IAM, true)}, nil
}

type getPolicyVersionResult struct {
	Document         string `xml:"PolicyVersion>Document"`
	VersionID        string `xml:"PolicyVersion>VersionId"`
	IsDefaultVersion bool   `xml:"PolicyVersion>IsDefaultVersion"`
	CreateDate       string `xml:"PolicyVersion>CreateDate"`
}

func getPolicyVersion(call *Call) (any, *APIError) {
	p, err := policyParam(call)
	if err != nil {
		return nil, err
	}
	v, err := iamRequired(call, "VersionId", "versionId")
	if err != nil {
		return nil, err
	}
	if v != "v1" {
		return nil, noSuchEntity("Policy %s version %s does not exist or is not attachable.", p.ARN, v)
	}
	return getPolicyVersionResult{Document: encodePolicy(p.Document), VersionID: "v1", IsDefaultVersion: true, CreateDate: iamTime(p.CreatedAt)}, nil
}

func deletePolicy(call *Call) (any, *APIError) {
	p, err := policyParam(call)
	if err != nil {
		return nil, err
	}
	if attached, boundaries := policyUsage(call.Account.IAM, p.ARN); attached+boundaries > 0 {
		return nil, deleteConflict("Cannot delete a policy attached to entities.")
	}
	delete(call.Account.IAM.Policies, p.ARN)
	return nil, nil
}

type listPoliciesResult struct {
	Policies    members[iamPolicyXML] `xml:"Policies"`
	IsTruncated bool                  `xml:"IsTruncated"`
	Marker      string                `xml:"Marker,omitempty"`
}

// listPolicies lists customer managed policies; AWS managed policies are
// not modelled, so Scope=AWS lists none.
func listPolicies(call *Call) (any, *APIError) {
	scope := call.Str("Scope")
	switch scope {
	case "", "All", "Local", "AWS":
	default:
		return nil, iamValidation("1 validation error detected: Value '%s' at 'scope' failed to satisfy constraint: Member must satisfy enum value set: [All, AWS, Local]", scope)
	}
	onlyAttached, err := call.Bool("OnlyAttached", false)
	if err != nil {
		return nil, err
	}
	iam := call.Account.IAM
	var policies []*ManagedPolicy
	if scope != "AWS" {
		for _, p := range iam.Policies {
			if !strings.HasPrefix(p.Path, call.Str("PathPrefix")) {
				continue
			}
			if attached, _ := policyUsage(iam, p.ARN); onlyAttached && attached == 0 {
				continue
			}
			policies = append(policies, p)
		}
	}
	page, truncated, marker, err := iamPage(call, policies, func(p *ManagedPolicy) string { return p.Name })
	if err != nil {
		return nil, err
	}
	out := listPoliciesResult{IsTruncated: truncated, Marker: marker}
	for _, p := range page {
		out.Policies.Items = append(out.Policies.Items, p.wire(iam, false))
	}
	return out, nil
}

// Instance profiles.

type iamInstanceProfileXML struct {
	Path                string              `xml:"Path"`
	InstanceProfileName string              `xml:"InstanceProfileName"`
	InstanceProfileID   string              `xml:"InstanceProfileId"`
	Arn                 string              `xml:"Arn"`
	CreateDate          string              `xml:"CreateDate"`
	Roles               members[iamRoleXML] `xml:"Roles"`
	Tags                *members[iamTagXML] `xml:"Tags,omitempty"`
}

func (p *InstanceProfile) wire(iam *IAMState) iamInstanceProfileXML {
	w := iamInstanceProfileXML{
		Path: p.Path, InstanceProfileName: p.Name, InstanceProfileID: p.ID, Arn: p.ARN,
		CreateDate: iamTime(p.CreatedAt), Tags: tagMembers(p.Tags),
	}
	for _, name := range p.RoleNames {
		if r := iam.Role(name); r != nil {
			w.Roles.Items = append(w.Roles.Items, r.wire(false))
		}
	}
	return w
}

type instanceProfileResult struct {
	InstanceProfile iamInstanceProfileXML `xml:"InstanceProfile"`
}

func createInstanceProfile(call *Call) (any, *APIError) {
	name, err := iamName(call, "InstanceProfileName", "instanceProfileName", 128)
	if err != nil {
		return nil, err
	}
	path, err := iamPath(call)
	if err != nil {
		return nil, err
	}
	iam := call.Account.IAM
	if iam.InstanceProfile(name) != nil {
		return nil, entityAlreadyExists("Instance Profile %s already exists.", name)
	}
	tags, err := mergeIAMTags(call, nil, "InstanceProfile")
	if err != nil {
		return nil, err
	}
	p := &InstanceProfile{
		Name: name, Path: path, ARN: "arn:aws:iam::" + call.Account.ID + ":instance-profile" + path + name,
		ID: newIAMID("AIPA"), CreatedAt: call.Now, Tags: tags,
	}
	iam.InstanceProfiles[name] = p
	return instanceProfileResult{InstanceProfile: p.wire(iam)}, nil
}

func instanceProfileParam(call *Call) (*InstanceProfile, *APIError) {
	name, err := iamRequired(call, "InstanceProfileName", "instanceProfileName")
	if err != nil {
		return nil, err
	}
	p := call.Account.IAM.InstanceProfile(name)
	if p == nil {
		return nil, noSuchEntity("Instance Profile %s cannot be found.", name)
	}
	return p, nil
}

func getInstanceProfile(call *Call) (any, *APIError) {
	p, err := instanceProfileParam(call)
	if err != nil {
		return nil, err
	}
	return instanceProfileResult{InstanceProfile: p.wire(call.Account.IAM)}, nil
}

func deleteInstanceProfile(call *Call) (any, *APIError) {
	p, err := instanceProfileParam(call)
	if err != nil {
		return nil, err
	}
	if len(p.RoleNames) > 0 {
		return nil, deleteConflict("Cannot delete entity, must remove roles from instance profile first.")
	}
	delete(call.Account.IAM.InstanceProfiles, p.Name)
	return nil, nil
}

func addRoleToInstanceProfile(call *Call) (any, *APIError) {
	p, err := instanceProfileParam(call)
	if err != nil {
		return nil, err
	}
	r, err := roleParam(call)
	if err != nil {
		return nil, err
	}
	if len(p.RoleNames) > 0 {
		return nil, iamLimitExceeded("Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1")
	}
	p.RoleNames = []string{r.Name}
	return nil, nil
}

func removeRoleFromInstanceProfile(call *Call) (any, *APIError) {
	p, err := instanceProfileParam(call)
	if err != nil {
		return nil, err
	}
	r, err := roleParam(call)
	if err != nil {
		return nil, err
	}
	if !contains(p.RoleNames, r.Name) {
		return nil, noSuchEntity("The role with name %s cannot be found in instance profile %s.", r.Name, p.Name)
	}
	p.RoleNames = nil
	return nil, nil
}

type listInstanceProfilesResult struct {
	InstanceProfiles members[iamInstanceProfileXML] `xml:"InstanceProfiles"`
	IsTruncated      bool                           `xml:"IsTruncated"`
	Marker           string                         `xml:"Marker,omitempty"`
}

func listProfiles(call *Call, keep func(*InstanceProfile) bool) (any, *APIError) {
	iam := call.Account.IAM
	var profiles []*InstanceProfile
	for _, p := range iam.InstanceProfiles {
		if keep(p) {
			profiles = append(profiles, p)
		}
	}
	page, truncated, marker, err := iamPage(call, profiles, func(p *InstanceProfile) string { return p.Name })
	if err != nil {
		return nil, err
	}
	out := listInstanceProfilesResult{IsTruncated: truncated, Marker: marker}
	for _, p := range page {
		out.InstanceProfiles.Items = append(out.InstanceProfiles.Items, p.wire(iam))
	}
	return out, nil
}

func listInstanceProfiles(call *Call) (any, *APIError) {
	prefix := call.Str("PathPrefix")
	return listProfiles(call, func(p *InstanceProfile) bool { return strings.HasPrefix(p.Path, prefix) })
}

func listInstanceProfilesForRole(call *Call) (any, *APIError) {
	r, err := roleParam(call)
	if err != nil {
		return nil, err
	}
	return listProfiles(call, func(p *InstanceProfile) bool { return contains(p.RoleNames, r.Name) })
}
