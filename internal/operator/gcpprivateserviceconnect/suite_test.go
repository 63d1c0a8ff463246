package gcpprivateserviceconnect

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/api/compute/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

const (
	mgmtProject     = cloudsimtest.ManagementProject
	customerProject = cloudsimtest.CustomerProject
	region          = cloudsimtest.GCPRegion
	routerIP        = "10.0.0.50"
	mgmtNetwork     = "projects/" + mgmtProject + "/global/networks/management"
	otherNetwork    = "projects/" + mgmtProject + "/global/networks/other-mgmt"
	managerID       = "mgmt-cluster-1"
	otherManagerID  = "mgmt-cluster-2"
	testDrift       = 5 * time.Minute
	// partnerProject is a project a test adds to the accept list.
	partnerProject = "partner-project-1"
)

var seq atomic.Int64

// world is cloudsim's Google Cloud on a manual clock: a management project
// with this management cluster's network (a nodes subnetwork, the router's
// internal forwarding rule at routerIP, two Private Service Connect NAT
// subnetworks), a second management cluster's network in the same project
// with its own rule at the same address, a customer project, and the test
// API server. The operator signs in with a service account key holding
// only the management operator's custom role.
type world struct {
	t     *testing.T
	ctx   context.Context
	f     *cloudsimtest.Fixture
	clk   *sim.ManualClock
	admin *compute.Service
	// router and otherRouter are the two management clusters' rules.
	router, otherRouter *compute.ForwardingRule
	workers             *compute.Subnetwork
	roles               int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	// The sim clock starts at the wall clock's time: the credentials
	// library judges a token's expiry by the wall clock.
	clk := sim.NewManualClock(time.Now().UTC().Truncate(time.Minute))
	f := cloudsimtest.StartGCP(t, cloudsim.Options{Clock: clk})
	w := &world{t: t, ctx: ctrl.LoggerInto(t.Context(), testenv.Logger(t)), f: f, clk: clk, admin: f.Compute(t, cloudsimtest.GCPAdminTokens())}
	w.network(mgmtProject, "management", "nodes", "10.0.0.0/24")
	w.natSubnet("management", "psc-nat-a", "10.1.0.0/28")
	w.natSubnet("management", "psc-nat-b", "10.1.0.16/28")
	w.router = w.internalRule("router", "management", "nodes", routerIP)
	w.network(mgmtProject, "other-mgmt", "other-nodes", "10.0.0.0/24")
	w.natSubnet("other-mgmt", "other-psc-nat", "10.1.0.0/28")
	w.otherRouter = w.internalRule("other-router", "other-mgmt", "other-nodes", routerIP)
	w.workers = w.network(customerProject, "customer", "workers", "192.168.1.0/24")
	return w
}

func (w *world) adminDone(_ *compute.Operation, err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatalf("setting up: %v", err)
	}
	w.clk.Advance(time.Second)
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

// operatorClients signs in as a new service account of the management
// project holding a custom role of exactly permissions.
func (w *world) operatorClients(permissions []string) *gcpcloud.Clients {
	w.t.Helper()
	w.roles++
	sa, err := w.f.Server.GCP.AddServiceAccount(mgmtProject, fmt.Sprintf("hcplink-operator-%d", w.roles), "")
	if err != nil {
		w.t.Fatal(err)
	}
	key, err := w.f.Server.GCP.AddServiceAccountKey(sa.Email, w.f.URL+"/oauth2/token")
	if err != nil {
		w.t.Fatal(err)
	}
	role, err := w.f.Server.GCP.AddCustomRole(mgmtProject, fmt.Sprintf("hcplinkOperator%d", w.roles), permissions)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := w.f.Server.GCP.Grant(mgmtProject, role.Name, "serviceAccount:"+sa.Email, nil); err != nil {
		w.t.Fatal(err)
	}
	clients, err := gcpcloud.NewClients(w.ctx, gcpcloud.Config{CredentialsJSON: key, Component: "operator",
		ComputeEndpoint: w.f.URL + "/compute/v1/", DNSEndpoint: w.f.URL + "/"})
	if err != nil {
		w.t.Fatalf("signing in: %v", err)
	}
	return clients
}

// reconciler is the operator's controller for management cluster id on
// network, signed in with the management operator's role (the shipped
// table) or, when given, exactly permissions.
func (w *world) reconciler(id, network string, permissions ...string) *Reconciler {
	w.t.Helper()
	if len(permissions) == 0 {
		permissions = gcpcloud.PermissionsOf(gcpcloud.ManagementOperator)
	}
	clients := w.operatorClients(permissions)
	at := gcpcloud.Location{Project: mgmtProject, Region: region}
	return &Reconciler{Client: env.Client, Cloud: gcpcloud.NewManagementProviders(clients, at, network, gcpcloud.Timeouts{}),
		Network: network, Region: region, ManagementClusterID: id, DriftInterval: testDrift, Now: w.clk.Now}
}

