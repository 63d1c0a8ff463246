package gcp_test

import (
	"context"
	"os"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/compute/v1"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// world is cloudsim's Google Cloud on a manual clock: a management project
// with this management cluster's network (a nodes subnetwork, the router's
// internal forwarding rule, two PSC NAT subnetworks), another management
// cluster's network in the same project with a rule at the same address,
// and a customer project with a network and a workers subnetwork. The
// administrator builds it; the code under test runs as principals that
// hold only the custom roles of the permissions table.
type world struct {
	t     *testing.T
	ctx   context.Context
	f     *cloudsimtest.Fixture
	clock *sim.ManualClock
	admin *compute.Service

	mgmt        *gcpcloud.Clients // the management operator's sign-in
	cpo         *gcpcloud.Clients // the control-plane operator's (workload identity federation)
	mgmtSA      string            // the management operator's IAM member
	mgmtKeyFile []byte            // its service account key file
	cpoSA       string            // the control-plane operator's IAM member

	router, otherRouter *compute.ForwardingRule
	workers             *compute.Subnetwork
	customerNetwork     string
}

const (
	mgmtProject     = cloudsimtest.ManagementProject
	customerProject = cloudsimtest.CustomerProject
	region          = cloudsimtest.GCPRegion
	routerIP        = "10.0.0.50"
	mgmtNetwork     = "projects/" + mgmtProject + "/global/networks/management"
	managementID    = "3f1b7c9e-0d2a-4c55-9d1e-7a8b6c5d4e3f"
	otherManagement = "8a7b6c5d-1111-2222-3333-444455556666"
)

var owner = gcpcloud.Owner{ManagementCluster: managementID, InfraID: "demo-x7k2p", Name: "private-router"}

func newWorld(t *testing.T) *world {
	t.Helper()
	// The sim clock starts at the wall clock's time: the credentials library
	// judges a token's expiry by the wall clock, so a clock in the past would
	// make every impersonated token look expired.
	clock := sim.NewManualClock(time.Now().UTC().Truncate(time.Minute))
	f := cloudsimtest.StartGCP(t, cloudsim.Options{Clock: clock})
	w := &world{t: t, ctx: context.Background(), f: f, clock: clock, admin: f.Compute(t, cloudsimtest.GCPAdminTokens())}

	w.network(mgmtProject, "management", "nodes", "10.0.0.0/24")
	w.natSubnet("management", "psc-nat-a", "10.1.0.0/28")
	w.natSubnet("management", "psc-nat-b", "10.1.0.16/28")
	w.router = w.internalRule("router", "management", "nodes", routerIP)
	// Another management cluster in the same project: same address, its own network.
	w.network(mgmtProject, "other-mgmt", "other-nodes", "10.0.0.0/24")
	w.natSubnet("other-mgmt", "other-psc-nat", "10.1.0.0/28")
	w.otherRouter = w.internalRule("other-router", "other-mgmt", "other-nodes", routerIP)

	w.workers = w.network(customerProject, "customer", "workers", "192.168.1.0/24")
	w.customerNetwork = w.workers.Network

	// The management operator signs in with a service account key file.
	operator, err := f.Server.GCP.AddServiceAccount(mgmtProject, "hcplink-operator", "")
	if err != nil {
		t.Fatal(err)
	}
	w.mgmtKeyFile, err = f.Server.GCP.AddServiceAccountKey(operator.Email, f.URL+"/oauth2/token")
	if err != nil {
		t.Fatal(err)
	}
	w.mgmtSA = "serviceAccount:" + operator.Email
	w.grantRole(mgmtProject, gcpcloud.ManagementOperator, w.mgmtSA)
	w.mgmt = w.clients(gcpcloud.Config{CredentialsJSON: w.mgmtKeyFile, Component: "operator"})

	wi := f.AddWorkloadIdentity(t, customerProject, cloudsimtest.CustomerProjectNumber, "control-plane", "system:serviceaccount:clusters-demo:control-plane-operator")
	w.cpoSA = "serviceAccount:" + wi.Email
	w.grantRole(customerProject, gcpcloud.ControlPlaneOperator, w.cpoSA)
	w.cpo = w.clients(gcpcloud.Config{CredentialsJSON: w.externalAccount(wi).ExternalAccountJSON(), Component: "control-plane-operator"})
	return w
}

// externalAccount is the control-plane operator's sign-in on cloudsim, with
// a ServiceAccount token the workload identity's issuer signed.
func (w *world) externalAccount(wi *cloudsimtest.WorkloadIdentity) gcpcloud.WorkloadIdentity {
	w.t.Helper()
	tokenFile := w.t.TempDir() + "/token"
	writeFile(w.t, tokenFile, wi.ServiceAccountToken(w.t, wi.Signer, w.clock.Now()))
	return gcpcloud.WorkloadIdentity{
		Audience: wi.Audience(), ServiceAccountEmail: wi.Email, TokenFile: tokenFile,
		STSEndpoint: w.f.URL + "/sts/v1/token", IAMCredentialsEndpoint: w.f.URL + "/iamcredentials/",
	}
}

func (w *world) clients(c gcpcloud.Config) *gcpcloud.Clients {
	w.t.Helper()
	c.ComputeEndpoint, c.DNSEndpoint = w.f.URL+"/compute/v1/", w.f.URL+"/"
	clients, err := gcpcloud.NewClients(w.ctx, c)
	if err != nil {
		w.t.Fatalf("building clients: %v", err)
	}
	return clients
}

// grantRole makes the component's custom role from the table in project
// and grants it to member: exactly the table, nothing else.
func (w *world) grantRole(project string, c gcpcloud.Component, member string) {
	w.t.Helper()
	role, err := w.f.Server.GCP.AddCustomRole(project, gcpcloud.RoleID(c), gcpcloud.PermissionsOf(c))
	if err != nil {
		w.t.Fatalf("custom role of %s: %v", c, err)
	}
	if err := w.f.Server.GCP.Grant(project, role.Name, member, nil); err != nil {
		w.t.Fatal(err)
	}
}

// adminDone steps the clock past an administrator's operation.
func (w *world) adminDone(op *compute.Operation, err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("setting up: %v", err)
	}
	w.clock.Advance(time.Second)
}

