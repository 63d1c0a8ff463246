package azureprivatelink

import (
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// The only cluster of a management cluster deleted while the shared NAT
// subnet it was given is still being made (or while its Private Link
// Service is) leaves nothing behind: no hcplink NAT subnet, no service;
// and a new cluster of the same name then becomes ready. (Issue 22's soak
// found the old per-cluster subnet left behind in this race, and the next
// cluster of that name refused with NATSubnetNameTaken.)
func TestAClusterDeletedMidCreationLeavesNoNATSubnetOrService(t *testing.T) {
	for _, tc := range []struct {
		name string
		// started says the pass has reached the moment of the race.
		started func(w *world, c *cluster) bool
		// restart: a new operator process (knowing nothing but what the
		// cloud and the API server hold) does the deletion.
		restart bool
	}{
		{name: "while its NAT subnet is being made", started: subnetBeingMade},
		{name: "while its Private Link Service is being made", started: func(w *world, c *cluster) bool {
			pls := w.pls(azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID))
			return pls != nil && pls.Properties != nil && provisioning(pls.Properties.ProvisioningState) == armnetwork.ProvisioningStateUpdating
		}},
		{name: "while its NAT subnet is being made, by a restarted operator", started: subnetBeingMade, restart: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			r := w.reconciler(nil)
			c := w.cluster()
			w.reconcileUntil(r, c, tc.started)
			if tc.restart {
				r = w.reconciler(nil)
			}

			w.deleteAndSettle(r, c.cr)
			w.expectNoHCPLinkResources()

			again := w.recreate(c)
			w.settle(r, again.cr)
			if got := again.cr.Status.NATSubnetID; !strings.EqualFold(got, w.sharedNATSubnetID(1)) {
				t.Errorf("the new cluster's NAT subnet: %s, want %s", got, w.sharedNATSubnetID(1))
			}
		})
	}
}

func subnetBeingMade(w *world, _ *cluster) bool {
	return w.provisioningState(w.sharedNATSubnetID(1)) == armnetwork.ProvisioningStateUpdating
}

// reconcileUntil reconciles the cluster, advancing cloudsim's clock only
// as far as each long-running operation needs, until started holds (a
// bounded number of passes, never a sleep).
func (w *world) reconcileUntil(r *Reconciler, c *cluster, started func(*world, *cluster) bool) {
	w.t.Helper()
	for range 12 {
		w.reconcile(r, c.cr)
		if started(w, c) {
			return
		}
		// One second: past the vnet turn's and the frontend's waits, short
		// of a subnet's or a service's creation (cloudsim's fast delays).
		w.clk.Advance(time.Second)
	}
	get(w.t, c.cr)
	w.t.Fatalf("the race's moment was never reached: %+v", c.cr.Status.Conditions)
}

func (w *world) sharedNATSubnetID(n int) string {
	return w.vnetID + "/subnets/" + azurecloud.SharedNATSubnetName(w.managerID, n)
}

// provisioningState is the subnet's, "" when it does not exist.
func (w *world) provisioningState(id string) armnetwork.ProvisioningState {
	w.t.Helper()
	ref, err := azurecloud.ParseSubnetID(id)
	if err != nil {
		w.t.Fatal(err)
	}
	got, err := w.mgmt.NewSubnetsClient().Get(w.ctx, ref.ResourceGroup, ref.VNet, ref.Name, nil)
	if azurecloud.IsNotFound(err) {
		return ""
	}
	if err != nil {
		w.t.Fatal(err)
	}
	if got.Properties == nil {
		return ""
	}
	return provisioning(got.Properties.ProvisioningState)
}

// expectNoHCPLinkResources polls cloudsim's inventory, its clock running
// past any deletion still under way, until it holds no NAT subnet of this
// management cluster and no Private Link Service; it fails at a deadline.
func (w *world) expectNoHCPLinkResources() {
	w.t.Helper()
	prefix := strings.ToLower(azurecloud.SharedNATSubnetName(w.managerID, 1))
	prefix = prefix[:len(prefix)-1] // any index
	var left []string
	for range 10 {
		left = left[:0]
		for _, item := range w.f.Server.Azure.Inventory() {
			id := strings.ToLower(item.ID)
			switch {
			case strings.EqualFold(item.Kind, "Microsoft.Network/privateLinkServices"),
				strings.EqualFold(item.Kind, "Microsoft.Network/virtualNetworks/subnets") && strings.Contains(id, "/subnets/"+prefix):
				left = append(left, item.ID)
			}
		}
		if len(left) == 0 {
			return
		}
		w.clk.Advance(time.Minute)
	}
	w.t.Fatalf("left behind after the cluster was deleted: %v", left)
}

// recreate makes a new AzurePrivateLinkService of the deleted one's name,
// in its namespace, for the same HostedCluster.
func (w *world) recreate(c *cluster) *cluster {
	w.t.Helper()
	cr := &hcplinkv1beta1.AzurePrivateLinkService{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.cr.Namespace, Name: c.cr.Name, Annotations: c.cr.Annotations},
		Spec:       c.cr.Spec,
	}
	create(w.t, cr)
	return &cluster{hc: c.hc, cr: cr}
}

// The cluster making the shared NAT subnet deleted while another waits for
// it: the subnet is left to the other, which finishes it and becomes
// ready; when that one goes too, nothing is left.
func TestTheMakerOfTheSharedNATSubnetDeletedMidCreationLeavesItToTheNext(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(nil)
	maker, next := w.cluster(), w.cluster()
	w.reconcileUntil(r, maker, subnetBeingMade)
	w.reconcile(r, next.cr)
	if get(t, next.cr); !strings.EqualFold(next.cr.Status.NATSubnetID, w.sharedNATSubnetID(1)) {
		t.Fatalf("the waiting cluster's NAT subnet: %q, want %s", next.cr.Status.NATSubnetID, w.sharedNATSubnetID(1))
	}

	w.deleteAndSettle(r, maker.cr)
	if !w.subnetExists(w.sharedNATSubnetID(1)) {
		t.Fatal("deleting the cluster that was making the shared NAT subnet deleted it under the cluster waiting for it")
	}
	w.settle(r, next.cr)
	if !strings.EqualFold(next.cr.Status.NATSubnetID, w.sharedNATSubnetID(1)) {
		t.Errorf("the waiting cluster's NAT subnet: %s, want %s", next.cr.Status.NATSubnetID, w.sharedNATSubnetID(1))
	}

	w.deleteAndSettle(r, next.cr)
	w.expectNoHCPLinkResources()
}
