package gcp

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// Policy is an IAM policy (https://cloud.google.com/iam/docs/reference/rest/v1/Policy).
type Policy struct {
	Version  int       `json:"version,omitempty"`
	Etag     string    `json:"etag,omitempty"`
	Bindings []Binding `json:"bindings,omitempty"`
}

// Binding grants a role to members, under an optional condition.
type Binding struct {
	Role      string   `json:"role"`
	Members   []string `json:"members"`
	Condition *Expr    `json:"condition,omitempty"`
}

// Expr is an IAM condition. cloudsim evaluates the forms our policies use:
// resource.name.startsWith("...") and resource.name == "...", joined by ||.
type Expr struct {
	Expression  string `json:"expression"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

var conditionTerm = regexp.MustCompile(`^\s*resource\.name\s*(==|\.startsWith\()\s*["']([^"']*)["']\s*\)?\s*$`)

func (e *Expr) valid() bool {
	for _, term := range strings.Split(e.Expression, "||") {
		if !conditionTerm.MatchString(term) {
			return false
		}
	}
	return true
}

func (e *Expr) holds(resource string) bool {
	for _, term := range strings.Split(e.Expression, "||") {
		m := conditionTerm.FindStringSubmatch(term)
		if m != nil && (m[1] == "==" && resource == m[2] || m[1] != "==" && strings.HasPrefix(resource, m[2])) {
			return true
		}
	}
	return false
}

func (p *Policy) add(role, member string, cond *Expr) {
	for i := range p.Bindings {
		b := &p.Bindings[i]
		if b.Role == role && b.Condition == nil && cond == nil {
			if !slices.Contains(b.Members, member) {
				b.Members = append(b.Members, member)
			}
			return
		}
	}
	p.Bindings = append(p.Bindings, Binding{Role: role, Members: []string{member}, Condition: cond})
}

// Cloud Resource Manager's projects.getIamPolicy and projects.setIamPolicy
// (https://cloud.google.com/resource-manager/reference/rest/v1/projects/setIamPolicy):
// a set with a stale etag is refused with 409 ABORTED, so that concurrent
// read-modify-write cycles do not lose each other's bindings.
func projectIamPolicy(x *call) (any, *Error) {
	id, action, _ := strings.Cut(x.r.PathValue("resource"), ":")
	p := x.c.project(id)
	if p == nil {
		return nil, errPermission("resourcemanager.projects.getIamPolicy", "projects/"+id)
	}
	x.project = p
	switch action {
	case "getIamPolicy":
		if err := x.require("resourcemanager.projects.getIamPolicy", "projects/"+p.ID); err != nil {
			return nil, err
		}
		return p.Policy, nil
	case "setIamPolicy":
		if err := x.require("resourcemanager.projects.setIamPolicy", "projects/"+p.ID); err != nil {
			return nil, err
		}
		return setProjectPolicy(x, p)
	}
	return nil, &Error{Code: http.StatusNotFound, Reason: "notFound", Message: "Method not found."}
}

func setProjectPolicy(x *call, p *Project) (any, *Error) {
	policy, err := x.newPolicy(p.Policy.Etag)
	if err != nil {
		return nil, err
	}
	p.Policy = policy
	return p.Policy, nil
}

// getProject is Cloud Resource Manager's projects.get: v1 answers the
// project's ID and number, v3 names it by its number
// (https://cloud.google.com/resource-manager/reference/rest/v3/projects#Project).
func getProject(x *call) (any, *Error) {
	p := x.project
	if strings.HasPrefix(x.r.URL.Path, "/cloudresourcemanager/v3/") {
		return map[string]any{"name": "projects/" + p.Number, "projectId": p.ID, "state": "ACTIVE", "displayName": p.ID}, nil
	}
	return map[string]any{"projectId": p.ID, "projectNumber": p.Number, "name": p.ID, "lifecycleState": "ACTIVE"}, nil
}
