package demo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// The Azure tour reads every fact it prints from cloudsim over ARM, with
// the real SDK and the administrator's credential, in the subscription that
// holds it: a line says what exists, not what a status promised.

// seenAzure is what the cluster had in the cloud while it ran.
type seenAzure struct {
	routerIP, loadBalancerID, frontendName string
	plsID, plsAlias, natSubnetID           string
	endpointID, endpointIP, endpointSubnet string
	zoneID                                 string
}

func (t *azureTour) network(subscription string) (*armnetwork.ClientFactory, error) {
	return armnetwork.NewClientFactory(subscription, t.cloud.cred, t.cloud.options)
}

func (t *azureTour) dns(subscription string) (*armprivatedns.ClientFactory, error) {
	return armprivatedns.NewClientFactory(subscription, t.cloud.cred, t.cloud.options)
}

// routerFrontend finds, in the management subscription, the internal load
// balancer frontend holding the private router Service's address.
func (t *azureTour) routerFrontend(ctx context.Context) (string, error) {
	var svc corev1.Service
	if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: hcplinkv1beta1.PrivateRouterServiceName}, &svc); err != nil {
		return "", err
	}
	if len(svc.Status.LoadBalancer.Ingress) == 0 || svc.Status.LoadBalancer.Ingress[0].IP == "" {
		return "", fmt.Errorf("no load-balancer address yet")
	}
	ip := svc.Status.LoadBalancer.Ingress[0].IP
	network, err := t.network(t.cloud.managementSubscription)
	if err != nil {
		return "", err
	}
	pager := network.NewLoadBalancersClient().NewListPager(t.cloud.managementResourceGroup, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return "", err
		}
		for _, lb := range page.Value {
			if fe := frontendWithIP(lb, ip); fe != "" {
				t.seen.routerIP, t.seen.loadBalancerID, t.seen.frontendName = ip, deref(lb.ID), fe
				return fmt.Sprintf("load balancer %s, frontend %s at %s, in the management subscription", deref(lb.Name), fe, ip), nil
			}
		}
	}
	return "", fmt.Errorf("no load-balancer frontend has %s yet", ip)
}

// frontendWithIP names lb's frontend with the private address ip, if any.
func frontendWithIP(lb *armnetwork.LoadBalancer, ip string) string {
	if lb == nil || lb.Properties == nil {
		return ""
	}
	for _, fe := range lb.Properties.FrontendIPConfigurations {
		if fe != nil && fe.Properties != nil && deref(fe.Properties.PrivateIPAddress) == ip {
			return deref(fe.Name)
		}
	}
	return ""
}

// privateLinkService reads the service the operator recorded, from the
// management subscription: its alias, NAT subnet, frontend and who may see it.
func (t *azureTour) privateLinkService(ctx context.Context) (string, error) {
	cr, err := t.crd(ctx)
	if err != nil {
		return "", err
	}
	id := cr.Status.PrivateLinkServiceID
	if id == "" || cr.Status.PrivateLinkServiceAlias == "" {
		return "", fmt.Errorf("no Private Link Service recorded yet")
	}
	network, err := t.network(azurecloud.SubscriptionOf(id))
	if err != nil {
		return "", err
	}
	pls, err := network.NewPrivateLinkServicesClient().Get(ctx, azurecloud.ResourceGroupOf(id), azurecloud.NameOf(id), nil)
	if err != nil {
		return "", err
	}
	p := pls.Properties
	if p == nil || deref(p.Alias) != cr.Status.PrivateLinkServiceAlias {
		return "", fmt.Errorf("service %s does not have the recorded alias yet", azurecloud.NameOf(id))
	}
	visible := subscriptionsOf(p.Visibility)
	if !slices.Contains(visible, strings.ToLower(t.fixture.subscription)) {
		return "", fmt.Errorf("service %s is not visible to the guest subscription yet", azurecloud.NameOf(id))
	}
	t.seen.plsID, t.seen.plsAlias, t.seen.natSubnetID = id, deref(p.Alias), natSubnetOf(p)
	return fmt.Sprintf("%s in the management subscription, NAT subnet %s, alias %s; visible to and auto-approving %s",
		azurecloud.NameOf(id), azurecloud.NameOf(t.seen.natSubnetID), t.seen.plsAlias, subscriptionLabels(visible, t.cloud)), nil
}

// subscriptionsOf lists a service's visibility subscriptions, lower case
// and sorted.
func subscriptionsOf(v *armnetwork.PrivateLinkServicePropertiesVisibility) []string {
	if v == nil {
		return nil
	}
	var out []string
	for _, s := range v.Subscriptions {
		out = append(out, strings.ToLower(deref(s)))
	}
	slices.Sort(out)
	return out
}

