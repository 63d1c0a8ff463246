package azureprivatelink

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// CloudFactory gives the providers acting in one subscription (the
// customer's, spec.subscriptionID).
type CloudFactory interface {
	For(subscriptionID string) (Endpoints, DNS, error)
}

// Endpoints is what the controller asks of Private Endpoints: the methods
// of azurecloud.PrivateEndpoints. Reads return nil for what does not
// exist; creates and deletes are long-running and take and return resume
// tokens (a delete returning "" and no error is done). Errors are
// classified.
type Endpoints interface {
	Get(ctx context.Context, resourceGroup, name string) (*armnetwork.PrivateEndpoint, error)
	CreateOrUpdate(ctx context.Context, resourceGroup, name string, body armnetwork.PrivateEndpoint, resumeToken string) (*armnetwork.PrivateEndpoint, string, error)
	Delete(ctx context.Context, resourceGroup, name, resumeToken string) (string, error)
	IP(ctx context.Context, pe *armnetwork.PrivateEndpoint) (string, error)
}

// DNS is what the controller asks of Private DNS: the methods of
// azurecloud.PrivateDNS.
type DNS interface {
	Zone(ctx context.Context, resourceGroup, zone string) (*armprivatedns.PrivateZone, error)
	CreateZone(ctx context.Context, resourceGroup, zone string, tags map[string]*string, resumeToken string) (*armprivatedns.PrivateZone, string, error)
	DeleteZone(ctx context.Context, resourceGroup, zone, resumeToken string) (string, error)
	Link(ctx context.Context, resourceGroup, zone, link string) (*armprivatedns.VirtualNetworkLink, error)
	CreateOrUpdateLink(ctx context.Context, resourceGroup, zone, link, vnetID string, tags map[string]*string, resumeToken string) (*armprivatedns.VirtualNetworkLink, string, error)
	DeleteLink(ctx context.Context, resourceGroup, zone, link, resumeToken string) (string, error)
	RecordSets(ctx context.Context, resourceGroup, zone string) ([]*armprivatedns.RecordSet, bool, error)
	PutARecord(ctx context.Context, resourceGroup, zone, name, ip string, ttl int64, metadata map[string]*string) error
	LowerSOANegativeTTL(ctx context.Context, resourceGroup, zone string, soa *armprivatedns.RecordSet, most int64) (bool, error)
}

var (
	_ Endpoints = (*azurecloud.PrivateEndpoints)(nil)
	_ DNS       = (*azurecloud.PrivateDNS)(nil)
)

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
