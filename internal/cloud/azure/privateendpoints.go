package azure

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
)

// PrivateEndpoints is the customer subscription's Private Endpoint (and
// the network interface that holds its address). Every error it returns is
// a classified *cloud.Error; long-running operations take and return a
// resume token as PrivateLinkServices' do.
type PrivateEndpoints struct {
	Endpoints  PrivateEndpointsAPI
	Interfaces InterfacesAPI
	Timeouts   Timeouts
}

// NewPrivateEndpoints returns the provider on one subscription's clients.
func NewPrivateEndpoints(f *armnetwork.ClientFactory) *PrivateEndpoints {
	return &PrivateEndpoints{Endpoints: f.NewPrivateEndpointsClient(), Interfaces: f.NewInterfacesClient()}
}

// expandInterfaces asks ARM for the endpoint's network interfaces whole
// (their IP configurations and addresses) instead of bare IDs, so that one
// read gives the endpoint's address (the Private Endpoints Get API's
// $expand, learn.microsoft.com/rest/api/virtualnetwork/private-endpoints/get).
const expandInterfaces = "networkInterfaces"

// Get reads a Private Endpoint, its network interfaces expanded; nil when
// it does not exist.
func (p *PrivateEndpoints) Get(ctx context.Context, resourceGroup, name string) (*armnetwork.PrivateEndpoint, error) {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	resp, err := p.Endpoints.Get(ctx, resourceGroup, name, &armnetwork.PrivateEndpointsClientGetOptions{Expand: to.Ptr(expandInterfaces)})
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("reading the Private Endpoint", err)
	}
	return &resp.PrivateEndpoint, nil
}

// CreateOrUpdate puts the Private Endpoint; while the operation runs it
// returns the token to resume with. Once its operation says it succeeded
// the endpoint is read once, its interfaces expanded (instead of the
// poller's plain read and then one of the interface).
func (p *PrivateEndpoints) CreateOrUpdate(ctx context.Context, resourceGroup, name string, body armnetwork.PrivateEndpoint, resumeToken string) (*armnetwork.PrivateEndpoint, string, error) {
	callCtx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	r, token, err := beginToStatus(callCtx, resumeToken, func(tok string) (*runtime.Poller[armnetwork.PrivateEndpointsClientCreateOrUpdateResponse], error) {
		return p.Endpoints.BeginCreateOrUpdate(callCtx, resourceGroup, name, body, &armnetwork.PrivateEndpointsClientBeginCreateOrUpdateOptions{ResumeToken: tok})
	})
	if err != nil || r == nil {
		return nil, token, Wrap("creating the Private Endpoint", err)
	}
	if r.PrivateEndpoint.ID == nil {
		pe, err := p.Get(ctx, resourceGroup, name)
		return pe, "", err
	}
	return &r.PrivateEndpoint, "", nil
}

// Delete deletes the Private Endpoint (absent counts as deleted); while the
// deletion runs it returns the token to resume with.
func (p *PrivateEndpoints) Delete(ctx context.Context, resourceGroup, name, resumeToken string) (string, error) {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	_, token, err := begin(ctx, resumeToken, func(tok string) (*runtime.Poller[armnetwork.PrivateEndpointsClientDeleteResponse], error) {
		return p.Endpoints.BeginDelete(ctx, resourceGroup, name, &armnetwork.PrivateEndpointsClientBeginDeleteOptions{ResumeToken: tok})
	})
	if IsNotFound(err) {
		return "", nil
	}
	return token, Wrap("deleting the Private Endpoint", err)
}

