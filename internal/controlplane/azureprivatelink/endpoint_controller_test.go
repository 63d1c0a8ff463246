package azureprivatelink

import (
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
)

// cpoIdentity is the control-plane operator's identity: only the custom
// role made from the permissions table, on the customer's resource group.
// Every test that runs with it proves the table is enough.
func (w *world) cpoIdentity() azcore.TokenCredential {
	w.t.Helper()
	scope := "/subscriptions/" + customer + "/resourceGroups/" + guestRG
	defs, err := armauthorization.NewRoleDefinitionsClient(w.admin, w.f.AzureClientOptions())
	if err != nil {
		w.t.Fatal(err)
	}
	role := azurecloud.CustomRole(azurecloud.ControlPlaneOperator, scope)
	id := azure.NewGUID()
	if _, err := defs.CreateOrUpdate(w.ctx, scope, id, armauthorization.RoleDefinition{Properties: &armauthorization.RoleDefinitionProperties{
		RoleName: to.Ptr(role.Name), RoleType: to.Ptr("CustomRole"), Description: to.Ptr(role.Description),
		Permissions:      []*armauthorization.Permission{{Actions: to.SliceOfPtrs(role.Actions...)}},
		AssignableScopes: to.SliceOfPtrs(role.AssignableScopes...),
	}}, nil); err != nil {
		w.t.Fatalf("creating the custom role: %v", err)
	}
	sp := w.f.AzureServicePrincipal(w.t, "cpo")
	if _, err := w.f.Server.Azure.AssignRole(sp.ObjectID, id, scope); err != nil {
		w.t.Fatalf("assigning the custom role: %v", err)
	}
	return w.f.AzureCredential(w.t, sp)
}

// deleteAndWait deletes the CR and runs passes until it is gone.
func (c *cluster) deleteAndWait() {
	c.w.t.Helper()
	if err := env.Client.Delete(c.w.ctx, c.get()); err != nil {
		c.w.t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		res := c.reconcile()
		err := env.Client.Get(c.w.ctx, client.ObjectKeyFromObject(c.cr), &hcplinkv1beta1.AzurePrivateLinkService{})
		if apierrors.IsNotFound(err) {
			return
		}
		c.w.clk.Advance(max(min(res.RequeueAfter, time.Minute), time.Second))
	}
	c.w.t.Fatalf("the CR was never released; conditions %+v", c.get().Status.Conditions)
}

// assertPath checks cloudsim's state for a cluster whose path is available.
func (c *cluster) assertPath(t *testing.T) (ip string) {
	t.Helper()
	w, cr := c.w, c.get()
	ep := w.endpoint(c.endpointName())
	if ep == nil {
		t.Fatal("no Private Endpoint")
	}
	status, service := azurecloud.EndpointConnectionStatus(ep)
	if status != "Approved" || service != cr.Status.PrivateLinkServiceAlias || len(ep.Properties.ManualPrivateLinkServiceConnections) != 1 {
		t.Errorf("endpoint connection %s to %s (want Approved, manual, to %s)", status, service, cr.Status.PrivateLinkServiceAlias)
	}
	if !strings.EqualFold(*ep.Properties.Subnet.ID, guestSubnet) || !azurecloud.OwnedBy(ep.Tags, c.infraID(), cr.Name) {
		t.Errorf("endpoint subnet %s tags %v", *ep.Properties.Subnet.ID, ep.Tags)
	}
	ip, err := azurecloud.NewPrivateEndpoints(w.cust).IP(w.ctx, ep) // its network interface's, read by the admin
	if err != nil {
		t.Fatal(err)
	}
	if ip == "" || cr.Status.PrivateEndpointIP != ip || cr.Status.PrivateEndpointID != *ep.ID {
		t.Errorf("status endpoint %s at %s; cloud %s at %s", cr.Status.PrivateEndpointID, cr.Status.PrivateEndpointIP, *ep.ID, ip)
	}
	zone := w.zoneOf(c.zone())
	if zone == nil || cr.Status.PrivateDNSZoneID != *zone.ID || cr.Status.DNSZoneName != c.zone() {
		t.Fatalf("zone %v, status %s %s", zone, cr.Status.PrivateDNSZoneID, cr.Status.DNSZoneName)
	}
	link := w.link(c.zone(), azurecloud.VNetLinkName(c.infraID()))
	if link == nil || !strings.EqualFold(*link.Properties.VirtualNetwork.ID, guestVNet) || *link.Properties.RegistrationEnabled {
		t.Errorf("link %+v", link)
	}
	for _, name := range azurecloud.RecordNames {
		rs := w.record(c.zone(), armprivatedns.RecordTypeA, name)
		if aIPs(rs) != ip || azurecloud.ARecordTTL(rs) != 300 {
			t.Errorf("record %s = %q ttl %d, want %s ttl 300", name, aIPs(rs), azurecloud.ARecordTTL(rs), ip)
		}
	}
	for _, cond := range ownedConditions {
		got := condition(cr, cond)
		if got.Status != metav1.ConditionTrue || got.Reason != hcplinkv1beta1.AzureSuccessReason || got.ObservedGeneration != cr.Generation {
			t.Errorf("condition %s = %+v", cond, got)
		}
	}
	checkMessages(t, cr)
	return ip
}

