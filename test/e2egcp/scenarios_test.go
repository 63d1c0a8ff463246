package e2egcp

import (
	"context"
	"fmt"
	"testing"
	"time"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// oneDriftCheck bounds a repair by the drift check: the interval with its
// +15% jitter, plus a few seconds for the pass itself.
const oneDriftCheck = driftInterval*115/100 + 5*time.Second

// oneReconcile bounds a change that the watches carry (HostedCluster →
// HostedControlPlane → GCPPrivateServiceConnect → the attachment): below
// the shortest drift interval (17 s with jitter), so that no drift check
// is needed to make it.
const oneReconcile = 15 * time.Second

// The whole path of a Private cluster: the HostedCluster becomes Available
// with every hop in cloudsim's GCP agreeing with the next, and deleting it
// leaves nothing of it in either project.
func TestPrivateClusterEndToEnd(t *testing.T) {
	t.Parallel()
	c := createCluster(t, "private", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.waitAvailable(t)
	// Its control-plane operator runs as its own ServiceAccount, under the
	// Role rendered for a GCP cluster: no other cloud's objects.
	if err := e2eutil.CheckControlPlaneOperatorIdentity(context.Background(), env, c.HCPNamespace, hcplinkv1beta1.GCPPlatform); err != nil {
		t.Error(err)
	}
	c.waitPath(t, c.fixture.Subnet)
	suite.Eventually(t, e2eutil.ShortWait, "the ExternalName Services", func(ctx context.Context) error {
		return c.checkExternalNames(ctx, true)
	})
	c.deleteAndCheckNothingLeft(t)
}

// PublicAndPrivate → Private → PublicAndPrivate: the private path stays,
// and the ExternalName Services come and go with the endpoint access.
func TestEndpointAccessChangeMovesExternalNames(t *testing.T) {
	t.Parallel()
	c := createCluster(t, "access", hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate)
	c.waitAvailable(t)
	for _, step := range []struct {
		access  hcplinkv1beta1.GCPEndpointAccessType
		private bool
	}{{hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate, false}, {hcplinkv1beta1.GCPEndpointAccessPrivate, true}, {hcplinkv1beta1.GCPEndpointAccessPublicAndPrivate, false}} {
		c.Patch(t, func(hc *hcplinkv1beta1.HostedCluster) { hc.Spec.Platform.GCP.EndpointAccess = step.access })
		suite.Eventually(t, e2eutil.ShortWait, fmt.Sprintf("the ExternalName Services of %s", step.access), func(ctx context.Context) error {
			if err := c.checkExternalNames(ctx, step.private); err != nil {
				return err
			}
			_, err := c.checkPath(ctx, nil, c.fixture.Subnet)
			return err
		})
	}
	c.deleteAndCheckNothingLeft(t)
}

// additionalAllowedProjects added and removed: the attachment's accept
// list follows in the reconcile the change triggers, well before a drift
// check.
func TestAdditionalProjectsReachTheAttachment(t *testing.T) {
	t.Parallel()
	c := createCluster(t, "projects", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.waitAvailable(t)
	c.addThenRemovePartnerProject(t)
	c.waitPath(t, c.fixture.Subnet)
	c.deleteAndCheckNothingLeft(t)
}

// A record deleted behind hcplink's back is back within one drift check.
func TestDeletedRecordIsRestored(t *testing.T) {
	t.Parallel()
	c := createCluster(t, "record", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.waitAvailable(t)
	p := c.waitPath(t, c.fixture.Subnet)
	ctx := context.Background()
	fqdn := "api." + p.zone.DnsName
	if err := deleteARecord(ctx, p.zone.Name, fqdn); err != nil {
		t.Fatalf("deleting the api record: %v", err)
	}
	suite.Eventually(t, oneDriftCheck, "the api record to be restored", func(ctx context.Context) error {
		_, err := c.checkDNS(ctx, p.cr)
		return err
	})
	c.deleteAndCheckNothingLeft(t)
}

// A NodePool in another subnetwork of the network: the one PSC endpoint,
// in the cluster's subnetwork, serves the whole network, so it stays there.
func TestNodePoolInAnotherSubnetKeepsTheEndpoint(t *testing.T) {
	t.Parallel()
	c := createCluster(t, "nodepool", hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.createNodePool(t, c.Name+"-np1", c.fixture.SecondSubnet)
	c.waitAvailable(t)
	c.waitPath(t, c.fixture.Subnet)
	c.deleteAndCheckNothingLeft(t)
}