// calls counts the management project's Compute Engine calls whose
// operation is op ("serviceAttachments.insert"); "" counts them all.
func (w *world) calls(op string) sim.CallCount {
	var sum sim.CallCount
	for k, c := range w.f.Calls(mgmtProject) {
		if op == "" || strings.HasSuffix(k, ":"+op) {
			sum.Total += c.Total
			sum.Mutating += c.Mutating
			sum.Throttled += c.Throttled
			sum.Failed += c.Failed
		}
	}
	return sum
}

// attachment reads an attachment as the administrator; nil when absent.
func (w *world) attachment(name string) *compute.ServiceAttachment {
	w.t.Helper()
	sa, err := w.admin.ServiceAttachments.Get(mgmtProject, region, name).Do()
	if gcpcloud.IsNotFound(err) {
		return nil
	}
	if err != nil {
		w.t.Fatalf("reading attachment %s: %v", name, err)
	}
	return sa
}

// attachments are the names of every attachment of the region.
func (w *world) attachments() []string {
	w.t.Helper()
	list, err := w.admin.ServiceAttachments.List(mgmtProject, region).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, sa := range list.Items {
		out = append(out, sa.Name)
	}
	return out
}

// cluster is one private GCP HostedCluster, its control-plane namespace
// and its GCPPrivateServiceConnect.
type cluster struct {
	hc *hcplinkv1beta1.HostedCluster
	cr *hcplinkv1beta1.GCPPrivateServiceConnect
}

func (w *world) cluster(mutate ...func(*hcplinkv1beta1.HostedCluster, *hcplinkv1beta1.GCPPrivateServiceConnect)) *cluster {
	w.t.Helper()
	ns := env.NewNamespace(w.t)
	n := seq.Add(1)
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("gcp%d", n)},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    fmt.Sprintf("gcp-%d-%d", time.Now().UnixNano()%100000, n),
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "gcpdemo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "192.168.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{
				{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.gcpdemo.example.com"}}},
			},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform, GCP: &hcplinkv1beta1.GCPPlatformSpec{
				Project: customerProject, Region: region, Network: "customer", Subnet: "workers",
				EndpointAccess: hcplinkv1beta1.GCPEndpointAccessPrivate, Private: &hcplinkv1beta1.GCPPrivateSpec{},
				WorkloadIdentity: &hcplinkv1beta1.GCPWorkloadIdentityConfig{
					PoolProvider:          "projects/200000000002/locations/global/workloadIdentityPools/hcplink-mgmt/providers/mgmt-oidc",
					ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{ControlPlaneOperator: "control-plane@" + customerProject + ".iam.gserviceaccount.com"},
				},
			}},
		},
	}
	hcpNS := hcplinkv1beta1.HostedControlPlaneNamespace(ns, hc.Name)
	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{
		ObjectMeta: metav1.ObjectMeta{Namespace: hcpNS, Name: "private-router",
			Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: hcplinkv1beta1.ClusterAnnotationValue(ns, hc.Name)}},
		Spec: hcplinkv1beta1.GCPPrivateServiceConnectSpec{LoadBalancerIP: routerIP, ConsumerAcceptList: []string{customerProject},
			Project: customerProject, Region: region, Network: "customer", Subnet: "workers"},
	}
	for _, m := range mutate {
		m(hc, cr)
	}
	create(w.t, hc)
	create(w.t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hcpNS}})
	create(w.t, cr)
	return &cluster{hc: hc, cr: cr}
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Create(t.Context(), obj); err != nil {
		t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

func get(t *testing.T, obj client.Object) {
	t.Helper()
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatalf("reading %T %s: %v", obj, obj.GetName(), err)
	}
}

func update(t *testing.T, obj client.Object, mutate func()) {
	t.Helper()
	for range 5 {
		get(t, obj)
		mutate()
		err := env.Client.Update(t.Context(), obj)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			t.Fatalf("updating %T %s: %v", obj, obj.GetName(), err)
		}
	}
	t.Fatalf("updating %T %s: conflicts", obj, obj.GetName())
}

