package azureprivatelink

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// The service is created in front of the frontend with the router's
// address, with its NAT address in the management cluster's shared NAT
// subnet, which hcplink places inside the VNet's free space,
// visible to and auto-approving the guest subnet's subscription; status
// and both conditions say so.
func TestCreatesTheServiceWithANATSubnetInsideTheVNet(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	r := w.reconciler(nil)
	w.settle(r, c.cr)

	name := azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)
	pls := w.pls(name)
	if pls == nil {
		t.Fatalf("no Private Link Service %s", name)
	}
	p := pls.Properties
	if got := frontendIDs(p.LoadBalancerFrontendIPConfigurations); len(got) != 1 || !strings.HasSuffix(got[0], "/loadBalancers/kubernetes-internal/frontendIPConfigurations/private-router") {
		t.Errorf("frontends = %v", got)
	}
	nat := natSubnetIDs(p.IPConfigurations)
	if len(nat) != 1 || !strings.EqualFold(nat[0], w.vnetID+"/subnets/"+azurecloud.SharedNATSubnetName(w.managerID, 1)) {
		t.Fatalf("NAT subnets = %v", nat)
	}
	natSubnet, err := w.mgmt.NewSubnetsClient().Get(w.ctx, mgmtRG, "mgmt", azurecloud.SharedNATSubnetName(w.managerID, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	prefix := netip.MustParsePrefix(*natSubnet.Properties.AddressPrefix)
	if !netip.MustParsePrefix("10.0.0.0/16").Contains(prefix.Addr()) || prefix.Overlaps(netip.MustParsePrefix("10.0.0.0/24")) ||
		prefix.Overlaps(netip.MustParsePrefix("10.0.1.0/24")) || prefix.Overlaps(netip.MustParsePrefix("10.0.2.0/24")) {
		t.Errorf("the NAT subnet %s is not in the VNet's free space", prefix)
	}
	if want := []string{customerSub}; !slices.Equal(normalized(p.Visibility.Subscriptions), want) || !slices.Equal(normalized(p.AutoApproval.Subscriptions), want) {
		t.Errorf("visibility %v, auto-approval %v, want %v", normalized(p.Visibility.Subscriptions), normalized(p.AutoApproval.Subscriptions), want)
	}
	if !azurecloud.OwnedBy(pls.Tags, c.hc.Spec.InfraID, c.cr.Name) || tagValue(pls.Tags, azurecloud.ManagementClusterTagKey) != w.managerID {
		t.Errorf("tags = %v", pls.Tags)
	}

	get(t, c.cr)
	st := c.cr.Status
	if st.PrivateLinkServiceID != *pls.ID || st.PrivateLinkServiceAlias != *p.Alias || st.PrivateLinkServiceAlias == "" ||
		!strings.HasSuffix(st.InternalLoadBalancerID, "/loadBalancers/kubernetes-internal") || !strings.EqualFold(st.NATSubnetID, nat[0]) {
		t.Errorf("status = %+v", st)
	}
	if !controllerutil.ContainsFinalizer(c.cr, hcplinkv1beta1.OperatorFinalizer) {
		t.Error("no operator finalizer")
	}
	for _, ct := range ownedConditions {
		cond := condition(t, c.cr, ct)
		if cond.Status != metav1.ConditionTrue || cond.Reason != hcplinkv1beta1.AzureSuccessReason || cond.ObservedGeneration != c.cr.Generation {
			t.Errorf("%s = %+v", ct, cond)
		}
	}

	// Steady state: a drift check writes nothing.
	writes := w.calls("privateLinkServices/write").Total + w.calls("virtualNetworks/subnets/write").Total
	w.clk.Advance(testDrift)
	w.reconcile(r, c.cr)
	if after := w.calls("privateLinkServices/write").Total + w.calls("virtualNetworks/subnets/write").Total; after != writes {
		t.Errorf("a drift check of a matching service wrote %d times", after-writes)
	}
}

// Before the control-plane operator reports the address, the object waits
// (no Azure call) and says why.
func TestWaitsForTheLoadBalancerAddress(t *testing.T) {
	w := newWorld(t)
	c := w.cluster(func(_ *hcplinkv1beta1.HostedCluster, cr *hcplinkv1beta1.AzurePrivateLinkService) {
		cr.Spec.LoadBalancerIP = ""
	})
	r := w.reconciler(nil)
	before := w.calls("loadBalancers/read").Total
	if res := w.reconcile(r, c.cr); res.RequeueAfter != 0 {
		t.Errorf("waiting on the control-plane operator requeues after %v; its spec write wakes us", res.RequeueAfter)
	}
	if cond := condition(t, c.cr, hcplinkv1beta1.AzureInternalLoadBalancerAvailableCondition); cond.Reason != hcplinkv1beta1.WaitingForLoadBalancerIPReason {
		t.Errorf("condition = %+v", cond)
	}
	if w.calls("loadBalancers/read").Total != before {
		t.Error("called Azure without an address")
	}
	// An address no frontend has.
	update(t, c.cr, func() { c.cr.Spec.LoadBalancerIP = "10.0.1.99" })
	w.reconcile(r, c.cr)
	if cond := condition(t, c.cr, hcplinkv1beta1.AzureInternalLoadBalancerAvailableCondition); cond.Reason != hcplinkv1beta1.InternalLoadBalancerNotFoundReason ||
		!strings.Contains(cond.Message, "10.0.1.99") {
		t.Errorf("condition = %+v", cond)
	}
}

// A service created before its status was written (the operator restarted
// in between) is found again by name and tags: no second service, same
// alias.
func TestAdoptsTheServiceAfterALostStatus(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	w.settle(w.reconciler(nil), c.cr)
	get(t, c.cr)
	alias, id := c.cr.Status.PrivateLinkServiceAlias, c.cr.Status.PrivateLinkServiceID
	patchStatus(t, c.cr, map[string]any{"privateLinkServiceID": nil, "privateLinkServiceAlias": nil, "natSubnetID": nil, "internalLoadBalancerID": nil})

	writes := w.calls("privateLinkServices/write").Total
	w.settle(w.reconciler(nil), c.cr) // a new process
	get(t, c.cr)
	if c.cr.Status.PrivateLinkServiceAlias != alias || c.cr.Status.PrivateLinkServiceID != id {
		t.Errorf("after adoption status = %+v, want alias %s", c.cr.Status, alias)
	}
	if got := w.calls("privateLinkServices/write").Total; got != writes {
		t.Errorf("adoption wrote the service %d times", got-writes)
	}
	n := 0
	for pager := w.mgmt.NewPrivateLinkServicesClient().NewListPager(mgmtRG, nil); pager.More(); {
		page, err := pager.NextPage(w.ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Value)
	}
	if n != 1 {
		t.Errorf("%d services in the group, want 1", n)
	}
}

// A service with our name that is another management cluster's is never
// adopted or changed.
func TestLeavesAnotherManagementClustersServiceAlone(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	w.settle(w.reconciler(nil), c.cr)
	patchStatus(t, c.cr, map[string]any{"privateLinkServiceID": nil, "privateLinkServiceAlias": nil})
	other := w.reconciler(nil)
	other.ManagementClusterID = "mgmt-cluster-2"
	writes := w.calls("privateLinkServices/write").Total
	w.reconcile(other, c.cr)
	cond := condition(t, c.cr, hcplinkv1beta1.AzurePLSCreatedCondition)
	if cond.Status != metav1.ConditionFalse || cond.Reason != hcplinkv1beta1.OwnedByAnotherManagementClusterReason {
		t.Errorf("condition = %+v", cond)
	}
	if w.calls("privateLinkServices/write").Total != writes {
		t.Error("wrote another management cluster's service")
	}
}

// A change of additionalAllowedSubscriptions on the HostedCluster reaches
// the service in the one pass it starts, both ways.
func TestAdditionalSubscriptionsReachTheServiceInOnePass(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	r := w.reconciler(nil)
	w.settle(r, c.cr)
	name := azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)

	setAdditional(t, c.hc, []string{strings.ToUpper(foreignSub)})
	w.reconcile(r, c.cr)
	want := []string{customerSub, foreignSub}
	p := w.pls(name).Properties
	if !slices.Equal(normalized(p.Visibility.Subscriptions), want) || !slices.Equal(normalized(p.AutoApproval.Subscriptions), want) {
		t.Errorf("after one pass: visibility %v, auto-approval %v, want %v", normalized(p.Visibility.Subscriptions), normalized(p.AutoApproval.Subscriptions), want)
	}
	w.settle(r, c.cr)
	if cond := condition(t, c.cr, hcplinkv1beta1.AzurePLSCreatedCondition); !strings.Contains(cond.Message, "2 subscriptions") {
		t.Errorf("condition = %+v", cond)
	}

	setAdditional(t, c.hc, nil)
	w.reconcile(r, c.cr)
	p = w.pls(name).Properties
	if want := []string{customerSub}; !slices.Equal(normalized(p.Visibility.Subscriptions), want) || !slices.Equal(normalized(p.AutoApproval.Subscriptions), want) {
		t.Errorf("after removal: visibility %v, auto-approval %v", normalized(p.Visibility.Subscriptions), normalized(p.AutoApproval.Subscriptions))
	}
}

