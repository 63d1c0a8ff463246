package e2eazure

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// cluster is one scenario's HostedCluster and what was prepared for it.
type cluster struct {
	e2eutil.Cluster
	infraID string
	fixture devenv.AzureClusterFixture
}

// createCluster prepares the guest side and creates a private Azure
// HostedCluster with the given topology.
func createCluster(t *testing.T, prefix string, topology hcplinkv1beta1.AzureTopology) *cluster {
	t.Helper()
	return createClusterThen(t, prefix, topology, nil)
}

// createClusterWithNodePool creates the cluster's first NodePool, in the
// VNet's second subnet, before the cluster, so that the control-plane
// operator sees it from its first pass.
func createClusterWithNodePool(t *testing.T, prefix string, topology hcplinkv1beta1.AzureTopology) *cluster {
	t.Helper()
	return createClusterThen(t, prefix, topology, func(c *cluster) { c.createNodePool(t, c.Name+"-np1", c.fixture.SecondSubnetID) })
}

func createClusterThen(t *testing.T, prefix string, topology hcplinkv1beta1.AzureTopology, before func(c *cluster)) *cluster {
	t.Helper()
	ctx := context.Background()
	c := &cluster{Cluster: e2eutil.NewCluster(suite, suite.CreateNamespace(t, prefix), prefix)}
	c.infraID = c.Name + "-" + e2eutil.RandomSuffix(5)
	var err error
	if c.fixture, err = env.PrepareAzureCluster(ctx, c.Namespace, c.Name, c.infraID); err != nil {
		t.Fatalf("preparing the guest subscription: %v", err)
	}
	if before != nil {
		before(c)
	}
	domain := c.Name + ".example.test"
	route := func(s hcplinkv1beta1.ServiceType, host string) hcplinkv1beta1.ServicePublishingStrategyMapping {
		m := hcplinkv1beta1.ServicePublishingStrategyMapping{Service: s,
			ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{Type: hcplinkv1beta1.RoutePublishing}}
		if host != "" {
			m.ServicePublishingStrategy.Route = &hcplinkv1beta1.RoutePublishingStrategy{Hostname: host}
		}
		return m
	}
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    c.infraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "example.test"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.1.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{
				route(hcplinkv1beta1.APIServer, "api."+domain), route(hcplinkv1beta1.OAuthServer, "oauth."+domain),
				route(hcplinkv1beta1.Konnectivity, ""), route(hcplinkv1beta1.Ignition, ""),
			},
			Platform: hcplinkv1beta1.PlatformSpec{
				Type: hcplinkv1beta1.AzurePlatform,
				Azure: &hcplinkv1beta1.AzurePlatformSpec{
					SubscriptionID: c.fixture.SubscriptionID, ResourceGroupName: c.fixture.ResourceGroup,
					Location: c.fixture.Location, VnetID: c.fixture.VNetID, SubnetID: c.fixture.SubnetID,
					Topology:                  topology,
					Private:                   &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink},
					TenantID:                  c.fixture.TenantID,
					AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig(c.fixture.ControlPlaneOperatorClientID),
				},
			},
		},
	}
	if err := env.Client.Create(ctx, hc); err != nil {
		t.Fatalf("creating HostedCluster %s: %v", c.Name, err)
	}
	return c
}

// waitAvailable waits until the cluster is Available with its private path.
func (c *cluster) waitAvailable(t *testing.T) {
	t.Helper()
	c.WaitAvailable(t, "Private Link", hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition)
}

// pls is the cluster's AzurePrivateLinkService.
func (c *cluster) pls(ctx context.Context) (*hcplinkv1beta1.AzurePrivateLinkService, error) {
	var list hcplinkv1beta1.AzurePrivateLinkServiceList
	if err := env.Client.List(ctx, &list, client.InNamespace(c.HCPNamespace)); err != nil {
		return nil, err
	}
	if len(list.Items) != 1 {
		return nil, fmt.Errorf("%d AzurePrivateLinkServices in %s, want 1", len(list.Items), c.HCPNamespace)
	}
	return &list.Items[0], nil
}

// createNodePool adds a NodePool in a subnet of the cluster's VNet.
func (c *cluster) createNodePool(t *testing.T, name, subnetID string) {
	t.Helper()
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: name},
		Spec: hcplinkv1beta1.NodePoolSpec{
			ClusterName: c.Name,
			Platform: hcplinkv1beta1.NodePoolPlatform{
				Type:  hcplinkv1beta1.AzurePlatform,
				Azure: &hcplinkv1beta1.AzureNodePoolPlatform{SubnetID: subnetID},
			},
		},
	}
	if err := env.Client.Create(context.Background(), np); err != nil {
		t.Fatalf("creating NodePool %s: %v", name, err)
	}
}