func TestHappyPathDriftAndDeletion(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, w.cpoIdentity())
	c.until("available", available)
	ip := c.assertPath(t)

	// The zone is ours: tagged as created by hcplink for this cluster; its
	// SOA keeps Azure's negative TTL of 10 s (shorter than our most, a
	// minute: never raised).
	zone := w.zoneOf(c.zone())
	if !ZoneIsOurs(zone.Tags, c.infraID(), c.cr.Name) {
		t.Errorf("zone tags %v", zone.Tags)
	}
	if soa := w.record(c.zone(), armprivatedns.RecordTypeSOA, "@"); azurecloud.SOAMinimumTTL(soa) != 10 {
		t.Errorf("SOA minimum TTL %d, want Azure's 10 kept", azurecloud.SOAMinimumTTL(soa))
	}
	// The records carry the cluster's ownership.
	for _, name := range azurecloud.RecordNames {
		if rs := w.record(c.zone(), armprivatedns.RecordTypeA, name); !azurecloud.OwnedBy(rs.Properties.Metadata, c.infraID(), c.cr.Name) {
			t.Errorf("record %s metadata %v", name, rs.Properties.Metadata)
		}
	}
	// Private: the ExternalName Services point the Route hostnames at the zone.
	for name, host := range map[string]string{hcplinkv1beta1.KubeAPIServerPrivateExternalService: "api.demo.example.com", hcplinkv1beta1.OAuthPrivateExternalService: "oauth.demo.example.com"} {
		svc := &corev1.Service{}
		if err := env.Client.Get(w.ctx, types.NamespacedName{Namespace: c.cr.Namespace, Name: name}, svc); err != nil {
			t.Fatalf("ExternalName Service %s: %v", name, err)
		}
		if svc.Spec.ExternalName != "api."+c.zone() || svc.Annotations[hcplinkv1beta1.ExternalDNSHostnameAnnotation] != host {
			t.Errorf("Service %s → %s (%s)", name, svc.Spec.ExternalName, svc.Annotations[hcplinkv1beta1.ExternalDNSHostnameAnnotation])
		}
	}

	// A healthy drift check only reads: the endpoint, the link and one
	// listing of the records (with the SOA); and once the management side
	// reports the connection Approved, not the endpoint.
	if got := c.driftCalls(); got != 3 {
		t.Errorf("a healthy drift check made %d calls; want 3 reads", got)
	}
	c.reportConnection("Approved")
	if got := c.driftCalls(); got != 2 {
		t.Errorf("a healthy drift check with the connection reported Approved made %d calls; want 2 reads", got)
	}

	// A record deleted behind our back is back after the next drift check.
	if _, err := w.dns.NewRecordSetsClient().Delete(w.ctx, guestRG, c.zone(), armprivatedns.RecordTypeA, "*.apps", nil); err != nil {
		t.Fatal(err)
	}
	c.w.clk.Advance(DefaultDriftInterval * 85 / 100)
	res := c.reconcile() // the drift check restores it, and asks for the next one
	if res.RequeueAfter < DefaultDriftInterval*85/100 || res.RequeueAfter > DefaultDriftInterval*115/100 {
		t.Errorf("healthy requeue %v, want the drift interval", res.RequeueAfter)
	}
	if rs := w.record(c.zone(), armprivatedns.RecordTypeA, "*.apps"); aIPs(rs) != ip {
		t.Errorf("record *.apps after the drift check = %q, want %s", aIPs(rs), ip)
	}

	// Deletion leaves nothing in the customer's resource group.
	c.deleteAndWait()
	if eps, zones := w.endpoints(), w.zones(); len(eps) != 0 || len(zones) != 0 {
		t.Errorf("left after deletion: endpoints %v, zones %v", eps, zones)
	}
	for _, name := range hcplinkv1beta1.PrivateExternalServiceNames {
		err := env.Client.Get(w.ctx, types.NamespacedName{Namespace: c.cr.Namespace, Name: name}, &corev1.Service{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("Service %s left: %v", name, err)
		}
	}
}

