package aws

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// STS AssumeRole and AssumeRoleWithWebIdentity: the role must exist and its
// trust policy must allow the caller; the credentials issued then act as
// the assumed role in the role's account.

func init() {
	registerQuery("sts", "AssumeRole", assumeRole)
	registerQuery("sts", "AssumeRoleWithWebIdentity", assumeRoleWithWebIdentity)
}

func stsAccessDenied(format string, args ...any) *APIError {
	return &APIError{Status: http.StatusForbidden, Code: "AccessDenied", Message: fmt.Sprintf(format, args...)}
}

func stsValidation(format string, args ...any) *APIError {
	return &APIError{Status: http.StatusBadRequest, Code: "ValidationError", Message: fmt.Sprintf(format, args...)}
}

var sessionNamePattern = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)

// roleByARN finds the role an ARN names in its own account (nil when the
// account, the role or its exact ARN, path included, is unknown).
func roleByARN(call *Call, arn string) *Role {
	account := call.Cloud.accounts[accountFromARN(arn)]
	if account == nil || !strings.HasPrefix(arn, "arn:aws:iam::") {
		return nil
	}
	_, rest, ok := strings.Cut(arn, ":role/")
	if !ok {
		return nil
	}
	r := account.IAM.Role(rest[strings.LastIndex(rest, "/")+1:])
	if r == nil || r.ARN != arn {
		return nil
	}
	return r
}

// sessionParams reads what both AssumeRole operations share.
func sessionParams(call *Call) (roleARN, session string, duration time.Duration, err *APIError) {
	if roleARN, err = call.Required("RoleArn"); err != nil {
		return "", "", 0, err
	}
	if len(roleARN) < 20 {
		return "", "", 0, stsValidation("1 validation error detected: Value '%s' at 'roleArn' failed to satisfy constraint: Member must have length greater than or equal to 20", roleARN)
	}
	if session, err = call.Required("RoleSessionName"); err != nil {
		return "", "", 0, err
	}
	if !sessionNamePattern.MatchString(session) {
		return "", "", 0, stsValidation("1 validation error detected: Value '%s' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*", session)
	}
	seconds, err := call.Int("DurationSeconds", 3600)
	if err != nil {
		return "", "", 0, err
	}
	if seconds < 900 || seconds > 43200 {
		return "", "", 0, stsValidation("1 validation error detected: Value '%d' at 'durationSeconds' failed to satisfy constraint: Member must have value between 900 and 43200", seconds)
	}
	return roleARN, session, time.Duration(seconds) * time.Second, nil
}

