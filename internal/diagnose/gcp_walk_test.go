package diagnose_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	computev1 "google.golang.org/api/compute/v1"
	dns "google.golang.org/api/dns/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/diagnose"
	"github.com/hcplink/hcplink/internal/testenv"
)

const (
	gcpMgmtProject = cloudsimtest.ManagementProject
	gcpCustProject = cloudsimtest.CustomerProject
	gcpRegion      = cloudsimtest.GCPRegion
	gcpRouterIP    = "10.0.0.50"
	gcpPartner     = "partner-project"
	gcpManagement  = "3f1b7c9e-0d2a-4c55-9d1e-7a8b6c5d4e3f"
	gcpCluster     = "gamma"
	gcpInfraID     = "gamma-x7k2p"
	gcpRouterRule  = "router"
)

// gcpKube is a Private GCP cluster's objects in a real API server, as both
// operators leave them once its path is built: the HostedCluster and its
// HostedControlPlane, the router Service with its address, the
// GCPPrivateServiceConnect with every status field, and the ExternalName
// Services.
type gcpKube struct {
	env       *testenv.Env
	namespace string
	hcpNS     string
}

var (
	gcpOwner      = gcpcloud.Owner{InfraID: gcpInfraID, Name: hcplinkv1beta1.GCPPrivateServiceConnectName}
	gcpAttachment = gcpcloud.ServiceAttachmentName(gcpcloud.Owner{ManagementCluster: gcpManagement, InfraID: gcpInfraID, Name: hcplinkv1beta1.GCPPrivateServiceConnectName})
	gcpURI        = "projects/" + gcpMgmtProject + "/regions/" + gcpRegion + "/serviceAttachments/" + gcpAttachment
)

func newGCPKube(t *testing.T, endpointIP string) gcpKube {
	t.Helper()
	env := testenv.Start(t)
	ctx := t.Context()
	k := gcpKube{env: env, namespace: env.NewNamespace(t)}
	k.hcpNS = hcplinkv1beta1.HostedControlPlaneNamespace(k.namespace, gcpCluster)
	create(t, env.Client, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: k.hcpNS}})
	gcp := &hcplinkv1beta1.GCPPlatformSpec{Project: gcpCustProject, Region: gcpRegion, Network: "customer", Subnet: "workers",
		EndpointAccess: hcplinkv1beta1.GCPEndpointAccessPrivate, Private: &hcplinkv1beta1.GCPPrivateSpec{AdditionalAllowedProjects: []string{gcpPartner}},
		WorkloadIdentity: &hcplinkv1beta1.GCPWorkloadIdentityConfig{
			PoolProvider:          "projects/" + cloudsimtest.CustomerProjectNumber + "/locations/global/workloadIdentityPools/hcplink/providers/control-plane",
			ServiceAccountsEmails: hcplinkv1beta1.GCPServiceAccountsEmails{ControlPlaneOperator: "control-plane@" + gcpCustProject + ".iam.gserviceaccount.com"},
		}}
	services := []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
		Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.gamma.example.com"}}}}
	common := func() (hcplinkv1beta1.DNSSpec, hcplinkv1beta1.ClusterNetworking, hcplinkv1beta1.PlatformSpec) {
		return hcplinkv1beta1.DNSSpec{BaseDomain: "example.com"},
			hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "192.168.0.0/16"}}},
			hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.GCPPlatform, GCP: gcp.DeepCopy()}
	}
	hc := &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: k.namespace, Name: gcpCluster}}
	hc.Spec.InfraID, hc.Spec.Services = gcpInfraID, services
	hc.Spec.DNS, hc.Spec.Networking, hc.Spec.Platform = common()
	create(t, env.Client, hc)
	hcp := &hcplinkv1beta1.HostedControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: k.hcpNS, Name: gcpCluster}}
	hcp.Spec.InfraID, hcp.Spec.Services = gcpInfraID, services
	hcp.Spec.DNS, hcp.Spec.Networking, hcp.Spec.Platform = common()
	create(t, env.Client, hcp)

	router := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: k.hcpNS, Name: hcplinkv1beta1.PrivateRouterServiceName},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
	create(t, env.Client, router)
	router.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: gcpRouterIP}}
	if err := env.Client.Status().Update(ctx, router); err != nil {
		t.Fatal(err)
	}
	target := gcpcloud.ExternalNameTarget(gcpCluster)
	for name := range hcplinkv1beta1.GCPExternalNames(hcp) {
		create(t, env.Client, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: k.hcpNS, Name: name},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: target}})
	}

	cr := &hcplinkv1beta1.GCPPrivateServiceConnect{ObjectMeta: metav1.ObjectMeta{Namespace: k.hcpNS, Name: hcplinkv1beta1.GCPPrivateServiceConnectName},
		Spec: hcplinkv1beta1.GCPPrivateServiceConnectSpec{LoadBalancerIP: gcpRouterIP, ConsumerAcceptList: gcp.AcceptedProjects(),
			Project: gcpCustProject, Region: gcpRegion, Network: "customer", Subnet: "workers"}}
	create(t, env.Client, cr)
	cr.Status = hcplinkv1beta1.GCPPrivateServiceConnectStatus{ForwardingRuleName: gcpRouterRule, ServiceAttachmentName: gcpAttachment, ServiceAttachmentURI: gcpURI,
		EndpointName: gcpcloud.EndpointName(gcpOwner), EndpointIP: endpointIP, DNSZoneName: gcpcloud.ZoneName(gcpInfraID)}
	if err := env.Client.Status().Update(ctx, cr); err != nil {
		t.Fatal(err)
	}
	return k
}

