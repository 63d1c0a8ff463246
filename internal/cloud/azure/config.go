package azure

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	azcloud "github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
)

// The environment an operator reads its Azure identity and endpoints from:
// azidentity's own variables for the identity, and three more so that the
// same binaries run on Azure or on cloudsim.
const (
	EnvTenantID           = "AZURE_TENANT_ID"
	EnvClientID           = "AZURE_CLIENT_ID"
	EnvClientSecret       = "AZURE_CLIENT_SECRET"
	EnvFederatedTokenFile = "AZURE_FEDERATED_TOKEN_FILE"
	EnvSubscriptionID     = "AZURE_SUBSCRIPTION_ID"
	// EnvAuthorityHost is Entra ID's URL (azidentity's variable too).
	EnvAuthorityHost = "AZURE_AUTHORITY_HOST"
	// EnvResourceManagerEndpoint is ARM's URL.
	EnvResourceManagerEndpoint = "AZURE_RESOURCE_MANAGER_ENDPOINT"
	// EnvResourceManagerAudience is the audience of ARM tokens (default
	// https://management.azure.com, which cloudsim accepts too).
	EnvResourceManagerAudience = "AZURE_RESOURCE_MANAGER_AUDIENCE"
	// EnvCABundle is a PEM file of extra CAs to trust (cloudsim's).
	EnvCABundle = "AZURE_CA_BUNDLE"
)

// CredentialKind is how an operator proves who it is.
type CredentialKind string

const (
	// WorkloadIdentity: a projected service-account token exchanged for an
	// Entra ID token (the control-plane operator's way, and the operator's
	// on AKS).
	WorkloadIdentity CredentialKind = "WorkloadIdentity"
	// ClientSecret: a service principal's secret.
	ClientSecret CredentialKind = "ClientSecret"
	// ManagedIdentity: the VM's or node pool's identity.
	ManagedIdentity CredentialKind = "ManagedIdentity"
)

// Config is an Azure identity and the endpoints it is used against.
type Config struct {
	// Cloud is the Entra ID authority and ARM endpoint (Azure public cloud
	// when zero).
	Cloud azcloud.Configuration
	// CACertPEM are extra CAs to trust besides the system's.
	CACertPEM []byte
	// Kind chooses the credential; empty picks by what is set: a token
	// file → workload identity, a secret → client secret, else managed
	// identity.
	Kind               CredentialKind
	TenantID           string
	ClientID           string
	ClientSecret       string
	FederatedTokenFile string
	// SubscriptionID is the subscription the operator works in (the
	// management subscription for the operator).
	SubscriptionID string
	// ResourceGroup, for the management operator, is the management
	// cluster's resource group: where its internal load balancers, and so
	// their Private Link Services, are looked for. Empty: the operator
	// reads it from a Node's spec.providerID at start-up.
	ResourceGroup string
	// VNetID, for the management operator, is the management cluster's
	// VNet: only load balancer frontends in it are the cluster's. Empty:
	// any VNet of ResourceGroup, as long as one holds the address.
	VNetID string
	// Component labels this config's requests in the cloud request
	// metrics ("operator", "control-plane-operator"); empty is "hcplink".
	Component string
}

// ConfigFromEnv reads a Config from the environment (getenv: os.Getenv).
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		TenantID:           getenv(EnvTenantID),
		ClientID:           getenv(EnvClientID),
		ClientSecret:       getenv(EnvClientSecret),
		FederatedTokenFile: getenv(EnvFederatedTokenFile),
		SubscriptionID:     getenv(EnvSubscriptionID),
	}
	c.Cloud = CloudConfiguration(getenv(EnvAuthorityHost), getenv(EnvResourceManagerEndpoint), getenv(EnvResourceManagerAudience))
	if path := getenv(EnvCABundle); path != "" {
		pem, err := os.ReadFile(path)
		if err != nil {
			return Config{}, fmt.Errorf("reading %s: %w", EnvCABundle, err)
		}
		c.CACertPEM = pem
	}
	return c, nil
}

// CloudConfiguration is the Azure public cloud with the authority host and
// ARM endpoint/audience replaced where given.
func CloudConfiguration(authorityHost, armEndpoint, armAudience string) azcloud.Configuration {
	c := azcloud.AzurePublic
	services := map[azcloud.ServiceName]azcloud.ServiceConfiguration{}
	for k, v := range c.Services {
		services[k] = v
	}
	c.Services = services
	if authorityHost != "" {
		if !strings.HasSuffix(authorityHost, "/") {
			authorityHost += "/"
		}
		c.ActiveDirectoryAuthorityHost = authorityHost
	}
	rm := c.Services[azcloud.ResourceManager]
	if armEndpoint != "" {
		rm.Endpoint = strings.TrimSuffix(armEndpoint, "/")
	}
	if armAudience != "" {
		rm.Audience = armAudience
	}
	c.Services[azcloud.ResourceManager] = rm
	return c
}

// customAuthority reports whether the authority is not Azure's public
// one: MSAL must then not ask login.microsoftonline.com to validate it.
func (c Config) customAuthority() bool {
	return c.Cloud.ActiveDirectoryAuthorityHost != "" && c.Cloud.ActiveDirectoryAuthorityHost != azcloud.AzurePublic.ActiveDirectoryAuthorityHost
}