// Drift made behind hcplink's back — a subscription added by hand, the
// frontend or NAT subnet swapped — is put back at the next drift check.
func TestPutsBackADriftedService(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	r := w.reconciler(nil)
	w.settle(r, c.cr)
	name := azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)
	pls := w.pls(name)
	pls.Properties.Visibility.Subscriptions = append(pls.Properties.Visibility.Subscriptions, to.Ptr(foreignSub))
	pls.Properties.IPConfigurations[0].Properties.Subnet.ID = to.Ptr(w.givenNAT)
	pls.Properties.IPConfigurations[0].Properties.PrivateIPAddress = nil
	p, err := w.mgmt.NewPrivateLinkServicesClient().BeginCreateOrUpdate(w.ctx, mgmtRG, name, *pls, nil)
	finish(w, p, err)

	w.clk.Advance(testDrift * 2)
	w.settle(r, c.cr)
	got := w.pls(name).Properties
	if !slices.Equal(normalized(got.Visibility.Subscriptions), []string{customerSub}) {
		t.Errorf("visibility = %v", normalized(got.Visibility.Subscriptions))
	}
	get(t, c.cr)
	if nat := natSubnetIDs(got.IPConfigurations); len(nat) != 1 || !strings.EqualFold(nat[0], c.cr.Status.NATSubnetID) {
		t.Errorf("NAT subnet = %v, want %s", nat, c.cr.Status.NATSubnetID)
	}
}

