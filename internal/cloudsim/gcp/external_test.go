package gcp_test

import (
	"net/http"
	"strings"
	"testing"

	"google.golang.org/api/compute/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

// An EXTERNAL forwarding rule (a public Service's) gets an ephemeral
// external address of its own and no network; one in a network is
// refused, and no service attachment may front it.
func TestExternalForwardingRule(t *testing.T) {
	e := start(t)
	p := cloudsimtest.ManagementProject
	nodes := e.network(t, p, "management", "nodes", "10.0.0.0/24")
	e.done(t)(e.compute.Subnetworks.Insert(p, region, &compute.Subnetwork{Name: "psc-nat", Network: nodes.Network, IpCidrRange: "10.1.0.0/28", Purpose: "PRIVATE_SERVICE_CONNECT"}).Do())
	for _, name := range []string{"public-a", "public-b"} {
		e.done(t)(e.compute.ForwardingRules.Insert(p, region, &compute.ForwardingRule{Name: name, LoadBalancingScheme: "EXTERNAL",
			BackendService: "regions/" + region + "/backendServices/" + name, Ports: []string{"443"}}).Do())
	}
	a, b := e.rule(t, p, "public-a"), e.rule(t, p, "public-b")
	if !strings.HasPrefix(a.IPAddress, "34.") || a.IPAddress == b.IPAddress || a.Network != "" || a.Subnetwork != "" {
		t.Fatalf("external rules at %s and %s, network %q, subnetwork %q: want two distinct external addresses and no network", a.IPAddress, b.IPAddress, a.Network, a.Subnetwork)
	}
	_, err := e.compute.ForwardingRules.Insert(p, region, &compute.ForwardingRule{Name: "public-c", LoadBalancingScheme: "EXTERNAL",
		BackendService: "regions/" + region + "/backendServices/c", Subnetwork: nodes.SelfLink}).Do()
	wantError(t, err, http.StatusBadRequest, "invalid")
	_, err = e.compute.ServiceAttachments.Insert(p, region, &compute.ServiceAttachment{Name: "on-public", TargetService: a.SelfLink,
		ConnectionPreference: "ACCEPT_MANUAL", NatSubnets: []string{"regions/" + region + "/subnetworks/psc-nat"}}).Do()
	wantError(t, err, http.StatusBadRequest, "invalid")
	e.done(t)(e.compute.ForwardingRules.Delete(p, region, "public-a").Do())
}
