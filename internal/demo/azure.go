package demo

import (
	"context"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/devenv"
)

// The Azure tour's cluster: its own devenv, so the names may repeat the
// AWS tour's; the infra ID differs so that the two tours' tags never look
// alike in a log.
const (
	azureClusterName = "demo"
	azureInfraID     = "demo-az7p3"
	// routerCR is the AzurePrivateLinkService the control-plane operator
	// keeps for the private router (named after its Service).
	routerCR = "private-router"
)

// azureTour walks a Private Azure cluster: create, PublicAndPrivate and
// back, a NodePool in another subnet, delete; every fact printed is read
// from cloudsim over ARM with the real SDK.
type azureTour struct {
	env     *devenv.Env
	cloud   azureCloud
	fixture azureFixture
	out     io.Writer
	track   *tracker
	hc      *hcplinkv1beta1.HostedCluster
	hcpNS   string
	// seen records what the cluster had in the cloud, so that the final
	// proof also looks for exactly those IDs.
	seen seenAzure
}

func startAzureTour(ctx context.Context, env *devenv.Env, out io.Writer, stepTimeout time.Duration) (*azureTour, error) {
	cloud, err := azureCloudOf(env)
	if err != nil {
		return nil, err
	}
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: clusterNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	fixture, err := prepareAzureCluster(ctx, env, clusterNamespace, azureClusterName, azureInfraID)
	if err != nil {
		return nil, fmt.Errorf("preparing the guest subscription: %w", err)
	}
	t := &azureTour{env: env, cloud: cloud, fixture: fixture, out: out,
		hcpNS: hcplinkv1beta1.HostedControlPlaneNamespace(clusterNamespace, azureClusterName)}
	fmt.Fprint(out, azureTopology(cloud, fixture))
	t.track = newTracker(out, stepTimeout)
	return t, nil
}

func (t *azureTour) run(ctx context.Context, keep bool) error {
	subnetA, subnetB := t.fixture.subnetIDs[0], t.fixture.subnetIDs[1]
	t.track.section(fmt.Sprintf("1. Create a Private cluster %s/%s with a NodePool in subnet %s", clusterNamespace, azureClusterName, azurecloud.NameOf(subnetA)))
	if err := t.createCluster(ctx, subnetA); err != nil {
		return err
	}
	if err := t.track.wait(ctx, t.dataFlow()...); err != nil {
		return err
	}
	if keep {
		fmt.Fprint(t.out, azureKeepLines(t.cloud, t.fixture, t.hcpNS, azurecloud.PrivateDNSZoneName(azureClusterName)))
		return nil
	}

	t.track.section("2. Switch to PublicAndPrivate, then back to Private")
	if err := t.setTopology(ctx, hcplinkv1beta1.AzureTopologyPublicAndPrivate); err != nil {
		return err
	}
	if err := t.track.wait(ctx, step{"public router Service made, ExternalName Services gone", t.publicAndPrivateServices}); err != nil {
		return err
	}
	if err := t.setTopology(ctx, hcplinkv1beta1.AzureTopologyPrivate); err != nil {
		return err
	}
	if err := t.track.wait(ctx, step{"public router Service removed, ExternalName Services back", t.privateServices}); err != nil {
		return err
	}

	t.track.section(fmt.Sprintf("3. Add a NodePool in another subnet, %s", azurecloud.NameOf(subnetB)))
	if err := t.createNodePool(ctx, azureClusterName+"-2", subnetB); err != nil {
		return err
	}
	if err := t.track.wait(ctx,
		step{"control-plane operator sees the NodePool's subnet", func(ctx context.Context) (string, error) { return t.nodePoolListed(ctx, subnetB) }},
		step{"endpoint stays in the first NodePool's subnet", t.pathUnchanged},
	); err != nil {
		return err
	}

	t.track.section("4. Delete the cluster")
	if err := t.track.wait(ctx, step{"ARM lists the cluster's resources before deletion", t.resourcesBeforeDeletion}); err != nil {
		return err
	}
	if err := deleteCluster(ctx, t.env.Client, t.track, t.hc, t.hcpNS, "Azure"); err != nil {
		return err
	}
	return t.proveNothingLeft(ctx)
}

// dataFlow is the seed's Azure data flow, one step per line.
func (t *azureTour) dataFlow() []step {
	return []step{
		{"control-plane namespace, HostedControlPlane, its operator", t.controlPlaneRunning},
		{"1 private-router Service gets an internal LB frontend", t.routerFrontend},
		{"2 observer records its address in an AzurePrivateLinkService", t.observed},
		{"3 operator creates the Private Link Service for the guest", t.privateLinkService},
		{"4 control-plane operator creates the Private Endpoint", t.privateEndpoint},
		{"5 control-plane operator writes the zone, link and records", t.privateZone},
		{"6 ExternalName Services point the hostnames at the zone", t.privateServices},
		{"HostedCluster reports the private link available", t.available},
	}
}

