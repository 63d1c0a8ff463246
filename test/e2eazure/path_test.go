package e2eazure

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// path is the cloud side of a cluster's private path as its
// AzurePrivateLinkService records it.
type path struct {
	cr  *hcplinkv1beta1.AzurePrivateLinkService
	pls *armnetwork.PrivateLinkService
	pe  *armnetwork.PrivateEndpoint
}

// checkPath reads the private path from the cloud and checks every hop
// against the cluster and against the next hop: the router's internal
// frontend, the Private Link Service on it visible to and auto-approving
// the guest subscription (plus want.extraSubscriptions), the Private
// Endpoint approved in the expected subnet, the zone linked to the guest
// VNet with registration off, and the api and *.apps records on the
// endpoint's address.
func (c *cluster) checkPath(ctx context.Context, extraSubscriptions []string, endpointSubnet string) (*path, error) {
	cr, err := c.pls(ctx)
	if err != nil {
		return nil, err
	}
	p := &path{cr: cr}
	if err := c.checkFrontend(ctx, cr); err != nil {
		return nil, err
	}
	if p.pls, err = getPLS(ctx, cr.Status.PrivateLinkServiceID); err != nil {
		return nil, fmt.Errorf("reading the Private Link Service: %w", err)
	}
	if err := checkPLS(p.pls, cr, extraSubscriptions); err != nil {
		return nil, err
	}
	if p.pe, err = getPE(ctx, cr.Status.PrivateEndpointID); err != nil {
		return nil, fmt.Errorf("reading the Private Endpoint: %w", err)
	}
	if err := checkPE(p.pe, p.pls, endpointSubnet); err != nil {
		return nil, err
	}
	return p, c.checkDNS(ctx, cr)
}

// waitPath waits until checkPath passes (the endpoint in subnet, no
// additional subscriptions) and returns the path.
func (c *cluster) waitPath(t *testing.T, subnet string) *path {
	t.Helper()
	var p *path
	suite.Eventually(t, e2eutil.ShortWait, "the private path of "+c.Name+" in the cloud", func(ctx context.Context) (err error) {
		p, err = c.checkPath(ctx, nil, subnet)
		return err
	})
	return p
}

// checkFrontend: the private router's Service has the internal frontend's
// address, and the status names that load balancer.
func (c *cluster) checkFrontend(ctx context.Context, cr *hcplinkv1beta1.AzurePrivateLinkService) error {
	var router corev1.Service
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: c.HCPNamespace, Name: "private-router"}, &router); err != nil {
		return err
	}
	ing := router.Status.LoadBalancer.Ingress
	if len(ing) != 1 || ing[0].IP == "" || ing[0].IP != cr.Spec.LoadBalancerIP {
		return fmt.Errorf("private-router ingress %v, AzurePrivateLinkService loadBalancerIP %q", ing, cr.Spec.LoadBalancerIP)
	}
	lb, err := getLoadBalancer(ctx, cr.Status.InternalLoadBalancerID)
	if err != nil {
		return fmt.Errorf("reading the internal load balancer: %w", err)
	}
	// The operator placed the cluster on a load-balancer configuration;
	// the router names it, and the cloud provider put it there.
	hc := &hcplinkv1beta1.HostedCluster{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: c.Name}, hc); err != nil {
		return err
	}
	placed := hc.Status.AzureLoadBalancerConfiguration
	if placed == "" || router.Annotations["service.beta.kubernetes.io/azure-load-balancer-configurations"] != placed || deref(lb.Name) != placed+"-internal" {
		return fmt.Errorf("the cluster is placed on %q, its router names %q, its load balancer is %s", placed,
			router.Annotations["service.beta.kubernetes.io/azure-load-balancer-configurations"], deref(lb.Name))
	}
	// The internal load balancer is shared, as the cloud provider's: one
	// of its frontends is the router's.
	for _, fe := range lb.Properties.FrontendIPConfigurations {
		if p := fe.Properties; p != nil && deref(p.PrivateIPAddress) == ing[0].IP && p.Subnet != nil &&
			strings.EqualFold(deref(p.Subnet.ID), env.AzureManagement.LoadBalancerSubnetID) {
			return nil
		}
	}
	return fmt.Errorf("load balancer %s does not serve %s from the management subnet", deref(lb.Name), ing[0].IP)
}

