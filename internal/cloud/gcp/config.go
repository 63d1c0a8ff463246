// Package gcp holds what every hcplink component needs to talk to Google
// Cloud: signing in (Application Default Credentials or a key file for the
// management operator, workload identity federation for the control-plane
// operator), Prometheus metrics on every call, classification of Google's
// errors into the shared classes, the names and labels of what hcplink
// creates, the IAM permissions each operator needs, and the providers over
// google.golang.org/api's Compute Engine and Cloud DNS clients.
//
// Import it as gcpcloud:
//
//	import gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
package gcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"
	"google.golang.org/api/option"
)

// The environment an operator reads its endpoints and sign-in from: ADC's
// own variable for the credentials, and hcplink's for the endpoints, so that
// the same binaries run on Google Cloud or on cloudsim.
const (
	// EnvCredentials is the key file or external_account configuration
	// Application Default Credentials read.
	EnvCredentials = "GOOGLE_APPLICATION_CREDENTIALS"
	// EnvComputeEndpoint is Compute Engine's base URL, ending in
	// /compute/v1/ (default https://compute.googleapis.com/compute/v1/).
	EnvComputeEndpoint = "HCPLINK_GCP_COMPUTE_ENDPOINT"
	// EnvDNSEndpoint is Cloud DNS's root URL (default https://dns.googleapis.com/).
	EnvDNSEndpoint = "HCPLINK_GCP_DNS_ENDPOINT"
	// EnvSTSEndpoint is the token exchange's URL (default https://sts.googleapis.com/v1/token).
	EnvSTSEndpoint = "HCPLINK_GCP_STS_ENDPOINT"
	// EnvIAMCredentialsEndpoint is IAM Credentials' root URL
	// (default https://iamcredentials.googleapis.com/).
	EnvIAMCredentialsEndpoint = "HCPLINK_GCP_IAMCREDENTIALS_ENDPOINT"
	// EnvTokenFile is the control-plane operator's projected
	// ServiceAccount token, presented to STS (WorkloadIdentity.TokenFile);
	// the management operator renders it at DefaultTokenFile.
	EnvTokenFile = "HCPLINK_GCP_TOKEN_FILE"
	// DefaultTokenFile is where that token is mounted.
	DefaultTokenFile = "/var/run/secrets/hcplink/gcp/token"
)

// Google's own endpoints.
const (
	DefaultSTSEndpoint            = "https://sts.googleapis.com/v1/token"
	DefaultIAMCredentialsEndpoint = "https://iamcredentials.googleapis.com/"
)

// Config is a Google Cloud sign-in and the endpoints it is used against.
type Config struct {
	// ComputeEndpoint and DNSEndpoint replace Google's (cloudsim's URL +
	// "/compute/v1/" and its root); empty is Google's.
	ComputeEndpoint string
	DNSEndpoint     string
	// CredentialsJSON is a service account key file or an external_account
	// configuration (WorkloadIdentity.ExternalAccountJSON). Empty: the
	// Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, the
	// gcloud user's, or the metadata server's).
	CredentialsJSON []byte
	// Tokens, when set, signs every call instead (tests; a token from
	// gcloud auth print-access-token).
	Tokens oauth2.TokenSource
	// Component labels this config's requests in the cloud request metrics
	// ("operator", "control-plane-operator"); empty is "hcplink".
	Component string
	// Transport is the base HTTP transport; nil is http.DefaultTransport.
	Transport http.RoundTripper
}

// ConfigFromEnv reads the endpoints, and the credentials file when
// GOOGLE_APPLICATION_CREDENTIALS names one, from the environment (getenv:
// os.Getenv).
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{ComputeEndpoint: getenv(EnvComputeEndpoint), DNSEndpoint: getenv(EnvDNSEndpoint)}
	if path := getenv(EnvCredentials); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return Config{}, fmt.Errorf("reading %s: %w", EnvCredentials, err)
		}
		c.CredentialsJSON = b
	}
	return c, nil
}

// Clients are the Compute Engine and Cloud DNS clients of one sign-in.
type Clients struct {
	Compute *compute.Service
	DNS     *dns.Service
	// Tokens is the sign-in's token source (a credentials check asks it
	// for a token without calling an API).
	Tokens oauth2.TokenSource
}

