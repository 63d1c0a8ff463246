package gcp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

const region = cloudsimtest.GCPRegion

// env is a cloudsim on a manual clock with the administrator's Compute
// Engine client.
type env struct {
	f       *cloudsimtest.Fixture
	clock   *sim.ManualClock
	compute *compute.Service
}

func start(t *testing.T) *env {
	t.Helper()
	clock := sim.NewManualClock(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
	f := cloudsimtest.StartGCP(t, cloudsim.Options{Clock: clock})
	return &env{f: f, clock: clock, compute: f.Compute(t, cloudsimtest.GCPAdminTokens())}
}

// done steps the clock past the operation's delay and checks that the
// operation is DONE without error, as a client polling it would.
func (e *env) done(t *testing.T) func(*compute.Operation, error) *compute.Operation {
	return func(op *compute.Operation, err error) *compute.Operation { t.Helper(); return e.wait(t, op, err) }
}

func (e *env) wait(t *testing.T, op *compute.Operation, err error) *compute.Operation {
	t.Helper()
	if err != nil {
		t.Fatalf("calling: %v", err)
	}
	e.clock.Advance(time.Second)
	got, err := e.getOperation(op)
	if err != nil {
		t.Fatalf("getting operation %s: %v", op.Name, err)
	}
	if got.Status != "DONE" {
		t.Fatalf("operation %s is %s a second later, want DONE", op.Name, got.Status)
	}
	if got.Error != nil {
		t.Fatalf("operation %s failed: %+v", op.Name, got.Error.Errors[0])
	}
	return got
}

func (e *env) getOperation(op *compute.Operation) (*compute.Operation, error) {
	project := projectOfLink(op.SelfLink)
	if op.Region == "" {
		return e.compute.GlobalOperations.Get(project, op.Name).Do()
	}
	return e.compute.RegionOperations.Get(project, region, op.Name).Do()
}

func projectOfLink(link string) string {
	const marker = "/projects/"
	i := len(link)
	for j := 0; j+len(marker) <= len(link); j++ {
		if link[j:j+len(marker)] == marker {
			i = j + len(marker)
			break
		}
	}
	end := i
	for end < len(link) && link[end] != '/' {
		end++
	}
	return link[i:end]
}

// apiError is the googleapi.Error behind err, with its first reason.
func apiError(t *testing.T, err error) (*googleapi.Error, string) {
	t.Helper()
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) {
		t.Fatalf("want a Google API error, got %v", err)
	}
	reason := ""
	if len(gerr.Errors) > 0 {
		reason = gerr.Errors[0].Reason
	}
	return gerr, reason
}

func wantError(t *testing.T, err error, code int, reason string) *googleapi.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want %d %s, got success", code, reason)
	}
	gerr, got := apiError(t, err)
	if gerr.Code != code || got != reason {
		t.Fatalf("want %d %s, got %d %s: %s", code, reason, gerr.Code, got, gerr.Message)
	}
	return gerr
}

// network creates a custom-mode network with one subnetwork.
func (e *env) network(t *testing.T, project, name, subnet, cidr string) *compute.Subnetwork {
	t.Helper()
	e.done(t)(e.compute.Networks.Insert(project, &compute.Network{Name: name, ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do())
	e.done(t)(e.compute.Subnetworks.Insert(project, region, &compute.Subnetwork{Name: subnet, Network: "global/networks/" + name, IpCidrRange: cidr}).Do())
	s, err := e.compute.Subnetworks.Get(project, region, subnet).Do()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// producer is the management side: a network, a NAT subnetwork of the
// given range, the router's internal forwarding rule, and a service
// attachment accepting the customer project (limit 1) by hand.
type producer struct {
	router     *compute.ForwardingRule
	attachment *compute.ServiceAttachment
}

func (e *env) producer(t *testing.T, natRange string) producer {
	t.Helper()
	p := cloudsimtest.ManagementProject
	nodes := e.network(t, p, "management", "nodes", "10.0.0.0/24")
	e.done(t)(e.compute.Subnetworks.Insert(p, region, &compute.Subnetwork{Name: "psc-nat", Network: nodes.Network, IpCidrRange: natRange, Purpose: "PRIVATE_SERVICE_CONNECT"}).Do())
	e.done(t)(e.compute.ForwardingRules.Insert(p, region, &compute.ForwardingRule{Name: "router", LoadBalancingScheme: "INTERNAL",
		BackendService: "regions/" + region + "/backendServices/router", Subnetwork: nodes.SelfLink, IPAddress: "10.0.0.10", Ports: []string{"443"}}).Do())
	router, err := e.compute.ForwardingRules.Get(p, region, "router").Do()
	if err != nil {
		t.Fatal(err)
	}
	e.done(t)(e.compute.ServiceAttachments.Insert(p, region, &compute.ServiceAttachment{Name: "cluster-a", TargetService: router.SelfLink,
		ConnectionPreference: "ACCEPT_MANUAL", NatSubnets: []string{"regions/" + region + "/subnetworks/psc-nat"},
		ConsumerAcceptLists: []*compute.ServiceAttachmentConsumerProjectLimit{{ProjectIdOrNum: cloudsimtest.CustomerProject, ConnectionLimit: 1}}}).Do())
	sa, err := e.compute.ServiceAttachments.Get(p, region, "cluster-a").Do()
	if err != nil {
		t.Fatal(err)
	}
	return producer{router: router, attachment: sa}
}

// endpoint reserves an address in a consumer subnetwork and creates a PSC
// endpoint to the attachment; it returns the endpoint as read back.
func (e *env) endpoint(t *testing.T, project string, subnet *compute.Subnetwork, name, attachment string) *compute.ForwardingRule {
	t.Helper()
	e.done(t)(e.compute.Addresses.Insert(project, region, &compute.Address{Name: name, AddressType: "INTERNAL", Subnetwork: subnet.SelfLink}).Do())
	addr, err := e.compute.Addresses.Get(project, region, name).Do()
	if err != nil {
		t.Fatal(err)
	}
	e.done(t)(e.compute.ForwardingRules.Insert(project, region, &compute.ForwardingRule{Name: name, Network: subnet.Network,
		IPAddress: addr.SelfLink, Target: attachment}).Do())
	return e.rule(t, project, name)
}

func (e *env) rule(t *testing.T, project, name string) *compute.ForwardingRule {
	t.Helper()
	fr, err := e.compute.ForwardingRules.Get(project, region, name).Do()
	if err != nil {
		t.Fatalf("getting forwarding rule %s: %v", name, err)
	}
	return fr
}

var ctx = context.Background()

func staticToken(token string) oauth2.TokenSource {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token, TokenType: "Bearer"})
}