func checkDuration(r *Role, d time.Duration) *APIError {
	if d > time.Duration(r.MaxSessionDuration)*time.Second {
		return stsValidation("The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
	}
	return nil
}

type stsCredentialsXML struct {
	AccessKeyID     string `xml:"AccessKeyId"`
	SecretAccessKey string `xml:"SecretAccessKey"`
	SessionToken    string `xml:"SessionToken"`
	Expiration      string `xml:"Expiration"`
}

type assumedRoleUserXML struct {
	AssumedRoleID string `xml:"AssumedRoleId"`
	Arn           string `xml:"Arn"`
}

// issueSession mints the session's keys and makes their principal carry the
// role's real ID, so GetCallerIdentity's UserId matches AssumedRoleId.
func issueSession(call *Call, r *Role, session string, d time.Duration) (stsCredentialsXML, assumedRoleUserXML) {
	creds, p := call.Cloud.IssueRoleCredentials(r.ARN, session)
	p.UserID = r.ID + ":" + session
	call.Cloud.keys[creds.AccessKeyID] = p
	return stsCredentialsXML{
			AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey, SessionToken: creds.SessionToken,
			Expiration: iamTime(call.Now.Add(d)),
		}, assumedRoleUserXML{
			AssumedRoleID: p.UserID, Arn: p.ARN,
		}
}

// AssumeRole

type assumeRoleResult struct {
	Credentials      stsCredentialsXML  `xml:"Credentials"`
	AssumedRoleUser  assumedRoleUserXML `xml:"AssumedRoleUser"`
	PackedPolicySize *int               `xml:"PackedPolicySize,omitempty"`
}

func assumeRole(call *Call) (any, *APIError) {
	roleARN, session, duration, err := sessionParams(call)
	if err != nil {
		return nil, err
	}
	caller := call.Principal
	if caller.RoleARN != "" && duration > time.Hour {
		return nil, stsValidation("The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.")
	}
	denied := stsAccessDenied("User: %s is not authorized to perform: sts:AssumeRole on resource: %s", caller.ARN, roleARN)
	r := roleByARN(call, roleARN)
	if r == nil {
		return nil, denied
	}
	ctx := map[string][]string{
		"aws:principalaccount": {caller.Account},
		"aws:principalarn":     {principalARN(caller)},
		"sts:rolesessionname":  {session},
	}
	if ext := call.Str("ExternalId"); ext != "" {
		ctx["sts:externalid"] = []string{ext}
	}
	allowed := trustAllows(r.AssumeRolePolicyDocument, trustRequest{
		action:  "sts:AssumeRole",
		context: ctx,
		principalMatches: func(kind, entry string) bool {
			return kind == "AWS" && awsPrincipalMatches(caller, entry)
		},
	})
	if !allowed {
		return nil, denied
	}
	if err := checkDuration(r, duration); err != nil {
		return nil, err
	}
	creds, user := issueSession(call, r, session, duration)
	return assumeRoleResult{Credentials: creds, AssumedRoleUser: user}, nil
}

// principalARN is the caller as IAM policies name it: the role ARN behind a
// session, or the caller's own ARN.
func principalARN(p Principal) string {
	if p.RoleARN != "" {
		return p.RoleARN
	}
	return p.ARN
}

// awsPrincipalMatches applies an AWS principal entry of a trust policy: an
// account ID or its root ARN trusts every principal of that account; a role
// ARN trusts sessions of that role; any other ARN must be the caller's own.
func awsPrincipalMatches(caller Principal, entry string) bool {
	switch {
	case entry == caller.Account, entry == "arn:aws:iam::"+caller.Account+":root":
		return true
	case caller.RoleARN != "" && entry == caller.RoleARN:
		return true
	default:
		return entry == caller.ARN
	}
}

// AssumeRoleWithWebIdentity

type assumeRoleWithWebIdentityResult struct {
	Credentials                 stsCredentialsXML  `xml:"Credentials"`
	SubjectFromWebIdentityToken string             `xml:"SubjectFromWebIdentityToken"`
	AssumedRoleUser             assumedRoleUserXML `xml:"AssumedRoleUser"`
	Provider                    string             `xml:"Provider"`
	Audience                    string             `xml:"Audience"`
}

// webIdentityClaims are the JWT claims STS reads. aud may be a string or a
// list.
type webIdentityClaims struct {
	Issuer   string          `json:"iss"`
	Subject  string          `json:"sub"`
	Audience json.RawMessage `json:"aud"`
	AZP      string          `json:"azp"`
	Expires  *float64        `json:"exp"`
}

func (c webIdentityClaims) audiences() []string {
	var one string
	if json.Unmarshal(c.Audience, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(c.Audience, &many)
	return many
}

// parseWebIdentityToken decodes a JWT's payload. The signature is not
// verified: cloudsim has no keys to fetch from the issuer.
func parseWebIdentityToken(token string) (webIdentityClaims, bool) {
	var claims webIdentityClaims
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return claims, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return claims, false
	}
	if json.Unmarshal(payload, &claims) != nil || claims.Issuer == "" {
		return claims, false
	}
	return claims, true
}

func assumeRoleWithWebIdentity(call *Call) (any, *APIError) {
	roleARN, session, duration, err := sessionParams(call)
	if err != nil {
		return nil, err
	}
	token, err := call.Required("WebIdentityToken")
	if err != nil {
		return nil, err
	}
	claims, ok := parseWebIdentityToken(token)
	if !ok {
		return nil, &APIError{Status: http.StatusBadRequest, Code: "InvalidIdentityToken",
			Message: "The ID Token provided is not a valid JWT. (You may see this error if you sent an Access Token)"}
	}
	denied := stsAccessDenied("Not authorized to perform sts:AssumeRoleWithWebIdentity")
	r := roleByARN(call, roleARN)
	if r == nil {
		return nil, denied
	}
	var provider *OIDCProvider
	for _, p := range call.Cloud.accounts[accountFromARN(roleARN)].IAM.OIDCProviders {
		if p.HostPath() == oidcHostPath(claims.Issuer) {
			provider = p
		}
	}
	if provider == nil {
		return nil, &APIError{Status: http.StatusBadRequest, Code: "InvalidIdentityToken",
			Message: "No OpenIDConnect provider found in your account for " + claims.Issuer}
	}
	if claims.Expires != nil && float64(call.Now.Unix()) >= *claims.Expires {
		return nil, &APIError{Status: http.StatusBadRequest, Code: "ExpiredTokenException",
			Message: fmt.Sprintf("Token expired: current date/time %d must be before the expiration date/time %d", call.Now.Unix(), int64(*claims.Expires))}
	}
	audience := ""
	for _, a := range claims.audiences() {
		if contains(provider.ClientIDs, a) {
			audience = a
		}
	}
	if audience == "" {
		return nil, &APIError{Status: http.StatusBadRequest, Code: "InvalidIdentityToken", Message: "Incorrect token audience"}
	}
	// The provider's condition keys are named after its host and path.
	prefix := strings.ToLower(provider.HostPath()) + ":"
	ctx := map[string][]string{
		prefix + "sub":        {claims.Subject},
		prefix + "aud":        {audience},
		"sts:rolesessionname": {session},
	}
	if claims.AZP != "" {
		ctx[prefix+"azp"] = []string{claims.AZP}
	}
	allowed := trustAllows(r.AssumeRolePolicyDocument, trustRequest{
		action:  "sts:AssumeRoleWithWebIdentity",
		context: ctx,
		principalMatches: func(kind, entry string) bool {
			return kind == "Federated" && entry == provider.ARN
		},
	})
	if !allowed {
		return nil, denied
	}
	if err := checkDuration(r, duration); err != nil {
		return nil, err
	}
	creds, user := issueSession(call, r, session, duration)
	return assumeRoleWithWebIdentityResult{
		Credentials: creds, SubjectFromWebIdentityToken: claims.Subject, AssumedRoleUser: user,
		Provider: provider.ARN, Audience: audience,
	}, nil
}