func checkPLS(pls *armnetwork.PrivateLinkService, cr *hcplinkv1beta1.AzurePrivateLinkService, extra []string) error {
	props := pls.Properties
	if deref(props.ProvisioningState) != armnetwork.ProvisioningStateSucceeded {
		return fmt.Errorf("Private Link Service %s is %s", deref(pls.Name), deref(props.ProvisioningState))
	}
	if deref(props.Alias) == "" || deref(props.Alias) != cr.Status.PrivateLinkServiceAlias {
		return fmt.Errorf("Private Link Service alias %q, status says %q", deref(props.Alias), cr.Status.PrivateLinkServiceAlias)
	}
	if err := checkSubscriptions(pls, extra); err != nil {
		return err
	}
	fes := props.LoadBalancerFrontendIPConfigurations
	if len(fes) != 1 || !strings.HasPrefix(strings.ToLower(deref(fes[0].ID)), strings.ToLower(cr.Status.InternalLoadBalancerID)+"/") {
		return fmt.Errorf("Private Link Service is not on the router's load balancer %s", cr.Status.InternalLoadBalancerID)
	}
	return nil
}

// checkSubscriptions: the service is visible to and auto-approves the
// guest subscription and extra, and no other.
func checkSubscriptions(pls *armnetwork.PrivateLinkService, extra []string) error {
	want := append([]string{env.AzureGuest.SubscriptionID}, extra...)
	slices.Sort(want)
	if got := derefAll(pls.Properties.Visibility.Subscriptions); !slices.Equal(got, want) {
		return fmt.Errorf("Private Link Service visible to %v, want %v", got, want)
	}
	if got := derefAll(pls.Properties.AutoApproval.Subscriptions); !slices.Equal(got, want) {
		return fmt.Errorf("Private Link Service auto-approves %v, want %v", got, want)
	}
	return nil
}

func checkPE(pe *armnetwork.PrivateEndpoint, pls *armnetwork.PrivateLinkService, subnet string) error {
	props := pe.Properties
	conns := props.ManualPrivateLinkServiceConnections
	// The endpoint names the service by its alias (it may be in another
	// tenant) or by its ID.
	if len(conns) != 1 || !slices.ContainsFunc([]string{deref(pls.ID), deref(pls.Properties.Alias)}, func(s string) bool {
		return strings.EqualFold(s, deref(conns[0].Properties.PrivateLinkServiceID))
	}) {
		return fmt.Errorf("Private Endpoint %s is not connected to %s", deref(pe.Name), deref(pls.Name))
	}
	if state := conns[0].Properties.PrivateLinkServiceConnectionState; state == nil || deref(state.Status) != "Approved" {
		return fmt.Errorf("Private Endpoint %s connection is not approved", deref(pe.Name))
	}
	if !strings.EqualFold(deref(props.Subnet.ID), subnet) {
		return fmt.Errorf("Private Endpoint %s is in subnet %s, want %s", deref(pe.Name), deref(props.Subnet.ID), subnet)
	}
	return nil
}

