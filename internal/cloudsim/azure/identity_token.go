package azure

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// The Entra ID endpoints MSAL (azidentity, az) uses with a custom authority
// host:
//
//	GET  /{tenant}/v2.0/.well-known/openid-configuration   tenant discovery
//	GET  /{tenant}/discovery/v2.0/keys                     the signing keys
//	POST /{tenant}/oauth2/v2.0/token                       client credentials
//	GET  /common/discovery/instance                        instance discovery
//
// Token lifetimes run on the wall clock, not the sim clock: the clients
// that cache them compare expiry with the wall clock.

// tokenLifetime is how long an access token is valid, as Entra ID's default.
const tokenLifetime = time.Hour

// clientAssertionType is the only assertion type Entra ID accepts.
const clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// identityEndpoints are the second path segments of Entra ID paths.
var identityEndpoints = map[string]bool{"oauth2": true, "v2.0": true, ".well-known": true, "discovery": true}

func isIdentityPath(lower string) bool {
	segs := strings.Split(strings.Trim(lower, "/"), "/")
	if len(segs) < 2 || strings.HasPrefix(segs[0], "_") || segs[0] == "subscriptions" || segs[0] == "providers" {
		return false
	}
	return identityEndpoints[segs[1]]
}

func (c *Cloud) serveIdentity(w http.ResponseWriter, r *http.Request) {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	tenant, rest := segs[0], strings.ToLower(strings.Join(segs[1:], "/"))
	switch {
	case rest == "discovery/instance":
		c.serveInstanceDiscovery(w, r)
	case rest == "v2.0/.well-known/openid-configuration" || rest == ".well-known/openid-configuration" || rest == "oauth2/v2.0/.well-known/openid-configuration":
		c.serveOpenIDConfiguration(w, r, tenant)
	case rest == "discovery/v2.0/keys" || rest == "discovery/keys":
		writeJSON(w, http.StatusOK, c.tokenSigner().JWKS())
	case (rest == "oauth2/v2.0/token" || rest == "oauth2/token") && r.Method == http.MethodPost:
		c.serveToken(w, r, tenant)
	default:
		writeAADError(w, http.StatusNotFound, "invalid_request", 90002, fmt.Sprintf("The endpoint %s is not served by cloudsim.", r.URL.Path))
	}
}

// adfsTenant is the authority path of an AD FS-style authority
// (https://host/adfs). MSAL trusts such an authority without asking
// login.microsoftonline.com for instance discovery, which az (2.45, MSAL
// 1.21) cannot be told to skip otherwise; cloudsim serves it as an alias
// in which a client ID finds its application in whichever tenant holds it.
const adfsTenant = "adfs"

// knownTenant accepts a tenant ID, or the aliases MSAL uses for discovery.
func (c *Cloud) knownTenant(t string) bool {
	switch strings.ToLower(t) {
	case "common", "organizations", "consumers", adfsTenant:
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.directory.tenant(t) != nil
}

func (c *Cloud) serveOpenIDConfiguration(w http.ResponseWriter, r *http.Request, tenant string) {
	if !c.knownTenant(tenant) {
		writeAADError(w, http.StatusBadRequest, "invalid_tenant", 90002, fmt.Sprintf("Tenant '%s' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.", tenant))
		return
	}
	base := baseURL(r) + "/" + tenant
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                base + "/v2.0",
		"authorization_endpoint":                base + "/oauth2/v2.0/authorize",
		"token_endpoint":                        base + "/oauth2/v2.0/token",
		"device_authorization_endpoint":         base + "/oauth2/v2.0/devicecode",
		"end_session_endpoint":                  base + "/oauth2/v2.0/logout",
		"jwks_uri":                              base + "/discovery/v2.0/keys",
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt", "client_secret_basic"},
		"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token"},
		"subject_types_supported":               []string{"pairwise"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"scopes_supported":                      []string{"openid", "profile", "email", "offline_access"},
		"tenant_region_scope":                   "NA",
		"cloud_instance_name":                   r.Host,
	})
}

// serveInstanceDiscovery answers MSAL's instance discovery for our host:
// the host is its own only alias.
func (c *Cloud) serveInstanceDiscovery(w http.ResponseWriter, r *http.Request) {
	tenant := "common"
	if ep := r.URL.Query().Get("authorization_endpoint"); ep != "" {
		if parts := strings.Split(strings.TrimPrefix(strings.TrimPrefix(ep, "https://"), "http://"), "/"); len(parts) > 1 {
			tenant = parts[1]
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"tenant_discovery_endpoint": baseURL(r) + "/" + tenant + "/v2.0/.well-known/openid-configuration",
		"api-version":               "1.1",
		"metadata":                  []map[string]any{{"preferred_network": r.Host, "preferred_cache": r.Host, "aliases": []string{r.Host}}},
	})
}