// NewClients signs in as c says and builds the clients; every request,
// the sign-in's own included, is counted in the cloud request metrics.
func NewClients(ctx context.Context, c Config) (*Clients, error) {
	component := c.Component
	if component == "" {
		component = "hcplink"
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	instrumented := metricsTransport{component: component, next: base}
	recorder := &signInRecorder{next: boundedTransport{next: instrumented, timeout: signInTimeout}}
	// The credentials library keeps this context for every later token
	// fetch, so it must not end with the caller's (each fetch is bounded by
	// signInTimeout instead).
	signInCtx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, &http.Client{Transport: recorder})
	tokens, err := c.tokenSource(signInCtx)
	if err != nil {
		return nil, err
	}
	tokens = &signInTokens{source: tokens, recorder: recorder}
	httpClient := &http.Client{Transport: &oauth2.Transport{Source: tokens, Base: retryingTransport{next: instrumented}}}
	computeOpts := []option.ClientOption{option.WithHTTPClient(httpClient)}
	if c.ComputeEndpoint != "" {
		computeOpts = append(computeOpts, option.WithEndpoint(withSlash(c.ComputeEndpoint)))
	}
	computeSvc, err := compute.NewService(ctx, computeOpts...)
	if err != nil {
		return nil, fmt.Errorf("building the Compute Engine client: %w", err)
	}
	dnsOpts := []option.ClientOption{option.WithHTTPClient(httpClient)}
	if c.DNSEndpoint != "" {
		dnsOpts = append(dnsOpts, option.WithEndpoint(withSlash(c.DNSEndpoint)))
	}
	dnsSvc, err := dns.NewService(ctx, dnsOpts...)
	if err != nil {
		return nil, fmt.Errorf("building the Cloud DNS client: %w", err)
	}
	return &Clients{Compute: computeSvc, DNS: dnsSvc, Tokens: tokens}, nil
}

// signInTimeout bounds each request of the sign-in (STS, IAM Credentials,
// the token endpoint): the credentials library fetches tokens with the
// context the clients were built with, not the call's, so without it a hung
// sign-in would hold a reconcile. It is applied by the transport, as the
// library builds its own clients over it for impersonation. A variable
// only so that a test need not wait for the real one.
var signInTimeout = 30 * time.Second

// scopes are the OAuth scopes hcplink's clients ask for: Compute Engine
// and Cloud DNS both accept cloud-platform.
var scopes = []string{compute.CloudPlatformScope}

func (c Config) tokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	if c.Tokens != nil {
		return c.Tokens, nil
	}
	if len(c.CredentialsJSON) == 0 {
		creds, err := google.FindDefaultCredentials(ctx, scopes...)
		if err != nil {
			return nil, fmt.Errorf("finding Application Default Credentials: %w", err)
		}
		return creds.TokenSource, nil
	}
	kind, err := credentialsType(c.CredentialsJSON)
	if err != nil {
		return nil, err
	}
	creds, err := google.CredentialsFromJSONWithType(ctx, c.CredentialsJSON, kind, scopes...)
	if err != nil {
		return nil, fmt.Errorf("reading the Google credentials (%s): %w", kind, err)
	}
	return creds.TokenSource, nil
}

// CheckCredentials refuses credentials hcplink does not sign in with (see
// credentialsType), before anything starts.
func CheckCredentials(b []byte) error {
	_, err := credentialsType(b)
	return err
}

// credentialsType accepts the two kinds of credentials an operator is
// given: a service account key, or an external_account configuration.
// Other kinds (an authorized user's refresh token) are refused: they are a
// person's, not a component's.
func credentialsType(b []byte) (google.CredentialsType, error) {
	var f struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return "", fmt.Errorf("the Google credentials are not JSON: %w", err)
	}
	switch google.CredentialsType(f.Type) {
	case google.ServiceAccount, google.ExternalAccount:
		return google.CredentialsType(f.Type), nil
	}
	return "", fmt.Errorf("the Google credentials are of type %q; hcplink takes %q (a key file) or %q (workload identity federation)",
		f.Type, google.ServiceAccount, google.ExternalAccount)
}

