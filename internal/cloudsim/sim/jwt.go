package sim

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// JWT support shared by the clouds: decoding tokens, checking RS256
// signatures against a JSON Web Key Set, and signing tokens cloudsim issues.

// Claims are the registered JWT claims the clouds check. aud may be a string
// or a list on the wire.
type Claims struct {
	Issuer    string          `json:"iss"`
	Subject   string          `json:"sub"`
	Audience  json.RawMessage `json:"aud"`
	Expires   *float64        `json:"exp"`
	NotBefore *float64        `json:"nbf"`
	IssuedAt  *float64        `json:"iat"`
}

// Audiences returns aud as a list.
func (c Claims) Audiences() []string {
	var one string
	if json.Unmarshal(c.Audience, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(c.Audience, &many)
	return many
}

// ExpiresAt is exp as a time (zero when absent).
func (c Claims) ExpiresAt() time.Time { return unixTime(c.Expires) }

// NotBeforeTime is nbf as a time (zero when absent).
func (c Claims) NotBeforeTime() time.Time { return unixTime(c.NotBefore) }

func unixTime(f *float64) time.Time {
	if f == nil {
		return time.Time{}
	}
	return time.Unix(int64(*f), 0)
}

// JWT is a decoded, not yet verified, compact JWS.
type JWT struct {
	Header struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
		Typ string `json:"typ"`
	}
	Claims    Claims
	Payload   []byte // the raw claims, for callers that read more of them
	signed    string // header.payload
	signature []byte
}

// ErrMalformedJWT is returned for anything that is not a compact JWS.
var ErrMalformedJWT = errors.New("not a well-formed JWT")

// ParseJWT decodes a compact JWS without verifying it.
func ParseJWT(token string) (*JWT, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, ErrMalformedJWT
	}
	var t JWT
	header, err1 := b64(parts[0])
	payload, err2 := b64(parts[1])
	sig, err3 := b64(parts[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, ErrMalformedJWT
	}
	if json.Unmarshal(header, &t.Header) != nil || json.Unmarshal(payload, &t.Claims) != nil {
		return nil, ErrMalformedJWT
	}
	t.Payload, t.signed, t.signature = payload, parts[0]+"."+parts[1], sig
	return &t, nil
}

func b64(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// JWK is one RSA public key of a key set.
type JWK struct {
	Kty string `json:"kty"`
	Use string `json:"use,omitempty"`
	Alg string `json:"alg,omitempty"`
	Kid string `json:"kid"`
	N   string `json:"n"`
	E   string `json:"e"`
}

// JWKS is a JSON Web Key Set as an issuer publishes it at its jwks_uri.
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// ErrSignature is returned when no key of the set verifies the token.
var ErrSignature = errors.New("the token's signature does not verify with any key of the issuer")

// Verify checks the token's RS256 signature against the key set: the key
// named by kid, or any RSA key when the token names none.
func (t *JWT) Verify(keys JWKS) error {
	if t.Header.Alg != "RS256" {
		return fmt.Errorf("unsupported signing algorithm %q: %w", t.Header.Alg, ErrSignature)
	}
	digest := sha256.Sum256([]byte(t.signed))
	for _, k := range keys.Keys {
		if k.Kty != "RSA" || (t.Header.Kid != "" && k.Kid != t.Header.Kid) {
			continue
		}
		pub, err := k.publicKey()
		if err != nil {
			continue
		}
		if rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], t.signature) == nil {
			return nil
		}
	}
	return ErrSignature
}

func (k JWK) publicKey() (*rsa.PublicKey, error) {
	n, err := b64(k.N)
	if err != nil {
		return nil, err
	}
	e, err := b64(k.E)
	if err != nil {
		return nil, err
	}
	return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}, nil
}

// Signer signs RS256 tokens with one key and publishes its key set.
type Signer struct {
	key *rsa.PrivateKey
	kid string
}

// NewSigner generates a fresh 2048-bit RSA key.
func NewSigner() *Signer {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	sum := sha256.Sum256(key.PublicKey.N.Bytes())
	return &Signer{key: key, kid: base64.RawURLEncoding.EncodeToString(sum[:12])}
}

// Sign encodes claims (any JSON object) as a signed compact JWS.
func (s *Signer) Sign(claims any) (string, error) {
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": s.kid})
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signed := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload)
	digest := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, s.key, crypto.SHA256, digest[:])
	if err != nil {
		return "", err
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// JWKS is the signer's public key set.
func (s *Signer) JWKS() JWKS {
	pub := s.key.PublicKey
	return JWKS{Keys: []JWK{{
		Kty: "RSA", Use: "sig", Alg: "RS256", Kid: s.kid,
		N: base64.RawURLEncoding.EncodeToString(pub.N.Bytes()),
		E: base64.RawURLEncoding.EncodeToString(big.NewInt(int64(pub.E)).Bytes()),
	}}}
}
