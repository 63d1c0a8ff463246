package gcpprivateserviceconnect

import (
	"strconv"
	"testing"

	"google.golang.org/api/compute/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// The drift pass reports the cluster's endpoint's connection from the
// shared listing, quietly: ACCEPTED with its connection ID once the
// control-plane operator names it; nothing once it is deleted behind our
// back; the new ID once it is made again. Another project's endpoint of
// the same name on the same attachment is not the cluster's.
func TestTheEndpointConnectionIsReportedFromTheListing(t *testing.T) {
	w := newWorld(t)
	r := w.reconciler(managerID, mgmtNetwork)
	c := w.cluster(func(hc *hcplinkv1beta1.HostedCluster, _ *hcplinkv1beta1.GCPPrivateServiceConnect) {
		hc.Spec.Platform.GCP.Private.AdditionalAllowedProjects = []string{partnerProject}
	})
	w.settle(r, c.cr)
	name := c.cr.Status.ServiceAttachmentName
	const endpoint = "cluster-psc"
	// Another project's endpoint of the cluster's endpoint's name, accepted.
	w.f.AddGCPProject(t, partnerProject, "300000000003")
	partnerSubnet := w.network(partnerProject, "partner", "partner-subnet", "172.16.0.0/24")
	w.pscEndpoint(partnerProject, partnerSubnet, endpoint, w.attachment(name))
	patchStatus(t, c.cr, map[string]any{"endpointName": endpoint}) // as the control-plane operator writes it
	ours := w.pscEndpoint(customerProject, w.workers, endpoint, w.attachment(name))

	driftPass := func() *hcplinkv1beta1.GCPEndpointConnection {
		t.Helper()
		w.clk.Advance(testDrift * 115 / 100)
		before := w.calls("")
		w.reconcile(r, c.cr)
		if after := w.calls(""); after.Total-before.Total != 1 || after.Mutating != before.Mutating {
			t.Fatalf("the drift pass made %d calls (%d mutating), want one listing: %+v", after.Total-before.Total, after.Mutating-before.Mutating, w.f.Calls(mgmtProject))
		}
		get(t, c.cr)
		return c.cr.Status.EndpointConnection
	}
	want := hcplinkv1beta1.GCPEndpointConnection{ForwardingRule: gcpcloud.EndpointRelativeName(customerProject, region, endpoint),
		PSCConnectionID: strconv.FormatUint(ours.PscConnectionId, 10), Status: gcpcloud.PSCAccepted}
	if got := driftPass(); got == nil || *got != want {
		t.Fatalf("status.endpointConnection %+v, want %+v", got, want)
	}
	// Quiet: nothing changed, nothing written.
	version := c.cr.ResourceVersion
	if driftPass(); c.cr.ResourceVersion != version {
		t.Fatalf("a drift pass with nothing changed wrote the status: %+v", c.cr.Status)
	}

	w.adminDone(w.admin.ForwardingRules.Delete(customerProject, region, endpoint).Do())
	if got := driftPass(); got != nil {
		t.Fatalf("status.endpointConnection %+v after the endpoint was deleted, want none", got)
	}
	again := w.pscEndpoint(customerProject, w.workers, endpoint, w.attachment(name))
	if again.PscConnectionId == ours.PscConnectionId {
		t.Fatal("setting up: the endpoint made again has the same connection ID")
	}
	want.PSCConnectionID = strconv.FormatUint(again.PscConnectionId, 10)
	if got := driftPass(); got == nil || *got != want {
		t.Fatalf("status.endpointConnection %+v for the endpoint made again, want %+v", got, want)
	}
}

// pscEndpoint makes (as the administrator) a PSC endpoint name in
// project's subnet targeting sa, and returns it as Google shows it.
func (w *world) pscEndpoint(project string, subnet *compute.Subnetwork, name string, sa *compute.ServiceAttachment) *compute.ForwardingRule {
	w.t.Helper()
	addrName := name + "-ip"
	if _, err := w.admin.Addresses.Get(project, region, addrName).Do(); gcpcloud.IsNotFound(err) {
		w.adminDone(w.admin.Addresses.Insert(project, region, &compute.Address{Name: addrName, AddressType: "INTERNAL", Subnetwork: subnet.SelfLink}).Do())
	}
	addr, err := w.admin.Addresses.Get(project, region, addrName).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	w.adminDone(w.admin.ForwardingRules.Insert(project, region, &compute.ForwardingRule{Name: name, Network: subnet.Network, IPAddress: addr.SelfLink, Target: sa.SelfLink}).Do())
	fr, err := w.admin.ForwardingRules.Get(project, region, name).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	if fr.PscConnectionStatus != gcpcloud.PSCAccepted {
		w.t.Fatalf("setting up: endpoint %s of %s is %s, want ACCEPTED", name, project, fr.PscConnectionStatus)
	}
	return fr
}

func TestEndpointConnection(t *testing.T) {
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{Spec: hcplinkv1beta1.GCPPrivateServiceConnectSpec{Project: "customer", Region: "r1"},
		Status: hcplinkv1beta1.GCPPrivateServiceConnectStatus{EndpointName: "ep"}}
	link := func(project, name string) string {
		return "https://www.googleapis.com/compute/v1/projects/" + project + "/regions/r1/forwardingRules/" + name
	}
	ours := "projects/customer/regions/r1/forwardingRules/ep"
	for _, tc := range []struct {
		name      string
		endpoints []*compute.ServiceAttachmentConnectedEndpoint
		unnamed   bool
		want      *hcplinkv1beta1.GCPEndpointConnection
	}{
		{name: "none connected"},
		{name: "ours accepted", endpoints: []*compute.ServiceAttachmentConnectedEndpoint{
			{Endpoint: link("other", "ep"), PscConnectionId: 7, Status: "ACCEPTED"},
			{Endpoint: link("customer", "ep"), PscConnectionId: 9, Status: "ACCEPTED"}},
			want: &hcplinkv1beta1.GCPEndpointConnection{ForwardingRule: ours, PSCConnectionID: "9", Status: "ACCEPTED"}},
		{name: "ours rejected", endpoints: []*compute.ServiceAttachmentConnectedEndpoint{{Endpoint: link("customer", "ep"), PscConnectionId: 9, Status: "REJECTED"}},
			want: &hcplinkv1beta1.GCPEndpointConnection{ForwardingRule: ours, PSCConnectionID: "9", Status: "REJECTED"}},
		{name: "only another project's of the name", endpoints: []*compute.ServiceAttachmentConnectedEndpoint{{Endpoint: link("other", "ep"), PscConnectionId: 7, Status: "ACCEPTED"}}},
		{name: "another name in the cluster's project", endpoints: []*compute.ServiceAttachmentConnectedEndpoint{{Endpoint: link("customer", "ep2"), PscConnectionId: 7, Status: "ACCEPTED"}}},
		{name: "two from ours: not told", endpoints: []*compute.ServiceAttachmentConnectedEndpoint{
			{Endpoint: link("customer", "ep"), PscConnectionId: 7, Status: "CLOSED"},
			{Endpoint: link("customer", "ep"), PscConnectionId: 9, Status: "ACCEPTED"}}},
		{name: "no endpoint named yet", unnamed: true, endpoints: []*compute.ServiceAttachmentConnectedEndpoint{{Endpoint: link("customer", "ep"), PscConnectionId: 9, Status: "ACCEPTED"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cr := cr.DeepCopy()
			if tc.unnamed {
				cr.Status.EndpointName = ""
			}
			got := endpointConnection(&compute.ServiceAttachment{ConnectedEndpoints: tc.endpoints}, cr)
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Fatalf("endpointConnection = %+v, want %+v", got, tc.want)
			}
		})
	}
	if got := endpointConnection(nil, cr); got != nil {
		t.Fatalf("endpointConnection of no attachment = %+v, want nil", got)
	}
}
