package azureprivatelink

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// Two management clusters in one subscription reuse the same VNet ranges,
// so their routers' internal load balancers hold the same address: one in
// the world's resource group, the other in its own group, and a third in
// the world's group but another VNet. Each operator, scoped to its
// cluster's resource group (and VNet), puts its service on its own load
// balancer; an operator scoped to a group holding the address in two VNets
// does not guess.
func TestEachManagementClusterTakesOnlyItsOwnLoadBalancer(t *testing.T) {
	w := newWorld(t)
	admin := w.f.AzureAdminCredential(t)
	const otherRG = "mgmt-b-rg"
	w.group(admin, mgmtSub, otherRG)
	// The other management cluster: same ranges, its own group.
	other := w.vnet(w.mgmt, otherRG, "mgmt", "10.0.0.0/16", subnet("nodes", "10.0.0.0/24", ""), subnet("lb", "10.0.1.0/24", ""))
	w.internalLBIn(otherRG, "eastus", "kubernetes-internal", *other.ID+"/subnets/lb", lbIP)

	mine := w.reconciler(nil)
	theirs := w.reconciler(nil)
	theirs.ManagementClusterID = "mgmt-cluster-2"
	theirs.Cloud.LoadBalancers = azurecloud.LoadBalancerScope{ResourceGroup: otherRG}

	a, b := w.cluster(), w.cluster()
	w.settle(mine, a.cr)
	w.settle(theirs, b.cr)
	get(t, a.cr)
	get(t, b.cr)
	if got := azurecloud.ResourceGroupOf(a.cr.Status.InternalLoadBalancerID); got != mgmtRG {
		t.Errorf("this management cluster's service is on a load balancer of %s (%s), want %s", got, a.cr.Status.InternalLoadBalancerID, mgmtRG)
	}
	if got := azurecloud.ResourceGroupOf(b.cr.Status.InternalLoadBalancerID); got != otherRG {
		t.Errorf("the other management cluster's service is on a load balancer of %s (%s), want %s", got, b.cr.Status.InternalLoadBalancerID, otherRG)
	}
	if pls := w.pls(azurecloud.PrivateLinkServiceName(a.hc.Spec.ClusterID)); pls == nil ||
		!strings.HasPrefix(strings.ToLower(frontendIDs(pls.Properties.LoadBalancerFrontendIPConfigurations)[0]), strings.ToLower(w.vnetID[:strings.Index(w.vnetID, "/providers/")])) {
		t.Errorf("this management cluster's service is not on its own frontend: %+v", pls)
	}

	// A third load balancer with the address, in this cluster's group but
	// another VNet: without the VNet the operator cannot tell, and says so;
	// with it, it takes its own.
	third := w.vnet(w.mgmt, mgmtRG, "mgmt-c", "10.0.0.0/16", subnet("lb", "10.0.1.0/24", ""))
	w.internalLBIn(mgmtRG, "eastus", "kubernetes-internal-c", *third.ID+"/subnets/lb", lbIP)
	fresh := w.reconciler(nil)
	c := w.cluster()
	w.reconcile(fresh, c.cr)
	if cond := condition(t, c.cr, hcplinkv1beta1.AzureInternalLoadBalancerAvailableCondition); cond.Status != metav1.ConditionFalse ||
		cond.Reason != hcplinkv1beta1.InternalLoadBalancerAmbiguousReason || !strings.Contains(cond.Message, "--azure-vnet-id") {
		t.Errorf("with two VNets holding the address: %+v", cond)
	}
	if w.pls(azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)) != nil {
		t.Error("a Private Link Service was created on a guess")
	}
	fresh.Cloud.LoadBalancers.VNetID = w.vnetID
	w.settle(fresh, c.cr)
	get(t, c.cr)
	if !strings.HasSuffix(c.cr.Status.InternalLoadBalancerID, "/loadBalancers/kubernetes-internal") {
		t.Errorf("with the VNet: load balancer %s, want kubernetes-internal", c.cr.Status.InternalLoadBalancerID)
	}
}

// A customer in another region than the management cluster: the service
// goes in its load balancer's region (Azure refuses any other), and the
// customer's endpoint may connect from its own.
func TestTheServiceIsInItsLoadBalancersRegion(t *testing.T) {
	w := newWorld(t)
	c := w.cluster(func(hc *hcplinkv1beta1.HostedCluster, cr *hcplinkv1beta1.AzurePrivateLinkService) {
		hc.Spec.Platform.Azure.Location, cr.Spec.Location = "westus", "westus"
	})
	r := w.reconciler(nil)
	w.settle(r, c.cr)
	pls := w.pls(azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID))
	if pls == nil || deref(pls.Location) != "eastus" {
		t.Fatalf("the service's location = %v, want the load balancer's (eastus)", pls)
	}
}

