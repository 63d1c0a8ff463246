package gcp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Security Token Service's token exchange
// (https://cloud.google.com/iam/docs/reference/sts/rest/v1/TopLevel/token):
// a workload's OIDC token (here a Kubernetes ServiceAccount token) for a
// federated access token, against a workload identity pool provider that
// trusts the token's issuer. Errors are OAuth 2.0 errors (invalid_request,
// invalid_grant, invalid_target, unsupported_grant_type).

const (
	grantTokenExchange  = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeJWT        = "urn:ietf:params:oauth:token-type:jwt"
	tokenTypeIDToken    = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeAccess     = "urn:ietf:params:oauth:token-type:access_token"
	iamAudiencePrefix   = "//iam.googleapis.com/"
	iamProviderURLStart = "https://iam.googleapis.com/"
)

type stsRequest struct {
	GrantType          string `json:"grantType"`
	Audience           string `json:"audience"`
	SubjectToken       string `json:"subjectToken"`
	SubjectTokenType   string `json:"subjectTokenType"`
	RequestedTokenType string `json:"requestedTokenType"`
	Scope              string `json:"scope"`
}

// parseSTSRequest accepts the form encoding (the oauth2 library, gcloud)
// and the JSON one (google.golang.org/api/sts/v1).
func parseSTSRequest(x *call) (stsRequest, *Error) {
	var req stsRequest
	if strings.HasPrefix(x.r.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(x.body, &req); err != nil {
			return req, oauthError("invalid_request", "Invalid JSON payload received.")
		}
		return req, nil
	}
	form, err := url.ParseQuery(string(x.body))
	if err != nil {
		return req, oauthError("invalid_request", "The request body is not form-encoded.")
	}
	return stsRequest{GrantType: form.Get("grant_type"), Audience: form.Get("audience"), SubjectToken: form.Get("subject_token"),
		SubjectTokenType: form.Get("subject_token_type"), RequestedTokenType: form.Get("requested_token_type"), Scope: form.Get("scope")}, nil
}

func oauthError(code, description string) *Error {
	return &Error{Code: http.StatusBadRequest, Reason: code, OAuth: code, Message: description}
}

// fetchIssuerKeys runs before the lock, as the issuer's keys may be
// fetched over HTTP. It never refuses the call itself: exchangeToken checks
// the request in STS's order and reports a failed fetch once the token's
// issuer is known to be the provider's.
func fetchIssuerKeys(x *call) *Error {
	req, err := parseSTSRequest(x)
	if err != nil {
		return nil
	}
	jwt, perr := sim.ParseJWT(req.SubjectToken)
	if perr != nil {
		return nil
	}
	x.keys, x.keysErr = x.c.issuerKeys.Keys(x.r.Context(), jwt.Claims.Issuer)
	return nil
}

func exchangeToken(x *call) (any, *Error) {
	req, err := parseSTSRequest(x)
	if err != nil {
		return nil, err
	}
	if req.GrantType != grantTokenExchange {
		return nil, oauthError("unsupported_grant_type", "Invalid value for \"grant_type\".")
	}
	if req.SubjectTokenType != tokenTypeJWT && req.SubjectTokenType != tokenTypeIDToken {
		return nil, oauthError("invalid_request", "Invalid value for \"subject_token_type\".")
	}
	if req.RequestedTokenType != "" && req.RequestedTokenType != tokenTypeAccess {
		return nil, oauthError("invalid_request", "Invalid value for \"requested_token_type\".")
	}
	provider := x.c.st.providers[strings.TrimPrefix(req.Audience, iamAudiencePrefix)]
	if provider == nil || !strings.HasPrefix(req.Audience, iamAudiencePrefix) || !x.c.signsIn(provider) {
		return nil, oauthError("invalid_target", "The target service indicated by the \"audience\" parameters is invalid. This might either be because the pool or provider is disabled or deleted or because it doesn't exist.")
	}
	subject, err := x.verifySubjectToken(provider, req.SubjectToken)
	if err != nil {
		return nil, err
	}
	token, _ := x.c.issueToken(provider.poolPrincipalPrefix()+subject, x.now, tokenLifetime)
	return map[string]any{"access_token": token, "issued_token_type": tokenTypeAccess, "token_type": "Bearer",
		"expires_in": int(tokenLifetime.Seconds())}, nil
}

// verifySubjectToken checks the token as STS does — issuer, signature,
// lifetime, audience — and returns google.subject after the mapping.
func (x *call) verifySubjectToken(p *Provider, raw string) (string, *Error) {
	jwt, err := sim.ParseJWT(raw)
	if err != nil {
		return "", oauthError("invalid_grant", "Unable to parse the ID Token.")
	}
	if jwt.Claims.Issuer != p.IssuerURI {
		return "", oauthError("invalid_grant", "The issuer in ID Token "+jwt.Claims.Issuer+" does not match the expected ones: "+p.IssuerURI+".")
	}
	if x.keysErr != nil {
		return "", oauthError("invalid_grant", "The issuer's keys could not be fetched: "+x.keysErr.Error())
	}
	if err := jwt.Verify(x.keys); err != nil {
		return "", oauthError("invalid_grant", "The ID Token's signature cannot be verified with the issuer's keys.")
	}
	if exp := jwt.Claims.ExpiresAt(); exp.IsZero() || !x.now.Before(exp) {
		return "", oauthError("invalid_grant", "The ID Token has expired.")
	}
	if nbf := jwt.Claims.NotBeforeTime(); !nbf.IsZero() && x.now.Before(nbf) {
		return "", oauthError("invalid_grant", "The ID Token is not yet valid.")
	}
	allowed := p.AllowedAudiences
	if len(allowed) == 0 {
		allowed = []string{iamProviderURLStart + p.Name()}
	}
	if !slices.ContainsFunc(jwt.Claims.Audiences(), func(a string) bool { return slices.Contains(allowed, a) }) {
		return "", oauthError("invalid_grant", "The audience in ID Token does not match the expected audience.")
	}
	var claims map[string]any
	_ = json.Unmarshal(jwt.Payload, &claims)
	expr := p.AttributeMapping["google.subject"]
	if expr == "" {
		expr = "assertion.sub"
	}
	subject, _ := claims[strings.TrimPrefix(expr, "assertion.")].(string)
	if subject == "" {
		return "", oauthError("invalid_grant", "The mapped attribute google.subject is empty.")
	}
	return subject, nil
}
