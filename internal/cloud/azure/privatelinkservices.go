package azure

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	"github.com/hcplink/hcplink/internal/cloud"
)

// PrivateLinkServices is the management subscription's side: the internal
// load balancers of the management cluster, the NAT subnet, the Private
// Link Service and its connections. Every error it returns is a classified
// *cloud.Error (Wrap). Methods that start a long-running operation take
// the resume token the caller kept ("" to start) and return the result
// when done or else the token to resume with on the next pass.
type PrivateLinkServices struct {
	LoadBalancers   LoadBalancersAPI
	VirtualNetworks VirtualNetworksAPI
	Subnets         SubnetsAPI
	Services        PrivateLinkServicesAPI
	Timeouts        Timeouts
}

// NewPrivateLinkServices returns the provider on one subscription's
// clients.
func NewPrivateLinkServices(f *armnetwork.ClientFactory) *PrivateLinkServices {
	return &PrivateLinkServices{
		LoadBalancers:   f.NewLoadBalancersClient(),
		VirtualNetworks: f.NewVirtualNetworksClient(),
		Subnets:         f.NewSubnetsClient(),
		Services:        f.NewPrivateLinkServicesClient(),
	}
}

// Frontend is an internal load balancer's frontend IP configuration.
type Frontend struct {
	LoadBalancerID string
	// ID is the frontend IP configuration's resource ID (what a Private
	// Link Service refers to).
	ID string
	// PrivateIP is the frontend's address.
	PrivateIP string
	// SubnetID is the subnet the frontend's address is in.
	SubnetID string
	// Location is the load balancer's region: a Private Link Service must
	// be in it (Azure refuses a service whose frontend is in another
	// region with InvalidResourceReference, "...both resources are in the
	// same region"), whatever the region of the endpoints that connect.
	Location string
}

// VNetID is the VNet of the frontend's subnet ("" when unknown).
func (f Frontend) VNetID() string {
	s, err := ParseSubnetID(f.SubnetID)
	if err != nil {
		return ""
	}
	return s.VNetID()
}

// LoadBalancerScope is where one management cluster's internal load
// balancers are: management clusters commonly reuse VNet address ranges,
// so an address alone names no frontend in a subscription.
type LoadBalancerScope struct {
	// ResourceGroup holds the management cluster's load balancers
	// (required: the subscription is never scanned).
	ResourceGroup string
	// VNetID, when set, is the management cluster's VNet: a frontend in
	// another VNet is not the cluster's.
	VNetID string
}

// FindFrontendsByIP reads every page of the load balancers of the scope's
// resource group and returns the internal frontends whose private IP is
// ip and whose subnet is in the scope's VNet (any VNet when unset).
func (p *PrivateLinkServices) FindFrontendsByIP(ctx context.Context, scope LoadBalancerScope, ip string) ([]Frontend, error) {
	all, err := p.InternalFrontends(ctx, scope)
	if err != nil {
		return nil, err
	}
	var found []Frontend
	for _, f := range all {
		if f.PrivateIP == ip {
			found = append(found, f)
		}
	}
	return found, nil
}

// InternalFrontends reads every page of the load balancers of the scope's
// resource group and returns all their internal frontends (a private
// address in a subnet) in the scope's VNet (any VNet when unset): one
// listing that finds the frontend of every cluster at once.
func (p *PrivateLinkServices) InternalFrontends(ctx context.Context, scope LoadBalancerScope) ([]Frontend, error) {
	if scope.ResourceGroup == "" {
		return nil, &cloud.Error{Doing: "listing load balancers", Class: cloud.ClassInvalidInput, Code: "ResourceGroupNotConfigured",
			Message: "the management cluster's resource group is not configured (--azure-pls-resource-group)."}
	}
	ctx, cancel := p.Timeouts.list(ctx)
	defer cancel()
	var found []Frontend
	err := eachPage(ctx, p.LoadBalancers.NewListPager(scope.ResourceGroup, nil), func(r armnetwork.LoadBalancersClientListResponse) {
		for _, lb := range r.Value {
			for _, f := range internalFrontends(lb) {
				if scope.VNetID == "" || strings.EqualFold(f.VNetID(), scope.VNetID) {
					found = append(found, f)
				}
			}
		}
	})
	if err != nil {
		return nil, Wrap("listing load balancers", err)
	}
	return found, nil
}

