package e2egcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/internal/devenv/lbcontroller"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// path is the cloud side of a cluster's private path as its
// GCPPrivateServiceConnect records it.
type path struct {
	cr         *hcplinkv1beta1.GCPPrivateServiceConnect
	rule       *compute.ForwardingRule // the router's, in the management project
	attachment *compute.ServiceAttachment
	endpoint   *compute.ForwardingRule // the PSC endpoint, in the customer's project
	zone       *dns.ManagedZone
}

// checkPath reads the private path from the cloud and checks every hop
// against the cluster and against the next hop: the router's INTERNAL
// forwarding rule in the management network at the Service's address; the
// service attachment on it, ACCEPT_MANUAL, accepting the customer's
// project (and extraProjects) only, on one of the management network's PSC
// NAT subnetworks; the PSC endpoint targeting it, ACCEPTED, in
// endpointSubnet; the private zone <name>.hypershift.local. visible to the
// customer's network; and the api and *.apps records on the endpoint's
// address.
func (c *cluster) checkPath(ctx context.Context, extraProjects []string, endpointSubnet string) (*path, error) {
	cr, err := c.psc(ctx)
	if err != nil {
		return nil, err
	}
	p := &path{cr: cr}
	cc, err := computeClient(ctx)
	if err != nil {
		return nil, err
	}
	if p.rule, err = c.checkRouterRule(ctx, cc, cr); err != nil {
		return nil, err
	}
	if p.attachment, err = checkAttachment(ctx, cc, cr, p.rule, append([]string{c.fixture.Project}, extraProjects...)); err != nil {
		return nil, err
	}
	if p.endpoint, err = checkEndpoint(ctx, cc, cr, p.attachment, c.fixture.Project, endpointSubnet); err != nil {
		return nil, err
	}
	p.zone, err = c.checkDNS(ctx, cr)
	return p, err
}

// waitPath waits until checkPath passes (the endpoint in subnet, no
// additional projects) and returns the path.
func (c *cluster) waitPath(t *testing.T, subnet string) *path {
	t.Helper()
	var p *path
	suite.Eventually(t, e2eutil.ShortWait, "the private path of "+c.Name+" in the cloud", func(ctx context.Context) (err error) {
		p, err = c.checkPath(ctx, nil, subnet)
		return err
	})
	return p
}

// checkRouterRule: the private router's Service has the address of its
// INTERNAL forwarding rule in the management network, and the
// GCPPrivateServiceConnect names that rule.
func (c *cluster) checkRouterRule(ctx context.Context, cc *compute.Service, cr *hcplinkv1beta1.GCPPrivateServiceConnect) (*compute.ForwardingRule, error) {
	var router corev1.Service
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: c.HCPNamespace, Name: hcplinkv1beta1.PrivateRouterServiceName}, &router); err != nil {
		return nil, err
	}
	ing := router.Status.LoadBalancer.Ingress
	if len(ing) != 1 || ing[0].IP == "" || ing[0].IP != cr.Spec.LoadBalancerIP {
		return nil, fmt.Errorf("private-router ingress %v, GCPPrivateServiceConnect loadBalancerIP %q", ing, cr.Spec.LoadBalancerIP)
	}
	name := lbcontroller.GCPForwardingRuleName(&router)
	if cr.Status.ForwardingRuleName != name {
		return nil, fmt.Errorf("status.forwardingRuleName %q, the router's rule is %s", cr.Status.ForwardingRuleName, name)
	}
	rule, err := cc.ForwardingRules.Get(devenv.GCPManagementProject, devenv.GCPRegion, name).Context(ctx).Do()
	if err != nil {
		return nil, fmt.Errorf("reading the router's forwarding rule: %w", err)
	}
	if rule.LoadBalancingScheme != "INTERNAL" || rule.IPAddress != ing[0].IP || !strings.HasSuffix(rule.Network, env.GCPManagement.NetworkPath) {
		return nil, fmt.Errorf("router rule %s: scheme %s, address %s, network %s; want INTERNAL at %s in %s", name, rule.LoadBalancingScheme,
			rule.IPAddress, rule.Network, ing[0].IP, env.GCPManagement.NetworkPath)
	}
	return rule, nil
}

