package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// KeySource finds the signing keys of an OpenID Connect issuer, the way a
// cloud does before it trusts a workload identity token.
type KeySource interface {
	Keys(ctx context.Context, issuer string) (JWKS, error)
}

// HTTPKeySource fetches {issuer}/.well-known/openid-configuration and the
// jwks_uri it names, as Entra ID and STS do. Results are not cached, so a
// rotated key is seen at once.
type HTTPKeySource struct {
	Client *http.Client
}

// Keys fetches the issuer's key set.
func (s HTTPKeySource) Keys(ctx context.Context, issuer string) (JWKS, error) {
	var discovery struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := s.getJSON(ctx, strings.TrimSuffix(issuer, "/")+"/.well-known/openid-configuration", &discovery); err != nil {
		return JWKS{}, err
	}
	if discovery.JWKSURI == "" {
		return JWKS{}, fmt.Errorf("the discovery document of %s names no jwks_uri", issuer)
	}
	var keys JWKS
	err := s.getJSON(ctx, discovery.JWKSURI, &keys)
	return keys, err
}

func (s HTTPKeySource) getJSON(ctx context.Context, url string, into any) error {
	client := s.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("fetching %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetching %s: %s", url, resp.Status)
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("decoding %s: %w", url, err)
	}
	return nil
}

// StaticKeySource serves key sets registered by hand (tests and the
// control API), and falls back to Next for other issuers when set.
type StaticKeySource struct {
	mu   sync.Mutex
	keys map[string]JWKS
	Next KeySource
}

// Set registers an issuer's key set.
func (s *StaticKeySource) Set(issuer string, keys JWKS) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys == nil {
		s.keys = map[string]JWKS{}
	}
	s.keys[strings.TrimSuffix(issuer, "/")] = keys
}

// Keys returns the registered key set, or asks Next.
func (s *StaticKeySource) Keys(ctx context.Context, issuer string) (JWKS, error) {
	s.mu.Lock()
	keys, ok := s.keys[strings.TrimSuffix(issuer, "/")]
	s.mu.Unlock()
	if ok {
		return keys, nil
	}
	if s.Next != nil {
		return s.Next.Keys(ctx, issuer)
	}
	return JWKS{}, fmt.Errorf("no keys known for issuer %s", issuer)
}
