package gcp_test

import (
	"net/http"
	"slices"
	"testing"

	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"

	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// managementSide is the management operator's providers.
type managementSide struct {
	rules       *gcpcloud.RouterRules
	nats        *gcpcloud.NATSubnets
	attachments *gcpcloud.ServiceAttachments
	ops         *gcpcloud.Operations
}

func (w *world) managementSide() managementSide {
	p := gcpcloud.NewManagementProviders(w.mgmt, w.mgmtLocation(), mgmtNetwork, gcpcloud.Timeouts{})
	return managementSide{
		rules:       p.RouterRules.(*gcpcloud.RouterRules),
		nats:        p.NATSubnets.(*gcpcloud.NATSubnets),
		attachments: p.ServiceAttachments.(*gcpcloud.ServiceAttachments),
		ops:         p.Operations,
	}
}

// controlPlaneSide is the control-plane operator's providers.
type controlPlaneSide struct {
	subnets   *gcpcloud.Subnetworks
	addresses *gcpcloud.Addresses
	endpoints *gcpcloud.Endpoints
	zones     *gcpcloud.Zones
	records   *gcpcloud.Records
	ops       *gcpcloud.Operations
}

func (w *world) controlPlaneSide() controlPlaneSide {
	p := gcpcloud.NewControlPlaneProviders(w.cpo, w.customerLocation(), gcpcloud.Timeouts{})
	return controlPlaneSide{
		subnets:   p.Subnetworks.(*gcpcloud.Subnetworks),
		addresses: p.Addresses.(*gcpcloud.Addresses),
		endpoints: p.Endpoints.(*gcpcloud.Endpoints),
		zones:     p.Zones.(*gcpcloud.Zones),
		records:   p.Records.(*gcpcloud.Records),
		ops:       p.Operations,
	}
}

// publish is the management side's creation: the router's rule found by
// its IP in this management cluster's network, a free NAT subnetwork, the
// attachment accepting the customer's project.
func (w *world) publish(m managementSide) *compute.ServiceAttachment {
	t := w.t
	t.Helper()
	rule, err := m.rules.FindByIP(w.ctx, routerIP)
	if err != nil || rule == nil {
		t.Fatalf("finding the router's rule: %v, %v", rule, err)
	}
	if rule.Name != w.router.Name {
		t.Fatalf("found rule %s, want %s (the other management cluster's rule has the same IP)", rule.Name, w.router.Name)
	}
	subnets, err := m.nats.List(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if names := subnetNames(subnets); !slices.Equal(names, []string{"psc-nat-a", "psc-nat-b"}) {
		t.Fatalf("NAT subnetworks %v, want this management network's psc-nat-a and psc-nat-b only", names)
	}
	all, err := m.attachments.ListAll(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	name := gcpcloud.ServiceAttachmentName(owner)
	nat, err := gcpcloud.FreeNATSubnet(subnets, all, name)
	if err != nil {
		t.Fatal(err)
	}
	op, err := m.attachments.Insert(w.ctx, gcpcloud.AttachmentSpec{Owner: owner,
		TargetService: rule.SelfLink, Consumers: []gcpcloud.Consumer{{Project: customerProject}}, NATSubnets: []string{nat.SelfLink}})
	w.settle(m.ops, op, err)
	sa, err := m.attachments.Get(w.ctx, name)
	if err != nil || sa == nil {
		t.Fatalf("reading the new attachment: %v, %v", sa, err)
	}
	return sa
}

// connect is the control-plane side's creation: the address, the endpoint
// to the attachment, the private zone and its records.
func (w *world) connect(c controlPlaneSide, attachment *compute.ServiceAttachment) (*compute.ForwardingRule, *dns.ManagedZone) {
	t := w.t
	t.Helper()
	// The cluster's settings are checked first: its subnet, in its network.
	subnet, err := c.subnets.Get(w.ctx, w.workers.Name)
	if err != nil || subnet == nil || !sameLink(subnet.Network, w.customerNetwork) {
		t.Fatalf("reading the cluster's subnet: %+v, %v", subnet, err)
	}
	if missing, err := c.subnets.Get(w.ctx, "no-such-subnet"); missing != nil || err != nil {
		t.Fatalf("a subnet that does not exist: %+v, %v; want nil, nil", missing, err)
	}
	addrName := gcpcloud.EndpointAddressName(owner)
	op, err := c.addresses.Reserve(w.ctx, owner, w.workers.SelfLink)
	w.settle(c.ops, op, err)
	addr, err := c.addresses.Get(w.ctx, addrName)
	if err != nil || addr == nil {
		t.Fatalf("reading the address: %v, %v", addr, err)
	}
	op, err = c.endpoints.Insert(w.ctx, gcpcloud.EndpointSpec{Owner: owner, Network: w.customerNetwork,
		Address: addr.SelfLink, Target: attachment.SelfLink})
	w.settle(c.ops, op, err)
	endpoint, err := c.endpoints.Get(w.ctx, gcpcloud.EndpointName(owner))
	if err != nil || endpoint == nil {
		t.Fatalf("reading the endpoint: %v, %v", endpoint, err)
	}
	zone, made, err := c.zones.Create(w.ctx, gcpcloud.ZoneSpec{Owner: owner, HCPName: "demo", Network: w.customerNetwork})
	if err != nil || !made {
		t.Fatalf("creating the zone: made %v, %v", made, err)
	}
	w.writeRecords(c, zone, endpoint.IPAddress)
	return endpoint, zone
}

// writeRecords compares the zone's records with the wanted ones and
// changes them when they differ.
func (w *world) writeRecords(c controlPlaneSide, zone *dns.ManagedZone, ip string) {
	w.t.Helper()
	have, err := c.records.List(w.ctx, zone.Name)
	if err != nil {
		w.t.Fatal(err)
	}
	additions, deletions := gcpcloud.RecordChanges(have, gcpcloud.DesiredRecords(zone.DnsName, ip))
	if len(additions)+len(deletions) == 0 {
		return
	}
	if _, err := c.records.Change(w.ctx, zone.Name, additions, deletions); err != nil {
		w.t.Fatalf("writing the records: %v", err)
	}
}

// TestProvidersLifecycle walks both operators' providers through a
// cluster's life — publish, connect, follow the accept list, tear down —
// against cloudsim, as the principals holding only their custom roles,
// and asserts cloudsim's state at each step.
func TestProvidersLifecycle(t *testing.T) {
	runLifecycle(newWorld(t))
}

func runLifecycle(w *world) {
	t := w.t
	t.Helper()
	m, c := w.managementSide(), w.controlPlaneSide()

	sa := w.publish(m)
	if sa.ConnectionPreference != "ACCEPT_MANUAL" || !sameLink(sa.TargetService, w.router.SelfLink) ||
		!gcpcloud.SameConsumers(sa, []gcpcloud.Consumer{{Project: customerProject}}) || len(sa.NatSubnets) != 1 {
		t.Fatalf("attachment as created: %+v", sa)
	}
	endpoint, zone := w.connect(c, sa)
	if endpoint.PscConnectionStatus != gcpcloud.PSCAccepted {
		t.Fatalf("endpoint status %s, want ACCEPTED", endpoint.PscConnectionStatus)
	}
	if !gcpcloud.ZoneVisibleTo(zone, w.customerNetwork) || zone.Visibility != "private" || !gcpcloud.CreatedByHcplink(zone.Labels) {
		t.Fatalf("zone as created: %+v", zone)
	}
	// The zone's binding removed behind hcplink's back: bound again, with
	// the owner's labels checked first.
	unbound := &dns.ManagedZone{PrivateVisibilityConfig: &dns.ManagedZonePrivateVisibilityConfig{
		Networks: []*dns.ManagedZonePrivateVisibilityConfigNetwork{}, ForceSendFields: []string{"Networks"}}}
	if _, err := w.f.DNS(t, cloudsimtest.GCPAdminTokens()).ManagedZones.Patch(customerProject, zone.Name, unbound).Do(); err != nil {
		t.Fatal(err)
	}
	if zone, _ = c.zones.Get(w.ctx, zone.Name); gcpcloud.ZoneVisibleTo(zone, w.customerNetwork) {
		t.Fatal("setting up: the zone is still bound")
	}
	err := c.zones.Bind(w.ctx, zone, w.customerNetwork, gcpcloud.Owner{InfraID: "someone-else", Name: owner.Name})
	if ce := wantClass(t, err, cloud.ClassClientError, "not made by hcplink"); ce.Code != gcpcloud.CodeNotOurs {
		t.Fatalf("binding another cluster's zone: %v, want refused as not ours", err)
	}
	if err := c.zones.Bind(w.ctx, zone, w.customerNetwork, owner); err != nil {
		t.Fatal(err)
	}
	if zone, _ = c.zones.Get(w.ctx, zone.Name); !gcpcloud.ZoneVisibleTo(zone, w.customerNetwork) {
		t.Fatalf("after Bind the zone is bound to %+v", zone.PrivateVisibilityConfig)
	}

	records, err := c.records.List(w.ctx, zone.Name)
	if err != nil {
		t.Fatal(err)
	}
	if own := gcpcloud.OwnRecords(records, zone.DnsName); len(own) != 2 || own[0].Rrdatas[0] != endpoint.IPAddress || own[0].Ttl != gcpcloud.RecordTTL {
		t.Fatalf("records %+v, want api and *.apps to %s", own, endpoint.IPAddress)
	}
	if adds, dels := gcpcloud.RecordChanges(records, gcpcloud.DesiredRecords(zone.DnsName, endpoint.IPAddress)); len(adds)+len(dels) != 0 {
		t.Fatalf("a second pass would change %d records", len(adds)+len(dels))
	}

	// The cluster's additional projects change: the accept list follows, with the fingerprint read.
	w.f.AddGCPProject(t, "additional-project", "300000000003")
	want := []gcpcloud.Consumer{{Project: customerProject}, {Project: "additional-project", ConnectionLimit: 5}}
	op, err := m.attachments.SetConsumers(w.ctx, sa, want)
	w.settle(m.ops, op, err)
	if _, err := m.attachments.SetConsumers(w.ctx, sa, want); !gcpcloud.IsDependency(err) {
		t.Fatalf("a patch with the stale fingerprint: %v, want a dependency error (read again)", err)
	}
	sa, err = m.attachments.Get(w.ctx, sa.Name)
	if err != nil || !gcpcloud.SameConsumers(sa, want) {
		t.Fatalf("accept list after the patch: %+v, %v", sa.ConsumerAcceptLists, err)
	}
	owned, err := m.attachments.ListOwned(w.ctx, managementID)
	if err != nil || len(owned) != 1 || owned[0].Name != sa.Name {
		t.Fatalf("this management cluster's attachments: %v, %v", names(owned), err)
	}

	// Teardown, control-plane side first: records, zone, endpoint, address.
	records, _ = c.records.List(w.ctx, zone.Name)
	if _, err := c.records.Change(w.ctx, zone.Name, nil, gcpcloud.OwnRecords(records, zone.DnsName)); err != nil {
		t.Fatal(err)
	}
	if err := c.zones.Delete(w.ctx, zone, owner); err != nil {
		t.Fatal(err)
	}
	if z, err := c.zones.Get(w.ctx, zone.Name); z != nil || err != nil {
		t.Fatalf("zone after deletion: %v, %v", z, err)
	}
	op, err = c.endpoints.Delete(w.ctx, endpoint.Name, owner)
	w.settle(c.ops, op, err)
	op, err = c.addresses.Delete(w.ctx, gcpcloud.EndpointAddressName(owner), owner)
	w.settle(c.ops, op, err)
	op, err = m.attachments.Delete(w.ctx, sa.Name, managementID)
	w.settle(m.ops, op, err)
	if got, err := m.attachments.Get(w.ctx, sa.Name); got != nil || err != nil {
		t.Fatalf("attachment after deletion: %v, %v", got, err)
	}
	// Deleting again finds nothing to do.
	for _, del := range []func() (gcpcloud.Operation, error){
		func() (gcpcloud.Operation, error) { return m.attachments.Delete(w.ctx, sa.Name, managementID) },
		func() (gcpcloud.Operation, error) { return c.endpoints.Delete(w.ctx, endpoint.Name, owner) },
		func() (gcpcloud.Operation, error) {
			return c.addresses.Delete(w.ctx, gcpcloud.EndpointAddressName(owner), owner)
		},
	} {
		if op, err := del(); err != nil || !op.IsZero() {
			t.Fatalf("deleting what is gone: %+v, %v", op, err)
		}
	}
	if err := c.zones.Delete(w.ctx, zone, owner); err != nil {
		t.Fatalf("deleting a zone that is gone: %v", err)
	}
	w.assertNothingLeft()
}

// assertNothingLeft checks with the administrator that hcplink's
// resources are gone from both projects.
func (w *world) assertNothingLeft() {
	w.t.Helper()
	if _, err := w.admin.ServiceAttachments.Get(mgmtProject, region, gcpcloud.ServiceAttachmentName(owner)).Do(); !isStatus(err, http.StatusNotFound) {
		w.t.Errorf("attachment left: %v", err)
	}
	if _, err := w.admin.ForwardingRules.Get(customerProject, region, gcpcloud.EndpointName(owner)).Do(); !isStatus(err, http.StatusNotFound) {
		w.t.Errorf("endpoint left: %v", err)
	}
	if _, err := w.admin.Addresses.Get(customerProject, region, gcpcloud.EndpointAddressName(owner)).Do(); !isStatus(err, http.StatusNotFound) {
		w.t.Errorf("address left: %v", err)
	}
}

func subnetNames(subnets []*compute.Subnetwork) []string {
	var out []string
	for _, s := range subnets {
		out = append(out, s.Name)
	}
	return out
}

func names(attachments []*compute.ServiceAttachment) []string {
	var out []string
	for _, sa := range attachments {
		out = append(out, sa.Name)
	}
	return out
}

func sameLink(a, b string) bool {
	return gcpcloud.RelativeName(a) == gcpcloud.RelativeName(b)
}

func isStatus(err error, status int) bool {
	ge, ok := gcpcloud.APIError(err)
	return ok && ge.Code == status
}
