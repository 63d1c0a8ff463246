package gcp_test

import (
	"net/http"
	"strings"
	"testing"

	"google.golang.org/api/compute/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
)

// A customer's endpoint is accepted across projects; a second one passes
// the entry's connection limit and waits; a foreign project's waits until
// the producer rejects it (patch with the fingerprint); removing the
// attachment closes every connection.
func TestPSCConnectionsFollowTheProducersLists(t *testing.T) {
	e := start(t)
	prod := e.producer(t, "10.1.0.0/28")
	workers := e.network(t, cloudsimtest.CustomerProject, "customer", "workers", "10.10.0.0/24")

	first := e.endpoint(t, cloudsimtest.CustomerProject, workers, "api", prod.attachment.SelfLink)
	if first.PscConnectionStatus != "ACCEPTED" || first.PscConnectionId == 0 || first.IPAddress != "10.10.0.2" {
		t.Fatalf("customer endpoint: status %q, connection %d, IP %s; want ACCEPTED with an ID at 10.10.0.2", first.PscConnectionStatus, first.PscConnectionId, first.IPAddress)
	}
	second := e.endpoint(t, cloudsimtest.CustomerProject, workers, "api-2", prod.attachment.SelfLink)
	if second.PscConnectionStatus != "PENDING" {
		t.Fatalf("second endpoint past the connection limit of 1: %s, want PENDING", second.PscConnectionStatus)
	}

	e.f.AddGCPProject(t, "foreign-project", "300000000003")
	foreignNet := e.network(t, "foreign-project", "foreign", "foreign-workers", "10.20.0.0/24")
	foreign := e.endpoint(t, "foreign-project", foreignNet, "intruder", prod.attachment.SelfLink)
	if foreign.PscConnectionStatus != "PENDING" {
		t.Fatalf("foreign endpoint: %s, want PENDING", foreign.PscConnectionStatus)
	}

	sa, err := e.compute.ServiceAttachments.Get(cloudsimtest.ManagementProject, region, "cluster-a").Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(sa.ConnectedEndpoints) != 3 || sa.ConnectedEndpoints[0].Status != "ACCEPTED" || len(sa.ConnectedEndpoints[0].NatIps) != 1 {
		t.Fatalf("connectedEndpoints = %+v, want three, the first ACCEPTED with a NAT address", sa.ConnectedEndpoints)
	}

	stale := sa.Fingerprint
	reject := &compute.ServiceAttachment{Fingerprint: sa.Fingerprint, ConsumerRejectLists: []string{"300000000003"}}
	e.done(t)(e.compute.ServiceAttachments.Patch(cloudsimtest.ManagementProject, region, "cluster-a", reject).Do())
	if got := e.rule(t, "foreign-project", "intruder").PscConnectionStatus; got != "REJECTED" {
		t.Fatalf("foreign endpoint after the reject list names its project number: %s, want REJECTED", got)
	}
	_, err = e.compute.ServiceAttachments.Patch(cloudsimtest.ManagementProject, region, "cluster-a",
		&compute.ServiceAttachment{Fingerprint: stale, ConsumerRejectLists: []string{}}).Do()
	wantError(t, err, http.StatusPreconditionFailed, "conditionNotMet")

	_, err = e.compute.ForwardingRules.Delete(cloudsimtest.ManagementProject, region, "router").Do()
	wantError(t, err, http.StatusBadRequest, "resourceInUseByAnotherResource")

	e.done(t)(e.compute.ServiceAttachments.Delete(cloudsimtest.ManagementProject, region, "cluster-a").Do())
	for _, ep := range []struct{ project, name string }{{cloudsimtest.CustomerProject, "api"}, {cloudsimtest.CustomerProject, "api-2"}, {"foreign-project", "intruder"}} {
		if got := e.rule(t, ep.project, ep.name).PscConnectionStatus; got != "CLOSED" {
			t.Errorf("%s/%s after the attachment's deletion: %s, want CLOSED", ep.project, ep.name, got)
		}
	}
}