// TestPreExistingZoneLeftAlone: a zone of the cluster's name that hcplink
// did not create is a conflict: nothing is written to it, and deletion
// leaves it as it was.
func TestPreExistingZoneLeftAlone(t *testing.T) {
	w := newWorld(t)
	// Someone's zone with our name, before the cluster.
	p, err := w.dns.NewPrivateZonesClient().BeginCreateOrUpdate(w.ctx, guestRG, "demo.hypershift.local",
		armprivatedns.PrivateZone{Location: to.Ptr("global"), Tags: map[string]*string{"team": to.Ptr("dns")}}, nil)
	done(w, p, err)
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPublicAndPrivate, w.cpoIdentity())
	c.until("told of the conflict", func(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
		return condition(cr, hcplinkv1beta1.AzurePrivateDNSAvailableCondition).Reason == hcplinkv1beta1.PrivateDNSZoneNameConflictReason
	})
	for _, name := range azurecloud.RecordNames {
		if rs := w.record(c.zone(), armprivatedns.RecordTypeA, name); rs != nil {
			t.Errorf("record %s written to their zone", name)
		}
	}
	if l := w.link(c.zone(), azurecloud.VNetLinkName(c.infraID())); l != nil {
		t.Error("their zone was linked")
	}
	c.deleteAndWait()
	zone := w.zoneOf(c.zone())
	if zone == nil || deref(zone.Tags["team"]) != "dns" {
		t.Fatalf("the pre-existing zone was not left alone: %+v", zone)
	}
	if eps := w.endpoints(); len(eps) != 0 {
		t.Errorf("endpoints left: %v", eps)
	}
}

func TestTwoClustersInOneResourceGroup(t *testing.T) {
	w := newWorld(t)
	cred := w.cpoIdentity()
	a := w.newCluster("alpha", hcplinkv1beta1.AzureTopologyPrivate, cred)
	b := w.newCluster("beta", hcplinkv1beta1.AzureTopologyPrivate, cred)
	a.until("alpha available", available)
	b.until("beta available", available)
	ipA, ipB := a.assertPath(t), b.assertPath(t)
	if a.endpointName() == b.endpointName() || ipA == ipB {
		t.Fatalf("shared endpoint %s / %s at %s / %s", a.endpointName(), b.endpointName(), ipA, ipB)
	}

	a.deleteAndWait()
	if eps := w.endpoints(); len(eps) != 1 || eps[0] != b.endpointName() {
		t.Errorf("endpoints after deleting alpha: %v", eps)
	}
	if zones := w.zones(); len(zones) != 1 || zones[0] != b.zone() {
		t.Errorf("zones after deleting alpha: %v", zones)
	}
	// Beta's path is untouched, and a pass finds nothing to fix.
	b.reconcile()
	if got := b.assertPath(t); got != ipB {
		t.Errorf("beta's address moved: %s → %s", ipB, got)
	}
}

