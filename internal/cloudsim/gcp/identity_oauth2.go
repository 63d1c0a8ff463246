package gcp

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Google's OAuth 2.0 token endpoint for service account keys
// (https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests):
// the holder of a key file signs a JWT (iss: the account's email, aud: the
// token URI, scope, iat, exp at most an hour later) with the key and
// exchanges it (grant_type urn:ietf:params:oauth:grant-type:jwt-bearer) for
// an access token of the account. Errors are OAuth 2.0 errors
// (invalid_grant, unsupported_grant_type). Served at /oauth2/token, the
// path oauth2.googleapis.com/token takes on cloudsim's listener.

const grantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// maxAssertionLifetime is how far apart a key's assertion's iat and exp
// may be (one hour).
const maxAssertionLifetime = time.Hour

// AddServiceAccountKey makes a key for the service account and returns its
// key file, as gcloud iam service-accounts keys create writes it, whose
// token_uri is tokenURI (cloudsim's URL + "/oauth2/token").
func (c *Cloud) AddServiceAccountKey(email, tokenURI string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sa := c.st.serviceAccounts[email]
	if sa == nil {
		return nil, fmt.Errorf("no service account %s", email)
	}
	file, _, err := c.newKey(sa, tokenURI)
	return file, err
}

// newKey adds a key to sa (under the lock) and returns its key file and ID.
func (c *Cloud) newKey(sa *ServiceAccount, tokenURI string) ([]byte, string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, "", err
	}
	id := make([]byte, 20)
	_, _ = rand.Read(id)
	keyID := hex.EncodeToString(id)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, "", err
	}
	sa.keys.Keys = append(sa.keys.Keys, sim.JWK{Kty: "RSA", Alg: "RS256", Use: "sig", Kid: keyID,
		N: base64.RawURLEncoding.EncodeToString(key.PublicKey.N.Bytes()),
		E: base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.PublicKey.E)).Bytes())})
	file, err := json.MarshalIndent(map[string]string{
		"type": "service_account", "project_id": sa.ProjectID, "private_key_id": keyID,
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": sa.Email, "client_id": sa.UniqueID, "token_uri": tokenURI,
		"auth_uri": "https://accounts.google.com/o/oauth2/auth",
	}, "", "  ")
	return file, keyID, err
}

// exchangeJWTBearer checks a key's signed assertion as Google does —
// grant type, signature by a key of the account, audience, lifetime,
// scope — and answers an access token of the account.
func exchangeJWTBearer(x *call) (any, *Error) {
	form, err := url.ParseQuery(string(x.body))
	if err != nil {
		return nil, oauthError("invalid_request", "The request body is not form-encoded.")
	}
	if form.Get("grant_type") != grantJWTBearer {
		return nil, oauthError("unsupported_grant_type", "Invalid grant_type: "+form.Get("grant_type"))
	}
	jwt, perr := sim.ParseJWT(form.Get("assertion"))
	if perr != nil {
		return nil, oauthError("invalid_grant", "Invalid JWT: the assertion is not a signed JWT.")
	}
	sa := x.c.st.serviceAccounts[jwt.Claims.Issuer]
	if sa == nil {
		return nil, oauthError("invalid_grant", "Invalid grant: account not found")
	}
	if jwt.Verify(sa.keys) != nil {
		return nil, oauthError("invalid_grant", "Invalid JWT Signature.")
	}
	if !slicesContainSuffix(jwt.Claims.Audiences(), "/oauth2/token") {
		return nil, oauthError("invalid_grant", "Invalid JWT: the audience is not the token URI.")
	}
	var claims struct {
		IssuedAt float64 `json:"iat"`
		Scope    string  `json:"scope"`
	}
	_ = json.Unmarshal(jwt.Payload, &claims)
	exp, iat := jwt.Claims.ExpiresAt(), time.Unix(int64(claims.IssuedAt), 0)
	if exp.IsZero() || claims.IssuedAt == 0 || exp.Sub(iat) > maxAssertionLifetime || !x.now.Before(exp) {
		return nil, oauthError("invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
	}
	if strings.TrimSpace(claims.Scope) == "" {
		return nil, oauthError("invalid_scope", "Invalid OAuth scope or ID token audience provided.")
	}
	token, _ := x.c.issueToken("serviceAccount:"+sa.Email, x.now, tokenLifetime)
	return map[string]any{"access_token": token, "token_type": "Bearer", "expires_in": int(tokenLifetime.Seconds())}, nil
}

func slicesContainSuffix(values []string, suffix string) bool {
	for _, v := range values {
		if strings.HasSuffix(v, suffix) {
			return true
		}
	}
	return false
}
