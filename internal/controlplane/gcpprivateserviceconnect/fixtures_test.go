package gcpprivateserviceconnect

import (
	"context"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
	"github.com/hcplink/hcplink/internal/outcome"
)

const (
	mgmtProject     = cloudsimtest.ManagementProject
	customerProject = cloudsimtest.CustomerProject
	region          = cloudsimtest.GCPRegion
	routerIP        = "10.0.0.50"
	managementID    = "3f1b7c9e-0d2a-4c55-9d1e-7a8b6c5d4e3f"
	// cpoSubject is the control-plane operator's Kubernetes ServiceAccount.
	cpoSubject = "system:serviceaccount:hcp:control-plane-operator"
)

// leakPattern matches what must never reach a condition message: URLs,
// resource paths (they carry project IDs), project numbers, request IDs,
// JSON.
var leakPattern = regexp.MustCompile(`(?i)(https?://|projects/|\b\d{9,}\b|request ?id|[{}])`)

// world is cloudsim's Google Cloud on a manual clock: the management
// project (the router's internal forwarding rule, two PSC NAT subnets, and
// the operator's service attachments, made here with the administrator's
// token as the operator would) and the customer's network and subnet;
// envtest holds the clusters. The code under test signs in by workload
// identity federation as a service account holding only the control-plane
// operator's custom role (or the permissions a test gives it).
type world struct {
	t     *testing.T
	ctx   context.Context
	f     *cloudsimtest.Fixture
	clock *sim.ManualClock
	admin *compute.Service
	dns   *dns.Service
	mgmt  gcpcloud.ManagementProviders

	router  *compute.ForwardingRule
	nats    []string // self links
	wi      *cloudsimtest.WorkloadIdentity
	factory *WIFFactory
	// clusters counts newCluster's clusters: each takes the next NAT
	// subnet (GCP lets one serve only one attachment).
	clusters int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	return newWorldWith(t, gcpcloud.PermissionsOf(gcpcloud.ControlPlaneOperator))
}

// newWorldWith is newWorld with the control-plane operator's role holding
// permissions.
func newWorldWith(t *testing.T, permissions []string) *world {
	t.Helper()
	// The sim clock starts at the wall clock's time: the credentials library
	// judges a token's expiry by the wall clock.
	clock := sim.NewManualClock(time.Now().UTC().Truncate(time.Minute))
	f := cloudsimtest.StartGCP(t, cloudsim.Options{Clock: clock})
	w := &world{t: t, ctx: t.Context(), f: f, clock: clock,
		admin: f.Compute(t, cloudsimtest.GCPAdminTokens()), dns: f.DNS(t, cloudsimtest.GCPAdminTokens())}

	w.network(mgmtProject, "management", "nodes", "10.0.0.0/24")
	w.nats = []string{w.natSubnet("psc-nat-a", "10.1.0.0/28"), w.natSubnet("psc-nat-b", "10.1.0.16/28")}
	w.router = w.internalRule("router", routerIP)
	w.network(customerProject, "customer", "workers", "192.168.1.0/24")

	adminClients, err := gcpcloud.NewClients(w.ctx, gcpcloud.Config{Tokens: cloudsimtest.GCPAdminTokens(),
		ComputeEndpoint: f.URL + "/compute/v1/", DNSEndpoint: f.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	w.mgmt = gcpcloud.NewManagementProviders(adminClients, gcpcloud.Location{Project: mgmtProject, Region: region},
		"projects/"+mgmtProject+"/global/networks/management", gcpcloud.Timeouts{})

	w.wi = f.AddWorkloadIdentity(t, customerProject, cloudsimtest.CustomerProjectNumber, "control-plane", cpoSubject)
	role, err := f.Server.GCP.AddCustomRole(customerProject, gcpcloud.RoleID(gcpcloud.ControlPlaneOperator), permissions)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Server.GCP.Grant(customerProject, role.Name, "serviceAccount:"+w.wi.Email, nil); err != nil {
		t.Fatal(err)
	}
	tokenFile := t.TempDir() + "/token"
	if err := os.WriteFile(tokenFile, []byte(w.wi.ServiceAccountToken(t, w.wi.Signer, clock.Now())), 0o600); err != nil {
		t.Fatal(err)
	}
	w.factory = &WIFFactory{TokenFile: tokenFile, ComputeEndpoint: f.URL + "/compute/v1/", DNSEndpoint: f.URL + "/",
		STSEndpoint: f.URL + "/sts/v1/token", IAMCredentialsEndpoint: f.URL + "/iamcredentials/"}
	return w
}

func (w *world) adminDone(_ *compute.Operation, err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("setting up: %v", err)
	}
	w.clock.Advance(time.Second)
}

func (w *world) network(project, name, subnet, cidr string) {
	w.t.Helper()
	w.adminDone(w.admin.Networks.Insert(project, &compute.Network{Name: name, ForceSendFields: []string{"AutoCreateSubnetworks"}}).Do())
	w.adminDone(w.admin.Subnetworks.Insert(project, region, &compute.Subnetwork{Name: subnet, Network: "global/networks/" + name, IpCidrRange: cidr}).Do())
}

func (w *world) natSubnet(name, cidr string) string {
	w.t.Helper()
	w.adminDone(w.admin.Subnetworks.Insert(mgmtProject, region, &compute.Subnetwork{Name: name, Network: "global/networks/management",
		IpCidrRange: cidr, Purpose: gcpcloud.PurposePrivateServiceConnect}).Do())
	s, err := w.admin.Subnetworks.Get(mgmtProject, region, name).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	return s.SelfLink
}

func (w *world) internalRule(name, ip string) *compute.ForwardingRule {
	w.t.Helper()
	w.adminDone(w.admin.ForwardingRules.Insert(mgmtProject, region, &compute.ForwardingRule{Name: name, LoadBalancingScheme: "INTERNAL",
		BackendService: "regions/" + region + "/backendServices/" + name, Subnetwork: "regions/" + region + "/subnetworks/nodes",
		Network: "global/networks/management", IPAddress: ip, Ports: []string{"443"}}).Do())
	fr, err := w.admin.ForwardingRules.Get(mgmtProject, region, name).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	return fr
}

// publish makes, as the operator would, a service attachment in front of
// the router taking its NAT addresses from the nat-th NAT subnet and
// accepting the customer's project, and returns its URI.
func (w *world) publish(owner gcpcloud.Owner, nat int) string {
	w.t.Helper()
	op, err := w.mgmt.ServiceAttachments.Insert(w.ctx, gcpcloud.AttachmentSpec{Owner: owner, TargetService: w.router.SelfLink,
		Consumers: []gcpcloud.Consumer{{Project: customerProject}}, NATSubnets: []string{w.nats[nat]}})
	w.settle(op, err)
	return "projects/" + mgmtProject + "/regions/" + region + "/serviceAttachments/" + gcpcloud.ServiceAttachmentName(owner)
}

// unpublish deletes an attachment as the operator would.
func (w *world) unpublish(owner gcpcloud.Owner) {
	w.t.Helper()
	op, err := w.mgmt.ServiceAttachments.Delete(w.ctx, gcpcloud.ServiceAttachmentName(owner), owner.ManagementCluster)
	w.settle(op, err)
}

func (w *world) settle(op gcpcloud.Operation, err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("starting a change: %v", err)
	}
	w.clock.Advance(time.Second)
	if _, err := w.mgmt.Operations.Wait(w.ctx, op); err != nil {
		w.t.Fatalf("waiting on %s: %v", op.Doing, err)
	}
}