func TestRecreatedPrivateLinkServiceReplacesEndpoint(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, w.cpoIdentity())
	c.until("available", available)
	oldIP := c.assertPath(t)
	oldAlias := c.get().Status.PrivateLinkServiceAlias

	// The operator recreates the PLS (deleted behind its back): new alias.
	w.deletePLS(c.pls)
	alias := w.plsFor(c.pls)
	if alias == oldAlias {
		t.Fatal("cloudsim gave the recreated service the same alias")
	}
	c.publishAlias(alias)
	sawReplaced := false
	c.until("available on the new alias", func(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
		if condition(cr, hcplinkv1beta1.AzurePrivateEndpointAvailableCondition).Reason == hcplinkv1beta1.PrivateLinkServiceReplacedReason {
			sawReplaced = true
		}
		return available(cr)
	})
	if !sawReplaced {
		t.Error("the replacement was never reported")
	}
	newIP := c.assertPath(t)
	if _, service := azurecloud.EndpointConnectionStatus(w.endpoint(c.endpointName())); service != alias {
		t.Errorf("endpoint connects to %s, want %s", service, alias)
	}
	t.Logf("endpoint address %s → %s", oldIP, newIP)
	if eps := w.endpoints(); len(eps) != 1 {
		t.Errorf("endpoints after the replacement: %v", eps)
	}
}

func TestMissingRoleAssignment(t *testing.T) {
	w := newWorld(t)
	// Reader and Private DNS Zone Contributor: no right to create endpoints.
	scope := "/subscriptions/" + customer + "/resourceGroups/" + guestRG
	sp := w.f.AzureServicePrincipalWithRole(t, "cpo-dns-only", "Private DNS Zone Contributor", scope)
	if _, err := w.f.Server.Azure.AssignRole(sp.ObjectID, "Reader", scope); err != nil {
		t.Fatal(err)
	}
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, w.f.AzureCredential(t, sp))
	first := c.reconcile()
	cr := c.get()
	got := condition(cr, hcplinkv1beta1.AzurePrivateEndpointAvailableCondition)
	if got.Status != metav1.ConditionFalse || got.Reason != hcplinkv1beta1.AccessDeniedReason ||
		!strings.Contains(got.Message, "Microsoft.Network/privateEndpoints/write") {
		t.Fatalf("condition %+v", got)
	}
	if avail := condition(cr, hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition); avail.Status != metav1.ConditionFalse || avail.Reason != hcplinkv1beta1.AccessDeniedReason {
		t.Errorf("Available = %+v", avail)
	}
	checkMessages(t, cr)
	// No hot loop: the first recheck waits on a person, and the next waits longer.
	if first.RequeueAfter < 15*time.Second {
		t.Errorf("first recheck after %v", first.RequeueAfter)
	}
	w.clk.Advance(first.RequeueAfter)
	second := c.reconcile()
	if second.RequeueAfter <= first.RequeueAfter {
		t.Errorf("recheck did not grow: %v then %v", first.RequeueAfter, second.RequeueAfter)
	}
	if eps := w.endpoints(); len(eps) != 0 {
		t.Errorf("endpoints %v", eps)
	}
}

