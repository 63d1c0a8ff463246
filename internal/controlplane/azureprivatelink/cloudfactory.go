package azureprivatelink

import (
	"fmt"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// ARMFactory builds the providers on the real SDK clients, once per
// subscription, with one credential (the control-plane operator's
// workload identity) and one set of client options (the cloud's endpoints,
// its CA, retries).
type ARMFactory struct {
	Credential azcore.TokenCredential
	Options    *arm.ClientOptions
	Timeouts   azurecloud.Timeouts

	mu    sync.Mutex
	cache map[string]armProviders
}

type armProviders struct {
	endpoints *azurecloud.PrivateEndpoints
	dns       *azurecloud.PrivateDNS
}

// For returns the providers of subscriptionID.
func (f *ARMFactory) For(subscriptionID string) (Endpoints, DNS, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.cache[subscriptionID]; ok {
		return p.endpoints, p.dns, nil
	}
	network, err := armnetwork.NewClientFactory(subscriptionID, f.Credential, f.Options)
	if err != nil {
		return nil, nil, fmt.Errorf("building the network clients: %w", err)
	}
	dns, err := armprivatedns.NewClientFactory(subscriptionID, f.Credential, f.Options)
	if err != nil {
		return nil, nil, fmt.Errorf("building the private DNS clients: %w", err)
	}
	p := armProviders{endpoints: azurecloud.NewPrivateEndpoints(network), dns: azurecloud.NewPrivateDNS(dns)}
	p.endpoints.Timeouts, p.dns.Timeouts = f.Timeouts, f.Timeouts
	if f.cache == nil {
		f.cache = map[string]armProviders{}
	}
	f.cache[subscriptionID] = p
	return p.endpoints, p.dns, nil
}
