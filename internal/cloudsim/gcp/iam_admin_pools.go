package gcp

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// IAM's workload identity pools and their OIDC providers
// (https://cloud.google.com/iam/docs/reference/rest/v1/projects.locations.workloadIdentityPools).
// Create, delete and undelete answer a long-running operation
// (google.longrunning.Operation: name, done, response) that is done once
// the cloud's operation delay has passed on the sim clock; the change
// itself is made at once. A deleted pool or provider signs nobody in and
// keeps its ID until it is undeleted (IAM purges it after 30 days).

// poolID is what a pool's and a provider's ID may be: 4 to 32 lower-case
// letters, digits or hyphens; the "gcp-" prefix is Google's.
var poolID = regexp.MustCompile(`^[a-z0-9-]{4,32}$`)

// Pool is a workload identity pool.
type Pool struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName,omitempty"`
	Description string `json:"description,omitempty"`
	State       string `json:"state"`
	Disabled    bool   `json:"disabled,omitempty"`
}

// lro is a google.longrunning.Operation of IAM.
type lro struct {
	name     string
	done     time.Time
	response any
}

func (o *lro) render(now time.Time) map[string]any {
	out := map[string]any{"name": o.name, "metadata": map[string]any{"@type": "type.googleapis.com/google.iam.admin.v1.WorkloadIdentityPoolOperationMetadata"}}
	if !now.Before(o.done) {
		out["done"] = true
		out["response"] = o.response
	}
	return out
}

func (x *call) startLRO(resource string, response any) map[string]any {
	o := &lro{name: fmt.Sprintf("%s/operations/%x", resource, x.c.newID()), done: x.now.Add(x.c.Delays().Operation.D()), response: response}
	x.c.st.lros[o.name] = o
	return o.render(x.now)
}

func (c *Cloud) registerPools(mux *http.ServeMux) {
	const pools = "/iam/v1/projects/{project}/locations/global/workloadIdentityPools"
	const providers = pools + "/{pool}/providers"
	c.handle(mux, "POST "+pools, iamAPI("projects.locations.workloadIdentityPools.create", ""), createPool)
	c.handle(mux, "GET "+pools+"/{pool}", iamAPI("projects.locations.workloadIdentityPools.get", ""), poolMethod)
	c.handle(mux, "DELETE "+pools+"/{pool}", iamAPI("projects.locations.workloadIdentityPools.delete", ""), poolMethod)
	c.handle(mux, "POST "+pools+"/{pool}", iamAPI("projects.locations.workloadIdentityPools.{action}", ""), poolMethod)
	c.handle(mux, "GET "+pools+"/{pool}/operations/{op}", iamAPI("projects.locations.workloadIdentityPools.operations.get", ""), getLRO)
	c.handle(mux, "POST "+providers, iamAPI("projects.locations.workloadIdentityPools.providers.create", ""), createProvider)
	c.handle(mux, "GET "+providers+"/{provider}", iamAPI("projects.locations.workloadIdentityPools.providers.get", ""), providerMethod)
	c.handle(mux, "DELETE "+providers+"/{provider}", iamAPI("projects.locations.workloadIdentityPools.providers.delete", ""), providerMethod)
	c.handle(mux, "POST "+providers+"/{provider}", iamAPI("projects.locations.workloadIdentityPools.providers.{action}", ""), providerMethod)
	c.handle(mux, "GET "+providers+"/{provider}/operations/{op}", iamAPI("projects.locations.workloadIdentityPools.providers.operations.get", ""), getLRO)
}

// poolName is the path's pool as IAM names it: under the project's number.
func (x *call) poolName() string {
	id, _, _ := strings.Cut(x.r.PathValue("pool"), ":")
	return "projects/" + x.project.Number + "/locations/global/workloadIdentityPools/" + id
}

func createPool(x *call) (any, *Error) {
	id := x.r.URL.Query().Get("workloadIdentityPoolId")
	name := "projects/" + x.project.Number + "/locations/global/workloadIdentityPools/" + id
	if err := x.require("iam.workloadIdentityPools.create", name); err != nil {
		return nil, err
	}
	if !poolID.MatchString(id) || strings.HasPrefix(id, "gcp-") || strings.HasPrefix(id, "-") || strings.HasSuffix(id, "-") {
		return nil, errInvalid("Invalid workloadIdentityPoolId %q: 4 to 32 lower-case letters, digits or hyphens, not starting with gcp-.", id)
	}
	var req Pool
	if err := x.decode(&req); err != nil {
		return nil, err
	}
	if x.c.st.pools[name] != nil {
		return nil, &Error{Code: http.StatusConflict, Reason: "alreadyExists", Message: "Requested entity already exists"}
	}
	pool := &Pool{Name: name, DisplayName: req.DisplayName, Description: req.Description, State: "ACTIVE", Disabled: req.Disabled}
	x.c.st.pools[name] = pool
	return x.startLRO(name, *pool), nil
}

// poolMethod is get, delete and undelete of a pool.
func poolMethod(x *call) (any, *Error) {
	name := x.poolName()
	permission := map[string]string{"GET": "iam.workloadIdentityPools.get", "DELETE": "iam.workloadIdentityPools.delete"}[x.r.Method]
	if x.r.Method == http.MethodPost {
		if !strings.HasSuffix(x.api.method, ".undelete") {
			return nil, &Error{Code: http.StatusNotFound, Reason: "notFound", Message: "Method not found."}
		}
		permission = "iam.workloadIdentityPools.undelete"
	}
	if err := x.require(permission, name); err != nil {
		return nil, err
	}
	pool := x.c.st.pools[name]
	if pool == nil {
		return nil, errNotFound(name)
	}
	switch x.r.Method {
	case http.MethodGet:
		return *pool, nil
	case http.MethodDelete:
		if pool.State == "DELETED" {
			return nil, errNotFound(name)
		}
		pool.State = "DELETED"
	default:
		if pool.State != "DELETED" {
			return nil, &Error{Code: http.StatusBadRequest, Reason: "failedPrecondition", Message: "The pool is not deleted."}
		}
		pool.State = "ACTIVE"
	}
	return x.startLRO(name, *pool), nil
}