// TestConnectionStates: a connection the service does not approve at once
// is reported pending and polled until the owner approves it; a rejected
// one is reported with what to do, rechecked less and less often, and gets
// no records.
func TestConnectionStates(t *testing.T) {
	w := newWorld(t)
	cred := w.cpoIdentity()
	pending := w.newCluster("alpha", hcplinkv1beta1.AzureTopologyPrivate, cred)
	w.plsWith(pending.pls, false) // the operator forgot the auto-approval
	pending.until("pending approval", func(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
		got := condition(cr, hcplinkv1beta1.AzurePrivateEndpointAvailableCondition)
		return got.Reason == hcplinkv1beta1.PrivateEndpointPendingReason && strings.Contains(got.Message, "approve")
	})
	if got := condition(pending.get(), hcplinkv1beta1.AzurePrivateLinkServiceAvailableCondition); got.Status != metav1.ConditionFalse {
		t.Errorf("Available while pending: %+v", got)
	}
	// Pending waits on the management side or a person: the rechecks grow
	// past the polls of a provisioning endpoint (2 minutes).
	var last time.Duration
	for range 6 {
		res := pending.reconcile()
		last = res.RequeueAfter
		w.clk.Advance(res.RequeueAfter)
	}
	if last <= 2*time.Minute {
		t.Errorf("a pending connection is still rechecked after %v", last)
	}
	// The approval, reported by the management side, is acted on in one pass.
	w.setConnection(pending.pls, "Approved")
	pending.reportConnection("Approved")
	if pending.reconcile(); !available(pending.get()) {
		t.Fatalf("not available in the pass after the approval was reported: %+v", pending.get().Status.Conditions)
	}
	pending.assertPath(t)

	rejected := w.newCluster("beta", hcplinkv1beta1.AzureTopologyPrivate, cred)
	w.plsWith(rejected.pls, false)
	rejected.until("pending approval", func(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
		return condition(cr, hcplinkv1beta1.AzurePrivateEndpointAvailableCondition).Reason == hcplinkv1beta1.PrivateEndpointPendingReason
	})
	w.setConnection(rejected.pls, "Rejected")
	rejected.until("rejected", func(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
		return condition(cr, hcplinkv1beta1.AzurePrivateEndpointAvailableCondition).Reason == hcplinkv1beta1.PrivateEndpointRejectedReason
	})
	var delays []time.Duration
	w.f.Server.Counters.Reset()
	for range 2 {
		res := rejected.reconcile()
		delays = append(delays, res.RequeueAfter)
		w.clk.Advance(res.RequeueAfter)
	}
	var mutating int64
	for _, count := range w.f.Server.Counters.Snapshot()[customer] {
		mutating += count.Mutating
	}
	if mutating != 0 {
		t.Errorf("the first rechecks of a rejected endpoint made %d mutating calls; its replacement is paced", mutating)
	}
	cr := rejected.get()
	got := condition(cr, hcplinkv1beta1.AzurePrivateEndpointAvailableCondition)
	if got.Reason != hcplinkv1beta1.PrivateEndpointRejectedReason || !strings.Contains(got.Message, "subscription must be allowed") {
		t.Fatalf("rejected: %+v", got)
	}
	checkMessages(t, cr)
	if delays[0] < 15*time.Second || delays[1] <= delays[0] {
		t.Errorf("rechecks of a rejected connection: %v", delays)
	}
	for _, name := range azurecloud.RecordNames {
		if rs := w.record(rejected.zone(), armprivatedns.RecordTypeA, name); rs != nil {
			t.Errorf("record %s for a rejected endpoint", name)
		}
	}

	// The operator allows the subscription again: a rejected connection
	// cannot be approved again, so the endpoint is replaced (paced, not at
	// every pass) and the new one is approved.
	w.plsWith(rejected.pls, true)
	oldID := rejected.get().Status.PrivateEndpointID
	rejected.until("available on a new endpoint", available)
	if got := rejected.get().Status.PrivateEndpointID; got != oldID {
		t.Logf("endpoint ID %s → %s (same name)", oldID, got)
	}
	rejected.assertPath(t)
	if eps := w.endpoints(); len(eps) != 2 {
		t.Errorf("endpoints after the replacement: %v", eps)
	}
}