// internalFrontends are lb's frontends with a private address in a
// subnet (internal frontends).
func internalFrontends(lb *armnetwork.LoadBalancer) []Frontend {
	if lb == nil || lb.Properties == nil {
		return nil
	}
	var out []Frontend
	for _, fe := range lb.Properties.FrontendIPConfigurations {
		if fe == nil || fe.Properties == nil || fe.Properties.Subnet == nil {
			continue
		}
		if ip := deref(fe.Properties.PrivateIPAddress); ip != "" {
			out = append(out, Frontend{LoadBalancerID: deref(lb.ID), ID: deref(fe.ID), PrivateIP: ip, SubnetID: deref(fe.Properties.Subnet.ID), Location: deref(lb.Location)})
		}
	}
	return out
}

// eachPage reads every page of a pager.
func eachPage[T any](ctx context.Context, pager *runtime.Pager[T], visit func(T)) error {
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return err
		}
		visit(page)
	}
	return nil
}

// VirtualNetwork reads a VNet by ID; nil when it does not exist.
func (p *PrivateLinkServices) VirtualNetwork(ctx context.Context, vnetID string) (*armnetwork.VirtualNetwork, error) {
	ref, err := ParseVNetID(vnetID)
	if err != nil {
		return nil, err
	}
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	resp, err := p.VirtualNetworks.Get(ctx, ref.ResourceGroup, ref.Name, nil)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("reading the virtual network", err)
	}
	return &resp.VirtualNetwork, nil
}

// Subnet reads a subnet by ID; nil when it (or its VNet) does not exist.
func (p *PrivateLinkServices) Subnet(ctx context.Context, subnetID string) (*armnetwork.Subnet, error) {
	ref, err := ParseSubnetID(subnetID)
	if err != nil {
		return nil, err
	}
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	resp, err := p.Subnets.Get(ctx, ref.ResourceGroup, ref.VNet, ref.Name, nil)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("reading the subnet", err)
	}
	return &resp.Subnet, nil
}

// EnsureNATSubnet returns the subnet name of the VNet vnetID, creating it
// when absent in the VNet's free address space (a /NATSubnetPrefixLength
// that overlaps no subnet) with Private Link Service network policies
// disabled. While the creation runs it returns the token to resume with.
func (p *PrivateLinkServices) EnsureNATSubnet(ctx context.Context, vnetID, name, resumeToken string) (*armnetwork.Subnet, string, error) {
	return p.ensureNATSubnet(ctx, vnetID, name, NATSubnetPrefixLength, resumeToken, nil)
}

// EnsureNATSubnetOfSize is EnsureNATSubnet for a subnet of bits (a shared
// NAT subnet is larger than one cluster's).
func (p *PrivateLinkServices) EnsureNATSubnetOfSize(ctx context.Context, vnetID, name string, bits int, resumeToken string) (*armnetwork.Subnet, string, error) {
	return p.ensureNATSubnet(ctx, vnetID, name, bits, resumeToken, nil)
}

// CreateNATSubnetIn is EnsureNATSubnetOfSize for a caller that has just
// read the VNet (NATSubnetVNet) and found no subnet of that name in it:
// the subnet is placed from that read, without reading the VNet or the
// subnet again.
func (p *PrivateLinkServices) CreateNATSubnetIn(ctx context.Context, vnet *armnetwork.VirtualNetwork, name string, bits int, resumeToken string) (*armnetwork.Subnet, string, error) {
	return p.ensureNATSubnet(ctx, deref(vnet.ID), name, bits, resumeToken, vnet)
}

// NATSubnetVNet reads the VNet a NAT subnet goes in, its subnets inline;
// a VNet that does not exist is an error.
func (p *PrivateLinkServices) NATSubnetVNet(ctx context.Context, vnetID string) (*armnetwork.VirtualNetwork, error) {
	vnet, err := p.VirtualNetwork(ctx, vnetID)
	if err != nil {
		return nil, err
	}
	if vnet == nil {
		return nil, &cloud.Error{Doing: "creating the NAT subnet", Class: cloud.ClassNotFound, Code: CodeResourceNotFound, Message: "the load balancer's virtual network does not exist."}
	}
	return vnet, nil
}

