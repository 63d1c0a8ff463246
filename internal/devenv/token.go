package devenv

import (
	"encoding/base64"
	"encoding/json"
	"time"
)

// serviceAccountToken mints the projected service-account token a kubelet
// would mount for the control-plane operator. cloudsim reads the claims
// (issuer, subject, audience) but does not check signatures, so the token
// carries a placeholder one.
func serviceAccountToken(namespace, serviceAccount string, now time.Time) string {
	enc := base64.RawURLEncoding
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "kid": "devenv", "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{
		"iss": "https://" + oidcHost,
		"sub": "system:serviceaccount:" + namespace + ":" + serviceAccount,
		"aud": []string{tokenAudience},
		"iat": now.Unix(),
		"nbf": now.Unix(),
		"exp": now.Add(24 * time.Hour).Unix(),
	})
	return enc.EncodeToString(header) + "." + enc.EncodeToString(claims) + "." + enc.EncodeToString([]byte("devenv-unsigned"))
}