// TestEndpointDeletedBehindOurBack: the next drift check creates the
// endpoint again, and the records follow its address.
func TestEndpointDeletedBehindOurBack(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("demo", hcplinkv1beta1.AzureTopologyPrivate, w.cpoIdentity())
	c.until("available", available)
	c.assertPath(t)
	// Something else takes the first address once ours is free, so the new
	// endpoint cannot get the same one.
	p, err := w.cust.NewPrivateEndpointsClient().BeginDelete(w.ctx, guestRG, c.endpointName(), nil)
	done(w, p, err)
	squatter, err := w.cust.NewInterfacesClient().BeginCreateOrUpdate(w.ctx, guestRG, "squatter", armnetwork.Interface{
		Location: to.Ptr(location),
		Properties: &armnetwork.InterfacePropertiesFormat{IPConfigurations: []*armnetwork.InterfaceIPConfiguration{{Name: to.Ptr("ip"),
			Properties: &armnetwork.InterfaceIPConfigurationPropertiesFormat{Subnet: &armnetwork.Subnet{ID: to.Ptr(guestSubnet)}}}}},
	}, nil)
	done(w, squatter, err)
	old := c.get().Status.PrivateEndpointIP
	c.until("available again", func(cr *hcplinkv1beta1.AzurePrivateLinkService) bool {
		return available(cr) && cr.Status.PrivateEndpointIP != old
	})
	if ip := c.assertPath(t); ip == old {
		t.Errorf("the records still name the old address %s", old)
	}
}

// driftCalls runs one pass and returns the calls it made in the customer's
// subscription; it fails on any mutating one.
func (c *cluster) driftCalls() int64 {
	c.w.t.Helper()
	c.w.f.Server.Counters.Reset()
	c.w.clk.Advance(DefaultDriftInterval * 85 / 100) // the shortest jittered drift interval
	c.reconcile()
	var total, mutating int64
	for _, count := range c.w.f.Server.Counters.Snapshot()[customer] {
		total, mutating = total+count.Total, mutating+count.Mutating
	}
	if mutating != 0 {
		c.w.t.Errorf("a healthy drift check made %d mutating calls", mutating)
	}
	return total
}

// reportConnection writes status.privateEndpointConnectionState as the
// management operator does from its listing of the service's connections.
func (c *cluster) reportConnection(state string) {
	c.w.t.Helper()
	cr := c.get()
	patch := client.MergeFrom(cr.DeepCopy())
	cr.Status.PrivateEndpointConnectionState = state
	if err := env.Client.Status().Patch(c.w.ctx, cr, patch); err != nil {
		c.w.t.Fatal(err)
	}
}

// The management side's report of the connection stands in for a read of
// the endpoint for a while at most (an hour; 20 minutes here): were the
// operator stopped, its last Approved would stand for ever, and an
// endpoint deleted meanwhile would never be read missing. The first drift
// check past it reads the endpoint (3 calls instead of 2), and the while
// starts over.
func TestTheReportStandsInForAReadForAWhileOnly(t *testing.T) {
	w := newWorld(t)
	c := w.newCluster("trust", hcplinkv1beta1.AzureTopologyPrivate, w.cpoIdentity())
	c.r.reportTrust = 20 * time.Minute
	c.until("available", available)
	c.driftCalls() // reads the endpoint
	lastRead := w.clk.Now()
	c.reportConnection("Approved")
	reads := 0
	for pass := 1; pass <= 12; pass++ { // 51 minutes: two reads at least
		calls := c.driftCalls()
		since := w.clk.Now().Sub(lastRead)
		switch {
		case calls == 3:
			if since < c.r.reportTrust {
				t.Fatalf("drift check %d read the endpoint %v after the last read; the report stands in for %v", pass, since, c.r.reportTrust)
			}
			reads++
			lastRead = w.clk.Now()
		case calls != 2:
			t.Fatalf("drift check %d made %d calls; want 2 (the link, the records) or 3 (the endpoint too)", pass, calls)
		case since >= c.r.reportTrust+DefaultDriftInterval:
			t.Fatalf("drift check %d, %v after the last read, took the report; want a read %v after it at most", pass, since, c.r.reportTrust)
		}
	}
	if reads < 2 {
		t.Fatalf("%d reads of the endpoint in 12 drift checks; want one at least every %v", reads, c.r.reportTrust)
	}
}