func checkAttachment(ctx context.Context, cc *compute.Service, cr *hcplinkv1beta1.GCPPrivateServiceConnect, rule *compute.ForwardingRule, accept []string) (*compute.ServiceAttachment, error) {
	if cr.Status.ServiceAttachmentName == "" {
		return nil, fmt.Errorf("no service attachment in status")
	}
	sa, err := cc.ServiceAttachments.Get(devenv.GCPManagementProject, devenv.GCPRegion, cr.Status.ServiceAttachmentName).Context(ctx).Do()
	if err != nil {
		return nil, fmt.Errorf("reading the service attachment: %w", err)
	}
	if rel(sa.SelfLink) != rel(cr.Status.ServiceAttachmentURI) || rel(sa.TargetService) != rel(rule.SelfLink) {
		return nil, fmt.Errorf("attachment %s (status URI %s) targets %s, want the router's rule %s", sa.SelfLink, cr.Status.ServiceAttachmentURI, sa.TargetService, rule.SelfLink)
	}
	if sa.ConnectionPreference != "ACCEPT_MANUAL" {
		return nil, fmt.Errorf("attachment %s: connection preference %s, want ACCEPT_MANUAL", sa.Name, sa.ConnectionPreference)
	}
	if err := checkAcceptList(sa, accept); err != nil {
		return nil, err
	}
	if len(sa.NatSubnets) != 1 || !slices.Contains(env.GCPManagement.NATSubnets, lastSegment(sa.NatSubnets[0])) {
		return nil, fmt.Errorf("attachment %s: NAT subnetworks %v, want one of the management network's %v", sa.Name, sa.NatSubnets, env.GCPManagement.NATSubnets)
	}
	return sa, nil
}

// checkAcceptList: the attachment accepts the projects of accept (the
// customer's and any additional ones), and no other.
func checkAcceptList(sa *compute.ServiceAttachment, accept []string) error {
	want := slices.Sorted(slices.Values(accept))
	var got []string
	for _, e := range sa.ConsumerAcceptLists {
		got = append(got, e.ProjectIdOrNum)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		return fmt.Errorf("attachment %s accepts %v, want %v", sa.Name, got, want)
	}
	return nil
}

func checkEndpoint(ctx context.Context, cc *compute.Service, cr *hcplinkv1beta1.GCPPrivateServiceConnect, sa *compute.ServiceAttachment, project, subnet string) (*compute.ForwardingRule, error) {
	if cr.Status.EndpointName == "" {
		return nil, fmt.Errorf("no endpoint in status")
	}
	ep, err := cc.ForwardingRules.Get(project, devenv.GCPRegion, cr.Status.EndpointName).Context(ctx).Do()
	if err != nil {
		return nil, fmt.Errorf("reading the PSC endpoint: %w", err)
	}
	if rel(ep.Target) != rel(sa.SelfLink) {
		return nil, fmt.Errorf("endpoint %s targets %s, want the attachment %s", ep.Name, ep.Target, sa.SelfLink)
	}
	if ep.PscConnectionStatus != "ACCEPTED" {
		return nil, fmt.Errorf("endpoint %s connection is %s, want ACCEPTED", ep.Name, ep.PscConnectionStatus)
	}
	if ep.IPAddress == "" || ep.IPAddress != cr.Status.EndpointIP {
		return nil, fmt.Errorf("endpoint %s is at %q, status says %q", ep.Name, ep.IPAddress, cr.Status.EndpointIP)
	}
	// A PSC endpoint names its network; its address resource names the
	// subnetwork.
	addrs, err := cc.Addresses.List(project, devenv.GCPRegion).Context(ctx).Do()
	if err != nil {
		return nil, fmt.Errorf("listing the customer's addresses: %w", err)
	}
	for _, a := range addrs.Items {
		if a.Address != ep.IPAddress {
			continue
		}
		if lastSegment(a.Subnetwork) != subnet || a.AddressType != "INTERNAL" {
			return nil, fmt.Errorf("endpoint %s's address %s is a %s address in subnetwork %s, want an INTERNAL one in %s", ep.Name, a.Name, a.AddressType, a.Subnetwork, subnet)
		}
		return ep, nil
	}
	return nil, fmt.Errorf("endpoint %s is at %s, which no reserved address of the customer's project holds", ep.Name, ep.IPAddress)
}

