// Package cloudsimtest starts a cloudsim server for a test and builds real
// aws-sdk-go-v2 configurations that point at it.
package cloudsimtest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/hcplink/hcplink/internal/cloud/awshttp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Accounts used across tests: a provider (management) and a customer.
const (
	ManagementAccount = "111111111111"
	CustomerAccount   = "222222222222"
	Region            = "us-east-1"
)

// Fixture is a running cloudsim for one test.
type Fixture struct {
	Server *cloudsim.Server
	URL    string
}

// Start runs a fresh cloudsim on 127.0.0.1 for the test and stops it after.
func Start(t testing.TB, opts cloudsim.Options) *Fixture {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv := cloudsim.New(opts)
	if err := srv.Start(ctx, "127.0.0.1:0"); err != nil {
		cancel()
		t.Fatalf("starting cloudsim: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		_ = srv.Close()
	})
	return &Fixture{Server: srv, URL: srv.URL()}
}

// Config returns an SDK configuration for an account: static credentials
// whose access key is the account number, the endpoint set the way
// AWS_ENDPOINT_URL sets it, and SDK retries off so that every error a test
// provokes reaches it.
func (f *Fixture) Config(t testing.TB, account string) aws.Config {
	t.Helper()
	return f.ConfigWithKeys(t, account, "secret", "")
}

// ConfigWithKeys is Config with explicit credentials (e.g. keys from STS).
func (f *Fixture) ConfigWithKeys(t testing.TB, accessKeyID, secret, sessionToken string) aws.Config {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(),
		config.WithRegion(Region),
		config.WithBaseEndpoint(f.URL),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(accessKeyID, secret, sessionToken)),
		config.WithRetryMaxAttempts(1),
		// Keep the test independent of the developer's ~/.aws files.
		config.WithSharedConfigFiles([]string{}),
		config.WithSharedCredentialsFiles([]string{}),
	)
	if err != nil {
		t.Fatalf("loading SDK config: %v", err)
	}
	awshttp.Apply(&cfg)
	return cfg
}

// Calls returns the server's call counters for one account.
func (f *Fixture) Calls(account string) map[string]sim.CallCount {
	return f.Server.Counters.Snapshot()[account]
}

// ControlGet fetches a control-API path over HTTP and decodes the JSON answer.
func (f *Fixture) ControlGet(t testing.TB, path string, into any) {
	t.Helper()
	resp, err := http.Get(f.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", path, resp.Status, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
}