// cluster is one hosted cluster's objects in envtest and its controller.
type cluster struct {
	w     *world
	hcp   *hcplinkv1beta1.HostedControlPlane
	cr    *hcplinkv1beta1.GCPPrivateServiceConnect
	r     *Reconciler
	owner gcpcloud.Owner // the operator's attachment's
}

// newCluster creates the HostedControlPlane named name and its CR (as the
// observer would), publishes its attachment's URI in status (as the
// operator would), and builds the endpoint controller.
func (w *world) newCluster(name string, access hcplinkv1beta1.GCPEndpointAccessType) *cluster {
	w.t.Helper()
	ns := env.NewNamespace(w.t)
	hcp := gcpHCP(ns, name, access)
	hcp.Spec.Platform.GCP.WorkloadIdentity.PoolProvider = w.wi.Provider.Name()
	hcp.Spec.Platform.GCP.WorkloadIdentity.ServiceAccountsEmails.ControlPlaneOperator = hcplinkv1beta1.GCPServiceAccountEmail(w.wi.Email)
	if err := env.Client.Create(w.ctx, hcp); err != nil {
		w.t.Fatal(err)
	}
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{
		ObjectMeta: metav1.ObjectMeta{Name: hcplinkv1beta1.GCPPrivateServiceConnectName, Namespace: ns, OwnerReferences: []metav1.OwnerReference{hcpref.Controller(hcp)}},
		Spec:       DesiredSpec(hcp, routerIP),
	}
	if err := env.Client.Create(w.ctx, cr); err != nil {
		w.t.Fatal(err)
	}
	c := &cluster{w: w, hcp: hcp, cr: cr, owner: gcpcloud.Owner{ManagementCluster: managementID, InfraID: hcp.Spec.InfraID, Name: cr.Name}}
	c.publishURI(w.publish(c.owner, w.clusters))
	w.clusters++
	c.r = &Reconciler{Client: env.Client, Cloud: w.factory, Tracker: &outcome.Tracker{Now: w.clock.Now}}
	return c
}

// publishURI writes status.serviceAttachmentURI as the operator does.
func (c *cluster) publishURI(uri string) {
	c.w.t.Helper()
	cr := c.get()
	patch := client.MergeFrom(cr.DeepCopy())
	cr.Status.ServiceAttachmentURI = uri
	if err := env.Client.Status().Patch(c.w.ctx, cr, patch); err != nil {
		c.w.t.Fatal(err)
	}
}

