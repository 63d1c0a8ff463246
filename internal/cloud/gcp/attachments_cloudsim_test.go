package gcp_test

import (
	"slices"
	"testing"

	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"

	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// Two management clusters share the management project: each finds only
// its own router rule, NAT subnetworks and attachments, even when the
// other's rule has the same IP (field problem 27).
func TestTwoManagementClustersInOneProject(t *testing.T) {
	w := newWorld(t)
	mine := w.managementSide()
	sa := w.publish(mine)

	otherNetwork := "projects/" + mgmtProject + "/global/networks/other-mgmt"
	theirs := managementSide{
		rules:       &gcpcloud.RouterRules{Compute: w.mgmt.Compute, Location: w.mgmtLocation(), Network: otherNetwork},
		nats:        &gcpcloud.NATSubnets{Compute: w.mgmt.Compute, Location: w.mgmtLocation(), Network: otherNetwork},
		attachments: mine.attachments,
		ops:         mine.ops,
	}
	rule, err := theirs.rules.FindByIP(w.ctx, routerIP)
	if err != nil || rule == nil || rule.Name != w.otherRouter.Name {
		t.Fatalf("the other management cluster's rule lookup: %v, %v", rule, err)
	}
	subnets, err := theirs.nats.List(w.ctx)
	if err != nil || !slices.Equal(subnetNames(subnets), []string{"other-psc-nat"}) {
		t.Fatalf("the other management cluster's NAT subnetworks: %v, %v", subnetNames(subnets), err)
	}
	other := owner
	other.ManagementCluster = otherManagement
	all, _ := theirs.attachments.ListAll(w.ctx)
	nat, err := gcpcloud.FreeNATSubnet(subnets, all, gcpcloud.ServiceAttachmentName(other))
	if err != nil {
		t.Fatal(err)
	}
	// Same cluster infra ID and object name, another management cluster: another attachment.
	op, err := theirs.attachments.Insert(w.ctx, gcpcloud.AttachmentSpec{Owner: other,
		TargetService: rule.SelfLink, Consumers: []gcpcloud.Consumer{{Project: customerProject}}, NATSubnets: []string{nat.SelfLink}})
	w.settle(theirs.ops, op, err)

	for _, tc := range []struct {
		managementCluster string
		want              string
	}{
		{managementID, sa.Name},
		{otherManagement, gcpcloud.ServiceAttachmentName(other)},
	} {
		owned, err := mine.attachments.ListOwned(w.ctx, tc.managementCluster)
		if err != nil || !slices.Equal(names(owned), []string{tc.want}) {
			t.Errorf("attachments of %s: %v, %v; want only %s", tc.managementCluster, names(owned), err, tc.want)
		}
	}
}

// One NAT subnetwork serves one attachment: the fleet takes the free ones,
// keeps its own on the next pass, and is told what to add when none is left.
func TestNATSubnetsServeOneAttachmentEach(t *testing.T) {
	w := newWorld(t)
	m := w.managementSide()
	w.publish(m) // takes psc-nat-a
	subnets, _ := m.nats.List(w.ctx)
	all, _ := m.attachments.ListAll(w.ctx)
	mineAgain, err := gcpcloud.FreeNATSubnet(subnets, all, gcpcloud.ServiceAttachmentName(owner))
	if err != nil || mineAgain.Name != "psc-nat-a" {
		t.Fatalf("the attachment's own NAT subnetwork on the next pass: %v, %v", mineAgain, err)
	}
	second := owner
	second.InfraID = "second-a1b2c"
	nat, err := gcpcloud.FreeNATSubnet(subnets, all, gcpcloud.ServiceAttachmentName(second))
	if err != nil || nat.Name != "psc-nat-b" {
		t.Fatalf("a second cluster's NAT subnetwork: %v, %v", nat, err)
	}
	op, err := m.attachments.Insert(w.ctx, gcpcloud.AttachmentSpec{Owner: second,
		TargetService: w.router.SelfLink, Consumers: []gcpcloud.Consumer{{Project: customerProject}}, NATSubnets: []string{nat.SelfLink}})
	w.settle(m.ops, op, err)
	all, _ = m.attachments.ListAll(w.ctx)
	third := owner
	third.InfraID = "third-d4e5f"
	_, err = gcpcloud.FreeNATSubnet(subnets, all, gcpcloud.ServiceAttachmentName(third))
	ce := wantClass(t, err, cloud.ClassClientError, "add a subnetwork of purpose PRIVATE_SERVICE_CONNECT")
	if ce.Code != gcpcloud.CodeNATSubnetsExhausted {
		t.Fatalf("code %q", ce.Code)
	}
}

// A consumer whose project is not on the accept list waits PENDING; the
// management side sees it among the connections, rejects its project, and
// the customer's endpoint stays accepted.
func TestForeignConsumersAreSeenAndRejected(t *testing.T) {
	w := newWorld(t)
	m, c := w.managementSide(), w.controlPlaneSide()
	sa := w.publish(m)
	endpoint, _ := w.connect(c, sa)

	const intruder = "intruder-project"
	w.f.AddGCPProject(t, intruder, "400000000004")
	subnet := w.network(intruder, "intruder", "intruder-subnet", "172.16.0.0/24")
	w.adminDone(w.admin.Addresses.Insert(intruder, region, &compute.Address{Name: "ip", AddressType: "INTERNAL", Subnetwork: subnet.SelfLink}).Do())
	addr, err := w.admin.Addresses.Get(intruder, region, "ip").Do()
	if err != nil {
		t.Fatal(err)
	}
	w.adminDone(w.admin.ForwardingRules.Insert(intruder, region, &compute.ForwardingRule{Name: "sneaky", Network: subnet.Network, IPAddress: addr.SelfLink, Target: sa.SelfLink}).Do())

	sa, err = m.attachments.Get(w.ctx, sa.Name)
	if err != nil {
		t.Fatal(err)
	}
	if foreign := gcpcloud.ForeignProjects(sa); !slices.Equal(foreign, []string{intruder}) {
		t.Fatalf("foreign projects %v, want [%s]; connections %+v", foreign, intruder, gcpcloud.ConnectionsOf(sa))
	}
	op, err := m.attachments.RejectProjects(w.ctx, sa, gcpcloud.ForeignProjects(sa))
	w.settle(m.ops, op, err)
	if got, _ := w.admin.ForwardingRules.Get(intruder, region, "sneaky").Do(); got.PscConnectionStatus != gcpcloud.PSCRejected {
		t.Fatalf("the intruder's endpoint is %s, want REJECTED", got.PscConnectionStatus)
	}
	if got, _ := c.endpoints.Get(w.ctx, endpoint.Name); got.PscConnectionStatus != gcpcloud.PSCAccepted {
		t.Fatalf("the customer's endpoint is %s, want still ACCEPTED", got.PscConnectionStatus)
	}
	sa, _ = m.attachments.Get(w.ctx, sa.Name)
	if !gcpcloud.SameConsumers(sa, []gcpcloud.Consumer{{Project: customerProject}}) {
		t.Fatalf("the accept list changed: %+v", gcpcloud.ConsumersOf(sa))
	}
	// Following the accept list later keeps the rejection.
	op, err = m.attachments.SetConsumers(w.ctx, sa, []gcpcloud.Consumer{{Project: customerProject, ConnectionLimit: 3}})
	w.settle(m.ops, op, err)
	if sa, _ = m.attachments.Get(w.ctx, sa.Name); !slices.Equal(sa.ConsumerRejectLists, []string{intruder}) {
		t.Fatalf("reject list after an accept-list change: %v", sa.ConsumerRejectLists)
	}
}

// A change is waited on, not slept on: before its time one wait answers
// "not done" without error; after it, done.
func TestWaitingOnAnOperation(t *testing.T) {
	w := newWorld(t)
	c := w.controlPlaneSide()
	op, err := c.addresses.Reserve(w.ctx, owner, w.workers.SelfLink)
	if err != nil || op.IsZero() || op.Done {
		t.Fatalf("reserving: %+v, %v", op, err)
	}
	if addr, _ := c.addresses.Get(w.ctx, gcpcloud.EndpointAddressName(owner)); addr != nil {
		t.Fatal("the address is seen before its operation is done")
	}
	next, err := c.ops.Wait(w.ctx, op)
	if err != nil || next.Done {
		t.Fatalf("waiting before the operation's time: %+v, %v", next, err)
	}
	w.settle(c.ops, next, nil)
	if addr, _ := c.addresses.Get(w.ctx, gcpcloud.EndpointAddressName(owner)); addr == nil || addr.Address == "" {
		t.Fatalf("the address after its operation: %+v", addr)
	}
	if done, err := c.ops.Wait(w.ctx, gcpcloud.Operation{}); err != nil || !done.IsZero() {
		t.Fatal("waiting on no operation")
	}
}

// hcplink never deletes what it did not make: another management
// cluster's attachment, a zone, address or endpoint of the same name
// without the cluster's labels.
func TestNothingItDidNotMakeIsDeleted(t *testing.T) {
	w := newWorld(t)
	m, c := w.managementSide(), w.controlPlaneSide()
	sa := w.publish(m)

	_, err := m.attachments.Delete(w.ctx, sa.Name, otherManagement)
	if ce := wantClass(t, err, cloud.ClassClientError, "not made by hcplink"); ce.Code != gcpcloud.CodeNotOurs {
		t.Fatalf("code %q", ce.Code)
	}
	if got, _ := m.attachments.Get(w.ctx, sa.Name); got == nil {
		t.Fatal("another management cluster deleted the attachment")
	}

	// The customer's own resources under the names hcplink would use.
	w.adminDone(w.admin.Addresses.Insert(customerProject, region, &compute.Address{Name: gcpcloud.EndpointAddressName(owner), AddressType: "INTERNAL", Subnetwork: w.workers.SelfLink}).Do())
	_, err = c.addresses.Delete(w.ctx, gcpcloud.EndpointAddressName(owner), owner)
	wantClass(t, err, cloud.ClassClientError, "not made by hcplink")
	_, err = c.addresses.Reserve(w.ctx, owner, w.workers.SelfLink)
	wantClass(t, err, cloud.ClassClientError, "not made by hcplink")
	foreignZone, err := w.f.DNS(t, cloudsimtest.GCPAdminTokens()).ManagedZones.Create(customerProject, &dns.ManagedZone{Name: gcpcloud.ZoneName(owner.InfraID),
		DnsName: gcpcloud.ZoneDNSName("demo"), Visibility: "private", Labels: owner.Labels(), // the cluster's labels, but not created-by
		PrivateVisibilityConfig: &dns.ManagedZonePrivateVisibilityConfig{Networks: []*dns.ManagedZonePrivateVisibilityConfigNetwork{{NetworkUrl: w.customerNetwork}}}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	err = c.zones.Delete(w.ctx, foreignZone, owner)
	wantClass(t, err, cloud.ClassClientError, "not made by hcplink")
	_, _, err = c.zones.Create(w.ctx, gcpcloud.ZoneSpec{Owner: owner, HCPName: "demo", Network: w.customerNetwork})
	wantClass(t, err, cloud.ClassClientError, "not made by hcplink")
	if z, _ := c.zones.Get(w.ctx, gcpcloud.ZoneName(owner.InfraID)); z == nil {
		t.Fatal("a zone hcplink did not create was deleted")
	}
	if _, err := w.admin.Addresses.Get(customerProject, region, gcpcloud.EndpointAddressName(owner)).Do(); err != nil {
		t.Fatalf("the customer's address: %v", err)
	}
}

// An accept list edited behind hcplink's back is seen as drift by one read
// and repaired by one patch with the fingerprint read; a second pass
// writes nothing.
func TestAcceptListDriftIsRepaired(t *testing.T) {
	w := newWorld(t)
	m := w.managementSide()
	sa := w.publish(m)
	want := []gcpcloud.Consumer{{Project: customerProject}}

	edited := &compute.ServiceAttachment{Fingerprint: sa.Fingerprint, ConsumerAcceptLists: []*compute.ServiceAttachmentConsumerProjectLimit{
		{ProjectIdOrNum: customerProject, ConnectionLimit: 50}, {ProjectIdOrNum: "someone-else", ConnectionLimit: 1}}}
	w.adminDone(w.admin.ServiceAttachments.Patch(mgmtProject, region, sa.Name, edited).Do())

	sa, err := m.attachments.Get(w.ctx, sa.Name)
	if err != nil || gcpcloud.SameConsumers(sa, want) {
		t.Fatalf("the edited accept list %+v is not seen as drift (%v)", gcpcloud.ConsumersOf(sa), err)
	}
	op, err := m.attachments.SetConsumers(w.ctx, sa, want)
	w.settle(m.ops, op, err)
	sa, _ = m.attachments.Get(w.ctx, sa.Name)
	if !gcpcloud.SameConsumers(sa, want) {
		t.Fatalf("accept list after the repair: %+v", gcpcloud.ConsumersOf(sa))
	}

	// Deleting the attachment closes its consumers' connections: Google
	// allows it, and the endpoints show CLOSED.
	endpoint, _ := w.connect(w.controlPlaneSide(), sa)
	op, err = m.attachments.Delete(w.ctx, sa.Name, managementID)
	w.settle(m.ops, op, err)
	if got, _ := w.controlPlaneSide().endpoints.Get(w.ctx, endpoint.Name); got.PscConnectionStatus != gcpcloud.PSCClosed {
		t.Fatalf("the endpoint of a deleted attachment is %s, want CLOSED", got.PscConnectionStatus)
	}
}
