package gcpprivateserviceconnect

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// Providers are what the endpoint controller asks of Google Cloud in the
// customer's project and region: internal/cloud/gcp's control-plane
// providers (reads return nil for what does not exist; changes return the
// Operation to wait on; errors are classified).
type Providers struct {
	Subnetworks gcpcloud.SubnetworksAPI
	Addresses   gcpcloud.AddressesAPI
	Endpoints   gcpcloud.EndpointsAPI
	Zones       gcpcloud.ZonesAPI
	Records     gcpcloud.RecordsAPI
	Operations  Waiter
}

// Waiter waits once on a Compute Engine operation (gcpcloud.Operations).
type Waiter interface {
	Wait(ctx context.Context, op gcpcloud.Operation) (gcpcloud.Operation, error)
}

var _ Waiter = (*gcpcloud.Operations)(nil)

// Identity is how the control-plane operator signs in for one cluster:
// the workload identity pool provider (its full resource name,
// projects/NUMBER/locations/global/workloadIdentityPools/POOL/providers/PROVIDER)
// and the Google service account it impersonates.
type Identity struct {
	PoolProvider   string
	ServiceAccount string
}

// IdentityOf is the identity hcp names for the control-plane operator.
func IdentityOf(hcp *hcplinkv1beta1.HostedControlPlane) Identity {
	if hcp == nil {
		return Identity{}
	}
	provider, sa := hcp.Spec.Platform.GCP.ControlPlaneOperatorIdentity()
	return Identity{PoolProvider: provider, ServiceAccount: sa}
}

// The identity is kept on the CR too, as the infraID is: deletion signs in
// with it when the HostedControlPlane is gone.
const (
	PoolProviderAnnotation   = "hcplink.io/gcp-pool-provider"
	ServiceAccountAnnotation = "hcplink.io/gcp-service-account"
)

// identityForDeletion is the HostedControlPlane's identity, else the one
// kept on the CR.
func identityForDeletion(hcp *hcplinkv1beta1.HostedControlPlane, cr *hcplinkv1beta1.GCPPrivateServiceConnect) Identity {
	if id := IdentityOf(hcp); id.PoolProvider != "" && id.ServiceAccount != "" {
		return id
	}
	return Identity{PoolProvider: cr.Annotations[PoolProviderAnnotation], ServiceAccount: cr.Annotations[ServiceAccountAnnotation]}
}

// CloudFactory gives the providers of one identity in one project and
// region, and checks the identity's sign-in.
type CloudFactory interface {
	For(id Identity, at gcpcloud.Location) (Providers, error)
	CheckSignIn(id Identity) error
}

// MissingIdentityError: the cluster names no workload identity for the
// control-plane operator, or the operator has no token file to present
// (TokenFile).
type MissingIdentityError struct {
	Missing   string
	TokenFile bool
}

func (e *MissingIdentityError) Error() string { return "no GCP workload identity: " + e.Missing }

// Message says, in a condition, what to set.
func (e *MissingIdentityError) Message() string {
	if e.TokenFile {
		return "The control-plane operator has no ServiceAccount token to sign in to GCP with (" + EnvTokenFile +
			" names no file); it uses no other sign-in: the operator renders the token into the control-plane operator's Deployment"
	}
	return identityNotConfiguredMessage
}

// Environment of the control-plane operator's GCP sign-in, besides
// internal/cloud/gcp's endpoint variables.
const (
	// EnvTokenFile is the projected ServiceAccount token presented to
	// Google's Security Token Service; its audience must be the pool
	// provider's (gcpcloud.WorkloadIdentity.TokenAudience).
	EnvTokenFile = "HCPLINK_GCP_TOKEN_FILE"
	// DefaultTokenFile is where the operator renders that token.
	DefaultTokenFile = "/var/run/secrets/hcplink/gcp/token"
)