func (w *world) reconcile(r *Reconciler, cr *hcplinkv1beta1.GCPPrivateServiceConnect) ctrl.Result {
	w.t.Helper()
	res, err := r.Reconcile(w.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(cr)})
	if err != nil {
		w.t.Fatalf("Reconcile(%s): %v", cr.Name, err)
	}
	return res
}

// settle reconciles, the sim clock running past each requeue (and so past
// Compute Engine's operations), until GCPServiceAttachmentAvailable is
// True; it returns the passes it took.
func (w *world) settle(r *Reconciler, cr *hcplinkv1beta1.GCPPrivateServiceConnect) int {
	w.t.Helper()
	for pass := 1; pass <= 10; pass++ {
		res := w.reconcile(r, cr)
		get(w.t, cr)
		if c := meta.FindStatusCondition(cr.Status.Conditions, hcplinkv1beta1.GCPServiceAttachmentAvailableCondition); c != nil && c.Status == metav1.ConditionTrue {
			return pass
		}
		w.clk.Advance(max(res.RequeueAfter, time.Second))
	}
	w.t.Fatalf("GCPPrivateServiceConnect %s/%s did not become ready: %+v", cr.Namespace, cr.Name, cr.Status.Conditions)
	return 0
}

func condition(t *testing.T, cr *hcplinkv1beta1.GCPPrivateServiceConnect) metav1.Condition {
	t.Helper()
	get(t, cr)
	c := meta.FindStatusCondition(cr.Status.Conditions, hcplinkv1beta1.GCPServiceAttachmentAvailableCondition)
	if c == nil {
		t.Fatalf("no %s condition on %s: %+v", hcplinkv1beta1.GCPServiceAttachmentAvailableCondition, cr.Name, cr.Status.Conditions)
	}
	return *c
}

// patchStatus merge-patches status fields (nil removes one).
func patchStatus(t *testing.T, cr *hcplinkv1beta1.GCPPrivateServiceConnect, fields map[string]any) {
	t.Helper()
	data, err := json.Marshal(map[string]any{"status": fields})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Status().Patch(t.Context(), cr, client.RawPatch(types.MergePatchType, data)); err != nil {
		t.Fatalf("patching status: %v", err)
	}
}

// deleteAndSettle deletes the object and reconciles, the sim clock running
// past each requeue, until it is gone.
func (w *world) deleteAndSettle(r *Reconciler, cr *hcplinkv1beta1.GCPPrivateServiceConnect) {
	w.t.Helper()
	if err := env.Client.Delete(w.ctx, cr); client.IgnoreNotFound(err) != nil {
		w.t.Fatal(err)
	}
	for range 10 {
		res := w.reconcile(r, cr)
		if err := env.Client.Get(w.ctx, client.ObjectKeyFromObject(cr), cr); apierrors.IsNotFound(err) {
			return
		}
		w.clk.Advance(max(res.RequeueAfter, time.Second))
	}
	w.t.Fatalf("GCPPrivateServiceConnect %s was not deleted: %+v", cr.Name, cr.Status.Conditions)
}

// foreignEndpoint is a PSC endpoint of project intruder (made here)
// targeting the attachment; it returns its forwarding rule's name.
func (w *world) foreignEndpoint(intruder string, sa *compute.ServiceAttachment) string {
	w.t.Helper()
	w.f.AddGCPProject(w.t, intruder, "400000000004")
	subnet := w.network(intruder, "intruder", "intruder-subnet", "172.16.0.0/24")
	w.adminDone(w.admin.Addresses.Insert(intruder, region, &compute.Address{Name: "ip", AddressType: "INTERNAL", Subnetwork: subnet.SelfLink}).Do())
	addr, err := w.admin.Addresses.Get(intruder, region, "ip").Do()
	if err != nil {
		w.t.Fatal(err)
	}
	w.adminDone(w.admin.ForwardingRules.Insert(intruder, region, &compute.ForwardingRule{Name: "sneaky", Network: subnet.Network, IPAddress: addr.SelfLink, Target: sa.SelfLink}).Do())
	return "sneaky"
}

func (w *world) endpointStatus(project, name string) string {
	w.t.Helper()
	fr, err := w.admin.ForwardingRules.Get(project, region, name).Do()
	if err != nil {
		w.t.Fatal(err)
	}
	return fr.PscConnectionStatus
}

// eventReasons are the reasons of the Events about obj.
func eventReasons(t *testing.T, obj client.Object) []string {
	t.Helper()
	var list eventsv1.EventList
	if err := env.Client.List(t.Context(), &list, client.InNamespace(obj.GetNamespace())); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Regarding.UID == obj.GetUID() {
			out = append(out, e.Reason)
		}
	}
	return out
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
