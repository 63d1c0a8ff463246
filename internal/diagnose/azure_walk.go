package diagnose

import (
	"context"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// AzureClients is the identity the Azure walk reads with. Providers are
// built per subscription from the cluster's own resource IDs.
type AzureClients struct {
	Credential azcore.TokenCredential
	Options    *arm.ClientOptions
	// Missing says why there is no credential (every Azure hop is "?").
	Missing string
	// GuestSubscription overrides the cluster's subscription.
	GuestSubscription string
}

func (a AzureClients) guest(k kubeSeen) string {
	if a.GuestSubscription != "" {
		return a.GuestSubscription
	}
	if k.hc != nil && k.hc.Spec.Platform.Azure != nil {
		return k.hc.Spec.Platform.Azure.SubscriptionID
	}
	return ""
}

func (a AzureClients) guestLabel(k kubeSeen) string { return "subscription " + a.guest(k) }

func (a AzureClients) managementLabel(k kubeSeen) string {
	cr := &hcplinkv1beta1.AzurePrivateLinkService{}
	if err := k.reader.Get(context.Background(), k.key(hcplinkv1beta1.PrivateRouterServiceName), cr); err == nil && cr.Status.PrivateLinkServiceID != "" {
		return "subscription " + azurecloud.SubscriptionOf(cr.Status.PrivateLinkServiceID)
	}
	return "subscription"
}

type azureWalk struct {
	k        kubeSeen
	clients  AzureClients
	cr       *hcplinkv1beta1.AzurePrivateLinkService
	mgmt     *azurecloud.Providers
	guest    *azurecloud.Providers
	frontend string // the router's frontend configuration ID
	peIP     string
	zoneRG   string
}

// walkAzure walks the Azure private path after the Kubernetes hops.
func walkAzure(ctx context.Context, k kubeSeen, clients AzureClients) []Hop {
	w := &azureWalk{k: k, clients: clients}
	cr := &hcplinkv1beta1.AzurePrivateLinkService{}
	if err := k.reader.Get(ctx, k.key(hcplinkv1beta1.PrivateRouterServiceName), cr); err == nil {
		w.cr = cr
	}
	w.connect()
	return []Hop{w.frontendHop(ctx), w.plsHop(ctx), w.endpointHop(ctx), w.zoneHop(ctx), w.linkHop(ctx), w.recordsHop(ctx), w.externalNames(ctx)}
}

func (w *azureWalk) connect() {
	if w.clients.Missing != "" || w.cr == nil {
		return
	}
	if sub := azurecloud.SubscriptionOf(w.cr.Status.PrivateLinkServiceID); sub != "" {
		w.mgmt, _ = azurecloud.NewProviders(sub, w.clients.Credential, w.clients.Options)
	}
	if sub := w.clients.guest(w.k); sub != "" {
		w.guest, _ = azurecloud.NewProviders(sub, w.clients.Credential, w.clients.Options)
	}
}

// blocked returns the hop to show when the walk cannot read this side.
func (w *azureWalk) blocked(hop string, side Side) (Hop, bool) {
	key := w.k.hcpNS + "/" + hcplinkv1beta1.PrivateRouterServiceName
	switch {
	case w.cr == nil:
		return fail(hop, side, "no AzurePrivateLinkService "+key, "Check that the control-plane operator runs: it creates AzurePrivateLinkService "+key+" once the router has its address."), true
	case w.clients.Missing != "":
		return unknown(hop, side, w.clients.Missing), true
	case side == SideManagement && w.mgmt == nil:
		return unknown(hop, side, "the management subscription is not known yet (no private link service in the AzurePrivateLinkService status)"), true
	case side == SideCustomer && w.guest == nil:
		return unknown(hop, side, "the cluster's subscription is not known (pass --guest-subscription)"), true
	}
	return Hop{}, false
}

func azureUnknown(hop string, side Side, err error) Hop {
	return unknown(hop, side, "reading it failed: "+azurecloud.ErrorMessage(err))
}

func (w *azureWalk) frontendHop(ctx context.Context) Hop {
	if h, stop := w.blocked(HopInternalLoadBalancer, SideManagement); stop {
		return h
	}
	seen := FrontendSeen{Service: w.k.hcpNS + "/" + hcplinkv1beta1.PrivateRouterServiceName}
	if w.k.router != nil {
		seen.IP = ingressHost(w.k.router)
	}
	if seen.IP == "" {
		return InternalLoadBalancerHop(seen)
	}
	lb := w.cr.Status.InternalLoadBalancerID
	fes, err := w.mgmt.PrivateLinkServices.FindFrontendsByIP(ctx, azurecloud.LoadBalancerScope{ResourceGroup: azurecloud.ResourceGroupOf(lb)}, seen.IP)
	if err != nil {
		return azureUnknown(HopInternalLoadBalancer, SideManagement, err)
	}
	// The operator's load balancer when the group has several with the
	// address (clusters with the same ranges); else the only one.
	for _, f := range fes {
		if len(fes) == 1 || strings.EqualFold(f.LoadBalancerID, lb) {
			seen.Found, seen.ID, w.frontend = true, f.ID, f.ID
			break
		}
	}
	return InternalLoadBalancerHop(seen)
}

func (w *azureWalk) plsHop(ctx context.Context) Hop {
	if h, stop := w.blocked(HopPrivateLinkService, SideManagement); stop {
		return h
	}
	id := w.cr.Status.PrivateLinkServiceID
	seen := PrivateLinkServiceSeen{Name: azurecloud.NameOf(id), Guest: w.clients.guest(w.k)}
	pls, err := w.mgmt.PrivateLinkServices.Get(ctx, azurecloud.ResourceGroupOf(id), seen.Name)
	if err != nil {
		return azureUnknown(HopPrivateLinkService, SideManagement, err)
	}
	if pls == nil || pls.Properties == nil {
		return PrivateLinkServiceHop(seen)
	}
	p := pls.Properties
	seen.Found, seen.Alias = true, deref(p.Alias)
	if p.ProvisioningState != nil {
		seen.State = string(*p.ProvisioningState)
	}
	if p.Visibility != nil {
		seen.Visibility = derefs(p.Visibility.Subscriptions)
	}
	if p.AutoApproval != nil {
		seen.AutoApproval = derefs(p.AutoApproval.Subscriptions)
	}
	seen.OnFrontend = w.frontend == "" || usesFrontend(p.LoadBalancerFrontendIPConfigurations, w.frontend)
	return PrivateLinkServiceHop(seen)
}

func usesFrontend(configs []*armnetwork.FrontendIPConfiguration, id string) bool {
	for _, c := range configs {
		if c != nil && strings.EqualFold(deref(c.ID), id) {
			return true
		}
	}
	return false
}

func (w *azureWalk) endpointHop(ctx context.Context) Hop {
	if h, stop := w.blocked(HopPrivateEndpoint, SideCustomer); stop {
		return h
	}
	infraID := w.k.hc.Spec.InfraID
	rg := w.cr.Spec.ResourceGroupName
	if id := w.cr.Status.PrivateEndpointID; id != "" {
		rg = azurecloud.ResourceGroupOf(id)
	}
	seen := PrivateEndpointSeen{Name: azurecloud.PrivateEndpointName(infraID, w.cr.Name)}
	pe, err := w.guest.PrivateEndpoints.Get(ctx, rg, seen.Name)
	if err != nil {
		return azureUnknown(HopPrivateEndpoint, SideCustomer, err)
	}
	if pe == nil {
		return PrivateEndpointHop(seen)
	}
	seen.Found = true
	seen.Status, _ = azurecloud.EndpointConnectionStatus(pe)
	if seen.IP, err = w.guest.PrivateEndpoints.IP(ctx, pe); err != nil {
		return azureUnknown(HopPrivateEndpoint, SideCustomer, err)
	}
	w.peIP = seen.IP
	return PrivateEndpointHop(seen)
}

func (w *azureWalk) zoneName() string {
	if w.cr != nil && w.cr.Status.DNSZoneName != "" {
		return w.cr.Status.DNSZoneName
	}
	return azurecloud.PrivateDNSZoneName(w.k.hc.Name)
}

func (w *azureWalk) zoneResourceGroup() string {
	if id := w.cr.Status.PrivateDNSZoneID; id != "" {
		return azurecloud.ResourceGroupOf(id)
	}
	return w.cr.Spec.ResourceGroupName
}

func (w *azureWalk) zoneHop(ctx context.Context) Hop {
	if h, stop := w.blocked(HopPrivateDNSZone, SideCustomer); stop {
		return h
	}
	z, err := w.guest.PrivateDNS.Zone(ctx, w.zoneResourceGroup(), w.zoneName())
	if err != nil {
		return azureUnknown(HopPrivateDNSZone, SideCustomer, err)
	}
	if z != nil {
		w.zoneRG = w.zoneResourceGroup()
	}
	return PrivateDNSZoneHop(w.zoneName(), z != nil)
}

func (w *azureWalk) linkHop(ctx context.Context) Hop {
	if h, stop := w.blocked(HopVNetLink, SideCustomer); stop {
		return h
	}
	if w.zoneRG == "" {
		return unknown(HopVNetLink, SideCustomer, "there is no zone to hold it")
	}
	seen := VNetLinkSeen{Zone: w.zoneName(), Name: azurecloud.VNetLinkName(w.k.hc.Spec.InfraID), WantVNet: w.cr.Spec.GuestVNetID}
	link, err := w.guest.PrivateDNS.Link(ctx, w.zoneRG, seen.Zone, seen.Name)
	if err != nil {
		return azureUnknown(HopVNetLink, SideCustomer, err)
	}
	if link != nil && link.Properties != nil {
		seen.Found = true
		if link.Properties.VirtualNetwork != nil {
			seen.VNet = deref(link.Properties.VirtualNetwork.ID)
		}
		if link.Properties.VirtualNetworkLinkState != nil {
			seen.State = string(*link.Properties.VirtualNetworkLinkState)
		}
	}
	return VNetLinkHop(seen)
}

func (w *azureWalk) recordsHop(ctx context.Context) Hop {
	if h, stop := w.blocked(HopARecords, SideCustomer); stop {
		return h
	}
	if w.zoneRG == "" {
		return unknown(HopARecords, SideCustomer, "there is no zone to hold them")
	}
	if w.peIP == "" {
		return unknown(HopARecords, SideCustomer, "the private endpoint's address, which they must hold, is not known")
	}
	seen := ARecordsSeen{Zone: w.zoneName(), IP: w.peIP, Want: azurecloud.RecordNames, Have: map[string][]string{}}
	for _, n := range seen.Want {
		rs, err := w.guest.PrivateDNS.ARecord(ctx, w.zoneRG, seen.Zone, n)
		if err != nil {
			return azureUnknown(HopARecords, SideCustomer, err)
		}
		if rs != nil {
			seen.Have[n] = azurecloud.ARecordIPs(rs)
		}
	}
	return ARecordsHop(seen)
}

func (w *azureWalk) externalNames(ctx context.Context) Hop {
	if w.k.hcp == nil {
		return unknown(HopExternalNames, SideKubernetes, "without a HostedControlPlane the wanted Services are not known")
	}
	return w.k.externalNamesHop(ctx, hcplinkv1beta1.AzureExternalNames(w.k.hcp), azurecloud.ExternalNameTarget(w.zoneName()))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefs(in []*string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s != nil {
			out = append(out, *s)
		}
	}
	return out
}