// Raising the entry's limit accepts the waiting endpoint; an accepted
// connection stays accepted when the list changes (reconcileConnections off).
func TestPSCAcceptListChangesAffectPendingConnectionsOnly(t *testing.T) {
	e := start(t)
	prod := e.producer(t, "10.1.0.0/28")
	workers := e.network(t, cloudsimtest.CustomerProject, "customer", "workers", "10.10.0.0/24")
	e.endpoint(t, cloudsimtest.CustomerProject, workers, "api", prod.attachment.SelfLink)
	e.endpoint(t, cloudsimtest.CustomerProject, workers, "api-2", prod.attachment.SelfLink)

	sa, _ := e.compute.ServiceAttachments.Get(cloudsimtest.ManagementProject, region, "cluster-a").Do()
	sa.ConsumerAcceptLists[0].ConnectionLimit = 2
	e.done(t)(e.compute.ServiceAttachments.Patch(cloudsimtest.ManagementProject, region, "cluster-a",
		&compute.ServiceAttachment{Fingerprint: sa.Fingerprint, ConsumerAcceptLists: sa.ConsumerAcceptLists}).Do())
	if got := e.rule(t, cloudsimtest.CustomerProject, "api-2").PscConnectionStatus; got != "ACCEPTED" {
		t.Fatalf("waiting endpoint after the limit rose to 2: %s, want ACCEPTED", got)
	}

	sa, _ = e.compute.ServiceAttachments.Get(cloudsimtest.ManagementProject, region, "cluster-a").Do()
	e.done(t)(e.compute.ServiceAttachments.Patch(cloudsimtest.ManagementProject, region, "cluster-a",
		&compute.ServiceAttachment{Fingerprint: sa.Fingerprint, NullFields: []string{"ConsumerAcceptLists"}}).Do())
	if got := e.rule(t, cloudsimtest.CustomerProject, "api").PscConnectionStatus; got != "ACCEPTED" {
		t.Fatalf("accepted endpoint after its project left the accept list: %s, want still ACCEPTED", got)
	}

	// A rejected connection stays rejected when its project leaves the
	// reject list and joins the accept list.
	e.f.AddGCPProject(t, "partner-project", "300000000005")
	partnerNet := e.network(t, "partner-project", "partner", "partner-workers", "10.30.0.0/24")
	e.endpoint(t, "partner-project", partnerNet, "partner-api", prod.attachment.SelfLink)
	sa, _ = e.compute.ServiceAttachments.Get(cloudsimtest.ManagementProject, region, "cluster-a").Do()
	e.done(t)(e.compute.ServiceAttachments.Patch(cloudsimtest.ManagementProject, region, "cluster-a",
		&compute.ServiceAttachment{Fingerprint: sa.Fingerprint, ConsumerRejectLists: []string{"partner-project"}}).Do())
	if got := e.rule(t, "partner-project", "partner-api").PscConnectionStatus; got != "REJECTED" {
		t.Fatalf("pending endpoint whose project joined the reject list: %s, want REJECTED", got)
	}
	sa, _ = e.compute.ServiceAttachments.Get(cloudsimtest.ManagementProject, region, "cluster-a").Do()
	e.done(t)(e.compute.ServiceAttachments.Patch(cloudsimtest.ManagementProject, region, "cluster-a",
		&compute.ServiceAttachment{Fingerprint: sa.Fingerprint, ConsumerRejectLists: []string{},
			ConsumerAcceptLists: []*compute.ServiceAttachmentConsumerProjectLimit{{ProjectIdOrNum: "partner-project", ConnectionLimit: 1}},
			ForceSendFields:     []string{"ConsumerRejectLists"}}).Do())
	if got := e.rule(t, "partner-project", "partner-api").PscConnectionStatus; got != "REJECTED" {
		t.Fatalf("rejected endpoint whose project moved to the accept list (reconcileConnections off): %s, want still REJECTED", got)
	}
}