func natSubnetOf(p *armnetwork.PrivateLinkServiceProperties) string {
	for _, c := range p.IPConfigurations {
		if c != nil && c.Properties != nil && c.Properties.Subnet != nil {
			return deref(c.Properties.Subnet.ID)
		}
	}
	return ""
}

// privateEndpoint reads the endpoint the control-plane operator recorded,
// from the guest subscription: approved, with its address and subnet.
func (t *azureTour) privateEndpoint(ctx context.Context) (string, error) {
	cr, err := t.crd(ctx)
	if err != nil {
		return "", err
	}
	id := cr.Status.PrivateEndpointID
	if id == "" || cr.Status.PrivateEndpointIP == "" {
		return "", fmt.Errorf("no Private Endpoint recorded yet")
	}
	pe, err := t.endpoint(ctx, id)
	if err != nil {
		return "", err
	}
	if state := connectionState(pe); state != "Approved" {
		return "", fmt.Errorf("endpoint %s connection is %q", azurecloud.NameOf(id), state)
	}
	network, err := t.network(azurecloud.SubscriptionOf(id))
	if err != nil {
		return "", err
	}
	// Its address as the control-plane operator reads it: custom DNS
	// configs, else its network interface.
	ip, err := azurecloud.NewPrivateEndpoints(network).IP(ctx, pe)
	if err != nil {
		return "", err
	}
	if ip != cr.Status.PrivateEndpointIP {
		return "", fmt.Errorf("endpoint %s has address %q, status says %s", azurecloud.NameOf(id), ip, cr.Status.PrivateEndpointIP)
	}
	t.seen.endpointID, t.seen.endpointIP, t.seen.endpointSubnet = id, cr.Status.PrivateEndpointIP, endpointSubnet(pe)
	return fmt.Sprintf("%s (Approved) at %s in subnet %s, guest subscription; connected to %s",
		azurecloud.NameOf(id), t.seen.endpointIP, azurecloud.NameOf(t.seen.endpointSubnet), t.seen.plsAlias), nil
}

func (t *azureTour) endpoint(ctx context.Context, id string) (*armnetwork.PrivateEndpoint, error) {
	network, err := t.network(azurecloud.SubscriptionOf(id))
	if err != nil {
		return nil, err
	}
	got, err := network.NewPrivateEndpointsClient().Get(ctx, azurecloud.ResourceGroupOf(id), azurecloud.NameOf(id), nil)
	if err != nil {
		return nil, err
	}
	return &got.PrivateEndpoint, nil
}

// connectionState is the endpoint's (manual) connection status.
func connectionState(pe *armnetwork.PrivateEndpoint) string {
	if pe.Properties == nil {
		return ""
	}
	for _, c := range slices.Concat(pe.Properties.ManualPrivateLinkServiceConnections, pe.Properties.PrivateLinkServiceConnections) {
		if c != nil && c.Properties != nil && c.Properties.PrivateLinkServiceConnectionState != nil {
			return deref(c.Properties.PrivateLinkServiceConnectionState.Status)
		}
	}
	return ""
}

func endpointSubnet(pe *armnetwork.PrivateEndpoint) string {
	if pe.Properties == nil || pe.Properties.Subnet == nil {
		return ""
	}
	return deref(pe.Properties.Subnet.ID)
}

// privateZone reads the zone, its VNet link and its records from the guest
// subscription: created by hcplink, registration off on the guest VNet, the
// negative TTL, and api and *.apps to the endpoint's address.
func (t *azureTour) privateZone(ctx context.Context) (string, error) {
	zone := azurecloud.PrivateDNSZoneName(azureClusterName)
	rg := t.fixture.resourceGroup
	dns, err := t.dns(t.fixture.subscription)
	if err != nil {
		return "", err
	}
	z, err := dns.NewPrivateZonesClient().Get(ctx, rg, zone, nil)
	if err != nil {
		return "", err
	}
	if !azurecloud.CreatedByHcplink(z.Tags) {
		return "", fmt.Errorf("zone %s is not tagged as created by hcplink", zone)
	}
	link, err := dns.NewVirtualNetworkLinksClient().Get(ctx, rg, zone, azurecloud.VNetLinkName(azureInfraID), nil)
	if err != nil {
		return "", err
	}
	if p := link.Properties; p == nil || deref(p.RegistrationEnabled) || p.VirtualNetwork == nil || !strings.EqualFold(deref(p.VirtualNetwork.ID), t.fixture.vnetID) {
		return "", fmt.Errorf("link %s is not yet a registration-off link to the guest VNet", deref(link.Name))
	}
	soa, err := dns.NewRecordSetsClient().Get(ctx, rg, zone, armprivatedns.RecordTypeSOA, "@", nil)
	if err != nil {
		return "", err
	}
	negative := soaMinimumTTL(&soa.RecordSet)
	if negative > azurecloud.MaxSOANegativeTTL {
		return "", fmt.Errorf("zone %s negative TTL is %ds, above %ds", zone, negative, azurecloud.MaxSOANegativeTTL)
	}
	if err := t.recordsPointAtEndpoint(ctx, dns, zone); err != nil {
		return "", err
	}
	t.seen.zoneID = deref(z.ID)
	return fmt.Sprintf("zone %s (negative TTL %ds), link %s to VNet %s (registration off), A %s and %s → %s",
		zone, negative, deref(link.Name), azurecloud.NameOf(t.fixture.vnetID), azurecloud.APIRecordName, azurecloud.AppsRecordName, t.seen.endpointIP), nil
}