// A Pending connection from an allowed subscription is approved (Azure
// approves automatically only when the endpoint is made: here the
// service's auto-approval had been emptied behind hcplink's back when the
// customer connected); one from a subscription that is not allowed is
// rejected. status.privateEndpointConnectionState follows the
// connection of status.privateEndpointID.
func TestPendingConnectionsFromAllowedSubscriptionsAreApproved(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	setAdditional(t, c.hc, []string{foreignSub})
	r := w.reconciler(nil)
	w.settle(r, c.cr)
	name := azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)

	// Behind hcplink's back: visible to every subscription, approving none.
	openUp := func() {
		pls := w.pls(name)
		pls.Properties.AutoApproval.Subscriptions = nil
		pls.Properties.Visibility.Subscriptions = []*string{to.Ptr("*")}
		pls.Properties.PrivateEndpointConnections, pls.Properties.NetworkInterfaces = nil, nil
		p, err := w.mgmt.NewPrivateLinkServicesClient().BeginCreateOrUpdate(w.ctx, mgmtRG, name, *pls, nil)
		finish(w, p, err)
	}
	openUp()
	get(t, c.cr)
	pe := w.foreignEndpoint(c.cr.Status.PrivateLinkServiceAlias)
	if got := endpointStatus(w.endpoint(pe)); got != "Pending" {
		t.Fatalf("the endpoint made while its subscription was not auto-approved is %s, want Pending", got)
	}
	patchStatus(t, c.cr, map[string]any{"privateEndpointID": *w.endpoint(pe).ID})
	w.clk.Advance(testDrift)
	w.settle(r, c.cr)
	w.reconcile(r, c.cr)
	if got := endpointStatus(w.endpoint(pe)); got != "Approved" {
		t.Errorf("the endpoint from an allowed subscription is %s, want Approved", got)
	}
	get(t, c.cr)
	if got := c.cr.Status.PrivateEndpointConnectionState; got != "Approved" {
		t.Errorf("status.privateEndpointConnectionState = %q, want Approved", got)
	}

	// The foreign subscription is no longer allowed; an endpoint it makes
	// while the service is open to all is rejected.
	setAdditional(t, c.hc, nil)
	w.settle(r, c.cr)
	openUp()
	get(t, c.cr)
	other := w.foreignEndpointNamed("foreign-pe-2", c.cr.Status.PrivateLinkServiceAlias)
	w.clk.Advance(testDrift)
	w.settle(r, c.cr)
	w.reconcile(r, c.cr)
	if got := endpointStatus(w.endpoint(other)); got != "Rejected" {
		t.Errorf("the endpoint from a subscription that is not allowed is %s, want Rejected", got)
	}
	if got := endpointStatus(w.endpoint(pe)); got != "Approved" {
		t.Errorf("the endpoint approved earlier is %s; hcplink leaves approved connections alone", got)
	}
}

// A subnet someone else made with the name hcplink would give the
// management cluster's first shared NAT subnet is neither used nor
// deleted: the cluster gets the second, and deleting the cluster deletes
// that one and leaves the foreign one.
func TestAForeignSubnetWithOurNameIsNeverUsedOrDeleted(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	name := azurecloud.SharedNATSubnetName(w.managerID, 1)
	p, err := w.mgmt.NewSubnetsClient().BeginCreateOrUpdate(w.ctx, mgmtRG, "mgmt", name, azurecloud.NATSubnetBody("10.0.200.0/28"), nil)
	finish(w, p, err)
	foreign := w.vnetID + "/subnets/" + name

	r := w.reconciler(nil)
	w.settle(r, c.cr)
	get(t, c.cr)
	second := w.vnetID + "/subnets/" + azurecloud.SharedNATSubnetName(w.managerID, 2)
	if !strings.EqualFold(c.cr.Status.NATSubnetID, second) {
		t.Errorf("status.natSubnetID = %s, want the second shared subnet %s (the first is not ours)", c.cr.Status.NATSubnetID, second)
	}
	if nat := natSubnetIDs(w.pls(azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)).Properties.IPConfigurations); len(nat) != 1 || strings.EqualFold(nat[0], foreign) {
		t.Errorf("the service's NAT subnets = %v: on a subnet hcplink did not create", nat)
	}
	w.deleteAndSettle(r, c.cr)
	if !w.subnetExists(foreign) {
		t.Error("deleting the cluster deleted a subnet hcplink did not create")
	}
	if w.subnetExists(second) {
		t.Error("the shared NAT subnet hcplink made outlived its last cluster")
	}
}