// SubnetNamed is the subnet of vnet (as read, subnets inline) named name;
// nil when it has none.
func SubnetNamed(vnet *armnetwork.VirtualNetwork, name string) *armnetwork.Subnet {
	if vnet == nil || vnet.Properties == nil {
		return nil
	}
	for _, sn := range vnet.Properties.Subnets {
		if sn != nil && strings.EqualFold(deref(sn.Name), name) {
			return sn
		}
	}
	return nil
}

// ensureNATSubnet gets or creates the NAT subnet; read is the VNet as the
// caller just read it when it showed no such subnet (nil: look first).
// A creation seen done on its operation's status is not read back: the
// answer is the subnet as it was asked for, provisioned.
func (p *PrivateLinkServices) ensureNATSubnet(ctx context.Context, vnetID, name string, bits int, resumeToken string, read *armnetwork.VirtualNetwork) (*armnetwork.Subnet, string, error) {
	vnetRef, err := ParseVNetID(vnetID)
	if err != nil {
		return nil, "", err
	}
	ref := SubnetRef{SubscriptionID: vnetRef.SubscriptionID, ResourceGroup: vnetRef.ResourceGroup, VNet: vnetRef.Name, Name: name}
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	start := func(tok string) (*runtime.Poller[armnetwork.SubnetsClientCreateOrUpdateResponse], error) {
		var body armnetwork.Subnet
		if tok == "" {
			vnet := read
			read = nil // a placement that conflicts reads the VNet afresh
			if vnet == nil {
				var err error
				if vnet, err = p.NATSubnetVNet(ctx, vnetID); err != nil {
					return nil, err
				}
			}
			if body, err = natSubnetBody(vnet, bits); err != nil {
				return nil, err
			}
		}
		return p.Subnets.BeginCreateOrUpdate(ctx, ref.ResourceGroup, ref.VNet, ref.Name, body, &armnetwork.SubnetsClientBeginCreateOrUpdateOptions{ResumeToken: tok})
	}
	done := func(r *armnetwork.SubnetsClientCreateOrUpdateResponse) *armnetwork.Subnet {
		if r.Subnet.ID != nil {
			return &r.Subnet
		}
		id, succeeded := ref.ID(), armnetwork.ProvisioningStateSucceeded
		return &armnetwork.Subnet{ID: &id, Name: to.Ptr(name), Properties: &armnetwork.SubnetPropertiesFormat{ProvisioningState: &succeeded,
			PrivateLinkServiceNetworkPolicies: to.Ptr(armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesDisabled)}}
	}
	knownAbsent := read != nil
	if resumeToken != "" {
		r, token, err := resumeWith(ctx, resumeToken, start, stepToStatus[armnetwork.SubnetsClientCreateOrUpdateResponse])
		if !errors.Is(err, errForgotten) {
			if err != nil || r == nil {
				return nil, token, Wrap("creating the NAT subnet", err)
			}
			return done(r), "", nil
		}
		// Forgotten: the subnet may exist by now; placing it again would
		// move it, so look first.
		knownAbsent, read = false, nil
	}
	if !knownAbsent {
		existing, err := p.Subnet(ctx, ref.ID())
		if err != nil || existing != nil {
			return existing, "", err
		}
	}
	// Another worker or operator may place a subnet in the same free range
	// between our read of the VNet and our write; Azure then refuses ours
	// as overlapping, and a fresh read finds the next free range.
	for attempt := 1; ; attempt++ {
		r, token, err := beginToStatus(ctx, "", start)
		if ErrorCode(err) == CodeSubnetRangesOverlap {
			if attempt < natSubnetAttempts {
				continue
			}
			return nil, "", &cloud.Error{Doing: "creating the NAT subnet", Class: cloud.ClassDependency, Code: CodeSubnetRangesOverlap,
				Message: "other subnets kept taking the free range the NAT subnet was placed in; it is placed again shortly.", Err: err}
		}
		if err != nil || r == nil {
			return nil, token, Wrap("creating the NAT subnet", err)
		}
		return done(r), "", nil
	}
}

