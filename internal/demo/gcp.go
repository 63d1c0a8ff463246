package demo

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"google.golang.org/api/compute/v1"
	"google.golang.org/api/dns/v1"
	"google.golang.org/api/option"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/devenv"
)

// The GCP tour's cluster: its own devenv; the infra ID differs from the
// other tours' so that their labels never look alike in a log.
const (
	gcpClusterName = "demo"
	gcpInfraID     = "demo-gc5m8"
)

// gcpTour walks a Private GCP cluster: create, PublicAndPrivate and back,
// delete; every fact printed is read from cloudsim over the Compute Engine
// and Cloud DNS APIs with the real SDKs, as the administrator.
type gcpTour struct {
	env     *devenv.Env
	fixture devenv.GCPClusterFixture
	scope   gcpScope
	compute *compute.Service
	dns     *dns.Service
	out     io.Writer
	track   *tracker
	hc      *hcplinkv1beta1.HostedCluster
	hcpNS   string
	// seen records what the cluster had in the cloud, so that the final
	// proof also looks for exactly those.
	seen seenGCP
}

type seenGCP struct {
	routerIP, attachment, attachmentLink, endpoint, endpointIP, zone string
}

func startGCPTour(ctx context.Context, env *devenv.Env, out io.Writer, stepTimeout time.Duration) (*gcpTour, error) {
	if env.GCPComputeEndpoint == "" {
		return nil, fmt.Errorf("the local environment runs %s, not GCP", env.Platform)
	}
	tokens := option.WithTokenSource(env.GCPAdminTokens())
	computeAPI, err := compute.NewService(ctx, option.WithEndpoint(env.GCPComputeEndpoint), tokens)
	if err != nil {
		return nil, err
	}
	dnsAPI, err := dns.NewService(ctx, option.WithEndpoint(env.GCPDNSEndpoint), tokens)
	if err != nil {
		return nil, err
	}
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: clusterNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	fixture, err := env.PrepareGCPCluster(ctx, clusterNamespace, gcpClusterName, gcpInfraID)
	if err != nil {
		return nil, fmt.Errorf("preparing the customer project: %w", err)
	}
	t := &gcpTour{env: env, fixture: fixture, compute: computeAPI, dns: dnsAPI, out: out,
		scope: gcpScope{managementProject: env.GCPManagement.Project, customerProject: fixture.Project, region: fixture.Region},
		hcpNS: hcplinkv1beta1.HostedControlPlaneNamespace(clusterNamespace, gcpClusterName)}
	fmt.Fprint(out, gcpTopology(env.GCPManagement, fixture))
	t.track = newTracker(out, stepTimeout)
	return t, nil
}

// gcpTopology says who owns what before anything is made.
func gcpTopology(mgmt devenv.GCPManagementNetwork, f devenv.GCPClusterFixture) string {
	return fmt.Sprintf(`
Two GCP projects take part:
  %s (the provider's): the management cluster's network %s, the routers' internal forwarding
    rules, the PSC NAT subnetworks (%d) and the service attachments
  %s (the customer's): the workers' network %s, the endpoint's address, the Private Service
    Connect endpoint (a forwarding rule targeting the attachment) and the private zone
The control-plane operator signs in by workload identity federation (its ServiceAccount token
exchanged at STS, then service account %s impersonated); the attachment accepts only the
customer's project (and any additionalAllowedProjects).
`, mgmt.Project, mgmt.Network, len(mgmt.NATSubnets), f.Project, f.Network, f.ControlPlaneOperatorServiceAccount)
}

func (t *gcpTour) run(ctx context.Context, keep bool) error {
	t.track.section(fmt.Sprintf("1. Create a Private cluster %s/%s in subnetwork %s", clusterNamespace, gcpClusterName, t.fixture.Subnet))
	if err := t.createCluster(ctx); err != nil {
		return err
	}
	if err := t.track.wait(ctx, t.dataFlow()...); err != nil {
		return err
	}
	if keep {
		fmt.Fprintf(t.out, "\n  the cluster's control plane: kubectl -n %s get gcpprivateserviceconnects,services\n", t.hcpNS)
		return nil
	}

	t.track.section("2. Switch to PublicAndPrivate, then back to Private")
	if err := t.setAccess(ctx, hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate); err != nil {
		return err
	}
	if err := t.track.wait(ctx, step{"public router Service made, ExternalName Services gone", t.publicAndPrivateServices}); err != nil {
		return err
	}
	if err := t.setAccess(ctx, hcplinkv1beta1.GCPEndpointAccessPrivate); err != nil {
		return err
	}
	if err := t.track.wait(ctx, step{"public router Service removed, ExternalName Services back", t.privateServices}); err != nil {
		return err
	}

	t.track.section("3. Delete the cluster")
	if err := t.track.wait(ctx, step{"the listing finds the cluster's resources before deletion", t.resourcesBeforeDeletion}); err != nil {
		return err
	}
	if err := deleteCluster(ctx, t.env.Client, t.track, t.hc, t.hcpNS, "GCP"); err != nil {
		return err
	}
	return t.proveNothingLeft(ctx)
}