// With reconcileConnections on, the lists apply to established connections:
// an accepted endpoint whose project leaves the accept list goes back to
// PENDING (no traffic), one whose project joins the reject list is
// REJECTED, and one whose project returns to the accept list (and leaves
// the reject list) is ACCEPTED again.
func TestPSCReconcileConnectionsAppliesTheListsToEstablishedConnections(t *testing.T) {
	e := start(t)
	prod := e.producer(t, "10.1.0.0/28")
	sa := prod.attachment
	if sa.ReconcileConnections {
		t.Fatal("a new attachment reconciles connections without asking; Google's default is false")
	}
	e.f.AddGCPProject(t, "partner-project", "300000000005")
	accept := func(projects ...string) []*compute.ServiceAttachmentConsumerProjectLimit {
		out := []*compute.ServiceAttachmentConsumerProjectLimit{}
		for _, p := range projects {
			out = append(out, &compute.ServiceAttachmentConsumerProjectLimit{ProjectIdOrNum: p, ConnectionLimit: 1})
		}
		return out
	}
	patch := func(change *compute.ServiceAttachment) {
		t.Helper()
		current, err := e.compute.ServiceAttachments.Get(cloudsimtest.ManagementProject, region, "cluster-a").Do()
		if err != nil {
			t.Fatal(err)
		}
		change.Fingerprint = current.Fingerprint
		e.done(t)(e.compute.ServiceAttachments.Patch(cloudsimtest.ManagementProject, region, "cluster-a", change).Do())
	}
	patch(&compute.ServiceAttachment{ReconcileConnections: true, ConsumerAcceptLists: accept(cloudsimtest.CustomerProject, "partner-project")})
	workers := e.network(t, cloudsimtest.CustomerProject, "customer", "workers", "10.10.0.0/24")
	e.endpoint(t, cloudsimtest.CustomerProject, workers, "api", sa.SelfLink)
	partnerNet := e.network(t, "partner-project", "partner", "partner-workers", "10.30.0.0/24")
	if got := e.endpoint(t, "partner-project", partnerNet, "partner-api", sa.SelfLink).PscConnectionStatus; got != "ACCEPTED" {
		t.Fatalf("partner endpoint on the accept list: %s, want ACCEPTED", got)
	}

	steps := []struct {
		change  *compute.ServiceAttachment
		partner string
	}{
		{&compute.ServiceAttachment{ConsumerAcceptLists: accept(cloudsimtest.CustomerProject)}, "PENDING"},
		{&compute.ServiceAttachment{ConsumerRejectLists: []string{"300000000005"}}, "REJECTED"},
		{&compute.ServiceAttachment{ConsumerRejectLists: []string{}, ConsumerAcceptLists: accept(cloudsimtest.CustomerProject, "partner-project"),
			ForceSendFields: []string{"ConsumerRejectLists"}}, "ACCEPTED"},
	}
	for i, step := range steps {
		patch(step.change)
		if got := e.rule(t, "partner-project", "partner-api").PscConnectionStatus; got != step.partner {
			t.Fatalf("step %d: partner endpoint %s, want %s", i+1, got, step.partner)
		}
		if got := e.rule(t, cloudsimtest.CustomerProject, "api").PscConnectionStatus; got != "ACCEPTED" {
			t.Fatalf("step %d: customer endpoint %s, want ACCEPTED throughout", i+1, got)
		}
	}
	got, _ := e.compute.ServiceAttachments.Get(cloudsimtest.ManagementProject, region, "cluster-a").Do()
	if !got.ReconcileConnections {
		t.Fatal("reconcileConnections is not read back as set")
	}
}

// A /29 NAT subnetwork has four usable addresses: the fifth accepted
// connection needs attention.
func TestPSCNATSubnetCapacity(t *testing.T) {
	e := start(t)
	prod := e.producer(t, "10.1.0.0/29")
	sa := prod.attachment
	e.done(t)(e.compute.ServiceAttachments.Patch(cloudsimtest.ManagementProject, region, "cluster-a", &compute.ServiceAttachment{
		Fingerprint: sa.Fingerprint, ConnectionPreference: "ACCEPT_AUTOMATIC", NullFields: []string{"ConsumerAcceptLists"}}).Do())
	workers := e.network(t, cloudsimtest.CustomerProject, "customer", "workers", "10.10.0.0/24")
	for i, name := range []string{"ep-1", "ep-2", "ep-3", "ep-4", "ep-5"} {
		want := "ACCEPTED"
		if i == 4 {
			want = "NEEDS_ATTENTION"
		}
		if got := e.endpoint(t, cloudsimtest.CustomerProject, workers, name, sa.SelfLink).PscConnectionStatus; got != want {
			t.Fatalf("endpoint %d of a /29 NAT subnetwork: %s, want %s", i+1, got, want)
		}
	}
}