// HTTPClient trusts the system's CAs and CACertPEM; nil when there are no
// extra CAs (the SDK's default transport).
func (c Config) HTTPClient() (*http.Client, error) {
	if len(c.CACertPEM) == 0 {
		return nil, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(c.CACertPEM) {
		return nil, errors.New("the CA bundle holds no PEM certificate")
	}
	return &http.Client{
		Timeout:   DefaultCallTimeout,
		Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
	}, nil
}

// RetryOptions keep the SDK's own retries short and away from 429: a
// throttled call returns at once with its Retry-After, and the controller
// requeues after it instead of sleeping in a worker.
func RetryOptions() policy.RetryOptions {
	return policy.RetryOptions{
		MaxRetries:    2,
		RetryDelay:    500 * time.Millisecond,
		MaxRetryDelay: 2 * time.Second,
		StatusCodes:   []int{http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout},
	}
}

func (c Config) clientOptions() (azcore.ClientOptions, error) {
	httpClient, err := c.HTTPClient()
	if err != nil {
		return azcore.ClientOptions{}, err
	}
	component := c.Component
	if component == "" {
		component = "hcplink"
	}
	o := azcore.ClientOptions{Cloud: c.Cloud, Retry: RetryOptions(), PerRetryPolicies: []policy.Policy{metricsPolicy{component: component}}}
	if httpClient != nil {
		o.Transport = httpClient
	}
	return o, nil
}

// ClientOptions are the options of every arm* client.
func (c Config) ClientOptions() (*arm.ClientOptions, error) {
	o, err := c.clientOptions()
	if err != nil {
		return nil, err
	}
	return &arm.ClientOptions{ClientOptions: o}, nil
}

// CredentialKind is the credential Credential builds.
func (c Config) CredentialKind() CredentialKind {
	switch {
	case c.Kind != "":
		return c.Kind
	case c.FederatedTokenFile != "":
		return WorkloadIdentity
	case c.ClientSecret != "":
		return ClientSecret
	default:
		return ManagedIdentity
	}
}

// MissingWorkloadIdentityError: a component that may sign in only by
// workload identity was not given one. Missing names the unset variables.
type MissingWorkloadIdentityError struct {
	Missing []string
}

func (e *MissingWorkloadIdentityError) Error() string {
	return "no Azure identity is configured: " + strings.Join(e.Missing, ", ") + " not set"
}

// WorkloadIdentityCredential builds the workload-identity credential of
// the config and nothing else: without a client ID, tenant and token file
// it returns a *MissingWorkloadIdentityError instead of letting azidentity
// fall back to a managed identity, which on a management cluster is the
// node's, shared by every hosted cluster.
func (c Config) WorkloadIdentityCredential() (azcore.TokenCredential, error) {
	var missing []string
	for _, v := range []struct{ name, value string }{
		{EnvClientID, c.ClientID}, {EnvTenantID, c.TenantID}, {EnvFederatedTokenFile, c.FederatedTokenFile},
	} {
		if v.value == "" {
			missing = append(missing, v.name)
		}
	}
	if len(missing) > 0 {
		return nil, &MissingWorkloadIdentityError{Missing: missing}
	}
	c.Kind = WorkloadIdentity
	return c.Credential()
}

// Credential builds the azidentity credential of the config, on its
// endpoints and CAs.
func (c Config) Credential() (azcore.TokenCredential, error) {
	o, err := c.clientOptions()
	if err != nil {
		return nil, err
	}
	// Token requests are few and cheap to repeat; the SDK's default retry
	// is fine there, but not on a 429 sleep.
	switch c.CredentialKind() {
	case WorkloadIdentity:
		return azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{
			ClientOptions: o, TenantID: c.TenantID, ClientID: c.ClientID, TokenFilePath: c.FederatedTokenFile,
			DisableInstanceDiscovery: c.customAuthority(),
		})
	case ClientSecret:
		return azidentity.NewClientSecretCredential(c.TenantID, c.ClientID, c.ClientSecret, &azidentity.ClientSecretCredentialOptions{
			ClientOptions: o, DisableInstanceDiscovery: c.customAuthority(),
		})
	case ManagedIdentity:
		opts := &azidentity.ManagedIdentityCredentialOptions{ClientOptions: o}
		if c.ClientID != "" {
			opts.ID = azidentity.ClientID(c.ClientID)
		}
		return azidentity.NewManagedIdentityCredential(opts)
	default:
		return nil, fmt.Errorf("unknown Azure credential kind %q", c.Kind)
	}
}

// Providers are the three providers on one subscription.
type Providers struct {
	PrivateLinkServices *PrivateLinkServices
	PrivateEndpoints    *PrivateEndpoints
	PrivateDNS          *PrivateDNS
	GuestNetwork        *GuestNetwork
}

// NewProviders builds the providers for subscriptionID on the real SDK
// clients.
func NewProviders(subscriptionID string, cred azcore.TokenCredential, opts *arm.ClientOptions) (*Providers, error) {
	network, err := armnetwork.NewClientFactory(subscriptionID, cred, opts)
	if err != nil {
		return nil, err
	}
	dns, err := armprivatedns.NewClientFactory(subscriptionID, cred, opts)
	if err != nil {
		return nil, err
	}
	groups, err := armresources.NewResourceGroupsClient(subscriptionID, cred, opts)
	if err != nil {
		return nil, err
	}
	return &Providers{
		PrivateLinkServices: NewPrivateLinkServices(network),
		PrivateEndpoints:    NewPrivateEndpoints(network),
		PrivateDNS:          NewPrivateDNS(dns),
		GuestNetwork:        NewGuestNetwork(groups, network),
	}, nil
}

// NewProvidersFromConfig builds the credential and the providers of c for
// subscriptionID ("" : c.SubscriptionID).
func NewProvidersFromConfig(c Config, subscriptionID string) (*Providers, error) {
	if subscriptionID == "" {
		subscriptionID = c.SubscriptionID
	}
	cred, err := c.Credential()
	if err != nil {
		return nil, err
	}
	opts, err := c.ClientOptions()
	if err != nil {
		return nil, err
	}
	return NewProviders(subscriptionID, cred, opts)
}