// setRouterIP gives the router Service another address, as the cloud
// provider would after its load balancer was made again.
func (k gcpKube) setRouterIP(t *testing.T, ip string) {
	t.Helper()
	svc := &corev1.Service{}
	if err := k.env.Client.Get(context.Background(), client.ObjectKey{Namespace: k.hcpNS, Name: hcplinkv1beta1.PrivateRouterServiceName}, svc); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	if err := k.env.Client.Status().Update(context.Background(), svc); err != nil {
		t.Fatal(err)
	}
}

func create(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(t.Context(), obj); err != nil {
		t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

// gcpCloud is cloudsim's Google Cloud holding that cluster's path, built
// by the administrator as the operators would: the router's internal
// forwarding rule and the service attachment (accepting the cluster's and
// the partner's project) in the management project; the endpoint's address,
// the endpoint, the private zone on the customer's network and its records
// in the customer's project. diagnose reads it as a service account holding
// exactly the diagnose role in both projects.
type gcpCloud struct {
	t     *testing.T
	ctx   context.Context
	f     *cloudsimtest.Fixture
	clock *sim.ManualClock
	mgmt  gcpcloud.ManagementProviders
	cust  gcpcloud.ControlPlaneProviders
	// member is the diagnose identity's IAM member; env its environment.
	member string
	env    map[string]string
	ip     string // the endpoint's
}

func newGCPCloud(t *testing.T, diagnosePermissions []string) *gcpCloud {
	t.Helper()
	clock := sim.NewManualClock(time.Now().UTC().Truncate(time.Minute))
	f := cloudsimtest.StartGCP(t, cloudsim.Options{Clock: clock})
	c := &gcpCloud{t: t, ctx: t.Context(), f: f, clock: clock}
	admin, err := gcpcloud.NewClients(c.ctx, gcpcloud.Config{Tokens: cloudsimtest.GCPAdminTokens(), ComputeEndpoint: f.URL + "/compute/v1/", DNSEndpoint: f.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	c.mgmt = gcpcloud.NewManagementProviders(admin, gcpcloud.Location{Project: gcpMgmtProject, Region: gcpRegion}, "projects/"+gcpMgmtProject+"/global/networks/management", gcpcloud.Timeouts{})
	c.cust = gcpcloud.NewControlPlaneProviders(admin, gcpcloud.Location{Project: gcpCustProject, Region: gcpRegion}, gcpcloud.Timeouts{})

	compute := f.Compute(t, cloudsimtest.GCPAdminTokens())
	c.done(compute.Networks.Insert(gcpMgmtProject, network("management")).Do())
	c.done(compute.Subnetworks.Insert(gcpMgmtProject, gcpRegion, subnet("nodes", "management", "10.0.0.0/24", "")).Do())
	c.done(compute.Subnetworks.Insert(gcpMgmtProject, gcpRegion, subnet("psc-nat-a", "management", "10.1.0.0/28", gcpcloud.PurposePrivateServiceConnect)).Do())
	c.done(compute.ForwardingRules.Insert(gcpMgmtProject, gcpRegion, internalRule(gcpRouterRule, gcpRouterIP)).Do())
	for _, n := range []string{"customer", "elsewhere"} {
		c.done(compute.Networks.Insert(gcpCustProject, network(n)).Do())
	}
	c.done(compute.Subnetworks.Insert(gcpCustProject, gcpRegion, subnet("workers", "customer", "192.168.1.0/24", "")).Do())
	rule, err := compute.ForwardingRules.Get(gcpMgmtProject, gcpRegion, gcpRouterRule).Do()
	if err != nil {
		t.Fatal(err)
	}
	nat, err := compute.Subnetworks.Get(gcpMgmtProject, gcpRegion, "psc-nat-a").Do()
	if err != nil {
		t.Fatal(err)
	}
	c.publish(rule.SelfLink, nat.SelfLink)
	c.connect()
	c.zone()
	c.signIn(diagnosePermissions)
	return c
}

func (c *gcpCloud) done(_ any, err error) {
	c.t.Helper()
	if err != nil {
		c.t.Fatalf("setting up: %v", err)
	}
	c.clock.Advance(time.Second)
}

func (c *gcpCloud) settle(ops *gcpcloud.Operations, op gcpcloud.Operation, err error) {
	c.t.Helper()
	if err != nil {
		c.t.Fatalf("starting a change: %v", err)
	}
	c.clock.Advance(time.Second)
	if _, err := ops.Wait(c.ctx, op); err != nil {
		c.t.Fatalf("waiting on %s: %v", op.Doing, err)
	}
}

func (c *gcpCloud) publish(rule, nat string) {
	c.t.Helper()
	op, err := c.mgmt.ServiceAttachments.Insert(c.ctx, gcpcloud.AttachmentSpec{
		Owner: gcpcloud.Owner{ManagementCluster: gcpManagement, InfraID: gcpInfraID, Name: hcplinkv1beta1.GCPPrivateServiceConnectName}, TargetService: rule,
		Consumers: []gcpcloud.Consumer{{Project: gcpCustProject}, {Project: gcpPartner}}, NATSubnets: []string{nat}})
	c.settle(c.mgmt.Operations, op, err)
}

// connect reserves the endpoint's address and makes the endpoint, as the
// control-plane operator does.
func (c *gcpCloud) connect() {
	c.t.Helper()
	op, err := c.cust.Addresses.Reserve(c.ctx, gcpOwner, "projects/"+gcpCustProject+"/regions/"+gcpRegion+"/subnetworks/workers")
	c.settle(c.cust.Operations, op, err)
	addr, err := c.cust.Addresses.Get(c.ctx, gcpcloud.EndpointAddressName(gcpOwner))
	if err != nil || addr == nil {
		c.t.Fatalf("reading the address: %v, %v", addr, err)
	}
	c.ip = addr.Address
	op, err = c.cust.Endpoints.Insert(c.ctx, gcpcloud.EndpointSpec{Owner: gcpOwner, Network: "projects/" + gcpCustProject + "/global/networks/customer",
		Address: addr.SelfLink, Target: gcpURI})
	c.settle(c.cust.Operations, op, err)
}

// disconnect deletes the endpoint, as the control-plane operator does.
func (c *gcpCloud) disconnect() {
	c.t.Helper()
	op, err := c.cust.Endpoints.Delete(c.ctx, gcpcloud.EndpointName(gcpOwner), gcpOwner)
	c.settle(c.cust.Operations, op, err)
}

func (c *gcpCloud) zone() {
	c.t.Helper()
	zone, _, err := c.cust.Zones.Create(c.ctx, gcpcloud.ZoneSpec{Owner: gcpOwner, HCPName: gcpCluster, Network: "projects/" + gcpCustProject + "/global/networks/customer"})
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := c.cust.Records.Change(c.ctx, zone.Name, gcpcloud.DesiredRecords(zone.DnsName, c.ip), nil); err != nil {
		c.t.Fatal(err)
	}
}

// signIn makes the diagnose identity: a service account with a key file,
// holding a custom role of permissions in both projects.
func (c *gcpCloud) signIn(permissions []string) {
	c.t.Helper()
	sa, err := c.f.Server.GCP.AddServiceAccount(gcpMgmtProject, "hcplink-diagnose", "")
	if err != nil {
		c.t.Fatal(err)
	}
	key, err := c.f.Server.GCP.AddServiceAccountKey(sa.Email, c.f.URL+"/oauth2/token")
	if err != nil {
		c.t.Fatal(err)
	}
	c.member = "serviceAccount:" + sa.Email
	for _, project := range []string{gcpMgmtProject, gcpCustProject} {
		role, err := c.f.Server.GCP.AddCustomRole(project, gcpcloud.RoleID(gcpcloud.Diagnose), permissions)
		if err != nil {
			c.t.Fatal(err)
		}
		if err := c.f.Server.GCP.Grant(project, role.Name, c.member, nil); err != nil {
			c.t.Fatal(err)
		}
	}
	keyFile := filepath.Join(c.t.TempDir(), "diagnose-key.json")
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		c.t.Fatal(err)
	}
	c.env = map[string]string{gcpcloud.EnvCredentials: keyFile, gcpcloud.EnvComputeEndpoint: c.f.URL + "/compute/v1/", gcpcloud.EnvDNSEndpoint: c.f.URL + "/"}
}

// diagnose runs diagnose as the command does: the clients from the
// environment, then the walk.
func (c *gcpCloud) diagnose(k gcpKube) diagnose.Report {
	c.t.Helper()
	opts := diagnose.Options{Kube: k.env.Client, Namespace: k.namespace, Name: gcpCluster}
	diagnose.LoadClients(c.ctx, &opts, diagnose.Credentials{Getenv: func(key string) string { return c.env[key] }})
	r, err := diagnose.Diagnose(c.ctx, opts)
	if err != nil {
		c.t.Fatal(err)
	}
	return r
}

// mutatingCalls are the diagnose identity's calls that are not reads.
func (c *gcpCloud) mutatingCalls() []string {
	var out []string
	for method, n := range c.f.Server.GCP.PrincipalCalls()[c.member] {
		verb := method[strings.LastIndex(method, ".")+1:]
		if n.Total > 0 && verb != "get" && verb != "list" {
			out = append(out, method)
		}
	}
	return out
}

// TestGCPWalk walks a Private GCP cluster in cloudsim over the real SDK as
// the diagnose role: all ✓ when healthy, reading only and evaluating
// exactly the role's permissions; then each break made behind hcplink's
// back marks its hop ✗ with what to do, and nothing else.
func TestGCPWalk(t *testing.T) {
	healthy := newGCPCloud(t, gcpcloud.PermissionsOf(gcpcloud.Diagnose))
	k := newGCPKube(t, healthy.ip)

	t.Run("healthy", func(t *testing.T) {
		c := healthy
		r := c.diagnose(k)
		wantHops := []string{diagnose.HopHostedCluster, diagnose.HopHostedControlPlane, diagnose.HopRouterService, diagnose.HopForwardingRule,
			diagnose.HopServiceAttachment, diagnose.HopPSCEndpoint, diagnose.HopCloudDNSZone, diagnose.HopARecords, diagnose.HopExternalNames}
		var names []string
		for _, h := range r.Hops {
			names = append(names, h.Name)
			if h.Verdict != diagnose.Pass {
				t.Errorf("%s: %s (seen %q, fix %q, why %q)", h.Name, h.Verdict, h.Seen, h.Fix, h.Why)
			}
		}
		if !slices.Equal(names, wantHops) || r.ExitCode() != diagnose.ExitHealthy {
			t.Errorf("hops %v (exit %d), want %v all passing", names, r.ExitCode(), wantHops)
		}
		if r.Platform != "GCP" || r.Management != "project "+gcpMgmtProject || r.Customer != "project "+gcpCustProject {
			t.Errorf("report names %q, %q, %q", r.Platform, r.Management, r.Customer)
		}
		evaluated := c.f.Server.GCP.Evaluations(c.member)
		for _, p := range gcpcloud.PermissionsOf(gcpcloud.Diagnose) {
			if evaluated[p].Allowed == 0 {
				t.Errorf("the diagnose role grants %s, which the walk never used", p)
			}
		}
		for p, d := range evaluated {
			if d.Denied > 0 {
				t.Errorf("the walk was denied %s", p)
			}
		}
		if m := c.mutatingCalls(); len(m) > 0 {
			t.Errorf("diagnose made calls that are not reads: %v", m)
		}
	})

	for _, tc := range []struct {
		name   string
		break_ func(c *gcpCloud)
		// broken hops and a fragment of each one's fix; every other hop passes.
		want map[string]string
	}{
		{"the partner project dropped from the accept list", func(c *gcpCloud) { c.setConsumers(gcpCustProject) },
			map[string]string{diagnose.HopServiceAttachment: "Add project " + gcpPartner + " to the accept list"}},
		{"the endpoint made while its project was off the list", func(c *gcpCloud) {
			c.setConsumers(gcpPartner)
			c.disconnect()
			c.connect()
		}, map[string]string{
			diagnose.HopServiceAttachment: "Add project " + gcpCustProject + " to the accept list",
			diagnose.HopPSCEndpoint:       "is PENDING: project " + gcpCustProject + " is not on the accept list of service attachment " + gcpAttachment,
		}},
		{"the attachment deleted", func(c *gcpCloud) {
			op, err := c.mgmt.ServiceAttachments.Delete(c.ctx, gcpAttachment, gcpManagement)
			c.settle(c.mgmt.Operations, op, err)
		}, map[string]string{
			diagnose.HopServiceAttachment: "makes service attachment " + gcpAttachment + " again",
			diagnose.HopPSCEndpoint:       "is CLOSED",
		}},
		{"the endpoint rejected by the reject list", func(c *gcpCloud) {
			c.setConsumers(gcpPartner)
			c.disconnect()
			c.connect()
			sa, err := c.mgmt.ServiceAttachments.Get(c.ctx, gcpAttachment)
			if err != nil {
				c.t.Fatal(err)
			}
			op, err := c.mgmt.ServiceAttachments.RejectProjects(c.ctx, sa, []string{gcpCustProject})
			c.settle(c.mgmt.Operations, op, err)
		}, map[string]string{
			diagnose.HopServiceAttachment: "Add project " + gcpCustProject + " to the accept list",
			diagnose.HopPSCEndpoint:       "is REJECTED: remove project " + gcpCustProject + " from the reject list of service attachment " + gcpAttachment,
		}},
		{"the zone moved off the customer's network", func(c *gcpCloud) {
			dnsAdmin := c.f.DNS(c.t, cloudsimtest.GCPAdminTokens())
			zone, err := dnsAdmin.ManagedZones.Get(gcpCustProject, gcpcloud.ZoneName(gcpInfraID)).Do()
			if err != nil {
				c.t.Fatal(err)
			}
			zone.PrivateVisibilityConfig.Networks[0].NetworkUrl = "https://www.googleapis.com/compute/v1/projects/" + gcpCustProject + "/global/networks/elsewhere"
			if _, err := dnsAdmin.ManagedZones.Patch(gcpCustProject, zone.Name, zone).Do(); err != nil {
				c.t.Fatal(err)
			}
		}, map[string]string{diagnose.HopCloudDNSZone: "visible to network customer again"}},
		{"the api record deleted", func(c *gcpCloud) {
			zone := gcpcloud.ZoneName(gcpInfraID)
			sets, err := c.cust.Records.List(c.ctx, zone)
			if err != nil {
				c.t.Fatal(err)
			}
			for _, rs := range sets {
				if strings.HasPrefix(rs.Name, "api.") {
					if _, err := c.cust.Records.Change(c.ctx, zone, nil, []*dns.ResourceRecordSet{rs}); err != nil {
						c.t.Fatal(err)
					}
				}
			}
		}, map[string]string{diagnose.HopARecords: "Set A record api of zone " + gcpCluster + ".hypershift.local."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newGCPCloud(t, gcpcloud.PermissionsOf(gcpcloud.Diagnose))
			if c.ip != healthy.ip {
				t.Fatalf("the endpoint's address is %s here, %s in the cluster's status", c.ip, healthy.ip)
			}
			tc.break_(c)
			r := c.diagnose(k)
			t.Log("\n" + diagnose.Text(r))
			checkOnly(t, r, tc.want)
			if r.ExitCode() != diagnose.ExitBroken {
				t.Errorf("exit %d, want %d", r.ExitCode(), diagnose.ExitBroken)
			}
			if m := c.mutatingCalls(); len(m) > 0 {
				t.Errorf("diagnose made calls that are not reads: %v", m)
			}
		})
	}

	t.Run("the router's address moved", func(t *testing.T) {
		c := newGCPCloud(t, gcpcloud.PermissionsOf(gcpcloud.Diagnose))
		k.setRouterIP(t, "10.0.0.51")
		t.Cleanup(func() { k.setRouterIP(t, gcpRouterIP) })
		r := c.diagnose(k)
		t.Log("\n" + diagnose.Text(r))
		checkOnly(t, r, map[string]string{diagnose.HopForwardingRule: "holds 10.0.0.50, not the router's 10.0.0.51"})
	})

	t.Run("a permission missing", func(t *testing.T) {
		without := slices.DeleteFunc(gcpcloud.PermissionsOf(gcpcloud.Diagnose), func(p string) bool { return p == "dns.resourceRecordSets.list" })
		c := newGCPCloud(t, without)
		r := c.diagnose(k)
		t.Log("\n" + diagnose.Text(r))
		h := hop(t, r, diagnose.HopARecords)
		if h.Verdict != diagnose.Unknown || !strings.Contains(h.Why, "lack dns.resourceRecordSets.list in project "+gcpCustProject) {
			t.Errorf("records: %s, why %q; want ? naming dns.resourceRecordSets.list", h.Verdict, h.Why)
		}
		checkOnly(t, r, map[string]string{diagnose.HopARecords: ""})
		if r.ExitCode() != diagnose.ExitIncomplete {
			t.Errorf("exit %d, want %d", r.ExitCode(), diagnose.ExitIncomplete)
		}
	})

	t.Run("no credentials", func(t *testing.T) {
		r, err := diagnose.Diagnose(t.Context(), diagnose.Options{Kube: k.env.Client, Namespace: k.namespace, Name: gcpCluster,
			GCP: diagnose.GCPClients{Missing: "no Google credentials"}})
		if err != nil {
			t.Fatal(err)
		}
		if h := hop(t, r, diagnose.HopServiceAttachment); h.Verdict != diagnose.Unknown || h.Why != "no Google credentials" {
			t.Errorf("attachment without credentials: %+v", h)
		}
		if r.ExitCode() != diagnose.ExitIncomplete {
			t.Errorf("exit %d, want %d", r.ExitCode(), diagnose.ExitIncomplete)
		}
	})
}

// setConsumers replaces the attachment's accept list behind the operator's
// back.
func (c *gcpCloud) setConsumers(projects ...string) {
	c.t.Helper()
	sa, err := c.mgmt.ServiceAttachments.Get(c.ctx, gcpAttachment)
	if err != nil {
		c.t.Fatal(err)
	}
	var consumers []gcpcloud.Consumer
	for _, p := range projects {
		consumers = append(consumers, gcpcloud.Consumer{Project: p})
	}
	op, err := c.mgmt.ServiceAttachments.SetConsumers(c.ctx, sa, consumers)
	c.settle(c.mgmt.Operations, op, err)
}

// checkOnly checks that exactly the hops of want are not ✓, each broken
// hop's fix holding its fragment ("" for a hop that is ? instead).
func checkOnly(t *testing.T, r diagnose.Report, want map[string]string) {
	t.Helper()
	for _, h := range r.Hops {
		fragment, broken := want[h.Name]
		switch {
		case !broken && h.Verdict != diagnose.Pass:
			t.Errorf("%s: %s (seen %q, fix %q, why %q), want ✓", h.Name, h.Verdict, h.Seen, h.Fix, h.Why)
		case broken && fragment != "" && (h.Verdict != diagnose.Fail || !strings.Contains(h.Fix, fragment)):
			t.Errorf("%s: %s, fix %q (seen %q, why %q); want ✗ with %q", h.Name, h.Verdict, h.Fix, h.Seen, h.Why, fragment)
		}
	}
}

func hop(t *testing.T, r diagnose.Report, name string) diagnose.Hop {
	t.Helper()
	for _, h := range r.Hops {
		if h.Name == name {
			return h
		}
	}
	t.Fatalf("no hop %s in %+v", name, r.Hops)
	return diagnose.Hop{}
}

func network(name string) *computev1.Network {
	return &computev1.Network{Name: name, ForceSendFields: []string{"AutoCreateSubnetworks"}}
}

func subnet(name, network, cidr, purpose string) *computev1.Subnetwork {
	return &computev1.Subnetwork{Name: name, Network: "global/networks/" + network, IpCidrRange: cidr, Purpose: purpose}
}

// internalRule is the router's internal forwarding rule, as the cloud
// provider's load-balancer controller makes it.
func internalRule(name, ip string) *computev1.ForwardingRule {
	return &computev1.ForwardingRule{Name: name, LoadBalancingScheme: "INTERNAL", BackendService: "regions/" + gcpRegion + "/backendServices/" + name,
		Subnetwork: "regions/" + gcpRegion + "/subnetworks/nodes", Network: "global/networks/management", IPAddress: ip, Ports: []string{"443"}}
}
