package cloudsim

import (
	"errors"
	"net/http"

	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// The GCP half's control API, JSON under /_cloudsim/gcp/. Projects are
// made here (creating a project through Cloud Resource Manager is not
// emulated); service accounts, custom roles and workload identity pools may
// be made here too, or over IAM's admin API (/iam/v1/) as a client would.
// The administrator's access token is gcp.AdminToken.
//
//	GET  /_cloudsim/gcp/delays            operation and DNS change delays
//	PUT  /_cloudsim/gcp/delays            replace them (gcp.Delays)
//	GET  /_cloudsim/gcp/limits            Private Service Connect limits (gcp.Limits; 0 is not enforced)
//	PUT  /_cloudsim/gcp/limits            replace them
//	POST /_cloudsim/gcp/projects          {"projectId", "projectNumber"?} → the project
//	GET  /_cloudsim/gcp/quotas            every project's rate quota overrides ([gcp.ProjectQuotaOverride])
//	PUT  /_cloudsim/gcp/projects/{project}/quotas
//	                                      replace the project's overrides ([gcp.QuotaOverride]: {"service"?,
//	                                      "group"?, "perMinute"}); its calls get these figures, other projects keep theirs
//	DELETE /_cloudsim/gcp/projects/{project}/quotas  drop them: the project follows the fault configuration again
//	POST /_cloudsim/gcp/bindings          {"projectId", "role", "member", "condition"?}: grant on the project
//	POST /_cloudsim/gcp/roles             {"projectId", "roleId", "includedPermissions"} → the custom role
//	POST /_cloudsim/gcp/serviceAccounts   {"projectId", "name", "displayName"?, "bindings"?: [{"role", "member"}]}
//	                                      → the account; bindings go on the account's own policy
//	POST /_cloudsim/gcp/providers         gcp.Provider: a workload identity pool's OIDC provider
//	PUT  /_cloudsim/gcp/issuers           {"issuer", "jwks"}: an OIDC issuer's keys, for issuers cloudsim cannot fetch
//	POST /_cloudsim/gcp/tokens            {"principal"} → {"accessToken"}: a token without the sign-in
//	GET  /_cloudsim/gcp/evaluations       every principal's evaluated permissions ({principal: {permission: {allowed, denied}}})
//	GET  /_cloudsim/gcp/calls             per-principal, per-operation call counts
func (s *Server) registerGCPControl(mux *http.ServeMux) {
	mux.HandleFunc("GET /_cloudsim/gcp/delays", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.GCP.Delays()) })
	mux.HandleFunc("PUT /_cloudsim/gcp/delays", func(w http.ResponseWriter, r *http.Request) {
		var d gcp.Delays
		if err := decodeStrict(r, &d); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.GCP.SetDelays(d)
		writeJSON(w, d)
	})
	mux.HandleFunc("GET /_cloudsim/gcp/limits", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.GCP.Limits()) })
	mux.HandleFunc("PUT /_cloudsim/gcp/limits", func(w http.ResponseWriter, r *http.Request) {
		var l gcp.Limits
		if err := decodeStrict(r, &l); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.GCP.SetLimits(l)
		writeJSON(w, l)
	})
	mux.HandleFunc("POST /_cloudsim/gcp/projects", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			ProjectID     string `json:"projectId"`
			ProjectNumber string `json:"projectNumber"`
		}
		if err := decodeStrict(r, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p, err := s.GCP.AddProject(body.ProjectID, body.ProjectNumber)
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		writeJSON(w, p)
	})
	mux.HandleFunc("GET /_cloudsim/gcp/quotas", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.GCP.QuotaOverrides()) })
	mux.HandleFunc("PUT /_cloudsim/gcp/projects/{project}/quotas", func(w http.ResponseWriter, r *http.Request) {
		var overrides []gcp.QuotaOverride
		if err := decodeStrict(r, &overrides); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.setGCPQuotaOverrides(w, r.PathValue("project"), overrides)
	})
	mux.HandleFunc("DELETE /_cloudsim/gcp/projects/{project}/quotas", func(w http.ResponseWriter, r *http.Request) {
		s.setGCPQuotaOverrides(w, r.PathValue("project"), nil)
	})
	mux.HandleFunc("POST /_cloudsim/gcp/bindings", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			ProjectID string    `json:"projectId"`
			Role      string    `json:"role"`
			Member    string    `json:"member"`
			Condition *gcp.Expr `json:"condition"`
		}
		if err := decodeStrict(r, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := s.GCP.Grant(body.ProjectID, body.Role, body.Member, body.Condition); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /_cloudsim/gcp/roles", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			ProjectID           string   `json:"projectId"`
			RoleID              string   `json:"roleId"`
			IncludedPermissions []string `json:"includedPermissions"`
		}
		if err := decodeStrict(r, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		role, err := s.GCP.AddCustomRole(body.ProjectID, body.RoleID, body.IncludedPermissions)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, role)
	})
	mux.HandleFunc("POST /_cloudsim/gcp/serviceAccounts", s.controlAddGCPServiceAccount)
	mux.HandleFunc("POST /_cloudsim/gcp/providers", func(w http.ResponseWriter, r *http.Request) {
		var p gcp.Provider
		if err := decodeStrict(r, &p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := s.GCP.AddProvider(p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]string{"name": p.Name()})
	})
	mux.HandleFunc("PUT /_cloudsim/gcp/issuers", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Issuer string   `json:"issuer"`
			JWKS   sim.JWKS `json:"jwks"`
		}
		if err := decodeStrict(r, &body); err != nil || body.Issuer == "" {
			http.Error(w, "an issuer and its jwks are required", http.StatusBadRequest)
			return
		}
		s.GCP.SetIssuerKeys(body.Issuer, body.JWKS)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /_cloudsim/gcp/tokens", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Principal string `json:"principal"`
		}
		if err := decodeStrict(r, &body); err != nil || body.Principal == "" {
			http.Error(w, "a principal is required", http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]string{"accessToken": s.GCP.IssueToken(body.Principal)})
	})
	mux.HandleFunc("GET /_cloudsim/gcp/evaluations", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.GCP.AllEvaluations()) })
	mux.HandleFunc("GET /_cloudsim/gcp/calls", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, s.GCP.PrincipalCalls()) })
}

// setGCPQuotaOverrides answers with the project's overrides in force, 404
// for a project cloudsim does not have, 400 for an override it cannot apply.
func (s *Server) setGCPQuotaOverrides(w http.ResponseWriter, project string, overrides []gcp.QuotaOverride) {
	if err := s.GCP.SetQuotaOverrides(project, overrides); err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, gcp.ErrNoProject) {
			status = http.StatusNotFound
		}
		http.Error(w, err.Error(), status)
		return
	}
	if overrides == nil {
		overrides = []gcp.QuotaOverride{}
	}
	writeJSON(w, overrides)
}

func (s *Server) controlAddGCPServiceAccount(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ProjectID   string `json:"projectId"`
		Name        string `json:"name"`
		DisplayName string `json:"displayName"`
		Bindings    []struct {
			Role   string `json:"role"`
			Member string `json:"member"`
		} `json:"bindings"`
	}
	if err := decodeStrict(r, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	sa, err := s.GCP.AddServiceAccount(body.ProjectID, body.Name, body.DisplayName)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, b := range body.Bindings {
		if err := s.GCP.GrantOnServiceAccount(sa.Email, b.Role, b.Member); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	writeJSON(w, sa)
}
