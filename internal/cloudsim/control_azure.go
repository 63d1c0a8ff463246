package cloudsim

import (
	"net/http"

	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// The Azure half's control API, JSON under /_cloudsim/azure/. Entra ID's
// directory (Microsoft Graph) is not emulated, so tenants, subscriptions and
// service principals are made here:
//
//	GET  /_cloudsim/azure/delays                named long-running operation delays
//	PUT  /_cloudsim/azure/delays                replace them (azure.Delays; names left out are fast)
//	POST /_cloudsim/azure/tenants               {"id"?, "displayName"} → {"id"}
//	POST /_cloudsim/azure/subscriptions         {"tenantId", "subscriptionId"}
//	POST /_cloudsim/azure/servicePrincipals     {"tenantId"?, "displayName", "roles"?: [{"role", "scope"}]}
//	                                            → {"tenantId", "appId", "objectId", "clientSecret"}
//	POST /_cloudsim/azure/federatedCredentials  {"tenantId"?, "appId", "name", "issuer", "subject", "audiences"?}
//	PUT  /_cloudsim/azure/issuers               {"issuer", "jwks"}: an OIDC issuer's keys, for issuers cloudsim cannot fetch
func (s *Server) registerAzureControl(mux *http.ServeMux) {
	mux.HandleFunc("GET /_cloudsim/azure/delays", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, s.Azure.Delays())
	})
	mux.HandleFunc("PUT /_cloudsim/azure/delays", func(w http.ResponseWriter, r *http.Request) {
		var d azure.Delays
		if err := decodeStrict(r, &d); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.Azure.SetDelays(d)
		writeJSON(w, s.Azure.Delays())
	})
	mux.HandleFunc("POST /_cloudsim/azure/tenants", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			ID          string `json:"id"`
			DisplayName string `json:"displayName"`
		}
		if err := decodeStrict(r, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]string{"id": s.Azure.AddTenant(body.ID, body.DisplayName)})
	})
	mux.HandleFunc("POST /_cloudsim/azure/subscriptions", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			TenantID       string `json:"tenantId"`
			SubscriptionID string `json:"subscriptionId"`
		}
		if err := decodeStrict(r, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := s.Azure.AddSubscription(orDefaultTenant(body.TenantID), body.SubscriptionID); err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		writeJSON(w, body)
	})
	mux.HandleFunc("POST /_cloudsim/azure/servicePrincipals", s.controlAddServicePrincipal)
	mux.HandleFunc("POST /_cloudsim/azure/federatedCredentials", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			TenantID string `json:"tenantId"`
			AppID    string `json:"appId"`
			azure.FederatedCredential
		}
		if err := decodeStrict(r, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := s.Azure.AddFederatedCredential(orDefaultTenant(body.TenantID), body.AppID, body.FederatedCredential); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, body)
	})
	mux.HandleFunc("PUT /_cloudsim/azure/issuers", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Issuer string   `json:"issuer"`
			JWKS   sim.JWKS `json:"jwks"`
		}
		if err := decodeStrict(r, &body); err != nil || body.Issuer == "" {
			http.Error(w, "an issuer and its jwks are required", http.StatusBadRequest)
			return
		}
		s.Azure.SetIssuerKeys(body.Issuer, body.JWKS)
		w.WriteHeader(http.StatusNoContent)
	})
}

func (s *Server) controlAddServicePrincipal(w http.ResponseWriter, r *http.Request) {
	var body struct {
		TenantID    string `json:"tenantId"`
		DisplayName string `json:"displayName"`
		Roles       []struct {
			Role  string `json:"role"`
			Scope string `json:"scope"`
		} `json:"roles"`
	}
	if err := decodeStrict(r, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	sp, err := s.Azure.AddServicePrincipal(orDefaultTenant(body.TenantID), body.DisplayName)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, role := range body.Roles {
		if _, err := s.Azure.AssignRole(sp.ObjectID, role.Role, role.Scope); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	writeJSON(w, sp)
}

func orDefaultTenant(id string) string {
	if id == "" {
		return azure.DefaultTenantID
	}
	return id
}
