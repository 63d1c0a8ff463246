package e2egcp

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// cluster is one scenario's HostedCluster and what was prepared for it.
type cluster struct {
	namespace, name, infraID string
	fixture                  devenv.GCPClusterFixture
	// hcpNamespace is the control-plane namespace, where the
	// GCPPrivateServiceConnect and the Services live.
	hcpNamespace string
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
	ctx := context.Background()
	c := &cluster{namespace: suite.CreateNamespace(t, prefix), name: prefix}
	c.hcpNamespace = hcplinkv1beta1.HostedControlPlaneNamespace(c.namespace, c.name)
	c.infraID = c.name + "-" + e2eutil.RandomSuffix(5)
	var err error
	if c.fixture, err = env.PrepareGCPCluster(ctx, c.namespace, c.name, c.infraID); err != nil {
		t.Fatalf("preparing the customer's project: %v", err)
	}
	if beforeCreate != nil {
		beforeCreate(c)
	}
	domain := c.name + ".example.test"
	route := func(s hcplinkv1beta1.ServiceType, host string) hcplinkv1beta1.ServicePublishingStrategyMapping {
		m := hcplinkv1beta1.ServicePublishingStrategyMapping{Service: s,
			ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{Type: hcplinkv1beta1.RoutePublishing}}
		if host != "" {
			m.ServicePublishingStrategy.Route = &hcplinkv1beta1.RoutePublishingStrategy{Hostname: host}
		}
		return m
	}
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    c.infraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "example.test"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.10.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{
				route(hcplinkv1beta1.APIServer, "api."+domain), route(hcplinkv1beta1.OAuthServer, "oauth."+domain),
				route(hcplinkv1beta1.Konnectivity, ""), route(hcplinkv1beta1.Ignition, ""),
			},
			Platform: hcplinkv1beta1.PlatformSpec{
				Type: hcplinkv1beta1.GCPPlatform,
				GCP: &hcplinkv1beta1.GCPPlatformSpec{
					Project: c.fixture.Project, Region: c.fixture.Region,
					Network: c.fixture.Network, Subnet: c.fixture.Subnet,
					EndpointAccess: access,
					WorkloadIdentity: &hcplinkv1beta1.GCPWorkloadIdentityConfig{
						PoolProvider: c.fixture.PoolProvider,
						ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{
							ControlPlaneOperator: hcplinkv1beta1.GCPServiceAccountEmail(c.fixture.ControlPlaneOperatorServiceAccount),
						},
					},
				},
			},
		},
	}
	if err := env.Client.Create(ctx, hc); err != nil {
		t.Fatalf("creating HostedCluster %s: %v", c.name, err)
	}
	return c
}

func (c *cluster) get(ctx context.Context) (*hcplinkv1beta1.HostedCluster, error) {
	hc := &hcplinkv1beta1.HostedCluster{}
	return hc, env.Client.Get(ctx, client.ObjectKey{Namespace: c.namespace, Name: c.name}, hc)
}

// patch applies a merge patch to the HostedCluster's spec (the operators
// write status meanwhile, so no read-then-update).
func (c *cluster) patch(t *testing.T, change func(hc *hcplinkv1beta1.HostedCluster)) {
	t.Helper()
	ctx := context.Background()
	hc, err := c.get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	orig := hc.DeepCopy()
	change(hc)
	if err := env.Client.Patch(ctx, hc, client.MergeFrom(orig)); err != nil {
		t.Fatalf("changing HostedCluster %s: %v", c.name, err)
	}
}

// waitAvailable waits until the cluster is Available with its private path.
func (c *cluster) waitAvailable(t *testing.T) {
	t.Helper()
	suite.Eventually(t, e2eutil.LongWait, "HostedCluster "+c.name+" to be available over Private Service Connect", func(ctx context.Context) error {
		hc, err := c.get(ctx)
		if err != nil {
			return err
		}
		if err := e2eutil.ConditionIs(hc.Status.Conditions, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition, metav1.ConditionTrue, ""); err != nil {
			return err
		}
		return e2eutil.ConditionIs(hc.Status.Conditions, hcplinkv1beta1.AvailableCondition, metav1.ConditionTrue, "")
	})
}

// psc is the cluster's GCPPrivateServiceConnect.
func (c *cluster) psc(ctx context.Context) (*hcplinkv1beta1.GCPPrivateServiceConnect, error) {
	var list hcplinkv1beta1.GCPPrivateServiceConnectList
	if err := env.Client.List(ctx, &list, client.InNamespace(c.hcpNamespace)); err != nil {
		return nil, err
	}
	if len(list.Items) != 1 {
		return nil, fmt.Errorf("%d GCPPrivateServiceConnects in %s, want 1", len(list.Items), c.hcpNamespace)
	}
	return &list.Items[0], nil
}

// externalNames lists the ExternalName Services of the control-plane
// namespace, by name.
func (c *cluster) externalNames(ctx context.Context) (map[string]string, error) {
	var list corev1.ServiceList
	if err := env.Client.List(ctx, &list, client.InNamespace(c.hcpNamespace)); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, s := range list.Items {
		if s.Spec.Type == corev1.ServiceTypeExternalName {
			out[s.Name] = s.Spec.ExternalName
		}
	}
	return out, nil
}

// deleteAndWait deletes the HostedCluster and waits until it is gone.
func (c *cluster) deleteAndWait(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	hc := &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name}}
	if err := env.Client.Delete(ctx, hc); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("deleting HostedCluster %s: %v", c.name, err)
	}
	suite.Eventually(t, e2eutil.LongWait, "HostedCluster "+c.name+" to be deleted", func(ctx context.Context) error {
		if _, err := c.get(ctx); !apierrors.IsNotFound(err) {
			return fmt.Errorf("still there (%v)", err)
		}
		return nil
	})
}

// createNodePool adds a NodePool in a subnetwork of the cluster's network.
func (c *cluster) createNodePool(t *testing.T, name, subnet string) {
	t.Helper()
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: name},
		Spec: hcplinkv1beta1.NodePoolSpec{
			ClusterName: c.name,
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