// WIFFactory signs in by workload identity federation (an external_account
// configuration: STS exchange of the ServiceAccount token, then
// impersonation through IAM Credentials) as each cluster's identity, once
// per identity, and builds the providers over that sign-in. Nothing else
// is ever used to sign in: no key file, no Application Default
// Credentials.
type WIFFactory struct {
	TokenFile string
	// Endpoints replace Google's (cloudsim); empty is Google's.
	ComputeEndpoint, DNSEndpoint, STSEndpoint, IAMCredentialsEndpoint string
	// Component labels the requests in the cloud request metrics.
	Component string
	Transport http.RoundTripper
	Timeouts  gcpcloud.Timeouts

	mu      sync.Mutex
	clients map[Identity]*gcpcloud.Clients
}

// FactoryFromEnv reads the token file and the endpoints from the
// environment (getenv: os.Getenv).
func FactoryFromEnv(getenv func(string) string) *WIFFactory {
	f := &WIFFactory{
		TokenFile:       getenv(EnvTokenFile),
		ComputeEndpoint: getenv(gcpcloud.EnvComputeEndpoint), DNSEndpoint: getenv(gcpcloud.EnvDNSEndpoint),
		STSEndpoint: getenv(gcpcloud.EnvSTSEndpoint), IAMCredentialsEndpoint: getenv(gcpcloud.EnvIAMCredentialsEndpoint),
	}
	if f.TokenFile == "" {
		f.TokenFile = DefaultTokenFile
	}
	return f
}

// For returns the providers of id in at.
func (f *WIFFactory) For(id Identity, at gcpcloud.Location) (Providers, error) {
	c, err := f.signIn(id)
	if err != nil {
		return Providers{}, err
	}
	p := gcpcloud.NewControlPlaneProviders(c, at, f.Timeouts)
	return Providers{Subnetworks: p.Subnetworks, Addresses: p.Addresses, Endpoints: p.Endpoints, Zones: p.Zones, Records: p.Records, Operations: p.Operations}, nil
}

// CheckSignIn asks for a token as id (the credentials library keeps it
// until it expires, so most checks cost no call).
func (f *WIFFactory) CheckSignIn(id Identity) error {
	c, err := f.signIn(id)
	if err != nil {
		return err
	}
	return c.CheckSignIn()
}

func (f *WIFFactory) signIn(id Identity) (*gcpcloud.Clients, error) {
	if id.PoolProvider == "" || id.ServiceAccount == "" {
		return nil, &MissingIdentityError{Missing: "spec.platform.gcp.workloadIdentity names no pool provider or service account"}
	}
	if f.TokenFile == "" {
		return nil, &MissingIdentityError{Missing: "no ServiceAccount token file", TokenFile: true}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.clients[id]; ok {
		return c, nil
	}
	wi := gcpcloud.WorkloadIdentity{
		Audience: "//iam.googleapis.com/" + strings.TrimPrefix(id.PoolProvider, "//iam.googleapis.com/"), ServiceAccountEmail: id.ServiceAccount,
		TokenFile: f.TokenFile, STSEndpoint: f.STSEndpoint, IAMCredentialsEndpoint: f.IAMCredentialsEndpoint,
	}
	if err := wi.Validate(); err != nil {
		return nil, &MissingIdentityError{Missing: err.Error()}
	}
	c, err := gcpcloud.NewClients(context.Background(), gcpcloud.Config{
		ComputeEndpoint: f.ComputeEndpoint, DNSEndpoint: f.DNSEndpoint, CredentialsJSON: wi.ExternalAccountJSON(),
		Component: f.Component, Transport: f.Transport,
	})
	if err != nil {
		return nil, fmt.Errorf("building the Google Cloud clients: %w", err)
	}
	if f.clients == nil {
		f.clients = map[Identity]*gcpcloud.Clients{}
	}
	f.clients[id] = c
	return c, nil
}

// isNotOurs reports whether a provider refused to touch a resource of our
// name that does not carry our labels.
func isNotOurs(err error) bool {
	ce, ok := cloud.AsError(err)
	return ok && ce.Code == gcpcloud.CodeNotOurs
}