// Many clusters at once, on concurrent workers: they share one NAT
// subnet, made once (one worker creates it, the others wait for it).
func TestManyClustersAtOnceShareOneNATSubnet(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(nil)
	var clusters []*cluster
	for range 6 {
		clusters = append(clusters, w.cluster())
	}
	writesBefore := w.calls("virtualNetworks/subnets/write").Total
	vnetReadsBefore := w.calls("virtualNetworks/read").Total
	ready := map[int]bool{}
	for round := 0; len(ready) < len(clusters) && round < 40; round++ {
		var wg sync.WaitGroup
		for i, c := range clusters {
			if ready[i] {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = r.Reconcile(w.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(c.cr)})
			}()
		}
		wg.Wait()
		for i, c := range clusters {
			get(t, c.cr)
			if cond := meta.FindStatusCondition(c.cr.Status.Conditions, hcplinkv1beta1.AzurePLSCreatedCondition); cond != nil && cond.Status == metav1.ConditionTrue {
				ready[i] = true
			}
		}
		w.clk.Advance(time.Minute)
	}
	if writes := w.calls("virtualNetworks/subnets/write").Total - writesBefore; writes != 1 {
		t.Errorf("%d NAT subnet writes for %d clusters, want one shared subnet written once", writes, len(clusters))
	}
	if reads := w.calls("virtualNetworks/read").Total - vnetReadsBefore; reads != 1 {
		t.Errorf("the VNet was read %d times, want once", reads)
	}
	shared := w.vnetID + "/subnets/" + azurecloud.SharedNATSubnetName(w.managerID, 1)
	for _, c := range clusters {
		get(t, c.cr)
		if !meta.IsStatusConditionTrue(c.cr.Status.Conditions, hcplinkv1beta1.AzurePLSCreatedCondition) {
			t.Fatalf("cluster %s is not ready: %+v", c.hc.Name, c.cr.Status.Conditions)
		}
		if !strings.EqualFold(c.cr.Status.NATSubnetID, shared) {
			t.Errorf("cluster %s: status.natSubnetID = %s, want %s", c.hc.Name, c.cr.Status.NATSubnetID, shared)
		}
		if nat := natSubnetIDs(w.pls(azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)).Properties.IPConfigurations); len(nat) != 1 || !strings.EqualFold(nat[0], shared) {
			t.Errorf("cluster %s: the service's NAT subnets = %v, want %s", c.hc.Name, nat, shared)
		}
	}
}

// The shared NAT subnet goes with its last cluster: deleting one of two
// leaves it to the other (Azure would refuse anyway while a service is on
// it), deleting the other deletes it.
func TestTheLastClusterToLeaveDeletesTheSharedNATSubnet(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(nil)
	a, b := w.cluster(), w.cluster()
	w.settle(r, a.cr)
	w.settle(r, b.cr)
	get(t, a.cr)
	shared := a.cr.Status.NATSubnetID
	if get(t, b.cr); !strings.EqualFold(b.cr.Status.NATSubnetID, shared) || shared == "" {
		t.Fatalf("the clusters' NAT subnets: %s and %s, want one shared", shared, b.cr.Status.NATSubnetID)
	}
	w.deleteAndSettle(r, a.cr)
	if !w.subnetExists(shared) {
		t.Fatal("deleting one cluster deleted the NAT subnet the other still uses")
	}
	if w.pls(azurecloud.PrivateLinkServiceName(b.hc.Spec.ClusterID)) == nil {
		t.Fatal("the other cluster's service is gone")
	}
	w.deleteAndSettle(r, b.cr)
	if w.subnetExists(shared) {
		t.Error("the shared NAT subnet outlived its last cluster")
	}
}