// A service deleted behind hcplink's back is created again at the next
// drift check (the first to list the services after the deletion), with a
// new alias in status (the control-plane operator replaces its endpoint on
// it).
func TestRecreatesADeletedServiceWithANewAlias(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	r := w.reconciler(nil)
	w.settle(r, c.cr)
	get(t, c.cr)
	old := c.cr.Status.PrivateLinkServiceAlias
	name := azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)
	p, err := w.mgmt.NewPrivateLinkServicesClient().BeginDelete(w.ctx, mgmtRG, name, nil)
	finish(w, p, err)

	w.clk.Advance(testDrift)
	w.reconcile(r, c.cr)
	get(t, c.cr)
	if c.cr.Status.PrivateLinkServiceAlias != "" {
		t.Errorf("while the service is recreated the old alias %s stays published", c.cr.Status.PrivateLinkServiceAlias)
	}
	w.settle(r, c.cr)
	get(t, c.cr)
	if now := c.cr.Status.PrivateLinkServiceAlias; now == "" || now == old || now != *w.pls(name).Properties.Alias {
		t.Errorf("alias after recreation = %q (was %q)", now, old)
	}
}

// A NAT subnet the cluster names is used as given and never deleted; the
// one hcplink created goes with the object.
func TestNATSubnetGivenOrCreatedAndDeletion(t *testing.T) {
	w := newWorld(t)
	given := w.cluster(func(hc *hcplinkv1beta1.HostedCluster, cr *hcplinkv1beta1.AzurePrivateLinkService) {
		hc.Spec.Platform.Azure.Private.PrivateLink = &hcplinkv1beta1.AzurePrivateLinkSpec{NATSubnetID: w.givenNAT}
		cr.Spec.NATSubnetID = w.givenNAT
	})
	r := w.reconciler(nil)
	w.settle(r, given.cr)
	name := azurecloud.PrivateLinkServiceName(given.hc.Spec.ClusterID)
	if nat := natSubnetIDs(w.pls(name).Properties.IPConfigurations); len(nat) != 1 || !strings.EqualFold(nat[0], w.givenNAT) {
		t.Errorf("NAT subnet = %v, want the given one", nat)
	}
	if w.subnetExists(w.vnetID + "/subnets/" + azurecloud.SharedNATSubnetName(w.managerID, 1)) {
		t.Error("a NAT subnet was created although one was given")
	}
	w.deleteAndSettle(r, given.cr)
	if w.pls(name) != nil || !w.subnetExists(w.givenNAT) {
		t.Errorf("after deletion: service %v, given subnet exists %v", w.pls(name) != nil, w.subnetExists(w.givenNAT))
	}

	created := w.cluster()
	w.settle(r, created.cr)
	get(t, created.cr)
	natID := created.cr.Status.NATSubnetID
	if !w.subnetExists(natID) {
		t.Fatalf("the created NAT subnet %s does not exist", natID)
	}
	w.deleteAndSettle(r, created.cr)
	if w.pls(azurecloud.PrivateLinkServiceName(created.hc.Spec.ClusterID)) != nil || w.subnetExists(natID) {
		t.Error("the service or the created NAT subnet outlived the object")
	}
}

