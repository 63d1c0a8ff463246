package e2eazure

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	simazure "github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// unusedHere are granted actions the lifecycle below cannot reach on
// cloudsim, each with the reason; the test fails when one is used after
// all (then it belongs in the comparison, not here).
var unusedHere = map[azurecloud.Component]map[string]string{
	// Since the control-plane side reads a zone's records by one listing
	// (privateDnsZones/ALL/read) and only lowers the SOA, these three are
	// on paths this lifecycle does not take; the control-plane side's
	// table keeps them for those paths.
	azurecloud.ControlPlaneOperator: {
		"Microsoft.Network/privateDnsZones/A/read":              "records are read by the zone's record-set listing; a single record's read is another path",
		"Microsoft.Network/privateDnsZones/A/delete":            "a record is deleted only on a path this lifecycle does not take (the zone's deletion takes its records with it)",
		"Microsoft.Network/privateDnsZones/SOA/write":           "the SOA is written only to lower a negative-cache TTL above 60 s; a zone hcplink creates is not above it",
		"Microsoft.Network/networkInterfaces/read":              "the endpoint is read with its interfaces expanded ($expand=networkInterfaces); the interface's own read is for an answer that did not expand them",
		"Microsoft.Resources/subscriptions/resourceGroups/read": "the configuration check reads the resource group only when the VNet is not found in it (a VNet in another group, or none); devenv's guest VNet is in the cluster's group",
	},
	azurecloud.ManagementOperator: {
		"Microsoft.Network/virtualNetworks/subnets/read": "the NAT subnet hcplink makes is looked for in its VNet's read (subnets inline); a subnet is read on its own only for a natSubnetID the cluster names, or when Azure forgot a creation's operation",
	},
}

// usedByTheLastCluster are actions of the management operator evaluated
// only when the last cluster using something shared goes: the NAT subnet
// the management cluster's services share is deleted with its last user,
// and scenarios run in parallel, so when this lifecycle's cluster is
// deleted another may still use it. checkSharedNATSubnetDeleted checks
// them once every cluster is gone.
var usedByTheLastCluster = map[string]string{
	"Microsoft.Network/virtualNetworks/subnets/delete": "the shared NAT subnet is deleted with the last cluster using it",
}

// checkSharedNATSubnetDeleted runs after every scenario has deleted its
// cluster: a management operator that wrote a NAT subnet has deleted it,
// and was not denied.
func checkSharedNATSubnetDeleted() int {
	evaluated := env.Cloud.Azure.Evaluations(env.AzureOperatorPrincipalID)
	if _, wrote := evaluated["Microsoft.Network/virtualNetworks/subnets/write"]; !wrote {
		return 0
	}
	for action, why := range usedByTheLastCluster {
		d, ok := evaluated[action]
		if !ok || d.Denied > 0 {
			fmt.Fprintf(os.Stderr, "e2eazure: the management operator was not allowed %s, or never asked for it (%s), though every cluster is gone\n", action, why)
			return 1
		}
	}
	return 0
}

// TestOperatorsLeastPrivilege walks one Azure cluster through its whole
// life (create PublicAndPrivate, Private and back, a NodePool added and
// removed, an additional subscription added and removed, another
// consumer's endpoint still connected at deletion, delete) with its
// control-plane operator signed in as the identity `hcplink create iam
// azure` made and the management operator as the one `create iam azure
// --operator` made (its role at the management cluster's resource group
// only), and compares what cloudsim evaluated
// for each with what its role grants: nothing denied, nothing granted and
// never used.
func TestOperatorsLeastPrivilege(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := createCluster(t, "leastpriv", hcplinkv1beta1.AzureTopologyPublicAndPrivate)
	c.waitAvailable(t)
	for _, step := range []struct {
		topology hcplinkv1beta1.AzureTopology
		private  bool
	}{{hcplinkv1beta1.AzureTopologyPrivate, true}, {hcplinkv1beta1.AzureTopologyPublicAndPrivate, false}} {
		c.Patch(t, func(hc *hcplinkv1beta1.HostedCluster) { hc.Spec.Platform.Azure.Topology = step.topology })
		suite.Eventually(t, e2eutil.ShortWait, fmt.Sprintf("the ExternalName Services of %s", step.topology), func(ctx context.Context) error {
			return c.checkExternalNames(ctx, step.private)
		})
	}

	// A NodePool added to a running cluster leaves its endpoint where it is
	// (only a cluster's first pass places it in a NodePool's subnet).
	c.createNodePool(t, c.Name+"-np1", c.fixture.SecondSubnetID)
	c.waitNodePools(t, 1)
	c.waitPath(t, c.fixture.SubnetID)
	if err := env.Client.Delete(ctx, &hcplinkv1beta1.NodePool{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name + "-np1"}}); err != nil {
		t.Fatalf("deleting the NodePool: %v", err)
	}
	c.waitNodePools(t, 0)
	c.waitPath(t, c.fixture.SubnetID)

	c.addThenRemoveOtherSubscription(t)
	consumer := c.connectConsumer(t)
	c.deleteAndCheckNothingLeft(t)
	deleteConsumer(t, consumer)

	compareUsedWithGranted(t, "the control-plane operator", env.Cloud.Azure.Evaluations(c.fixture.ControlPlaneOperatorPrincipalID), azurecloud.ControlPlaneOperator)
	compareUsedWithGranted(t, "the management operator", env.Cloud.Azure.Evaluations(env.AzureOperatorPrincipalID), azurecloud.ManagementOperator)
}