// The dependency rules: overlapping ranges, NAT subnetworks for one
// attachment only and for nothing else, in-use deletions refused.
func TestComputeDependencyRules(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	prod := e.producer(t, "10.1.0.0/28")

	_, err := e.compute.Subnetworks.Insert(p, region, &compute.Subnetwork{Name: "overlap", Network: "global/networks/management", IpCidrRange: "10.0.0.128/25"}).Do()
	if gerr := wantError(t, err, http.StatusBadRequest, "invalid"); gerr.Message == "" {
		t.Fatal("no message")
	}
	_, err = e.compute.ServiceAttachments.Insert(p, region, &compute.ServiceAttachment{Name: "cluster-b", TargetService: prod.router.SelfLink,
		ConnectionPreference: "ACCEPT_AUTOMATIC", NatSubnets: []string{"regions/" + region + "/subnetworks/psc-nat"}}).Do()
	wantError(t, err, http.StatusBadRequest, "resourceInUseByAnotherResource")
	_, err = e.compute.Addresses.Insert(p, region, &compute.Address{Name: "in-nat", AddressType: "INTERNAL", Subnetwork: "regions/" + region + "/subnetworks/psc-nat"}).Do()
	wantError(t, err, http.StatusBadRequest, "invalid")
	_, err = e.compute.ServiceAttachments.Insert(p, region, &compute.ServiceAttachment{Name: "cluster-c", TargetService: prod.router.SelfLink,
		ConnectionPreference: "ACCEPT_MANUAL", NatSubnets: []string{"regions/" + region + "/subnetworks/nodes"}}).Do()
	wantError(t, err, http.StatusBadRequest, "invalid")

	_, err = e.compute.Subnetworks.Delete(p, region, "psc-nat").Do()
	wantError(t, err, http.StatusBadRequest, "resourceInUseByAnotherResource")
	_, err = e.compute.Subnetworks.Delete(p, region, "nodes").Do()
	wantError(t, err, http.StatusBadRequest, "resourceInUseByAnotherResource")
	_, err = e.compute.Networks.Delete(p, "management").Do()
	wantError(t, err, http.StatusBadRequest, "resourceInUseByAnotherResource")

	workers := e.network(t, cloudsimtest.CustomerProject, "customer", "workers", "10.10.0.0/24")
	e.endpoint(t, cloudsimtest.CustomerProject, workers, "api", prod.attachment.SelfLink)
	_, err = e.compute.Addresses.Delete(cloudsimtest.CustomerProject, region, "api").Do()
	wantError(t, err, http.StatusBadRequest, "resourceInUseByAnotherResource")
	addr, _ := e.compute.Addresses.Get(cloudsimtest.CustomerProject, region, "api").Do()
	if addr.Status != "IN_USE" || len(addr.Users) != 1 {
		t.Fatalf("address used by the endpoint: %s, users %v; want IN_USE by the endpoint", addr.Status, addr.Users)
	}

	// Tear down in order: each step was refused above while it was in use.
	e.done(t)(e.compute.ForwardingRules.Delete(cloudsimtest.CustomerProject, region, "api").Do())
	e.done(t)(e.compute.Addresses.Delete(cloudsimtest.CustomerProject, region, "api").Do())
	e.done(t)(e.compute.ServiceAttachments.Delete(p, region, "cluster-a").Do())
	e.done(t)(e.compute.ForwardingRules.Delete(p, region, "router").Do())
	e.done(t)(e.compute.Subnetworks.Delete(p, region, "psc-nat").Do())
	e.done(t)(e.compute.Subnetworks.Delete(p, region, "nodes").Do())
	e.done(t)(e.compute.Networks.Delete(p, "management").Do())
}

// The accept list's size is capped when a limit is set.
func TestPSCAcceptListLimit(t *testing.T) {
	e := start(t)
	prod := e.producer(t, "10.1.0.0/28")
	e.f.Server.GCP.SetLimits(gcp.Limits{AcceptListEntries: 1})
	sa := prod.attachment
	_, err := e.compute.ServiceAttachments.Patch(cloudsimtest.ManagementProject, region, "cluster-a", &compute.ServiceAttachment{
		Fingerprint: sa.Fingerprint, ConsumerAcceptLists: append(sa.ConsumerAcceptLists,
			&compute.ServiceAttachmentConsumerProjectLimit{ProjectIdOrNum: "another-project", ConnectionLimit: 1})}).Do()
	wantError(t, err, http.StatusBadRequest, "invalid")
}