// IP is the Private Endpoint's address: from its custom DNS configs when
// it has them, else from its network interface's first IP configuration,
// as Get expands it (the interface is read only when an answer did not
// expand it). "" when it has none yet.
func (p *PrivateEndpoints) IP(ctx context.Context, pe *armnetwork.PrivateEndpoint) (string, error) {
	if ip := CustomDNSConfigIP(pe); ip != "" {
		return ip, nil
	}
	if pe == nil || pe.Properties == nil || len(pe.Properties.NetworkInterfaces) == 0 || pe.Properties.NetworkInterfaces[0] == nil {
		return "", nil
	}
	if nic := pe.Properties.NetworkInterfaces[0]; nic.Properties != nil {
		return interfaceIP(nic.Properties), nil
	}
	nicID := deref(pe.Properties.NetworkInterfaces[0].ID)
	rg, name := ResourceGroupOf(nicID), NameOf(nicID)
	if rg == "" || name == "" {
		return "", nil
	}
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	resp, err := p.Interfaces.Get(ctx, rg, name, nil)
	if IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", Wrap("reading the Private Endpoint's network interface", err)
	}
	if resp.Properties == nil {
		return "", nil
	}
	return interfaceIP(resp.Properties), nil
}

// interfaceIP is a network interface's first private address ("" when
// none).
func interfaceIP(props *armnetwork.InterfacePropertiesFormat) string {
	for _, c := range props.IPConfigurations {
		if c != nil && c.Properties != nil && deref(c.Properties.PrivateIPAddress) != "" {
			return *c.Properties.PrivateIPAddress
		}
	}
	return ""
}

// CustomDNSConfigIP is the first address of the endpoint's custom DNS
// configs ("" when none).
func CustomDNSConfigIP(pe *armnetwork.PrivateEndpoint) string {
	if pe == nil || pe.Properties == nil {
		return ""
	}
	for _, c := range pe.Properties.CustomDNSConfigs {
		if c == nil {
			continue
		}
		for _, ip := range c.IPAddresses {
			if deref(ip) != "" {
				return *ip
			}
		}
	}
	return ""
}

// PrivateEndpointSpec is what hcplink wants of a Private Endpoint.
type PrivateEndpointSpec struct {
	Location string
	SubnetID string
	// Service is the Private Link Service's alias (or resource ID).
	Service string
	Tags    map[string]*string
}

// PrivateEndpointConnectionName is the name of the endpoint's one
// (manual) connection.
const PrivateEndpointConnectionName = "hcplink"

// PrivateEndpointBody is the PUT body of spec: in the guest subnet, one
// manual connection to the service (a PLS in another subscription is
// connected manually; its auto-approval list approves it).
func PrivateEndpointBody(spec PrivateEndpointSpec) armnetwork.PrivateEndpoint {
	return armnetwork.PrivateEndpoint{
		Location: to.Ptr(spec.Location),
		Tags:     spec.Tags,
		Properties: &armnetwork.PrivateEndpointProperties{
			Subnet: &armnetwork.Subnet{ID: to.Ptr(spec.SubnetID)},
			ManualPrivateLinkServiceConnections: []*armnetwork.PrivateLinkServiceConnection{{
				Name: to.Ptr(PrivateEndpointConnectionName),
				Properties: &armnetwork.PrivateLinkServiceConnectionProperties{
					PrivateLinkServiceID: to.Ptr(spec.Service),
					RequestMessage:       to.Ptr("hcplink: private access to the hosted control plane"),
				},
			}},
		},
	}
}

// EndpointConnectionStatus is the status of the endpoint's connection
// (Approved, Pending, Rejected, Disconnected; "" when unknown) and the
// service it names (alias or ID).
func EndpointConnectionStatus(pe *armnetwork.PrivateEndpoint) (status, service string) {
	if pe == nil || pe.Properties == nil {
		return "", ""
	}
	conns := append(append([]*armnetwork.PrivateLinkServiceConnection{}, pe.Properties.ManualPrivateLinkServiceConnections...), pe.Properties.PrivateLinkServiceConnections...)
	for _, c := range conns {
		if c == nil || c.Properties == nil {
			continue
		}
		if c.Properties.PrivateLinkServiceConnectionState != nil {
			status = deref(c.Properties.PrivateLinkServiceConnectionState.Status)
		}
		return status, deref(c.Properties.PrivateLinkServiceID)
	}
	return "", ""
}