// CodeSubnetRangesOverlap is Azure's refusal of a subnet whose range
// overlaps another subnet of its VNet (HTTP 400). For a NAT subnet hcplink
// places it means another writer took the range first: a conflict.
const CodeSubnetRangesOverlap = "NetcfgSubnetRangesOverlap"

// natSubnetAttempts bounds the placements of one NAT subnet in one call
// (each a read of the VNet and a write); a VNet that busy is retried on
// the next pass.
const natSubnetAttempts = 3

// CodeNoFreeAddressSpace: the VNet has no free range of the size a NAT
// subnet needs.
const CodeNoFreeAddressSpace = "NoFreeAddressSpace"

// natSubnetBody places a NAT subnet of bits in the VNet's free address
// space.
func natSubnetBody(vnet *armnetwork.VirtualNetwork, bits int) (armnetwork.Subnet, error) {
	prefix, err := FreePrefix(addressSpace(vnet), subnetPrefixes(vnet), bits)
	if err != nil {
		return armnetwork.Subnet{}, &cloud.Error{Doing: "creating the NAT subnet", Class: cloud.ClassInvalidInput, Code: CodeNoFreeAddressSpace,
			Message: Bound(err.Error()+"; widen the VNet's address space or give the cluster a natSubnetID.", MaxMessageLength)}
	}
	return NATSubnetBody(prefix), nil
}

// NATSubnetBody is a NAT subnet: the prefix, Private Link Service network
// policies disabled (Azure refuses NAT addresses in a subnet without).
func NATSubnetBody(prefix string) armnetwork.Subnet {
	return armnetwork.Subnet{Properties: &armnetwork.SubnetPropertiesFormat{
		AddressPrefix:                     to.Ptr(prefix),
		PrivateLinkServiceNetworkPolicies: to.Ptr(armnetwork.VirtualNetworkPrivateLinkServiceNetworkPoliciesDisabled),
	}}
}

func addressSpace(vnet *armnetwork.VirtualNetwork) []string {
	if vnet.Properties == nil || vnet.Properties.AddressSpace == nil {
		return nil
	}
	return derefAll(vnet.Properties.AddressSpace.AddressPrefixes)
}

func subnetPrefixes(vnet *armnetwork.VirtualNetwork) []string {
	var out []string
	if vnet.Properties == nil {
		return nil
	}
	for _, s := range vnet.Properties.Subnets {
		if s == nil || s.Properties == nil {
			continue
		}
		if s.Properties.AddressPrefix != nil {
			out = append(out, *s.Properties.AddressPrefix)
		}
		out = append(out, derefAll(s.Properties.AddressPrefixes)...)
	}
	return out
}

// DeleteSubnet deletes a subnet by ID (absent counts as deleted); while the
// deletion runs it returns the token to resume with.
func (p *PrivateLinkServices) DeleteSubnet(ctx context.Context, subnetID, resumeToken string) (string, error) {
	ref, err := ParseSubnetID(subnetID)
	if err != nil {
		return "", err
	}
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	_, token, err := begin(ctx, resumeToken, func(tok string) (*runtime.Poller[armnetwork.SubnetsClientDeleteResponse], error) {
		return p.Subnets.BeginDelete(ctx, ref.ResourceGroup, ref.VNet, ref.Name, &armnetwork.SubnetsClientBeginDeleteOptions{ResumeToken: tok})
	})
	if IsNotFound(err) {
		return "", nil
	}
	return token, Wrap("deleting the NAT subnet", err)
}

// Get reads a Private Link Service; nil when it does not exist.
func (p *PrivateLinkServices) Get(ctx context.Context, resourceGroup, name string) (*armnetwork.PrivateLinkService, error) {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	resp, err := p.Services.Get(ctx, resourceGroup, name, nil)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, Wrap("reading the Private Link Service", err)
	}
	return &resp.PrivateLinkService, nil
}

// List reads every page of the Private Link Services of a resource group,
// their connections inline (one call a page for every cluster's service).
func (p *PrivateLinkServices) List(ctx context.Context, resourceGroup string) ([]*armnetwork.PrivateLinkService, error) {
	ctx, cancel := p.Timeouts.list(ctx)
	defer cancel()
	var out []*armnetwork.PrivateLinkService
	err := eachPage(ctx, p.Services.NewListPager(resourceGroup, nil), func(r armnetwork.PrivateLinkServicesClientListResponse) {
		out = append(out, r.Value...)
	})
	if err != nil {
		return nil, Wrap("listing the Private Link Services", err)
	}
	return out, nil
}