// dataFlow is the GCP data flow, one hop per line.
func (t *gcpTour) dataFlow() []step {
	return []step{
		{"control-plane namespace, HostedControlPlane, its operator", t.controlPlaneRunning},
		{"1 private-router Service gets an internal forwarding rule", t.routerRule},
		{"2 observer records its address in a GCPPrivateServiceConnect", t.observed},
		{"3 operator creates the service attachment for the customer", t.serviceAttachment},
		{"4 control-plane operator makes the address and the endpoint", t.endpoint},
		{"5 control-plane operator writes the private zone and records", t.privateZone},
		{"6 ExternalName Services point the hostnames at the zone", t.privateServices},
		{"HostedCluster reports the private link available", t.available},
	}
}

func (t *gcpTour) createCluster(ctx context.Context) error {
	f := t.fixture
	// The machine network is the cluster's subnetwork, as GCP has it.
	subnet, err := t.compute.Subnetworks.Get(f.Project, f.Region, lastSegment(f.Subnet)).Context(ctx).Do()
	if err != nil {
		return fmt.Errorf("reading the cluster's subnetwork: %w", err)
	}
	t.hc = &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: clusterNamespace, Name: gcpClusterName},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    gcpInfraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: subnet.IpCidrRange}}},
			Services:   azureRouteServices(), // the same Route hostnames
			Platform:   f.Platform(hcplinkv1beta1.GCPEndpointAccessPrivate),
		},
	}
	if err := t.env.Client.Create(ctx, t.hc); err != nil {
		return fmt.Errorf("creating the HostedCluster: %w", err)
	}
	return nil
}

func (t *gcpTour) setAccess(ctx context.Context, access hcplinkv1beta1.GCPEndpointAccessType) error {
	return changeCluster(ctx, t.env.Client, t.hc, t.out, "endpointAccess", string(access), func(hc *hcplinkv1beta1.HostedCluster) {
		hc.Spec.Platform.GCP.EndpointAccess = access
	})
}

func (t *gcpTour) controlPlaneRunning(ctx context.Context) (string, error) {
	var hcp hcplinkv1beta1.HostedControlPlane
	if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: gcpClusterName}, &hcp); err != nil {
		return "", err
	}
	if !slices.Contains(t.env.RunningControlPlaneOperators(), t.hcpNS) {
		return "", fmt.Errorf("control-plane operator not running yet")
	}
	return t.hcpNS + " (the operator signs in by workload identity federation)", nil
}

func (t *gcpTour) routerRule(ctx context.Context) (string, error) {
	var svc corev1.Service
	if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: hcplinkv1beta1.PrivateRouterServiceName}, &svc); err != nil {
		return "", err
	}
	if len(svc.Status.LoadBalancer.Ingress) == 0 || svc.Status.LoadBalancer.Ingress[0].IP == "" {
		return "", fmt.Errorf("no address in the Service's status yet")
	}
	ip := svc.Status.LoadBalancer.Ingress[0].IP
	rules, err := listForwardingRules(ctx, t.compute, t.scope.managementProject, t.scope.region)
	if err != nil {
		return "", err
	}
	for _, r := range rules {
		if r.address == ip {
			t.seen.routerIP = ip
			return fmt.Sprintf("forwarding rule %s at %s (project %s)", r.name, ip, t.scope.managementProject), nil
		}
	}
	return "", fmt.Errorf("no forwarding rule at %s yet", ip)
}