// aadError is an Entra ID error; its code is the AADSTS number.
type aadError struct {
	status int
	kind   string
	code   int
	msg    string
}

func (e *aadError) Error() string { return fmt.Sprintf("AADSTS%d: %s", e.code, e.msg) }

func writeAADError(w http.ResponseWriter, status int, kind string, code int, msg string) {
	id := newGUID()
	writeJSON(w, status, map[string]any{
		"error":             kind,
		"error_description": fmt.Sprintf("AADSTS%d: %s Trace ID: %s Correlation ID: %s Timestamp: %s", code, msg, id, id, time.Now().UTC().Format("2006-01-02 15:04:05Z")),
		"error_codes":       []int{code},
		"timestamp":         time.Now().UTC().Format("2006-01-02 15:04:05Z"),
		"trace_id":          id,
		"correlation_id":    id,
	})
}

// serveToken is the client credentials grant, with a client secret or a
// client assertion (a federated workload identity token).
func (c *Cloud) serveToken(w http.ResponseWriter, r *http.Request, tenant string) {
	if err := r.ParseForm(); err != nil {
		writeAADError(w, http.StatusBadRequest, "invalid_request", 900144, "The request body must contain the following parameter: 'grant_type'.")
		return
	}
	form := r.PostForm
	if gt := form.Get("grant_type"); gt != "client_credentials" {
		writeAADError(w, http.StatusBadRequest, "unsupported_grant_type", 70003, fmt.Sprintf("The app requested an unsupported grant type '%s'.", gt))
		return
	}
	principal, aerr := c.authenticateClient(r, tenant, form.Get("client_id"), form.Get("client_secret"),
		form.Get("client_assertion_type"), form.Get("client_assertion"))
	if aerr != nil {
		writeAADError(w, aerr.status, aerr.kind, aerr.code, aerr.msg)
		return
	}
	audience := resourceOfScope(form.Get("scope"))
	token, err := c.issueAccessToken(principal, audience)
	if err != nil {
		writeAADError(w, http.StatusInternalServerError, "server_error", 90100, err.Error())
		return
	}
	secs := int(tokenLifetime/time.Second) - 1
	writeJSON(w, http.StatusOK, map[string]any{
		"token_type": "Bearer", "expires_in": secs, "ext_expires_in": secs, "access_token": token,
	})
}

// resourceOfScope turns "https://management.azure.com/.default" into the
// token audience "https://management.azure.com" (and az's
// "https://management.core.windows.net//.default" into ".../").
func resourceOfScope(scope string) string {
	for _, s := range strings.Fields(scope) {
		if strings.HasSuffix(s, "/.default") {
			return strings.TrimSuffix(s, "/.default")
		}
	}
	return strings.TrimSuffix(strings.Fields(scope + " x")[0], "/.default")
}

// authenticateClient checks a client's secret or assertion and returns the
// service principal it proves.
func (c *Cloud) authenticateClient(r *http.Request, tenant, clientID, secret, assertionType, assertion string) (*Principal, *aadError) {
	app, t, aerr := c.findApplication(tenant, clientID)
	if aerr != nil {
		return nil, aerr
	}
	switch {
	case assertion != "":
		if assertionType != clientAssertionType {
			return nil, &aadError{http.StatusBadRequest, "invalid_request", 50027, "The client assertion type is not supported: use " + clientAssertionType + "."}
		}
		if aerr := c.checkFederatedAssertion(r, app, assertion); aerr != nil {
			return nil, aerr
		}
	case secret != "":
		if aerr := checkClientSecret(app, secret); aerr != nil {
			return nil, aerr
		}
	default:
		return nil, &aadError{http.StatusUnauthorized, "invalid_client", 7000218, "The request body must contain the following parameter: 'client_assertion' or 'client_secret'."}
	}
	return &Principal{TenantID: t, ObjectID: app.PrincipalID, ClientID: app.ClientID, DisplayName: app.DisplayName}, nil
}

// findApplication returns a copy of the application, so that the checks
// that follow (one fetches keys over the network) run without the lock.
func (c *Cloud) findApplication(tenant, clientID string) (Application, string, *aadError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.directory.tenant(tenant)
	if strings.EqualFold(tenant, adfsTenant) {
		t = c.directory.tenantOfClient(clientID)
	}
	if t == nil {
		return Application{}, "", &aadError{http.StatusBadRequest, "invalid_request", 90002,
			fmt.Sprintf("Tenant '%s' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.", tenant)}
	}
	app := t.Applications[strings.ToLower(clientID)]
	if app == nil {
		return Application{}, "", &aadError{http.StatusBadRequest, "unauthorized_client", 700016,
			fmt.Sprintf("Application with identifier '%s' was not found in the directory '%s'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.", clientID, t.DisplayName)}
	}
	copied := *app
	copied.Secrets = append([]ClientSecret{}, app.Secrets...)
	copied.FederatedCredentials = append([]FederatedCredential{}, app.FederatedCredentials...)
	return copied, t.ID, nil
}

