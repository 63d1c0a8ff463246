package azureprivatelink

import (
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

// TestSameNamedClustersInOneResourceGroup: workers resolve
// api.<name>.hypershift.local, so two clusters named alike cannot both have
// their zone in one resource group. The second is told so, keeps its
// endpoint, and never writes to or deletes anything of the first's.
func TestSameNamedClustersInOneResourceGroup(t *testing.T) {
	w := newWorld(t)
	cred := w.cpoIdentity()
	first := w.newClusterAs("demo", "demo-aaaaa", "pls-demo-a", hcplinkv1beta1.AzureTopologyPrivate, cred)
	first.until("first available", available)
	ipFirst := first.assertPath(t)

	second := w.newClusterAs("demo", "demo-bbbbb", "pls-demo-b", hcplinkv1beta1.AzureTopologyPrivate, cred)
	second.until("second told of the conflict", func(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
		return condition(cr, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition).Reason == hcplinkv1beta1.PrivateDNSZoneNameConflictReason
	})
	cr := second.get()
	got := condition(cr, hcplinkv1beta1.AzurePrivateDNSAvailableCondition)
	if got.Status != metav1.ConditionFalse || !strings.Contains(got.Message, "was not created by hcplink for this cluster") {
		t.Errorf("DNS condition %+v", got)
	}
	if avail := condition(cr, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition); avail.Status != metav1.ConditionFalse || avail.Reason != hcplinkv1beta1.PrivateDNSZoneNameConflictReason {
		t.Errorf("Available %+v", avail)
	}
	checkMessages(t, cr)
	if cr.Status.PrivateDNSZoneID != "" {
		t.Errorf("the second cluster claims zone %s", cr.Status.PrivateDNSZoneID)
	}
	if w.endpoint(second.endpointName()) == nil {
		t.Error("the second cluster's endpoint is gone")
	}
	// No hot loop: the rechecks grow, and they only read.
	var delays []time.Duration
	w.f.Server.Counters.Reset()
	for range 3 {
		res := second.reconcile()
		delays = append(delays, res.RequeueAfter)
		w.clk.Advance(res.RequeueAfter)
	}
	if delays[0] < 15*time.Second || delays[2] <= delays[0] {
		t.Errorf("rechecks of the conflict: %v", delays)
	}
	var mutating int64
	for _, count := range w.f.Server.Counters.Snapshot()[customer] {
		mutating += count.Mutating
	}
	if mutating != 0 {
		t.Errorf("rechecks of the conflict made %d mutating calls", mutating)
	}
	// The first's records, link and zone are as they were.
	first.reconcile()
	if got := first.assertPath(t); got != ipFirst {
		t.Errorf("the first's address moved: %s → %s", ipFirst, got)
	}
	if l := w.link(first.zone(), azurecloud.VNetLinkName("demo-bbbbb")); l != nil {
		t.Error("the second cluster linked the first's zone")
	}

	// Deleting the second touches nothing of the first's.
	second.deleteAndWait()
	first.reconcile()
	if got := first.assertPath(t); got != ipFirst {
		t.Errorf("after deleting the second, the first's address is %s, want %s", got, ipFirst)
	}
	if eps := w.endpoints(); len(eps) != 1 || eps[0] != first.endpointName() {
		t.Errorf("endpoints after deleting the second: %v", eps)
	}
}

// TestZoneOfTheNameAlreadyLinkedToTheVNet: the customer's own zone named
// like the cluster's, in another resource group, is linked to the guest
// VNet. Azure refuses our link's operation; the condition says what to do,
// rechecks grow, and once that link is removed the path comes up.
func TestZoneOfTheNameAlreadyLinkedToTheVNet(t *testing.T) {
	w := newWorld(t)
	groups, err := armresources.NewResourceGroupsClient(customer, w.admin, w.f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := groups.CreateOrUpdate(w.ctx, "dns-rg", armresources.ResourceGroup{Location: to.Ptr(location)}, nil); err != nil {
		t.Fatal(err)
	}
	pz, err := w.dns.NewPrivateZonesClient().BeginCreateOrUpdate(w.ctx, "dns-rg", "demo.hypershift.local", armprivatedns.PrivateZone{Location: to.Ptr("global")}, nil)
	done(w, pz, err)
	pl, err := w.dns.NewVirtualNetworkLinksClient().BeginCreateOrUpdate(w.ctx, "dns-rg", "demo.hypershift.local", "theirs",
		azurecloud.VNetLinkBody(guestVNet, nil), nil)
	done(w, pl, err)

	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, w.cpoIdentity())
	c.until("told of the link conflict", func(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
		return condition(cr, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition).Reason == hcplinkv1beta1.PrivateDNSZoneLinkConflictReason
	})
	cr := c.get()
	got := condition(cr, hcplinkv1beta1.AzurePrivateDNSAvailableCondition)
	if got.Status != metav1.ConditionFalse || !strings.Contains(got.Message, "already linked to another zone") || !strings.Contains(got.Message, "Remove that link") {
		t.Errorf("DNS condition %+v", got)
	}
	checkMessages(t, cr)
	// No hot loop: each recheck waits longer, and a recheck costs few calls.
	w.f.Server.Counters.Reset()
	var delays []time.Duration
	for range 4 {
		res := c.reconcile()
		delays = append(delays, res.RequeueAfter)
		w.clk.Advance(res.RequeueAfter)
		if r := condition(c.get(), hcplinkv1beta1.AzurePrivateDNSAvailableCondition).Reason; r != hcplinkv1beta1.PrivateDNSZoneLinkConflictReason {
			t.Fatalf("during the rechecks the DNS condition became %s", r)
		}
	}
	if delays[0] < 15*time.Second || delays[3] <= delays[1] || delays[3] < time.Minute {
		t.Errorf("rechecks of the link conflict: %v", delays)
	}
	var total int64
	for _, count := range w.f.Server.Counters.Snapshot()[customer] {
		total += count.Total
	}
	if total > 4*4 {
		t.Errorf("4 rechecks made %d calls", total)
	}

	// The customer removes their link: the path comes up.
	pd, err := w.dns.NewVirtualNetworkLinksClient().BeginDelete(w.ctx, "dns-rg", "demo.hypershift.local", "theirs", nil)
	done(w, pd, err)
	c.until("available once the other link is gone", available)
	c.assertPath(t)
}