// CreateOrUpdate puts the Private Link Service (create, or update to
// body); while the operation runs it returns the token to resume with.
func (p *PrivateLinkServices) CreateOrUpdate(ctx context.Context, resourceGroup, name string, body armnetwork.PrivateLinkService, resumeToken string) (*armnetwork.PrivateLinkService, string, error) {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	r, token, err := begin(ctx, resumeToken, func(tok string) (*runtime.Poller[armnetwork.PrivateLinkServicesClientCreateOrUpdateResponse], error) {
		return p.Services.BeginCreateOrUpdate(ctx, resourceGroup, name, body, &armnetwork.PrivateLinkServicesClientBeginCreateOrUpdateOptions{ResumeToken: tok})
	})
	if err != nil || r == nil {
		return nil, token, Wrap("writing the Private Link Service", err)
	}
	return &r.PrivateLinkService, "", nil
}

// Delete deletes the Private Link Service (absent counts as deleted);
// while the deletion runs it returns the token to resume with.
func (p *PrivateLinkServices) Delete(ctx context.Context, resourceGroup, name, resumeToken string) (string, error) {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	_, token, err := begin(ctx, resumeToken, func(tok string) (*runtime.Poller[armnetwork.PrivateLinkServicesClientDeleteResponse], error) {
		return p.Services.BeginDelete(ctx, resourceGroup, name, &armnetwork.PrivateLinkServicesClientBeginDeleteOptions{ResumeToken: tok})
	})
	if IsNotFound(err) {
		return "", nil
	}
	return token, Wrap("deleting the Private Link Service", err)
}

// RejectConnection rejects one connection (so that the service can be
// deleted with no customer endpoint attached, or because its endpoint's
// subscription is not allowed); a connection already rejected is left
// alone.
func (p *PrivateLinkServices) RejectConnection(ctx context.Context, resourceGroup, name string, conn *armnetwork.PrivateEndpointConnection, why string) error {
	if conn == nil || ConnectionStatus(conn.Properties) == ConnectionRejected {
		return nil
	}
	return p.setConnectionStatus(ctx, resourceGroup, name, conn, ConnectionRejected, "rejected by hcplink: "+why, "rejecting a private endpoint connection")
}

// ApproveConnection approves one pending connection: Azure approves
// automatically only when the endpoint is made, so a connection requested
// before its subscription was allowed waits for the owner.
func (p *PrivateLinkServices) ApproveConnection(ctx context.Context, resourceGroup, name string, conn *armnetwork.PrivateEndpointConnection) error {
	if conn == nil || ConnectionStatus(conn.Properties) == ConnectionApproved {
		return nil
	}
	return p.setConnectionStatus(ctx, resourceGroup, name, conn, ConnectionApproved, "approved by hcplink: the endpoint's subscription is allowed", "approving a private endpoint connection")
}

func (p *PrivateLinkServices) setConnectionStatus(ctx context.Context, resourceGroup, name string, conn *armnetwork.PrivateEndpointConnection, status, description, doing string) error {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	body := armnetwork.PrivateEndpointConnection{Name: conn.Name, Properties: &armnetwork.PrivateEndpointConnectionProperties{
		PrivateLinkServiceConnectionState: &armnetwork.PrivateLinkServiceConnectionState{
			Status:      to.Ptr(status),
			Description: to.Ptr(description),
		},
	}}
	_, err := p.Services.UpdatePrivateEndpointConnection(ctx, resourceGroup, name, deref(conn.Name), body, nil)
	if IsNotFound(err) {
		return nil
	}
	return Wrap(doing, err)
}

// ConnectionEndpointID is the resource ID of a connection's private
// endpoint ("" when unknown).
func ConnectionEndpointID(conn *armnetwork.PrivateEndpointConnection) string {
	if conn == nil || conn.Properties == nil || conn.Properties.PrivateEndpoint == nil {
		return ""
	}
	return deref(conn.Properties.PrivateEndpoint.ID)
}

