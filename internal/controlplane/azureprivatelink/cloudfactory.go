package azureprivatelink

import (
	"context"
	"fmt"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// ARMFactory builds the providers on the real SDK clients, once per
// subscription, with one credential (the control-plane operator's
// workload identity) and one set of client options (the cloud's endpoints,
// its CA, retries).
type ARMFactory struct {
	// Credential and Options are used as given; when Credential is nil
	// they are built from Config at the first use, so that a control-plane
	// operator of another cloud never needs an Azure identity.
	Credential azcore.TokenCredential
	Options    *arm.ClientOptions
	Config     *azurecloud.Config
	Timeouts   azurecloud.Timeouts

	mu    sync.Mutex
	cache map[string]*azurecloud.Providers
}

// For returns the providers of subscriptionID.
func (f *ARMFactory) For(subscriptionID string) (Endpoints, DNS, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.cache[subscriptionID]; ok {
		return p.PrivateEndpoints, p.PrivateDNS, nil
	}
	if f.Credential == nil {
		if err := f.fromConfig(); err != nil {
			return nil, nil, err
		}
	}
	p, err := azurecloud.NewProviders(subscriptionID, f.Credential, f.Options)
	if err != nil {
		return nil, nil, fmt.Errorf("building the Azure clients: %w", err)
	}
	p.PrivateEndpoints.Timeouts, p.PrivateDNS.Timeouts = f.Timeouts, f.Timeouts
	if f.cache == nil {
		f.cache = map[string]*azurecloud.Providers{}
	}
	f.cache[subscriptionID] = p
	return p.PrivateEndpoints, p.PrivateDNS, nil
}

func (f *ARMFactory) fromConfig() error {
	if f.Config == nil {
		return &azurecloud.MissingWorkloadIdentityError{Missing: []string{azurecloud.EnvClientID, azurecloud.EnvTenantID, azurecloud.EnvFederatedTokenFile}}
	}
	// Workload identity only: the control-plane operator must never sign
	// in as anything the cluster did not name.
	cred, err := f.Config.WorkloadIdentityCredential()
	if err != nil {
		return fmt.Errorf("building the Azure credential: %w", err)
	}
	opts, err := f.Config.ClientOptions()
	if err != nil {
		return fmt.Errorf("building the Azure client options: %w", err)
	}
	f.Credential, f.Options = cred, opts
	return nil
}

// GuestNetwork returns the guest network reader of subscriptionID.
func (f *ARMFactory) GuestNetwork(subscriptionID string) (GuestNetwork, error) {
	if _, _, err := f.For(subscriptionID); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	g := f.cache[subscriptionID].GuestNetwork
	g.Timeouts = f.Timeouts
	return g, nil
}

// TokenCheck asks Entra ID for a Resource Manager token with the factory's
// identity (which needs no role): the credentials check. azidentity caches
// the token, so most checks cost no call at all.
func (f *ARMFactory) TokenCheck(ctx context.Context) error {
	f.mu.Lock()
	if f.Credential == nil {
		if err := f.fromConfig(); err != nil {
			f.mu.Unlock()
			return err
		}
	}
	cred, audience := f.Credential, f.audience()
	f.mu.Unlock()
	_, err := cred.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{audience + "/.default"}})
	return err
}

// audience is Resource Manager's token audience for the factory's cloud.
func (f *ARMFactory) audience() string {
	c := cloud.AzurePublic
	if f.Options != nil && f.Options.Cloud.Services != nil {
		c = f.Options.Cloud
	}
	if rm, ok := c.Services[cloud.ResourceManager]; ok && rm.Audience != "" {
		return rm.Audience
	}
	return cloud.AzurePublic.Services[cloud.ResourceManager].Audience
}