// Two management clusters whose load balancers are in one VNet each make
// and use their own shared NAT subnet, and deleting one's clusters never
// deletes the other's subnet.
func TestTwoManagementClustersInOneVNetKeepTheirOwnNATSubnets(t *testing.T) {
	w := newWorld(t)
	mine := w.reconciler(nil)
	theirs := w.reconciler(nil)
	theirs.ManagementClusterID = w.managerID + "-other"
	a, b := w.cluster(), w.cluster()
	w.settle(mine, a.cr)
	w.settle(theirs, b.cr)
	get(t, a.cr)
	get(t, b.cr)
	ours := w.vnetID + "/subnets/" + azurecloud.SharedNATSubnetName(mine.ManagementClusterID, 1)
	other := w.vnetID + "/subnets/" + azurecloud.SharedNATSubnetName(theirs.ManagementClusterID, 1)
	if !strings.EqualFold(a.cr.Status.NATSubnetID, ours) || !strings.EqualFold(b.cr.Status.NATSubnetID, other) {
		t.Fatalf("NAT subnets: %s and %s, want %s and %s", a.cr.Status.NATSubnetID, b.cr.Status.NATSubnetID, ours, other)
	}
	w.deleteAndSettle(mine, a.cr)
	if w.subnetExists(ours) {
		t.Error("our shared NAT subnet outlived our last cluster")
	}
	if !w.subnetExists(other) || w.pls(azurecloud.PrivateLinkServiceName(b.hc.Spec.ClusterID)) == nil {
		t.Error("deleting our cluster touched the other management cluster's NAT subnet or service")
	}
}

// A full shared NAT subnet is followed by a second; a VNet with no room
// for another says so, naming what to do, and makes nothing.
func TestAFullNATSubnetGrowsASecondAndAFullVNetSaysSo(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(nil)
	r.NATSubnetPrefixLength = 29 // three addresses
	var clusters []*cluster
	for range 4 {
		c := w.cluster()
		w.settle(r, c.cr)
		get(t, c.cr)
		clusters = append(clusters, c)
	}
	first := w.vnetID + "/subnets/" + azurecloud.SharedNATSubnetName(w.managerID, 1)
	second := w.vnetID + "/subnets/" + azurecloud.SharedNATSubnetName(w.managerID, 2)
	for i, c := range clusters {
		want := first
		if i == 3 {
			want = second
		}
		if !strings.EqualFold(c.cr.Status.NATSubnetID, want) {
			t.Errorf("cluster %d: status.natSubnetID = %s, want %s", i+1, c.cr.Status.NATSubnetID, want)
		}
	}

	// A small VNet: room for the load balancer's subnet and one /29.
	small := w.vnet(w.mgmt, mgmtRG, "small", "10.9.0.0/28", subnet("lb", "10.9.0.0/29", ""))
	w.internalLB("small-internal", *small.ID+"/subnets/lb", "10.9.0.4")
	onSmall := func() *cluster {
		return w.cluster(func(_ *hcplinkv1beta1.HostedCluster, cr *hcplinkv1beta1.AzurePrivateLinkService) {
			cr.Spec.LoadBalancerIP = "10.9.0.4"
		})
	}
	for range 3 {
		w.settle(r, onSmall().cr)
	}
	subnetWrites := w.calls("virtualNetworks/subnets/write").Total
	full := onSmall()
	for range 3 {
		w.reconcile(r, full.cr)
		w.clk.Advance(time.Minute)
	}
	cond := condition(t, full.cr, hcplinkv1beta1.AzurePLSCreatedCondition)
	if cond.Status != metav1.ConditionFalse || cond.Reason != hcplinkv1beta1.NATAddressSpaceExhaustedReason || !strings.Contains(cond.Message, "natSubnetID") {
		t.Errorf("the cluster with no room: %+v, want False/%s saying what to do", cond, hcplinkv1beta1.NATAddressSpaceExhaustedReason)
	}
	if w.pls(azurecloud.PrivateLinkServiceName(full.hc.Spec.ClusterID)) != nil {
		t.Error("a service was made for the cluster with no room")
	}
	if got := w.calls("virtualNetworks/subnets/write").Total; got != subnetWrites {
		t.Errorf("%d subnet writes for a VNet with no room", got-subnetWrites)
	}
}