func (t *azureTour) recordsPointAtEndpoint(ctx context.Context, dns *armprivatedns.ClientFactory, zone string) error {
	for _, name := range []string{azurecloud.APIRecordName, azurecloud.AppsRecordName} {
		rs, err := dns.NewRecordSetsClient().Get(ctx, t.fixture.resourceGroup, zone, armprivatedns.RecordTypeA, name, nil)
		if err != nil {
			return err
		}
		if ips := azurecloud.ARecordIPs(&rs.RecordSet); len(ips) != 1 || ips[0] != t.seen.endpointIP {
			return fmt.Errorf("record %s.%s holds %v, not %s", name, zone, ips, t.seen.endpointIP)
		}
	}
	return nil
}

func soaMinimumTTL(rs *armprivatedns.RecordSet) int64 {
	if rs.Properties == nil || rs.Properties.SoaRecord == nil {
		return 0
	}
	return deref(rs.Properties.SoaRecord.MinimumTTL)
}

// pathUnchanged: after a NodePool in another subnet, the endpoint is the
// same one in the same subnet and the records still lead to it.
func (t *azureTour) pathUnchanged(ctx context.Context) (string, error) {
	pe, err := t.endpoint(ctx, t.seen.endpointID)
	if err != nil {
		return "", err
	}
	if got := endpointSubnet(pe); !strings.EqualFold(got, t.seen.endpointSubnet) {
		return "", fmt.Errorf("endpoint moved to %s", azurecloud.NameOf(got))
	}
	dns, err := t.dns(t.fixture.subscription)
	if err != nil {
		return "", err
	}
	if err := t.recordsPointAtEndpoint(ctx, dns, azurecloud.PrivateDNSZoneName(azureClusterName)); err != nil {
		return "", err
	}
	if _, err := t.available(ctx); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s still in %s at %s; the cluster stays Available", azurecloud.NameOf(t.seen.endpointID), azurecloud.NameOf(t.seen.endpointSubnet), t.seen.endpointIP), nil
}

// publicAndPrivateServices: the public router Service exists and the
// ExternalName Services are gone (the hostnames are served publicly).
func (t *azureTour) publicAndPrivateServices(ctx context.Context) (string, error) {
	if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: hcplinkv1beta1.RouterServiceName}, &corev1.Service{}); err != nil {
		return "", fmt.Errorf("public router Service: %w", err)
	}
	for _, name := range []string{hcplinkv1beta1.KubeAPIServerPrivateExternalService, hcplinkv1beta1.OAuthPrivateExternalService} {
		if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: name}, &corev1.Service{}); !apierrors.IsNotFound(err) {
			return "", fmt.Errorf("ExternalName Service %s still exists", name)
		}
	}
	return "service/" + hcplinkv1beta1.RouterServiceName + " in " + t.hcpNS, nil
}

// privateServices: no public router, and the ExternalName Services point
// the Route hostnames at the zone's api record.
func (t *azureTour) privateServices(ctx context.Context) (string, error) {
	if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: hcplinkv1beta1.RouterServiceName}, &corev1.Service{}); !apierrors.IsNotFound(err) {
		return "", fmt.Errorf("public router Service still exists")
	}
	target := azurecloud.ExternalNameTarget(azurecloud.PrivateDNSZoneName(azureClusterName))
	var names []string
	for _, name := range []string{hcplinkv1beta1.KubeAPIServerPrivateExternalService, hcplinkv1beta1.OAuthPrivateExternalService} {
		var svc corev1.Service
		if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: name}, &svc); err != nil {
			return "", fmt.Errorf("ExternalName Service %s: %w", name, err)
		}
		if svc.Spec.ExternalName != target {
			return "", fmt.Errorf("Service %s points at %q", name, svc.Spec.ExternalName)
		}
		names = append(names, fmt.Sprintf("%s (%s)", name, svc.Annotations[hcplinkv1beta1.ExternalDNSHostnameAnnotation]))
	}
	return strings.Join(names, ", ") + " → " + target, nil
}

// deref is *p, or the zero value for nil: the SDK's models are pointers.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