// compareUsedWithGranted fails for every action denied to the component
// and every action its role grants that was never evaluated.
func compareUsedWithGranted(t *testing.T, who string, evaluated map[string]simazure.Decision, component azurecloud.Component) {
	t.Helper()
	var used, denied []string
	for action, d := range evaluated {
		used = append(used, action)
		if d.Denied > 0 {
			denied = append(denied, action)
		}
	}
	sort.Strings(used)
	t.Logf("%s was evaluated for: %v", who, used)
	if len(denied) > 0 {
		t.Errorf("denied to %s (its role misses them): %v", who, denied)
	}
	if len(evaluated) == 0 {
		t.Fatalf("nothing was evaluated for %s: is it signed in as another principal?", who)
	}
	for _, action := range azurecloud.Actions(component) {
		_, ok := evaluated[action]
		why, unused := unusedHere[component][action]
		if _, last := usedByTheLastCluster[action]; last && component == azurecloud.ManagementOperator {
			continue
		}
		switch {
		case ok && unused:
			t.Errorf("%s was used after all: take it out of unusedHere (%s)", action, why)
		case !ok && !unused && !slices.Contains(used, action):
			t.Errorf("the role of %s grants %s, which the whole lifecycle never used", who, action)
		}
	}
}

// waitNodePools waits until the HostedControlPlane mirrors n NodePools.
func (c *cluster) waitNodePools(t *testing.T, n int) {
	t.Helper()
	suite.Eventually(t, e2eutil.ShortWait, fmt.Sprintf("%d NodePools on the HostedControlPlane of %s", n, c.Name), func(ctx context.Context) error {
		hcp := &hcplinkv1beta1.HostedControlPlane{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: c.HCPNamespace, Name: c.Name}, hcp); err != nil {
			return err
		}
		if got := len(hcp.Spec.NodePools); got != n {
			return fmt.Errorf("%d NodePools", got)
		}
		return nil
	})
}

// connectConsumer connects, as the administrator, a second private
// endpoint to the cluster's Private Link Service, from the guest VNet's
// other subnet: a consumer hcplink did not make, still connected when the
// cluster is deleted (as the AWS lifecycle's consumer in another account
// is), so that the management operator must reject and remove its
// connection before it can delete the service. It returns the endpoint's
// ID once the connection is approved.
func (c *cluster) connectConsumer(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	cr, err := c.pls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	name := "consumer-" + e2eutil.RandomSuffix(5)
	poller, err := network(c.fixture.SubscriptionID).NewPrivateEndpointsClient().BeginCreateOrUpdate(ctx, c.fixture.ResourceGroup, name, armnetwork.PrivateEndpoint{
		Location: to.Ptr(c.fixture.Location),
		Properties: &armnetwork.PrivateEndpointProperties{
			Subnet: &armnetwork.Subnet{ID: to.Ptr(c.fixture.SecondSubnetID)},
			PrivateLinkServiceConnections: []*armnetwork.PrivateLinkServiceConnection{{Name: to.Ptr(name),
				Properties: &armnetwork.PrivateLinkServiceConnectionProperties{PrivateLinkServiceID: to.Ptr(cr.Status.PrivateLinkServiceID)}}},
		},
	}, nil)
	if err != nil {
		t.Fatalf("connecting another consumer: %v", err)
	}
	out, err := poller.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: e2eutil.PollEvery})
	if err != nil {
		t.Fatalf("connecting another consumer: %v", err)
	}
	id := deref(out.ID)
	t.Cleanup(func() { deleteConsumer(t, id) })
	suite.Eventually(t, e2eutil.ShortWait, "the other consumer's connection approved", func(ctx context.Context) error {
		pe, err := getPE(ctx, id)
		if err != nil {
			return err
		}
		for _, conn := range pe.Properties.PrivateLinkServiceConnections {
			if st := conn.Properties.PrivateLinkServiceConnectionState; st != nil && deref(st.Status) == azurecloud.ConnectionApproved {
				return nil
			}
		}
		return fmt.Errorf("not approved")
	})
	return id
}

// deleteConsumer deletes the other consumer's endpoint (absent is fine).
func deleteConsumer(t *testing.T, id string) {
	t.Helper()
	ctx := context.Background()
	rid, err := parse(id)
	if err != nil {
		t.Fatal(err)
	}
	poller, err := network(rid.SubscriptionID).NewPrivateEndpointsClient().BeginDelete(ctx, rid.ResourceGroupName, rid.Name, nil)
	if isNotFound(err) {
		return
	}
	if err == nil {
		_, err = poller.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: e2eutil.PollEvery})
	}
	if err != nil && !isNotFound(err) {
		t.Errorf("deleting the other consumer's endpoint: %v", err)
	}
}