func (c *cluster) get() *hcplinkv1beta1.GCPPrivateServiceConnect {
	c.w.t.Helper()
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{}
	if err := env.Client.Get(c.w.ctx, client.ObjectKeyFromObject(c.cr), cr); err != nil {
		c.w.t.Fatal(err)
	}
	return cr
}

// reconcile runs one pass and returns its requeue.
func (c *cluster) reconcile() ctrl.Result {
	c.w.t.Helper()
	res, err := c.r.Reconcile(c.w.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(c.cr)})
	if err != nil {
		c.w.t.Fatalf("Reconcile: %v", err)
	}
	return res
}

// until runs passes, moving the sim clock by each pass's requeue (capped at
// a minute), until cond holds; it returns the passes it took.
func (c *cluster) until(what string, cond func(*hcplinkv1beta1.GCPPrivateServiceConnect) bool) int {
	c.w.t.Helper()
	for i := 1; i <= 40; i++ {
		res := c.reconcile()
		if cond(c.get()) {
			return i
		}
		step := min(res.RequeueAfter, time.Minute)
		if step <= 0 {
			step = time.Second
		}
		c.w.clock.Advance(step)
	}
	cr := c.get()
	c.w.t.Fatalf("never %s; conditions %+v", what, cr.Status.Conditions)
	return 0
}

func available(cr *hcplinkv1beta1.GCPPrivateServiceConnect) bool {
	return meta.IsStatusConditionTrue(cr.Status.Conditions, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition)
}

func condition(cr *hcplinkv1beta1.GCPPrivateServiceConnect, t string) metav1.Condition {
	if c := meta.FindStatusCondition(cr.Status.Conditions, t); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// checkMessages fails on any condition message that leaks.
func checkMessages(t *testing.T, cr *hcplinkv1beta1.GCPPrivateServiceConnect) {
	t.Helper()
	for _, c := range cr.Status.Conditions {
		if leakPattern.MatchString(c.Message) {
			t.Errorf("condition %s leaks: %q", c.Type, c.Message)
		}
	}
}

// --- the customer's project as it is ---

func (c *cluster) ownerHere() gcpcloud.Owner {
	return gcpcloud.Owner{InfraID: c.hcp.Spec.InfraID, Name: c.cr.Name}
}

func (w *world) rule(name string) *compute.ForwardingRule {
	w.t.Helper()
	fr, err := w.admin.ForwardingRules.Get(customerProject, region, name).Do()
	if gcpcloud.IsNotFound(err) {
		return nil
	}
	if err != nil {
		w.t.Fatal(err)
	}
	return fr
}

func (w *world) records(zone string) map[string][]string {
	w.t.Helper()
	out := map[string][]string{}
	res, err := w.dns.ResourceRecordSets.List(customerProject, zone).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	for _, rr := range res.Rrsets {
		if rr.Type == "A" {
			out[rr.Name] = rr.Rrdatas
		}
	}
	return out
}

// customerResources lists the names of every address, forwarding rule and
// managed zone of the customer's project.
func (w *world) customerResources() []string {
	w.t.Helper()
	var names []string
	addrs, err := w.admin.Addresses.List(customerProject, region).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	for _, a := range addrs.Items {
		names = append(names, "address/"+a.Name)
	}
	rules, err := w.admin.ForwardingRules.List(customerProject, region).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	for _, r := range rules.Items {
		names = append(names, "forwardingRule/"+r.Name)
	}
	zones, err := w.dns.ManagedZones.List(customerProject).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	for _, z := range zones.ManagedZones {
		names = append(names, "zone/"+z.Name)
	}
	slices.Sort(names)
	return names
}

// gcpHCP is a GCP HostedControlPlane with endpoint access access and Route
// hostnames for the API server and OAuth.
func gcpHCP(namespace, name string, access hcplinkv1beta1.GCPEndpointAccessType) *hcplinkv1beta1.HostedControlPlane {
	return &hcplinkv1beta1.HostedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: "clusters/" + name}},
		Spec: hcplinkv1beta1.HostedControlPlaneSpec{
			InfraID:    name + "-x7k2p",
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "192.168.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{
				{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api." + name + ".example.com"}}},
				{Service: hcplinkv1beta1.OAuthServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "oauth." + name + ".example.com"}}},
			},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform, GCP: &hcplinkv1beta1.GCPPlatformSpec{
				Project: customerProject, Region: region, Network: "customer", Subnet: "workers", EndpointAccess: access,
				Private: &hcplinkv1beta1.GCPPrivateSpec{AdditionalAllowedProjects: []string{"partner-project"}},
				WorkloadIdentity: &hcplinkv1beta1.GCPWorkloadIdentityConfig{
					PoolProvider:          "projects/" + cloudsimtest.CustomerProjectNumber + "/locations/global/workloadIdentityPools/hcplink/providers/control-plane",
					ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{ControlPlaneOperator: "control-plane@" + customerProject + ".iam.gserviceaccount.com"},
				},
			}},
		},
	}
}

type (
	dnsChange = dns.Change
	dnsRecord = dns.ResourceRecordSet
)