// Azure allows 8 Private Link Services per load balancer: with nine
// clusters' routers on one internal load balancer (the cloud provider's
// default: one shared internal load balancer), eight get their service
// and the ninth a condition naming the load balancer, the count and what
// to configure — not a generic error.
func TestTheNinthServiceOnALoadBalancerIsAClearCondition(t *testing.T) {
	w := newWorld(t)
	var fes []*armnetwork.FrontendIPConfiguration
	var ips []string
	for i := range 9 {
		ip := fmt.Sprintf("10.0.1.%d", 20+i)
		ips = append(ips, ip)
		fes = append(fes, &armnetwork.FrontendIPConfiguration{Name: to.Ptr(fmt.Sprintf("router-%d", i)), Properties: &armnetwork.FrontendIPConfigurationPropertiesFormat{
			Subnet: &armnetwork.Subnet{ID: to.Ptr(w.vnetID + "/subnets/lb")}, PrivateIPAllocationMethod: to.Ptr(armnetwork.IPAllocationMethodStatic), PrivateIPAddress: to.Ptr(ip),
		}})
	}
	p, err := w.mgmt.NewLoadBalancersClient().BeginCreateOrUpdate(w.ctx, mgmtRG, "shared-internal", armnetwork.LoadBalancer{
		Location: to.Ptr("eastus"), SKU: &armnetwork.LoadBalancerSKU{Name: to.Ptr(armnetwork.LoadBalancerSKUNameStandard)},
		Properties: &armnetwork.LoadBalancerPropertiesFormat{FrontendIPConfigurations: fes, BackendAddressPools: []*armnetwork.BackendAddressPool{{Name: to.Ptr("pool")}}},
	}, nil)
	finish(w, p, err)

	r := w.reconciler(nil)
	var clusters []*cluster
	for _, ip := range ips {
		clusters = append(clusters, w.cluster(func(_ *hcplinkv1beta1.HostedCluster, cr *hcplinkv1beta1.AzurePrivateLinkService) {
			cr.Spec.LoadBalancerIP = ip
		}))
	}
	for _, c := range clusters[:8] {
		w.settle(r, c.cr)
	}
	ninth := clusters[8]
	for range 3 {
		w.reconcile(r, ninth.cr)
		w.clk.Advance(time.Minute)
	}
	cond := condition(t, ninth.cr, hcplinkv1beta1.AzurePLSCreatedCondition)
	if cond.Status != metav1.ConditionFalse || cond.Reason != hcplinkv1beta1.LoadBalancerPrivateLinkServiceLimitReason ||
		!strings.Contains(cond.Message, "shared-internal") || !strings.Contains(cond.Message, "8 Private Link Services") ||
		!strings.Contains(cond.Message, "multipleStandardLoadBalancerConfigurations") {
		t.Errorf("the ninth cluster: %+v", cond)
	}
	if w.pls(azurecloud.PrivateLinkServiceName(ninth.hc.Spec.ClusterID)) != nil {
		t.Error("a ninth Private Link Service exists on the load balancer")
	}
}

// Azure changes one subnet of a VNet at a time: a cluster that needs the
// shared NAT subnet while another cluster is creating it waits without
// asking Azure, is woken (not left to a timer) when that creation ends,
// and then uses the subnet without writing it again.
func TestANATSubnetWaitsForTheVNetsTurnAndIsWokenWhenItEnds(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(nil)
	r.turnFreed = make(chan event.GenericEvent, 8)
	first, second := w.cluster(), w.cluster()
	message := func(c *cluster) string {
		return condition(t, c.cr, hcplinkv1beta1.AzurePLSCreatedCondition).Message
	}
	w.reconcile(r, first.cr)
	if m := message(first); !strings.Contains(m, "is being created") {
		t.Fatalf("first: %q, want its NAT subnet being created", m)
	}
	writes := w.calls("virtualNetworks/subnets/write").Total
	w.reconcile(r, second.cr)
	if m := message(second); !strings.Contains(m, "Waiting for another cluster to finish creating NAT subnet") {
		t.Fatalf("second: %q, want it waiting for the shared subnet", m)
	}
	select {
	case e := <-r.turnFreed:
		t.Fatalf("woken before the turn ended: %v", client.ObjectKeyFromObject(e.Object))
	default:
	}
	w.clk.Advance(time.Second)
	w.reconcile(r, first.cr) // its creation ends
	select {
	case e := <-r.turnFreed:
		if client.ObjectKeyFromObject(e.Object) != client.ObjectKeyFromObject(second.cr) {
			t.Errorf("woke %v, want the waiting cluster", client.ObjectKeyFromObject(e.Object))
		}
	default:
		t.Fatal("the waiting cluster was not woken when the VNet's turn ended")
	}
	w.settle(r, second.cr)
	if got := w.calls("virtualNetworks/subnets/write").Total; got != writes {
		t.Errorf("%d more subnet writes: the waiting cluster wrote the shared subnet again", got-writes)
	}
}
