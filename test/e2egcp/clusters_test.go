package e2egcp

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
	fixture devenv.GCPClusterFixture
}

// createCluster prepares the customer's side (the control-plane
// operator's service account) and creates a GCP HostedCluster with the
// given endpoint access.
func createCluster(t *testing.T, prefix string, access hcplinkv1beta1.GCPEndpointAccessType) *cluster {
	t.Helper()
	return createClusterWith(t, prefix, access, nil)
}

// createClusterWith is createCluster with a step between preparing the
// customer's side and creating the HostedCluster (nil: none), as a
// customer changing what was prepared would.
func createClusterWith(t *testing.T, prefix string, access hcplinkv1beta1.GCPEndpointAccessType, beforeCreate func(c *cluster)) *cluster {
	t.Helper()
	return createClusterIn(t, env.GCPCustomer, prefix, access, beforeCreate)
}

// createClusterIn is createClusterWith in a customer's project of the
// scenario's own (env.AddGCPCustomer).
func createClusterIn(t *testing.T, customer devenv.GCPCustomerNetwork, prefix string, access hcplinkv1beta1.GCPEndpointAccessType, beforeCreate func(c *cluster)) *cluster {
	t.Helper()
	c := prepareClusterIn(t, customer, prefix)
	if beforeCreate != nil {
		beforeCreate(c)
	}
	c.create(t, access)
	return c
}

// prepareClusterIn names a cluster and prepares the customer's side in
// the customer's project; create makes its HostedCluster.
func prepareClusterIn(t *testing.T, customer devenv.GCPCustomerNetwork, prefix string) *cluster {
	t.Helper()
	c := &cluster{Cluster: e2eutil.NewCluster(suite, suite.CreateNamespace(t, prefix), prefix)}
	c.infraID = c.Name + "-" + e2eutil.RandomSuffix(5)
	var err error
	if c.fixture, err = env.PrepareGCPClusterIn(context.Background(), customer, c.Namespace, c.Name, c.infraID); err != nil {
		t.Fatalf("preparing the customer's project: %v", err)
	}
	return c
}

// create makes the prepared cluster's HostedCluster with the given
// endpoint access.
func (c *cluster) create(t *testing.T, access hcplinkv1beta1.GCPEndpointAccessType) {
	t.Helper()
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
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.10.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{
				route(hcplinkv1beta1.APIServer, "api."+domain), route(hcplinkv1beta1.OAuthServer, "oauth."+domain),
				route(hcplinkv1beta1.Konnectivity, ""), route(hcplinkv1beta1.Ignition, ""),
			},
			Platform: c.fixture.Platform(access),
		},
	}
	if err := env.Client.Create(context.Background(), hc); err != nil {
		t.Fatalf("creating HostedCluster %s: %v", c.Name, err)
	}
}

// waitAvailable waits until the cluster is Available with its private path.
func (c *cluster) waitAvailable(t *testing.T) {
	t.Helper()
	c.WaitAvailable(t, "Private Service Connect", hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition)
}

// psc is the cluster's GCPPrivateServiceConnect.
func (c *cluster) psc(ctx context.Context) (*hcplinkv1beta1.GCPPrivateServiceConnect, error) {
	var list hcplinkv1beta1.GCPPrivateServiceConnectList
	if err := env.Client.List(ctx, &list, client.InNamespace(c.HCPNamespace)); err != nil {
		return nil, err
	}
	if len(list.Items) != 1 {
		return nil, fmt.Errorf("%d GCPPrivateServiceConnects in %s, want 1", len(list.Items), c.HCPNamespace)
	}
	return &list.Items[0], nil
}

// createNodePool adds a NodePool in a subnetwork of the cluster's network.
func (c *cluster) createNodePool(t *testing.T, name, subnet string) {
	t.Helper()
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: name},
		Spec: hcplinkv1beta1.NodePoolSpec{
			ClusterName: c.Name,
			Platform: hcplinkv1beta1.NodePoolPlatform{
				Type: hcplinkv1beta1.GCPPlatform,
				GCP:  &hcplinkv1beta1.GCPNodePoolPlatform{Subnet: subnet},
			},
		},
	}
	if err := env.Client.Create(context.Background(), np); err != nil {
		t.Fatalf("creating NodePool %s: %v", name, err)
	}
}
