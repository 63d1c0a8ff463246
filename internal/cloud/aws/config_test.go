package aws

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
)

// A hung web-identity token exchange must fail by the response timeout.
// The SDK's credential cache ignores the caller's cancellation while it
// retrieves, so without a timeout on the credential provider's own client
// one hung exchange would block every call of the process.
func TestWebIdentityExchangeTimesOut(t *testing.T) {
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); hung.Close() })

	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("header.payload.signature"), 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		"AWS_ROLE_ARN": "arn:aws:iam::222222222222:role/cpo", "AWS_WEB_IDENTITY_TOKEN_FILE": token,
		"AWS_REGION":        "us-east-1",
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": filepath.Join(t.TempDir(), "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(t.TempDir(), "none"),
	} {
		t.Setenv(k, v)
	}
	old := responseTimeout
	responseTimeout = 200 * time.Millisecond
	t.Cleanup(func() { responseTimeout = old })

	// The credential provider's STS client is built while loading, from
	// what loading was given (AWS_ENDPOINT_URL reaches only the clients
	// built from the loaded configuration); devenv passes the endpoint the
	// same way.
	cfg, err := LoadConfig(context.Background(), config.WithBaseEndpoint(hung.URL))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := cfg.Credentials.Retrieve(context.Background())
		done <- err
	}()
	// The SDK retries a timed-out exchange a few times with backoff; well
	// under a minute in all, against the server's hang of forever.
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the exchange against a hung server succeeded")
		}
		t.Logf("the exchange failed as it should: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the web-identity exchange is still hanging: the credential provider's client has no timeout")
	}
}

// The configuration hcplink loads carries the retryer throttling.go
// states, not one the SDK picks later; a person's retry mode stands.
func TestLoadConfigSetsTheStatedRetryer(t *testing.T) {
	for _, tc := range []struct {
		mode        string
		wantRetryer bool
	}{{"", true}, {"standard", true}, {"adaptive", false}} {
		t.Run("mode="+tc.mode, func(t *testing.T) {
			for k, v := range map[string]string{
				"AWS_RETRY_MODE": tc.mode, "AWS_MAX_ATTEMPTS": "", "AWS_REGION": "us-east-1", "AWS_PROFILE": "",
				"AWS_CONFIG_FILE": filepath.Join(t.TempDir(), "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(t.TempDir(), "none"),
			} {
				t.Setenv(k, v)
			}
			cfg, err := LoadConfig(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if (cfg.Retryer != nil) != tc.wantRetryer {
				t.Fatalf("retryer set = %v, want %v", cfg.Retryer != nil, tc.wantRetryer)
			}
			if cfg.Retryer == nil {
				return
			}
			r, ok := cfg.Retryer().(*retry.Standard)
			if !ok {
				t.Fatalf("retryer is %T, want the SDK's standard one", cfg.Retryer())
			}
			if r.MaxAttempts() != retryMaxAttempts {
				t.Errorf("MaxAttempts = %d, want %d", r.MaxAttempts(), retryMaxAttempts)
			}
		})
	}
}