func checkClientSecret(app Application, secret string) *aadError {
	now := time.Now()
	for _, s := range app.Secrets {
		if s.Value != secret {
			continue
		}
		if now.After(s.Expires) {
			return &aadError{http.StatusUnauthorized, "invalid_client", 7000222, fmt.Sprintf("The provided client secret keys for app '%s' are expired.", app.ClientID)}
		}
		return nil
	}
	return &aadError{http.StatusUnauthorized, "invalid_client", 7000215,
		fmt.Sprintf("Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '%s'.", app.ClientID)}
}

// checkFederatedAssertion is workload identity: the assertion must match a
// federated credential of the application exactly (issuer, subject, one
// audience), be within its validity, and be signed by a key the issuer
// publishes.
func (c *Cloud) checkFederatedAssertion(r *http.Request, app Application, assertion string) *aadError {
	tok, err := sim.ParseJWT(assertion)
	if err != nil {
		return &aadError{http.StatusBadRequest, "invalid_request", 50027, "JWT token is invalid or malformed."}
	}
	cl := tok.Claims
	if !matchesFederatedCredential(app.FederatedCredentials, cl) {
		return &aadError{http.StatusBadRequest, "invalid_request", 70021,
			fmt.Sprintf("No matching federated identity record found for presented assertion. Assertion Issuer: '%s'. Assertion Subject: '%s'. Assertion Audience: '%s'.", cl.Issuer, cl.Subject, strings.Join(cl.Audiences(), ","))}
	}
	now := time.Now()
	if exp := cl.ExpiresAt(); exp.IsZero() || !now.Before(exp) || (!cl.NotBeforeTime().IsZero() && now.Before(cl.NotBeforeTime().Add(-5*time.Minute))) {
		return &aadError{http.StatusBadRequest, "invalid_client", 700024,
			fmt.Sprintf("Client assertion is not within its valid time range. Current time: %s, expiry time of assertion %s.", now.UTC().Format(time.RFC3339), exp.UTC().Format(time.RFC3339))}
	}
	keys, err := c.issuerKeys.Keys(r.Context(), cl.Issuer)
	if err != nil {
		return &aadError{http.StatusBadRequest, "invalid_client", 50166, fmt.Sprintf("Request to External OIDC endpoint failed: %v", err)}
	}
	if err := tok.Verify(keys); err != nil {
		if errors.Is(err, sim.ErrSignature) {
			return &aadError{http.StatusBadRequest, "invalid_client", 50013, "Assertion failed signature validation. [Reason - The key was not found.]"}
		}
		return &aadError{http.StatusBadRequest, "invalid_client", 50013, "Assertion failed signature validation. [Reason - " + err.Error() + "]"}
	}
	return nil
}

func matchesFederatedCredential(fcs []FederatedCredential, cl sim.Claims) bool {
	for _, fc := range fcs {
		if fc.Issuer != cl.Issuer || fc.Subject != cl.Subject {
			continue
		}
		for _, a := range cl.Audiences() {
			if contains(fc.Audiences, a) {
				return true
			}
		}
	}
	return false
}

// accessTokenClaims are the claims of the tokens cloudsim issues, in the
// shape of Entra ID's v1 access tokens for ARM.
type accessTokenClaims struct {
	Audience string `json:"aud"`
	Issuer   string `json:"iss"`
	IssuedAt int64  `json:"iat"`
	NotBefor int64  `json:"nbf"`
	Expires  int64  `json:"exp"`
	AppID    string `json:"appid"`
	AppIDACR string `json:"appidacr"`
	IDType   string `json:"idtyp"`
	ObjectID string `json:"oid"`
	Subject  string `json:"sub"`
	TenantID string `json:"tid"`
	Name     string `json:"app_displayname,omitempty"`
	Version  string `json:"ver"`
}

// tokenIssuer is the iss of the tokens cloudsim issues for a tenant.
func tokenIssuer(tenant string) string { return "https://sts.windows.net/" + tenant + "/" }

func (c *Cloud) issueAccessToken(p *Principal, audience string) (string, error) {
	now := time.Now()
	return c.tokenSigner().Sign(accessTokenClaims{
		Audience: audience, Issuer: tokenIssuer(p.TenantID), IssuedAt: now.Unix(), NotBefor: now.Unix() - 300,
		Expires: now.Add(tokenLifetime).Unix(), AppID: p.ClientID, AppIDACR: "1", IDType: "app",
		ObjectID: p.ObjectID, Subject: p.ObjectID, TenantID: p.TenantID, Name: p.DisplayName, Version: "1.0",
	})
}
