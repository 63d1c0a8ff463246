package azure

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// armAudiences are the token audiences ARM accepts. A token for the
// emulator's own URL is accepted too, for clients configured with it.
var armAudiences = []string{
	"https://management.core.windows.net/", "https://management.core.windows.net",
	"https://management.azure.com/", "https://management.azure.com",
}

// authenticate reads the bearer token and returns its principal, or ARM's
// 401 for a missing, malformed, foreign, expired or misdirected token.
func (c *Cloud) authenticate(r *http.Request) (*Principal, *Error) {
	header := r.Header.Get("Authorization")
	if header == "" {
		return nil, NewError(http.StatusUnauthorized, "AuthenticationFailed", "Authentication failed. The 'Authorization' header is missing.")
	}
	scheme, raw, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || raw == "" {
		return nil, NewError(http.StatusUnauthorized, "AuthenticationFailedInvalidHeader", "Authentication failed. The 'Authorization' header is provided in an invalid format.")
	}
	invalid := NewError(http.StatusUnauthorized, "InvalidAuthenticationToken", "The access token is invalid.")
	tok, err := sim.ParseJWT(strings.TrimSpace(raw))
	if err != nil || tok.Verify(c.tokenSigner().JWKS()) != nil {
		return nil, invalid
	}
	var claims accessTokenClaims
	if json.Unmarshal(tok.Payload, &claims) != nil || claims.Issuer != tokenIssuer(claims.TenantID) {
		return nil, invalid
	}
	now := time.Now()
	if exp := time.Unix(claims.Expires, 0); !now.Before(exp) {
		return nil, NewError(http.StatusUnauthorized, "ExpiredAuthenticationToken",
			"The access token expiry UTC time '%s' is earlier than current UTC time '%s'.", exp.UTC().Format("1/2/2006 3:04:05 PM"), now.UTC().Format("1/2/2006 3:04:05 PM"))
	}
	if !acceptedAudience(claims.Audience, r) {
		return nil, NewError(http.StatusUnauthorized, "InvalidAuthenticationTokenAudience",
			"The access token has been obtained for wrong audience or resource '%s'. It should exactly match with one of the allowed audiences '%s'.",
			claims.Audience, strings.Join(armAudiences, "','"))
	}
	return &Principal{TenantID: claims.TenantID, ObjectID: claims.ObjectID, ClientID: claims.AppID, DisplayName: claims.Name}, nil
}

func acceptedAudience(aud string, r *http.Request) bool {
	if contains(armAudiences, aud) {
		return true
	}
	own := baseURL(r)
	return aud == own || aud == own+"/"
}

// checkSubscriptionTenant refuses a token from another tenant than the
// subscription's. The caller holds c.mu.
func (c *Cloud) checkSubscriptionTenant(sub string, p *Principal) *Error {
	if sub == "" {
		return nil
	}
	s := c.directory.subscription(sub, p.TenantID)
	if strings.EqualFold(s.TenantID, p.TenantID) {
		return nil
	}
	return NewError(http.StatusUnauthorized, "InvalidAuthenticationTokenTenant",
		"The access token is from the wrong issuer '%s'. It must match the tenant '%s' associated with this subscription. Please use the authority (URL) 'https://login.windows.net/%s' to get the token.",
		tokenIssuer(p.TenantID), tokenIssuer(s.TenantID), s.TenantID)
}

// Versions of ARM's own endpoints the SDKs and az use.
var subscriptionsVersions = []string{"2016-06-01", "2019-06-01", "2019-11-01", "2020-01-01", "2021-01-01", "2022-01-01", "2022-09-01", "2022-12-01", "2023-07-01"}

// specialRoute resolves ARM's own endpoints, which are not resource types.
func specialRoute(method string, segs []string) *route {
	if rt := operationRoute(segs); rt != nil {
		return rt
	}
	n := len(segs)
	first := func(s string) bool { return n > 0 && strings.EqualFold(segs[0], s) }
	at := func(i int, s string) bool { return n > i && strings.EqualFold(segs[i], s) }
	switch {
	case first("subscriptions") && n == 1 && method == http.MethodGet:
		return &route{special: listSubscriptions, specialOp: "Microsoft.Resources/subscriptions/read"}
	case first("subscriptions") && n == 2 && method == http.MethodGet:
		return &route{id: SubscriptionID(segs[1]), special: getSubscription, specialOp: "Microsoft.Resources/subscriptions/read"}
	case first("tenants") && n == 1 && method == http.MethodGet:
		return &route{special: listTenants, specialOp: "Microsoft.Resources/tenants/read"}
	case first("subscriptions") && n == 3 && at(2, "locations"):
		return &route{id: SubscriptionID(segs[1]), special: listLocations, specialOp: "Microsoft.Resources/subscriptions/locations/read"}
	case first("subscriptions") && n == 3 && at(2, "providers") && method == http.MethodGet:
		return &route{id: SubscriptionID(segs[1]), special: listProviders, specialOp: "Microsoft.Resources/subscriptions/providers/read"}
	case first("subscriptions") && n == 4 && at(2, "providers") && method == http.MethodGet:
		ns := segs[3]
		return &route{id: SubscriptionID(segs[1]), specialOp: "Microsoft.Resources/subscriptions/providers/read",
			special: func(c *Cloud, req *Request) (*wireReply, *Error) { return providerReply(req, ns) }}
	case first("subscriptions") && n == 5 && at(2, "providers") && at(4, "register") && method == http.MethodPost:
		ns := segs[3]
		return &route{id: SubscriptionID(segs[1]), specialOp: ns + "/register/action",
			special: func(c *Cloud, req *Request) (*wireReply, *Error) { return providerReply(req, ns) }}
	}
	return nil
}