// A PSC endpoint needs compute.forwardingRules.pscCreate and pscDelete
// beside create and delete: a custom role without them is refused.
func TestPSCEndpointsNeedThePSCPermissions(t *testing.T) {
	e := start(t)
	prod := e.producer(t, "10.1.0.0/28")
	c := cloudsimtest.CustomerProject
	subnet := e.network(t, c, "customer", "workers", "192.168.1.0/24")
	e.done(t)(e.compute.Addresses.Insert(c, region, &compute.Address{Name: "ip", AddressType: "INTERNAL", Subnetwork: subnet.SelfLink}).Do())
	base := []string{"compute.forwardingRules.create", "compute.forwardingRules.delete", "compute.forwardingRules.get",
		"compute.addresses.use", "compute.networks.use", "compute.regionOperations.get"}
	if _, err := e.f.Server.GCP.AddCustomRole(c, "withoutPSC", base); err != nil {
		t.Fatal(err)
	}
	member := "serviceAccount:consumer@" + c + ".iam.gserviceaccount.com"
	if err := e.f.Server.GCP.Grant(c, "projects/"+c+"/roles/withoutPSC", member, nil); err != nil {
		t.Fatal(err)
	}
	svc := e.f.Compute(t, staticToken(e.f.Server.GCP.IssueToken(member)))
	endpoint := &compute.ForwardingRule{Name: "ep", Network: subnet.Network, IPAddress: "regions/" + region + "/addresses/ip", Target: prod.attachment.SelfLink}
	_, err := svc.ForwardingRules.Insert(c, region, endpoint).Do()
	if gerr := wantError(t, err, http.StatusForbidden, "forbidden"); !strings.Contains(gerr.Message, "compute.forwardingRules.pscCreate") {
		t.Fatalf("denial %q does not name pscCreate", gerr.Message)
	}
	if _, err := e.f.Server.GCP.AddCustomRole(c, "withPSC", append(base, "compute.forwardingRules.pscCreate")); err != nil {
		t.Fatal(err)
	}
	if err := e.f.Server.GCP.Grant(c, "projects/"+c+"/roles/withPSC", member, nil); err != nil {
		t.Fatal(err)
	}
	e.done(t)(svc.ForwardingRules.Insert(c, region, endpoint).Do())
	_, err = svc.ForwardingRules.Delete(c, region, "ep").Do()
	if gerr := wantError(t, err, http.StatusForbidden, "forbidden"); !strings.Contains(gerr.Message, "compute.forwardingRules.pscDelete") {
		t.Fatalf("denial %q does not name pscDelete", gerr.Message)
	}
}

// A service attachment uses its target forwarding rule: creating one needs
// compute.forwardingRules.use on the rule.
func TestServiceAttachmentsNeedTheRuleUse(t *testing.T) {
	e := start(t)
	prod := e.producer(t, "10.1.0.0/28")
	p := cloudsimtest.ManagementProject
	e.done(t)(e.compute.Subnetworks.Insert(p, region, &compute.Subnetwork{Name: "psc-nat-2", Network: prod.router.Network, IpCidrRange: "10.1.0.16/28", Purpose: "PRIVATE_SERVICE_CONNECT"}).Do())
	if _, err := e.f.Server.GCP.AddCustomRole(p, "producer", []string{"compute.serviceAttachments.create", "compute.subnetworks.use"}); err != nil {
		t.Fatal(err)
	}
	member := "serviceAccount:producer@" + p + ".iam.gserviceaccount.com"
	if err := e.f.Server.GCP.Grant(p, "projects/"+p+"/roles/producer", member, nil); err != nil {
		t.Fatal(err)
	}
	svc := e.f.Compute(t, staticToken(e.f.Server.GCP.IssueToken(member)))
	_, err := svc.ServiceAttachments.Insert(p, region, &compute.ServiceAttachment{Name: "second", TargetService: prod.router.SelfLink,
		ConnectionPreference: "ACCEPT_AUTOMATIC", NatSubnets: []string{"regions/" + region + "/subnetworks/psc-nat-2"}}).Do()
	if gerr := wantError(t, err, http.StatusForbidden, "forbidden"); !strings.Contains(gerr.Message, "compute.forwardingRules.use") {
		t.Fatalf("denial %q does not name compute.forwardingRules.use", gerr.Message)
	}
}