func (t *gcpTour) psc(ctx context.Context) (*hcplinkv1beta1.GCPPrivateServiceConnect, error) {
	var cr hcplinkv1beta1.GCPPrivateServiceConnect
	err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: hcplinkv1beta1.PrivateRouterServiceName}, &cr)
	return &cr, err
}

func (t *gcpTour) observed(ctx context.Context) (string, error) {
	cr, err := t.psc(ctx)
	if err != nil {
		return "", err
	}
	if cr.Spec.LoadBalancerIP == "" || cr.Spec.LoadBalancerIP != t.seen.routerIP {
		return "", fmt.Errorf("loadBalancerIP %q, router at %q", cr.Spec.LoadBalancerIP, t.seen.routerIP)
	}
	return fmt.Sprintf("gcpprivateserviceconnect/%s in %s: loadBalancerIP %s, accept list %s", cr.Name, t.hcpNS,
		cr.Spec.LoadBalancerIP, strings.Join(cr.Spec.ConsumerAcceptList, ", ")), nil
}

func (t *gcpTour) serviceAttachment(ctx context.Context) (string, error) {
	cr, err := t.psc(ctx)
	if err != nil {
		return "", err
	}
	if cr.Status.ServiceAttachmentName == "" {
		return "", fmt.Errorf("no service attachment in status yet")
	}
	sa, err := t.compute.ServiceAttachments.Get(t.scope.managementProject, t.scope.region, cr.Status.ServiceAttachmentName).Context(ctx).Do()
	if err != nil {
		return "", err
	}
	var accepted []string
	for _, a := range sa.ConsumerAcceptLists {
		accepted = append(accepted, a.ProjectIdOrNum)
	}
	t.seen.attachment, t.seen.attachmentLink = sa.Name, sa.SelfLink
	return fmt.Sprintf("service attachment %s: %s, accepts %s, NAT %s", sa.Name, sa.ConnectionPreference,
		strings.Join(accepted, ", "), lastSegment(strings.Join(sa.NatSubnets, ","))), nil
}

func (t *gcpTour) endpoint(ctx context.Context) (string, error) {
	cr, err := t.psc(ctx)
	if err != nil {
		return "", err
	}
	if cr.Status.EndpointName == "" {
		return "", fmt.Errorf("no endpoint in status yet")
	}
	rule, err := t.compute.ForwardingRules.Get(t.scope.customerProject, t.scope.region, cr.Status.EndpointName).Context(ctx).Do()
	if err != nil {
		return "", err
	}
	if rule.PscConnectionStatus != "ACCEPTED" {
		return "", fmt.Errorf("connection %s", rule.PscConnectionStatus)
	}
	t.seen.endpoint, t.seen.endpointIP = rule.Name, rule.IPAddress
	return fmt.Sprintf("endpoint %s at %s (project %s) → %s, %s", rule.Name, rule.IPAddress, t.scope.customerProject,
		lastSegment(rule.Target), rule.PscConnectionStatus), nil
}

func (t *gcpTour) privateZone(ctx context.Context) (string, error) {
	cr, err := t.psc(ctx)
	if err != nil {
		return "", err
	}
	if cr.Status.DNSZoneName == "" {
		return "", fmt.Errorf("no zone in status yet")
	}
	zone, err := t.dns.ManagedZones.Get(t.scope.customerProject, cr.Status.DNSZoneName).Context(ctx).Do()
	if err != nil {
		return "", err
	}
	sets, err := t.dns.ResourceRecordSets.List(t.scope.customerProject, zone.Name).Context(ctx).Do()
	if err != nil {
		return "", err
	}
	var records []string
	for _, rr := range sets.Rrsets {
		if rr.Type == "A" && slices.Equal(rr.Rrdatas, []string{t.seen.endpointIP}) {
			records = append(records, rr.Name)
		}
	}
	if len(records) < 2 {
		return "", fmt.Errorf("%d A records point at the endpoint", len(records))
	}
	t.seen.zone = zone.Name
	return fmt.Sprintf("zone %s (%s, %s): %s → %s", zone.Name, zone.DnsName, zone.Visibility, strings.Join(records, ", "), t.seen.endpointIP), nil
}