// checkDNS: the zone is linked to the guest VNet (registration off) and
// the api and *.apps records hold the endpoint's address.
func (c *cluster) checkDNS(ctx context.Context, cr *hcplinkv1beta1.AzurePrivateLinkService) error {
	zone := cr.Status.DNSZoneName
	if zone != c.Name+".hypershift.local" {
		return fmt.Errorf("zone %q, want %s.hypershift.local", zone, c.Name)
	}
	links, err := vnetLinks(ctx, zone)
	if err != nil {
		return err
	}
	if len(links) != 1 || !strings.EqualFold(deref(links[0].Properties.VirtualNetwork.ID), env.AzureGuest.VNetID) || deref(links[0].Properties.RegistrationEnabled) {
		return fmt.Errorf("zone %s has %d links, want one to the guest VNet without registration", zone, len(links))
	}
	for _, name := range []string{"api", "*.apps"} {
		ips, err := aRecord(ctx, zone, name)
		if err != nil {
			return err
		}
		if len(ips) != 1 || ips[0] != cr.Status.PrivateEndpointIP || ips[0] == "" {
			return fmt.Errorf("record %s.%s is %v, want the endpoint's %q", name, zone, ips, cr.Status.PrivateEndpointIP)
		}
	}
	return nil
}

// checkExternalNames: a Private cluster has the ExternalName Services for
// its Route hostnames, pointing at the zone's api record; others have none.
func (c *cluster) checkExternalNames(ctx context.Context, private bool) error {
	got, err := c.ExternalNames(ctx)
	if err != nil {
		return err
	}
	want := map[string]string{}
	if private {
		target := "api." + c.Name + ".hypershift.local"
		want[hcplinkv1beta1.KubeAPIServerPrivateExternalService] = target
		want[hcplinkv1beta1.OAuthPrivateExternalService] = target
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("ExternalName Services %v, want %v", got, want)
	}
	return nil
}

// deleteAndCheckNothingLeft deletes the cluster and checks that neither
// subscription holds anything of it: resources named for its infra ID,
// its zone, the router's load balancer. (Scenarios run in parallel;
// TestMain checks that nothing at all is left at the end.)
func (c *cluster) deleteAndCheckNothingLeft(t *testing.T) {
	t.Helper()
	c.DeleteAndWait(t)
	// The router's load balancer goes with the control-plane namespace,
	// which ends after the HostedCluster.
	suite.Eventually(t, e2eutil.ShortWait, "nothing of "+c.Name+" left in the cloud", func(ctx context.Context) error {
		left, err := leftovers(ctx)
		if err != nil {
			return err
		}
		var mine []resource
		for _, r := range left {
			if c.owns(r) {
				mine = append(mine, r)
			}
		}
		if len(mine) > 0 {
			return fmt.Errorf("left: %v", ids(mine))
		}
		return nil
	})
}

// owns reports whether a resource was made for this cluster.
func (c *cluster) owns(r resource) bool {
	id := strings.ToLower(r.id)
	return strings.Contains(id, strings.ToLower(c.infraID)) ||
		strings.HasSuffix(id, "/privatednszones/"+strings.ToLower(c.Name)+".hypershift.local") ||
		strings.HasPrefix(deref(r.tags["k8s-azure-service"]), c.HCPNamespace+"/")
}

// addThenRemoveOtherSubscription allows another subscription on the
// cluster, then none, and waits each time until the Private Link Service
// allows exactly the guest's and those, within one reconcile.
func (c *cluster) addThenRemoveOtherSubscription(t *testing.T) {
	t.Helper()
	for _, extra := range [][]string{{devenv.AzureOtherSubscription}, nil} {
		c.Patch(t, func(hc *hcplinkv1beta1.HostedCluster) {
			hc.Spec.Platform.Azure.Private.PrivateLink = &hcplinkv1beta1.AzurePrivateLinkSpec{AdditionalAllowedSubscriptions: extra}
		})
		suite.Eventually(t, oneReconcile, fmt.Sprintf("the Private Link Service to allow %v besides the guest", extra), func(ctx context.Context) error {
			cr, err := c.pls(ctx)
			if err != nil {
				return err
			}
			pls, err := getPLS(ctx, cr.Status.PrivateLinkServiceID)
			if err != nil {
				return err
			}
			return checkSubscriptions(pls, extra)
		})
	}
}