// DeleteConnection removes one connection (absent counts as deleted):
// Azure refuses to delete a Private Link Service that still has any, even
// rejected ones. While the deletion runs it returns the token to resume
// with.
func (p *PrivateLinkServices) DeleteConnection(ctx context.Context, resourceGroup, name, connection, resumeToken string) (string, error) {
	ctx, cancel := p.Timeouts.call(ctx)
	defer cancel()
	_, token, err := begin(ctx, resumeToken, func(tok string) (*runtime.Poller[armnetwork.PrivateLinkServicesClientDeletePrivateEndpointConnectionResponse], error) {
		return p.Services.BeginDeletePrivateEndpointConnection(ctx, resourceGroup, name, connection, &armnetwork.PrivateLinkServicesClientBeginDeletePrivateEndpointConnectionOptions{ResumeToken: tok})
	})
	if IsNotFound(err) {
		return "", nil
	}
	return token, Wrap("deleting a private endpoint connection", err)
}

// Connection states.
const (
	ConnectionApproved     = "Approved"
	ConnectionPending      = "Pending"
	ConnectionRejected     = "Rejected"
	ConnectionDisconnected = "Disconnected"
)

// ConnectionStatus is a connection's status ("" when unknown).
func ConnectionStatus(props *armnetwork.PrivateEndpointConnectionProperties) string {
	if props == nil || props.PrivateLinkServiceConnectionState == nil {
		return ""
	}
	return deref(props.PrivateLinkServiceConnectionState.Status)
}

// PrivateLinkServiceSpec is what hcplink wants of a Private Link Service.
type PrivateLinkServiceSpec struct {
	Location string
	// FrontendID is the internal load balancer frontend's resource ID.
	FrontendID string
	// NATSubnetID is the subnet of the one NAT IP configuration.
	NATSubnetID string
	// Subscriptions are both the visibility and the auto-approval list.
	Subscriptions []string
	Tags          map[string]*string
}

// MaxPrivateLinkServicesPerLoadBalancer is Azure's limit of Private Link
// Services on one Standard load balancer
// (https://learn.microsoft.com/azure/private-link/private-link-faq: "up to
// eight Private Link services per load balancer").
const MaxPrivateLinkServicesPerLoadBalancer = 8

// NATIPConfigurationName is the name of the PLS's one NAT IP configuration.
const NATIPConfigurationName = "nat"

// PrivateLinkServiceBody is the PUT body of spec: one frontend, one NAT IP
// configuration (dynamic, primary), visibility = auto-approval = the
// subscriptions (sorted, deduplicated), the tags.
func PrivateLinkServiceBody(spec PrivateLinkServiceSpec) armnetwork.PrivateLinkService {
	subs := NormalizeSubscriptions(spec.Subscriptions)
	return armnetwork.PrivateLinkService{
		Location: to.Ptr(spec.Location),
		Tags:     spec.Tags,
		Properties: &armnetwork.PrivateLinkServiceProperties{
			LoadBalancerFrontendIPConfigurations: []*armnetwork.FrontendIPConfiguration{{ID: to.Ptr(spec.FrontendID)}},
			IPConfigurations: []*armnetwork.PrivateLinkServiceIPConfiguration{{
				Name: to.Ptr(NATIPConfigurationName),
				Properties: &armnetwork.PrivateLinkServiceIPConfigurationProperties{
					Subnet:                    &armnetwork.Subnet{ID: to.Ptr(spec.NATSubnetID)},
					PrivateIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodDynamic),
					Primary:                   to.Ptr(true),
				},
			}},
			Visibility:   &armnetwork.PrivateLinkServicePropertiesVisibility{Subscriptions: to.SliceOfPtrs(subs...)},
			AutoApproval: &armnetwork.PrivateLinkServicePropertiesAutoApproval{Subscriptions: to.SliceOfPtrs(subs...)},
		},
	}
}

// NormalizeSubscriptions sorts, lower-cases and deduplicates subscription
// IDs (Azure compares them case-insensitively).
func NormalizeSubscriptions(subs []string) []string {
	out := make([]string, 0, len(subs))
	for _, s := range subs {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func derefAll(in []*string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}
