package e2eazure

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// oneDriftCheck bounds a repair by the drift check: the interval with its
// +15% jitter, plus a few seconds for the pass itself.
const oneDriftCheck = driftInterval*115/100 + 5*time.Second

// oneReconcile bounds a change that the watches carry (HostedCluster →
// HostedControlPlane → AzurePrivateLinkService → the service): below the
// shortest drift interval (17 s with jitter), so that no drift check is
// needed to make it.
const oneReconcile = 15 * time.Second

// The whole path of a Private cluster: the HostedCluster becomes Available
// with every hop in cloudsim's Azure agreeing with the next, and deleting
// it leaves nothing of it in either subscription.
func TestPrivateClusterEndToEnd(t *testing.T) {
	t.Parallel()
	c := createCluster(t, "private", hcplinkv1beta1.AzureTopologyPrivate)
	c.waitAvailable(t)
	// Its control-plane operator reached Azure and the API server as its
	// own ServiceAccount, under the Role the management operator renders.
	if err := e2eutil.CheckControlPlaneOperatorIdentity(context.Background(), env, c.HCPNamespace, hcplinkv1beta1.AzurePlatform); err != nil {
		t.Error(err)
	}
	c.waitPath(t, c.fixture.SubnetID)
	suite.Eventually(t, e2eutil.ShortWait, "the ExternalName Services", func(ctx context.Context) error {
		return c.checkExternalNames(ctx, true)
	})
	c.deleteAndCheckNothingLeft(t)
}

// PublicAndPrivate → Private → PublicAndPrivate: the private path stays,
// and the ExternalName Services come and go with the topology.
func TestTopologyChangeMovesExternalNames(t *testing.T) {
	t.Parallel()
	c := createCluster(t, "topology", hcplinkv1beta1.AzureTopologyPublicAndPrivate)
	c.waitAvailable(t)
	for _, step := range []struct {
		topology hcplinkv1beta1.AzureTopology
		private  bool
	}{{hcplinkv1beta1.AzureTopologyPublicAndPrivate, false}, {hcplinkv1beta1.AzureTopologyPrivate, true}, {hcplinkv1beta1.AzureTopologyPublicAndPrivate, false}} {
		c.Patch(t, func(hc *hcplinkv1beta1.HostedCluster) { hc.Spec.Platform.Azure.Topology = step.topology })
		suite.Eventually(t, e2eutil.ShortWait, fmt.Sprintf("the ExternalName Services of %s", step.topology), func(ctx context.Context) error {
			if err := c.checkExternalNames(ctx, step.private); err != nil {
				return err
			}
			_, err := c.checkPath(ctx, nil, c.fixture.SubnetID)
			return err
		})
	}
	c.deleteAndCheckNothingLeft(t)
}

// additionalAllowedSubscriptions added and removed: the Private Link
// Service's visibility and auto-approval follow in the reconcile the change
// triggers, well before a drift check.
func TestAdditionalSubscriptionsReachTheService(t *testing.T) {
	t.Parallel()
	c := createCluster(t, "subscriptions", hcplinkv1beta1.AzureTopologyPrivate)
	c.waitAvailable(t)
	c.addThenRemoveOtherSubscription(t)
	c.waitPath(t, c.fixture.SubnetID)
	c.deleteAndCheckNothingLeft(t)
}

// A NodePool in another subnet of the VNet: the Private Endpoint goes in
// the first NodePool's subnet, not the cluster's.
func TestNodePoolSubnetHoldsTheEndpoint(t *testing.T) {
	t.Parallel()
	c := createClusterWithNodePool(t, "nodepool", hcplinkv1beta1.AzureTopologyPrivate)
	c.waitAvailable(t)
	c.waitPath(t, c.fixture.SecondSubnetID)
	c.deleteAndCheckNothingLeft(t)
}

// A record deleted behind hcplink's back is back within one drift check.
func TestDeletedRecordIsRestored(t *testing.T) {
	t.Parallel()
	c := createCluster(t, "record", hcplinkv1beta1.AzureTopologyPrivate)
	c.waitAvailable(t)
	p := c.waitPath(t, c.fixture.SubnetID)
	ctx := context.Background()
	if err := deleteARecord(ctx, p.cr.Status.DNSZoneName, "api"); err != nil {
		t.Fatalf("deleting the api record: %v", err)
	}
	if ips, err := aRecord(ctx, p.cr.Status.DNSZoneName, "api"); err != nil || ips != nil {
		t.Fatalf("the api record is still there after deleting it: %v %v", ips, err)
	}
	suite.Eventually(t, oneDriftCheck, "the api record to be restored", func(ctx context.Context) error {
		return c.checkDNS(ctx, p.cr)
	})
	c.deleteAndCheckNothingLeft(t)
}

// The Private Link Service deleted behind hcplink's back (its connection
// first, as Azure demands): the operator makes a new one (new alias), and
// the control-plane operator replaces the endpoint and points the records
// at the new one.
func TestDeletedServiceIsRecreatedAndEndpointReplaced(t *testing.T) {
	t.Parallel()
	c := createCluster(t, "recreate", hcplinkv1beta1.AzureTopologyPrivate)
	c.waitAvailable(t)
	before := c.waitPath(t, c.fixture.SubnetID)
	if err := deletePLSBehindOurBack(t, before); err != nil {
		t.Fatalf("deleting the Private Link Service: %v", err)
	}
	// The operator finds the service gone at its next drift check; the
	// control-plane operator then replaces the endpoint (delete, wait,
	// create, approve, records), each step one of its polls.
	suite.Eventually(t, oneDriftCheck+e2eutil.LongWait, "a new Private Link Service and a new endpoint to it", func(ctx context.Context) error {
		hc, err := c.Get(ctx)
		if err != nil {
			return err
		}
		if err := e2eutil.ConditionIs(hc.Status.Conditions, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition, metav1.ConditionTrue, ""); err != nil {
			return err
		}
		after, err := c.checkPath(ctx, nil, c.fixture.SubnetID)
		if err != nil {
			return err
		}
		if deref(after.pls.Properties.Alias) == deref(before.pls.Properties.Alias) {
			return errors.New("the Private Link Service still has its old alias")
		}
		return nil
	})
	c.deleteAndCheckNothingLeft(t)
}

// deletePLSBehindOurBack removes the service's connections, then the
// service, as the administrator, and waits until Azure no longer has it.
func deletePLSBehindOurBack(t *testing.T, p *path) error {
	t.Helper()
	ctx := context.Background()
	rid, err := parse(deref(p.pls.ID))
	if err != nil {
		return err
	}
	client := network(rid.SubscriptionID).NewPrivateLinkServicesClient()
	for _, conn := range p.pls.Properties.PrivateEndpointConnections {
		poller, err := client.BeginDeletePrivateEndpointConnection(ctx, rid.ResourceGroupName, rid.Name, deref(conn.Name), nil)
		if err != nil {
			return err
		}
		if _, err := poller.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: e2eutil.PollEvery}); err != nil {
			return err
		}
	}
	poller, err := client.BeginDelete(ctx, rid.ResourceGroupName, rid.Name, nil)
	if err != nil {
		return err
	}
	_, err = poller.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: e2eutil.PollEvery})
	return err
}