// wireProvider is a provider as IAM shows it.
type wireProvider struct {
	Name             string            `json:"name,omitempty"`
	DisplayName      string            `json:"displayName,omitempty"`
	Description      string            `json:"description,omitempty"`
	State            string            `json:"state,omitempty"`
	Disabled         bool              `json:"disabled,omitempty"`
	AttributeMapping map[string]string `json:"attributeMapping,omitempty"`
	OIDC             *struct {
		IssuerURI        string   `json:"issuerUri"`
		AllowedAudiences []string `json:"allowedAudiences,omitempty"`
	} `json:"oidc,omitempty"`
}

func renderProvider(p *Provider) wireProvider {
	out := wireProvider{Name: p.Name(), DisplayName: p.DisplayName, Description: p.Description, State: p.state(),
		Disabled: p.Disabled, AttributeMapping: p.AttributeMapping}
	out.OIDC = &struct {
		IssuerURI        string   `json:"issuerUri"`
		AllowedAudiences []string `json:"allowedAudiences,omitempty"`
	}{p.IssuerURI, p.AllowedAudiences}
	return out
}

func createProvider(x *call) (any, *Error) {
	id := x.r.URL.Query().Get("workloadIdentityPoolProviderId")
	poolName := x.poolName()
	name := poolName + "/providers/" + id
	if err := x.require("iam.workloadIdentityPoolProviders.create", name); err != nil {
		return nil, err
	}
	if !poolID.MatchString(id) || strings.HasPrefix(id, "gcp-") {
		return nil, errInvalid("Invalid workloadIdentityPoolProviderId %q: 4 to 32 lower-case letters, digits or hyphens, not starting with gcp-.", id)
	}
	if pool := x.c.st.pools[poolName]; pool == nil || pool.State != "ACTIVE" {
		return nil, errNotFound(poolName)
	}
	var req wireProvider
	if err := x.decode(&req); err != nil {
		return nil, err
	}
	if req.OIDC == nil || req.OIDC.IssuerURI == "" {
		return nil, errInvalid("An OIDC provider needs oidc.issuerUri.")
	}
	if req.AttributeMapping["google.subject"] == "" {
		return nil, errInvalid("attributeMapping must map google.subject for an OIDC provider.")
	}
	p := Provider{ProjectNumber: x.project.Number, PoolID: lastSegment(poolName), ProviderID: id, IssuerURI: req.OIDC.IssuerURI,
		AllowedAudiences: req.OIDC.AllowedAudiences, AttributeMapping: req.AttributeMapping, DisplayName: req.DisplayName,
		Description: req.Description, Disabled: req.Disabled}
	if err := p.check(); err != nil {
		return nil, errInvalid("%v", err)
	}
	if x.c.st.providers[name] != nil {
		return nil, &Error{Code: http.StatusConflict, Reason: "alreadyExists", Message: "Requested entity already exists"}
	}
	x.c.st.providers[name] = &p
	return x.startLRO(name, renderProvider(&p)), nil
}

// providerMethod is get, delete and undelete of a provider.
func providerMethod(x *call) (any, *Error) {
	id, _, _ := strings.Cut(x.r.PathValue("provider"), ":")
	name := x.poolName() + "/providers/" + id
	permission := map[string]string{"GET": "iam.workloadIdentityPoolProviders.get", "DELETE": "iam.workloadIdentityPoolProviders.delete"}[x.r.Method]
	if x.r.Method == http.MethodPost {
		if !strings.HasSuffix(x.api.method, ".undelete") {
			return nil, &Error{Code: http.StatusNotFound, Reason: "notFound", Message: "Method not found."}
		}
		permission = "iam.workloadIdentityPoolProviders.undelete"
	}
	if err := x.require(permission, name); err != nil {
		return nil, err
	}
	p := x.c.st.providers[name]
	if p == nil {
		return nil, errNotFound(name)
	}
	switch x.r.Method {
	case http.MethodGet:
		return renderProvider(p), nil
	case http.MethodDelete:
		if p.Deleted {
			return nil, errNotFound(name)
		}
		p.Deleted = true
	default:
		if !p.Deleted {
			return nil, &Error{Code: http.StatusBadRequest, Reason: "failedPrecondition", Message: "The provider is not deleted."}
		}
		p.Deleted = false
	}
	return x.startLRO(name, renderProvider(p)), nil
}

// getLRO answers an operation of a pool or provider; reading it needs the
// permission to read what it is about.
func getLRO(x *call) (any, *Error) {
	resource := x.poolName()
	permission := "iam.workloadIdentityPools.get"
	if provider := x.r.PathValue("provider"); provider != "" {
		resource += "/providers/" + provider
		permission = "iam.workloadIdentityPoolProviders.get"
	}
	if err := x.require(permission, resource); err != nil {
		return nil, err
	}
	name := resource + "/operations/" + x.r.PathValue("op")
	o := x.c.st.lros[name]
	if o == nil {
		return nil, errNotFound(name)
	}
	return o.render(x.now), nil
}
