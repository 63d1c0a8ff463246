package demo

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	"google.golang.org/api/dns/v1"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

const (
	gcpMgmtProject     = cloudsimtest.ManagementProject
	gcpCustomerProject = cloudsimtest.CustomerProject
	gcpRegion          = cloudsimtest.GCPRegion
	gcpTestRouterIP    = "10.0.0.50"
)

var gcpTestOwner = gcpcloud.Owner{ManagementCluster: "3f1b7c9e-0d2a-4c55-9d1e-7a8b6c5d4e3f", InfraID: "demo-4k7q2", Name: "private-router"}

func TestGCPLeftoversFindsEachMark(t *testing.T) {
	marks := gcpMarks{infraID: "demo-4k7q2", routerIP: gcpTestRouterIP, managementProject: "mgmt",
		links: []string{"https://compute.googleapis.com/compute/v1/projects/mgmt/regions/r/serviceAttachments/seen"},
		names: []string{"hcplink-demo-4k7q2"},
	}
	other := gcpcloud.Owner{ManagementCluster: "m", InfraID: "other-1", Name: "private-router"}
	tests := []struct {
		name  string
		thing gcpThing
		ours  bool
	}{
		{"labelled", gcpThing{kind: "address", name: "a", labels: gcpTestOwner.Labels()}, true},
		{"another cluster's label", gcpThing{kind: "address", name: "a", labels: other.Labels()}, false},
		{"description marker", gcpThing{kind: "service attachment", name: "sa", description: gcpTestOwner.Description("Service attachment")}, true},
		{"another cluster's marker", gcpThing{kind: "service attachment", name: "sa", description: other.Description("Service attachment")}, false},
		{"fleet NAT subnetwork (no cluster in its marker)", gcpThing{kind: "subnetwork", name: "nat", description: gcpcloud.Owner{ManagementCluster: "m"}.Description("NAT")}, false},
		{"the link the tour saw, relative", gcpThing{kind: "service attachment", name: "seen", selfLink: "projects/mgmt/regions/r/serviceAttachments/seen"}, true},
		{"a name hcplink gives the cluster", gcpThing{kind: "private zone", name: "HCPLINK-demo-4k7q2"}, true},
		{"the router's rule", gcpThing{kind: "forwarding rule", project: "mgmt", name: "k8s-fw", address: gcpTestRouterIP}, true},
		{"the router's address in another project", gcpThing{kind: "forwarding rule", project: "customer", name: "x", address: gcpTestRouterIP}, false},
		{"unmarked", gcpThing{kind: "forwarding rule", project: "mgmt", name: "other", address: "10.0.0.9"}, false},
	}
	for _, tc := range tests {
		left := gcpLeftovers([]gcpThing{tc.thing}, marks)
		if (len(left) == 1) != tc.ours {
			t.Errorf("%s: leftovers = %v, want ours %v", tc.name, left, tc.ours)
		}
	}
}

// gcpWorld is cloudsim's Google Cloud with what a Private cluster leaves
// in both projects, made by the administrator over the real SDKs, beside
// things that are not the cluster's.
type gcpWorld struct {
	t       *testing.T
	ctx     context.Context
	clock   *sim.ManualClock
	compute *compute.Service
	dns     *dns.Service
}

func (w *gcpWorld) done(_ any, err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("setting up: %v", err)
	}
	w.clock.Advance(time.Second) // past the operation's delay
}