func subscriptionWire(s *Subscription) map[string]any {
	return map[string]any{
		"id": "/subscriptions/" + s.ID, "subscriptionId": s.ID, "tenantId": s.TenantID, "displayName": s.DisplayName,
		"state": s.State, "authorizationSource": "RoleBased",
		"subscriptionPolicies": map[string]any{"locationPlacementId": "Public_2014-09-01", "quotaId": "PayAsYouGo_2014-09-01", "spendingLimit": "Off"},
	}
}

// listSubscriptions answers the subscriptions of the caller's tenant in
// which the caller holds some role, as ARM does.
func listSubscriptions(c *Cloud, req *Request) (*wireReply, *Error) {
	var subs []*Subscription
	for _, s := range c.directory.Subscriptions {
		if strings.EqualFold(s.TenantID, req.Principal.TenantID) && c.hasAnyRoleIn("/subscriptions/"+s.ID, req.Principal) {
			subs = append(subs, s)
		}
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].ID < subs[j].ID })
	values := make([]any, 0, len(subs))
	for _, s := range subs {
		values = append(values, subscriptionWire(s))
	}
	return c.pageValues(req, values)
}

func getSubscription(c *Cloud, req *Request) (*wireReply, *Error) {
	if err := c.checkSubscriptionTenant(req.ID.Subscription, req.Principal); err != nil {
		return nil, err
	}
	if !c.hasAnyRoleIn(req.ID.String(), req.Principal) {
		return nil, c.authorizationFailed(req.Principal, "Microsoft.Resources/subscriptions/read", req.ID.String())
	}
	return &wireReply{status: http.StatusOK, body: subscriptionWire(c.directory.subscription(req.ID.Subscription, req.Principal.TenantID))}, nil
}

func listTenants(c *Cloud, req *Request) (*wireReply, *Error) {
	t := c.directory.tenant(req.Principal.TenantID)
	if t == nil {
		return c.pageValues(req, nil)
	}
	return c.pageValues(req, []any{map[string]any{
		"id": "/tenants/" + t.ID, "tenantId": t.ID, "displayName": t.DisplayName, "tenantCategory": "Home",
		"defaultDomain": strings.ToLower(t.DisplayName) + ".onmicrosoft.com", "domains": []string{strings.ToLower(t.DisplayName) + ".onmicrosoft.com"},
	}})
}

func listLocations(c *Cloud, req *Request) (*wireReply, *Error) {
	values := make([]any, 0, len(Locations))
	for _, l := range Locations {
		values = append(values, map[string]any{
			"id": "/subscriptions/" + req.ID.Subscription + "/locations/" + l, "name": l, "displayName": l,
			"regionalDisplayName": l, "type": "Region",
			"metadata": map[string]any{"regionType": "Physical", "regionCategory": "Recommended"},
		})
	}
	return c.pageValues(req, values)
}

// providerWire describes a namespace as registered, with its types.
func providerWire(sub, ns string) map[string]any {
	var types []any
	registryMu.RLock()
	for _, s := range registry {
		if strings.EqualFold(s.namespace(), ns) {
			ns = s.namespace()
			types = append(types, map[string]any{"resourceType": s.Type[len(ns)+1:], "locations": Locations, "apiVersions": s.APIVersions})
		}
	}
	registryMu.RUnlock()
	return map[string]any{"id": "/subscriptions/" + sub + "/providers/" + ns, "namespace": ns,
		"registrationState": "Registered", "registrationPolicy": "RegistrationRequired", "resourceTypes": types}
}

func providerReply(req *Request, ns string) (*wireReply, *Error) {
	if !knownNamespace(ns) {
		return nil, NewError(http.StatusNotFound, "InvalidResourceNamespace", "The resource namespace '%s' is invalid.", ns)
	}
	return &wireReply{status: http.StatusOK, body: providerWire(req.ID.Subscription, ns)}, nil
}

func listProviders(c *Cloud, req *Request) (*wireReply, *Error) {
	seen := map[string]bool{}
	var names []string
	registryMu.RLock()
	for _, s := range registry {
		if ns := s.namespace(); !seen[ns] {
			seen[ns] = true
			names = append(names, ns)
		}
	}
	registryMu.RUnlock()
	sort.Strings(names)
	values := make([]any, 0, len(names))
	for _, ns := range names {
		values = append(values, providerWire(req.ID.Subscription, ns))
	}
	return c.pageValues(req, values)
}