func (t *azureTour) createCluster(ctx context.Context, subnet string) error {
	f := t.fixture
	t.hc = &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: clusterNamespace, Name: azureClusterName},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    azureInfraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: f.cidr}}},
			Services:   azureRouteServices(),
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
				SubscriptionID: f.subscription, ResourceGroupName: f.resourceGroup, Location: f.location,
				VnetID: f.vnetID, SubnetID: subnet, Topology: hcplinkv1beta1.AzureTopologyPrivate,
				Private:  &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink},
				TenantID: f.tenantID, AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig(f.cpoClientID),
			}},
		},
	}
	if err := t.env.Client.Create(ctx, t.hc); err != nil {
		return fmt.Errorf("creating the HostedCluster: %w", err)
	}
	return t.createNodePool(ctx, azureClusterName+"-1", subnet)
}

// azureRouteServices publishes the API server and OAuth by Route, as a
// private Azure cluster must; both get ExternalName Services when Private.
func azureRouteServices() []hcplinkv1beta1.ServicePublishingStrategyMapping {
	route := func(svc hcplinkv1beta1.ServiceType, host string) hcplinkv1beta1.ServicePublishingStrategyMapping {
		return hcplinkv1beta1.ServicePublishingStrategyMapping{Service: svc, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
			Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: host},
		}}
	}
	return []hcplinkv1beta1.ServicePublishingStrategyMapping{
		route(hcplinkv1beta1.APIServer, "api.demo.example.com"),
		route(hcplinkv1beta1.OAuthServer, "oauth.demo.example.com"),
	}
}

func (t *azureTour) createNodePool(ctx context.Context, name, subnet string) error {
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: clusterNamespace, Name: name},
		Spec: hcplinkv1beta1.NodePoolSpec{ClusterName: azureClusterName, Platform: hcplinkv1beta1.NodePoolPlatform{
			Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzureNodePoolPlatform{SubnetID: subnet},
		}},
	}
	if err := t.env.Client.Create(ctx, np); err != nil {
		return fmt.Errorf("creating NodePool %s: %w", name, err)
	}
	fmt.Fprintf(t.out, "  + NodePool %s in subnet %s\n", name, azurecloud.NameOf(subnet))
	return nil
}

func (t *azureTour) setTopology(ctx context.Context, topology hcplinkv1beta1.AzureTopology) error {
	return changeCluster(ctx, t.env.Client, t.hc, t.out, "topology", string(topology), func(hc *hcplinkv1beta1.HostedCluster) {
		hc.Spec.Platform.Azure.Topology = topology
	})
}

func (t *azureTour) controlPlaneRunning(ctx context.Context) (string, error) {
	var hcp hcplinkv1beta1.HostedControlPlane
	if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: azureClusterName}, &hcp); err != nil {
		return "", err
	}
	for _, ns := range t.env.RunningControlPlaneOperators() {
		if ns == t.hcpNS {
			return t.hcpNS + " (the operator signs in by workload identity)", nil
		}
	}
	return "", fmt.Errorf("control-plane operator not running yet")
}

func (t *azureTour) crd(ctx context.Context) (*hcplinkv1beta1.AzurePrivateLinkService, error) {
	var cr hcplinkv1beta1.AzurePrivateLinkService
	err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: routerCR}, &cr)
	return &cr, err
}

func (t *azureTour) observed(ctx context.Context) (string, error) {
	cr, err := t.crd(ctx)
	if err != nil {
		return "", err
	}
	if cr.Spec.LoadBalancerIP == "" || cr.Spec.LoadBalancerIP != t.seen.routerIP {
		return "", fmt.Errorf("loadBalancerIP %q, router at %q", cr.Spec.LoadBalancerIP, t.seen.routerIP)
	}
	return fmt.Sprintf("azureprivatelinkservice/%s in %s: loadBalancerIP %s, guest subnet %s", routerCR, t.hcpNS,
		cr.Spec.LoadBalancerIP, azurecloud.NameOf(cr.Spec.GuestSubnetID)), nil
}

func (t *azureTour) available(ctx context.Context) (string, error) {
	var hc hcplinkv1beta1.HostedCluster
	if err := t.env.Client.Get(ctx, client.ObjectKeyFromObject(t.hc), &hc); err != nil {
		return "", err
	}
	for _, cond := range []string{hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition, hcplinkv1beta1.AvailableCondition} {
		if c := meta.FindStatusCondition(hc.Status.Conditions, cond); c == nil || c.Status != metav1.ConditionTrue {
			return "", fmt.Errorf("%s not True yet", cond)
		}
	}
	return "", nil
}

func (t *azureTour) nodePoolListed(ctx context.Context, subnet string) (string, error) {
	var hcp hcplinkv1beta1.HostedControlPlane
	if err := t.env.Client.Get(ctx, types.NamespacedName{Namespace: t.hcpNS, Name: azureClusterName}, &hcp); err != nil {
		return "", err
	}
	for _, np := range hcp.Spec.NodePools {
		if np.SubnetID == subnet {
			return fmt.Sprintf("NodePool %s in %s listed on the HostedControlPlane; the zone's VNet link covers its subnet too", np.Name, azurecloud.NameOf(subnet)), nil
		}
	}
	return "", fmt.Errorf("HostedControlPlane does not list a NodePool in %s yet", azurecloud.NameOf(subnet))
}