// Deletion waits for the control-plane operator, then rejects a foreign
// subscription's connection, removes it, deletes the service and drops
// the finalizer.
func TestDeletionRejectsAForeignConnectionThenDeletes(t *testing.T) {
	w := newWorld(t)
	c := w.cluster(func(hc *hcplinkv1beta1.HostedCluster, _ *hcplinkv1beta1.AzurePrivateLinkService) {
		hc.Spec.Platform.Azure.Private.PrivateLink = &hcplinkv1beta1.AzurePrivateLinkSpec{AdditionalAllowedSubscriptions: []string{foreignSub}}
	})
	r := w.reconciler(nil)
	w.settle(r, c.cr)
	get(t, c.cr)
	pe := w.foreignEndpoint(c.cr.Status.PrivateLinkServiceAlias)
	if status := endpointStatus(w.endpoint(pe)); status != "Approved" {
		t.Fatalf("the foreign endpoint is %s, want Approved", status)
	}

	update(t, c.cr, func() { controllerutil.AddFinalizer(c.cr, hcplinkv1beta1.ControlPlaneFinalizer) })
	if err := env.Client.Delete(w.ctx, c.cr); err != nil {
		t.Fatal(err)
	}
	w.reconcile(r, c.cr)
	if cond := condition(t, c.cr, hcplinkv1beta1.AzurePLSCreatedCondition); cond.Reason != hcplinkv1beta1.WaitingForControlPlaneCleanupReason {
		t.Errorf("while the control-plane operator cleans up: %+v", cond)
	}
	if w.pls(azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)) == nil {
		t.Fatal("the service was deleted before the control-plane operator's cleanup")
	}
	update(t, c.cr, func() { controllerutil.RemoveFinalizer(c.cr, hcplinkv1beta1.ControlPlaneFinalizer) })

	rejects := w.calls("privateLinkServices/privateEndpointConnections/write").Total
	w.deleteAndSettle(r, c.cr)
	if got := w.calls("privateLinkServices/privateEndpointConnections/write").Total; got <= rejects {
		t.Error("the foreign connection was not rejected")
	}
	if status := endpointStatus(w.endpoint(pe)); status != "Rejected" && status != "Disconnected" {
		t.Errorf("the foreign endpoint shows %s after deletion", status)
	}
	if w.pls(azurecloud.PrivateLinkServiceName(c.hc.Spec.ClusterID)) != nil {
		t.Error("the service outlived the object")
	}
}

// Azure's refusals reach the conditions as code and plain words: no
// subscription IDs, URLs or JSON.
func TestConditionMessagesAreSanitised(t *testing.T) {
	w := newWorld(t)
	c := w.cluster()
	reader := w.f.AzureServicePrincipalWithRole(t, "hcplink-reader", "Reader", "/subscriptions/"+mgmtSub)
	r := w.reconciler(w.f.AzureCredential(t, reader))
	for range 3 {
		w.reconcile(r, c.cr)
		w.clk.Advance(time.Minute)
	}
	cond := condition(t, c.cr, hcplinkv1beta1.AzurePLSCreatedCondition)
	if cond.Status != metav1.ConditionFalse || cond.Reason != hcplinkv1beta1.AccessDeniedReason {
		t.Fatalf("condition = %+v", cond)
	}
	if !strings.Contains(cond.Message, "AuthorizationFailed") || !strings.Contains(cond.Message, "Microsoft.Network/virtualNetworks/subnets/write") {
		t.Errorf("the message does not name the code and the missing action: %q", cond.Message)
	}
	get(t, c.cr)
	for _, cd := range c.cr.Status.Conditions {
		for _, bad := range []string{mgmtSub, customerSub, "/subscriptions/", "http://", "https://", "{", "x-ms-", "correlation"} {
			if strings.Contains(cd.Message, bad) {
				t.Errorf("%s message contains %q: %q", cd.Type, bad, cd.Message)
			}
		}
	}
}