// checkDNS: the private zone is visible to the customer's network and the
// api and *.apps records hold the endpoint's address.
func (c *cluster) checkDNS(ctx context.Context, cr *hcplinkv1beta1.GCPPrivateServiceConnect) (*dns.ManagedZone, error) {
	d, err := dnsClient(ctx)
	if err != nil {
		return nil, err
	}
	if cr.Status.DNSZoneName == "" {
		return nil, fmt.Errorf("no zone in status")
	}
	zone, err := d.ManagedZones.Get(c.fixture.Project, cr.Status.DNSZoneName).Context(ctx).Do()
	if err != nil {
		return nil, fmt.Errorf("reading the zone: %w", err)
	}
	dnsName := c.Name + ".hypershift.local."
	if zone.DnsName != dnsName || zone.Visibility != "private" || zone.PrivateVisibilityConfig == nil {
		return nil, fmt.Errorf("zone %s: %s, %s; want private %s", zone.Name, zone.DnsName, zone.Visibility, dnsName)
	}
	var networks []string
	for _, n := range zone.PrivateVisibilityConfig.Networks {
		networks = append(networks, lastSegment(n.NetworkUrl))
	}
	if !slices.Equal(networks, []string{c.fixture.Network}) {
		return nil, fmt.Errorf("zone %s is visible to %v, want the customer's %s only", zone.Name, networks, c.fixture.Network)
	}
	for _, name := range []string{"api", "*.apps"} {
		ips, err := aRecord(ctx, d, c.fixture.Project, zone.Name, name+"."+dnsName)
		if err != nil {
			return nil, err
		}
		if len(ips) != 1 || ips[0] == "" || ips[0] != cr.Status.EndpointIP {
			return nil, fmt.Errorf("record %s.%s is %v, want the endpoint's %q", name, dnsName, ips, cr.Status.EndpointIP)
		}
	}
	return zone, nil
}

// aRecord is the A record's addresses, nil when there is none.
func aRecord(ctx context.Context, d *dns.Service, project, zone, fqdn string) ([]string, error) {
	rr, err := d.ResourceRecordSets.Get(project, zone, fqdn, "A").Context(ctx).Do()
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading record %s: %w", fqdn, err)
	}
	return rr.Rrdatas, nil
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
// the management project nor the cluster's holds anything of it: what is
// named for its infra ID, its zone, the router's forwarding rule.
// (Scenarios run in parallel; TestMain checks that nothing at all is left
// at the end.)
func (c *cluster) deleteAndCheckNothingLeft(t *testing.T) {
	t.Helper()
	c.deleteAndCheckNothingLeftBut(t)
}

// deleteAndCheckNothingLeftBut is deleteAndCheckNothingLeft for a cluster
// whose infra ID also names resources of another management cluster,
// which must stay: those named in others are not the cluster's.
func (c *cluster) deleteAndCheckNothingLeftBut(t *testing.T, others ...string) {
	t.Helper()
	c.DeleteAndWait(t)
	// The router's forwarding rule goes with the control-plane namespace,
	// which ends after the HostedCluster.
	suite.Eventually(t, e2eutil.ShortWait, "nothing of "+c.Name+" left in the cloud", func(ctx context.Context) error {
		left, err := leftovers(ctx, devenv.GCPManagementProject, c.fixture.Project)
		if err != nil {
			return err
		}
		var mine []resource
		for _, r := range left {
			if c.owns(r) && !slices.Contains(others, r.name) {
				mine = append(mine, r)
			}
		}
		if len(mine) > 0 {
			return fmt.Errorf("left: %v", mine)
		}
		return nil
	})
}

// owns reports whether a resource was made for this cluster: named for
// its infra ID, its zone, or the rule of one of its Services.
func (c *cluster) owns(r resource) bool {
	return strings.Contains(r.name, strings.ToLower(c.infraID)) || r.dnsName == c.Name+".hypershift.local." ||
		strings.Contains(r.description, `"`+c.HCPNamespace+"/")
}

// addThenRemovePartnerProject allows the partner's project on the
// cluster, then none, and waits each time until the attachment accepts
// exactly the customer's project and those, within one reconcile.
func (c *cluster) addThenRemovePartnerProject(t *testing.T) {
	t.Helper()
	for _, extra := range [][]string{{devenv.GCPPartnerProject}, nil} {
		c.Patch(t, func(hc *hcplinkv1beta1.HostedCluster) {
			hc.Spec.Platform.GCP.Private = &hcplinkv1beta1.GCPPrivateSpec{AdditionalAllowedProjects: extra}
		})
		suite.Eventually(t, oneReconcile, fmt.Sprintf("the attachment to accept %v besides the customer's project", extra), func(ctx context.Context) error {
			cr, err := c.psc(ctx)
			if err != nil {
				return err
			}
			cc, err := computeClient(ctx)
			if err != nil {
				return err
			}
			sa, err := cc.ServiceAttachments.Get(devenv.GCPManagementProject, devenv.GCPRegion, cr.Status.ServiceAttachmentName).Context(ctx).Do()
			if err != nil {
				return err
			}
			return checkAcceptList(sa, append([]string{c.fixture.Project}, extra...))
		})
	}
}

func lastSegment(s string) string { return s[strings.LastIndex(s, "/")+1:] }

// rel is a Compute Engine link as its resource path
// (projects/P/regions/R/KIND/NAME), whatever the host it was given with.
func rel(link string) string {
	if i := strings.Index(link, "/compute/v1/"); i >= 0 {
		return link[i+len("/compute/v1/"):]
	}
	return strings.TrimPrefix(link, "/")
}