// The listing over cloudsim finds every resource of the cluster while it
// runs, and none — only the fixtures and the foreign resources — once
// they are deleted.
func TestGCPListingFindsTheClusterThenNothing(t *testing.T) {
	clock := sim.NewManualClock(time.Now().UTC().Truncate(time.Minute))
	f := cloudsimtest.StartGCP(t, cloudsim.Options{Clock: clock})
	tokens := cloudsimtest.GCPAdminTokens()
	w := &gcpWorld{t: t, ctx: context.Background(), clock: clock, compute: f.Compute(t, tokens), dns: f.DNS(t, tokens)}
	c := w.compute

	w.done(c.Networks.Insert(gcpMgmtProject, &compute.Network{Name: "management", ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do())
	w.done(c.Subnetworks.Insert(gcpMgmtProject, gcpRegion, &compute.Subnetwork{Name: "nodes", Network: "global/networks/management", IpCidrRange: "10.0.0.0/24"}).Do())
	w.done(c.Subnetworks.Insert(gcpMgmtProject, gcpRegion, &compute.Subnetwork{Name: "psc-nat", Network: "global/networks/management",
		IpCidrRange: "10.1.0.0/28", Purpose: gcpcloud.PurposePrivateServiceConnect}).Do())
	w.done(c.Networks.Insert(gcpCustomerProject, &compute.Network{Name: "customer", ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do())
	w.done(c.Subnetworks.Insert(gcpCustomerProject, gcpRegion, &compute.Subnetwork{Name: "workers", Network: "global/networks/customer", IpCidrRange: "192.168.1.0/24"}).Do())

	// The load balancer's rules: the cluster's router, and another Service's.
	for name, ip := range map[string]string{"k8s-router": gcpTestRouterIP, "k8s-other": "10.0.0.60"} {
		w.done(c.ForwardingRules.Insert(gcpMgmtProject, gcpRegion, &compute.ForwardingRule{Name: name, LoadBalancingScheme: "INTERNAL",
			BackendService: "regions/" + gcpRegion + "/backendServices/" + name, Subnetwork: "regions/" + gcpRegion + "/subnetworks/nodes",
			Network: "global/networks/management", IPAddress: ip, Ports: []string{"443"}}).Do())
	}
	attachment := gcpcloud.ServiceAttachmentName(gcpTestOwner)
	w.done(c.ServiceAttachments.Insert(gcpMgmtProject, gcpRegion, &compute.ServiceAttachment{Name: attachment,
		Description: gcpTestOwner.Description("Service attachment"), TargetService: "regions/" + gcpRegion + "/forwardingRules/k8s-router",
		ConnectionPreference: "ACCEPT_MANUAL", NatSubnets: []string{"regions/" + gcpRegion + "/subnetworks/psc-nat"},
		ConsumerAcceptLists: []*compute.ServiceAttachmentConsumerProjectLimit{{ProjectIdOrNum: gcpCustomerProject, ConnectionLimit: 10}}}).Do())
	sa, err := c.ServiceAttachments.Get(gcpMgmtProject, gcpRegion, attachment).Do()
	if err != nil {
		t.Fatal(err)
	}
	address := gcpcloud.EndpointAddressName(gcpTestOwner)
	w.done(c.Addresses.Insert(gcpCustomerProject, gcpRegion, &compute.Address{Name: address, AddressType: "INTERNAL",
		Subnetwork: "regions/" + gcpRegion + "/subnetworks/workers", Labels: gcpTestOwner.Labels()}).Do())
	w.done(c.Addresses.Insert(gcpCustomerProject, gcpRegion, &compute.Address{Name: "customers-own", AddressType: "INTERNAL",
		Subnetwork: "regions/" + gcpRegion + "/subnetworks/workers"}).Do())
	ip, err := c.Addresses.Get(gcpCustomerProject, gcpRegion, address).Do()
	if err != nil {
		t.Fatal(err)
	}
	endpoint := gcpcloud.EndpointName(gcpTestOwner)
	w.done(c.ForwardingRules.Insert(gcpCustomerProject, gcpRegion, &compute.ForwardingRule{Name: endpoint, Target: sa.SelfLink,
		Network: "global/networks/customer", IPAddress: ip.SelfLink, Labels: gcpTestOwner.Labels()}).Do())
	zone := gcpcloud.ZoneName(gcpTestOwner.InfraID)
	for name, labels := range map[string]map[string]string{zone: gcpTestOwner.ZoneLabels(), "customers-zone": nil} {
		w.done(w.dns.ManagedZones.Create(gcpCustomerProject, &dns.ManagedZone{Name: name, DnsName: name + ".example.", Description: "zone",
			Visibility: "private", Labels: labels}).Do())
	}

	scope := gcpScope{managementProject: gcpMgmtProject, customerProject: gcpCustomerProject, region: gcpRegion}
	marks := gcpMarks{infraID: gcpTestOwner.InfraID, routerIP: gcpTestRouterIP, managementProject: gcpMgmtProject,
		links: []string{sa.SelfLink}, names: []string{zone}}
	things, err := listGCP(w.ctx, c, w.dns, scope)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Private Service Connect endpoint " + endpoint + " (project " + gcpCustomerProject + ")",
		"address " + address + " (project " + gcpCustomerProject + ")",
		"forwarding rule k8s-router (project " + gcpMgmtProject + ")",
		"private zone " + zone + " (project " + gcpCustomerProject + ")",
		"service attachment " + attachment + " (project " + gcpMgmtProject + ")",
	}
	if got := gcpLeftovers(things, marks); !slices.Equal(got, want) {
		t.Fatalf("while the cluster runs the listing finds\n  %v\nwant\n  %v", got, want)
	}

	// Deleted in the order hcplink and the load balancer do.
	w.done(c.ForwardingRules.Delete(gcpCustomerProject, gcpRegion, endpoint).Do())
	w.done(c.Addresses.Delete(gcpCustomerProject, gcpRegion, address).Do())
	if err := w.dns.ManagedZones.Delete(gcpCustomerProject, zone).Do(); err != nil {
		t.Fatal(err)
	}
	w.done(c.ServiceAttachments.Delete(gcpMgmtProject, gcpRegion, attachment).Do())
	w.done(c.ForwardingRules.Delete(gcpMgmtProject, gcpRegion, "k8s-router").Do())

	things, err = listGCP(w.ctx, c, w.dns, scope)
	if err != nil {
		t.Fatal(err)
	}
	if left := gcpLeftovers(things, marks); len(left) != 0 {
		t.Fatalf("after deletion the listing still finds %v", left)
	}
	// What is not the cluster's is still listed: the proof looked.
	var names []string
	for _, th := range things {
		names = append(names, th.name)
	}
	for _, name := range []string{"k8s-other", "customers-own", "customers-zone", "psc-nat"} {
		if !slices.Contains(names, name) {
			t.Errorf("the listing misses %s, which was not deleted: %v", name, names)
		}
	}
}

func TestGCPTopologySaysWhoOwnsWhat(t *testing.T) {
	got := gcpTopology(
		devenv.GCPManagementNetwork{Project: "mgmt-project", Network: "mgmt-net", NATSubnets: []string{"nat-1", "nat-2"}},
		devenv.GCPClusterFixture{Project: "customer-project", Network: "customer-net", ControlPlaneOperatorServiceAccount: "cpo@customer-project.iam.gserviceaccount.com"})
	for _, want := range []string{"mgmt-project (the provider's)", "mgmt-net", "PSC NAT subnetworks (2)", "customer-project (the customer's)", "customer-net",
		"workload identity federation", "cpo@customer-project.iam.gserviceaccount.com"} {
		if !strings.Contains(got, want) {
			t.Errorf("topology lacks %q:\n%s", want, got)
		}
	}
}

// The tour's marks hold what it saw: the proof after deletion looks for
// exactly those, not only for labels.
func TestGCPTourMarksWhatItSaw(t *testing.T) {
	tour := &gcpTour{scope: gcpScope{managementProject: "mgmt"}, seen: seenGCP{routerIP: "10.0.0.5", attachment: "sa", attachmentLink: "projects/mgmt/regions/r/serviceAttachments/sa",
		endpoint: "ep", zone: "zone"}}
	things := []gcpThing{
		{kind: "forwarding rule", project: "mgmt", name: "k8s-fw", address: "10.0.0.5"},
		{kind: "service attachment", project: "mgmt", name: "renamed", selfLink: "https://x/compute/v1/projects/mgmt/regions/r/serviceAttachments/sa"},
		{kind: "Private Service Connect endpoint", project: "customer", name: "ep"},
		{kind: "private zone", project: "customer", name: "zone"},
		{kind: "private zone", project: "customer", name: gcpcloud.ZoneName(gcpInfraID)},
		{kind: "private zone", project: "customer", name: "customers-own"},
	}
	if got := gcpLeftovers(things, tour.marks()); len(got) != 5 {
		t.Errorf("leftovers = %v, want all but the customer's own zone", got)
	}
}