// publicAndPrivateServices: the public router Service exists and the
// ExternalName Services are gone (the hostnames are served publicly).
func (t *gcpTour) publicAndPrivateServices(ctx context.Context) (string, error) {
	var svc corev1.Service
	if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: hcplinkv1beta1.RouterServiceName}, &svc); err != nil {
		return "", fmt.Errorf("public router Service: %w", err)
	}
	for _, name := range hcplinkv1beta1.PrivateExternalServiceNames {
		if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: name}, &corev1.Service{}); !apierrors.IsNotFound(err) {
			return "", fmt.Errorf("ExternalName Service %s still exists", name)
		}
	}
	return "service/" + hcplinkv1beta1.RouterServiceName + " in " + t.hcpNS, nil
}

// privateServices: no public router, and the ExternalName Services point
// the Route hostnames at the zone's api record.
func (t *gcpTour) privateServices(ctx context.Context) (string, error) {
	if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: hcplinkv1beta1.RouterServiceName}, &corev1.Service{}); !apierrors.IsNotFound(err) {
		return "", fmt.Errorf("public router Service still exists")
	}
	target := strings.TrimSuffix(gcpcloud.RecordFQDN(gcpcloud.APIRecordName, gcpcloud.ZoneDNSName(gcpClusterName)), ".")
	var names []string
	for _, name := range hcplinkv1beta1.PrivateExternalServiceNames {
		var svc corev1.Service
		if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: name}, &svc); err != nil {
			return "", fmt.Errorf("ExternalName Service %s: %w", name, err)
		}
		if svc.Spec.ExternalName != target {
			return "", fmt.Errorf("Service %s points at %q", name, svc.Spec.ExternalName)
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ") + " → " + target, nil
}

func (t *gcpTour) available(ctx context.Context) (string, error) {
	var hc hcplinkv1beta1.HostedCluster
	if err := t.env.Client.Get(ctx, client.ObjectKeyFromObject(t.hc), &hc); err != nil {
		return "", err
	}
	for _, cond := range []string{hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition, hcplinkv1beta1.AvailableCondition} {
		if c := meta.FindStatusCondition(hc.Status.Conditions, cond); c == nil || c.Status != metav1.ConditionTrue {
			return "", fmt.Errorf("%s not True yet", cond)
		}
	}
	return "", nil
}

// marks are the tour's cluster marks: what it saw and the names hcplink
// derives from the cluster.
func (t *gcpTour) marks() gcpMarks {
	return gcpMarks{infraID: gcpInfraID, routerIP: t.seen.routerIP, managementProject: t.scope.managementProject,
		links: []string{t.seen.attachmentLink},
		names: []string{t.seen.attachment, t.seen.endpoint, t.seen.zone, gcpcloud.ZoneName(gcpInfraID)}}
}

func (t *gcpTour) clusterResources(ctx context.Context) (listed int, ours []string, err error) {
	things, err := listGCP(ctx, t.compute, t.dns, t.scope)
	if err != nil {
		return 0, nil, fmt.Errorf("listing what the cloud holds: %w", err)
	}
	return len(things), gcpLeftovers(things, t.marks()), nil
}

// resourcesBeforeDeletion is the same listing while the cluster runs: it
// shows the listing finds the cluster's resources, so that finding none
// afterwards means something.
func (t *gcpTour) resourcesBeforeDeletion(ctx context.Context) (string, error) {
	_, ours, err := t.clusterResources(ctx)
	if err != nil {
		return "", err
	}
	if len(ours) == 0 {
		return "", fmt.Errorf("the listing finds none of the cluster's resources")
	}
	return strings.Join(ours, "\n      "), nil
}

// proveNothingLeft fails naming anything of the cluster still listed.
func (t *gcpTour) proveNothingLeft(ctx context.Context) error {
	listed, left, err := t.clusterResources(ctx)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		fmt.Fprintf(t.out, "\n✗ the cloud still holds %d things of the cluster:\n  %s\n", len(left), strings.Join(left, "\n  "))
		return fmt.Errorf("%d GCP resources of the cluster were left behind", len(left))
	}
	fmt.Fprintf(t.out, "\n✓ cloudsim holds nothing for %s, read over the Compute Engine and Cloud DNS APIs in both projects: the same listing as before the deletion (%d resources now, the fixtures') shows no forwarding rule, service attachment, address, endpoint or private zone labelled %s, marked for the cluster or used by it\n",
		gcpInfraID, listed, gcpcloud.ClusterLabelKey(gcpInfraID))
	return nil
}

// lastSegment is the name at the end of a resource link.
func lastSegment(link string) string { return link[strings.LastIndex(link, "/")+1:] }