func (w *world) network(project, name, subnet, cidr string) *compute.Subnetwork {
	w.t.Helper()
	w.adminDone(w.admin.Networks.Insert(project, &compute.Network{Name: name, ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do())
	w.adminDone(w.admin.Subnetworks.Insert(project, region, &compute.Subnetwork{Name: subnet, Network: "global/networks/" + name, IpCidrRange: cidr}).Do())
	s, err := w.admin.Subnetworks.Get(project, region, subnet).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

func (w *world) natSubnet(network, name, cidr string) {
	w.t.Helper()
	w.adminDone(w.admin.Subnetworks.Insert(mgmtProject, region, &compute.Subnetwork{Name: name, Network: "global/networks/" + network,
		IpCidrRange: cidr, Purpose: gcpcloud.PurposePrivateServiceConnect}).Do())
}

func (w *world) internalRule(name, network, subnet, ip string) *compute.ForwardingRule {
	w.t.Helper()
	w.adminDone(w.admin.ForwardingRules.Insert(mgmtProject, region, &compute.ForwardingRule{Name: name, LoadBalancingScheme: "INTERNAL",
		BackendService: "regions/" + region + "/backendServices/" + name, Subnetwork: "regions/" + region + "/subnetworks/" + subnet,
		Network: "global/networks/" + network, IPAddress: ip, Ports: []string{"443"}}).Do())
	fr, err := w.admin.ForwardingRules.Get(mgmtProject, region, name).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	return fr
}

// settle waits on op as a reconcile would on its next pass: the sim clock
// steps past the operation's delay, then one wait finds it DONE.
func (w *world) settle(ops *gcpcloud.Operations, op gcpcloud.Operation, err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("starting a change: %v", err)
	}
	w.clock.Advance(time.Second)
	done, err := ops.Wait(w.ctx, op)
	if err != nil {
		w.t.Fatalf("waiting on %s: %v", op.Doing, err)
	}
	if !op.IsZero() && !done.Done {
		w.t.Fatalf("%s is not done a second later", op.Doing)
	}
}

func (w *world) mgmtLocation() gcpcloud.Location {
	return gcpcloud.Location{Project: mgmtProject, Region: region}
}

func (w *world) customerLocation() gcpcloud.Location {
	return gcpcloud.Location{Project: customerProject, Region: region}
}

func staticToken(token string) oauth2.TokenSource {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token, TokenType: "Bearer"})
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