// WorkloadIdentity is how the control-plane operator signs in: its
// projected ServiceAccount token is exchanged at STS against a workload
// identity pool provider, and the federated token impersonates a Google
// service account through IAM Credentials
// (https://cloud.google.com/iam/docs/workload-identity-federation-with-kubernetes).
type WorkloadIdentity struct {
	// Audience names the pool provider:
	// //iam.googleapis.com/projects/NUMBER/locations/global/workloadIdentityPools/POOL/providers/PROVIDER.
	Audience string
	// ServiceAccountEmail is the Google service account impersonated.
	ServiceAccountEmail string
	// TokenFile is the projected ServiceAccount token's path.
	TokenFile string
	// STSEndpoint and IAMCredentialsEndpoint replace Google's; empty is Google's.
	STSEndpoint            string
	IAMCredentialsEndpoint string
}

// ProviderAudience is the audience of a workload identity pool provider.
func ProviderAudience(projectNumber, pool, provider string) string {
	return "//iam.googleapis.com/projects/" + projectNumber + "/locations/global/workloadIdentityPools/" + pool + "/providers/" + provider
}

// TokenAudience is the audience the projected ServiceAccount token is
// minted for: the provider's URL, which a provider accepts when it names no
// allowed audiences.
func (w WorkloadIdentity) TokenAudience() string {
	return "https:" + w.Audience
}

// Validate says what is missing.
func (w WorkloadIdentity) Validate() error {
	var missing []string
	if !strings.HasPrefix(w.Audience, "//iam.googleapis.com/projects/") || !strings.Contains(w.Audience, "/providers/") {
		missing = append(missing, "the workload identity pool provider (//iam.googleapis.com/projects/NUMBER/locations/global/workloadIdentityPools/POOL/providers/PROVIDER)")
	}
	if !strings.Contains(w.ServiceAccountEmail, "@") {
		missing = append(missing, "the Google service account's email")
	}
	if w.TokenFile == "" {
		missing = append(missing, "the ServiceAccount token's file")
	}
	if len(missing) > 0 {
		return errors.New("workload identity federation needs " + strings.Join(missing, ", "))
	}
	return nil
}

// ExternalAccountJSON is the external_account configuration of w, as
// gcloud iam workload-identity-pools create-cred-config writes it.
func (w WorkloadIdentity) ExternalAccountJSON() []byte {
	sts := w.STSEndpoint
	if sts == "" {
		sts = DefaultSTSEndpoint
	}
	iamCredentials := w.IAMCredentialsEndpoint
	if iamCredentials == "" {
		iamCredentials = DefaultIAMCredentialsEndpoint
	}
	b, err := json.Marshal(map[string]any{
		"type":                              "external_account",
		"audience":                          w.Audience,
		"subject_token_type":                "urn:ietf:params:oauth:token-type:jwt",
		"token_url":                         sts,
		"service_account_impersonation_url": withSlash(iamCredentials) + "v1/projects/-/serviceAccounts/" + w.ServiceAccountEmail + ":generateAccessToken",
		"credential_source":                 map[string]any{"file": w.TokenFile, "format": map[string]string{"type": "text"}},
	})
	if err != nil {
		panic(err) // strings always marshal
	}
	return b
}

// WithEndpointsFromEnv completes w's endpoints from the environment.
func (w WorkloadIdentity) WithEndpointsFromEnv(getenv func(string) string) WorkloadIdentity {
	if v := getenv(EnvSTSEndpoint); v != "" {
		w.STSEndpoint = v
	}
	if v := getenv(EnvIAMCredentialsEndpoint); v != "" {
		w.IAMCredentialsEndpoint = v
	}
	return w
}

func withSlash(u string) string {
	if strings.HasSuffix(u, "/") {
		return u
	}
	return u + "/"
}

// CheckSignIn gets a token without calling an API (the credentials check
// of an operator): a refused sign-in is an access denial naming what is
// missing; a token already held is not asked for again.
func (c *Clients) CheckSignIn() error {
	if _, err := c.Tokens.Token(); err != nil {
		return Wrap("signing in to Google Cloud", err)
	}
	return nil
}
