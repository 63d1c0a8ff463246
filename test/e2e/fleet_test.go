package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// Scenarios for a fleet: the API server's own private endpoint, a
// control-plane namespace force-deleted mid-cluster, and one customer's
// hung cloud calls next to another customer's cluster converging. They touch
// only their own clusters (the latency is scoped to the second customer's
// account, which no other scenario uses), so they run side by side.
func TestFleet(t *testing.T) {
	rsConcurrently(t, []rsScenario{
		{"kube-apiserver-private", flKubeAPIServerPrivate},
		{"forced-namespace-deletion", flForcedNamespaceDeletion},
		{"hung-calls-of-one-customer", flHungCallIsolation},
	})
}

const (
	flAPIServerCR = "kube-apiserver-private"
	// flRecoveryWait covers a control-plane operator pass cut by its
	// deadline (2 minutes), the retry delay grown to its cap for a cloud
	// that did not answer (2 minutes, plus jitter) and the work itself.
	flRecoveryWait = 5 * time.Minute
)

// flKubeAPIServerPrivate: a Private cluster whose API server is published
// as LoadBalancer gets a second private path: the kube-apiserver-private
// Service's NLB behind its own endpoint service, a VPC endpoint whose
// security group admits 6443 from the machine network, and the api record
// through that endpoint (while *.apps stays on the router's).
func flKubeAPIServerPrivate(t *testing.T) {
	c := rsCreateCluster(t, "fl-kas", "flkas", env.Customer.Zones[:2], func(c *rsCluster) {
		c.hc.Spec.Services = []hcplinkv1beta1.ServicePublishingStrategyMapping{{
			Service:                   hcplinkv1beta1.APIServer,
			ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{Type: hcplinkv1beta1.LoadBalancerPublishing},
		}}
	})
	suite.Eventually(t, e2eutil.LongWait, "both AWSEndpointServices served end to end", func(ctx context.Context) error {
		for _, name := range []string{rsRouterCR, flAPIServerCR} {
			if err := flServed(ctx, c.hcpNS, name); err != nil {
				return err
			}
		}
		return nil
	})
	ctx := context.Background()
	router, kas := flGetCR(t, c.hcpNS, rsRouterCR), flGetCR(t, c.hcpNS, flAPIServerCR)
	if router.Status.EndpointServiceName == kas.Status.EndpointServiceName || router.Spec.NetworkLoadBalancerName == kas.Spec.NetworkLoadBalancerName {
		t.Fatalf("the API server shares the router's NLB or endpoint service: %s/%s vs %s/%s",
			router.Spec.NetworkLoadBalancerName, router.Status.EndpointServiceName, kas.Spec.NetworkLoadBalancerName, kas.Status.EndpointServiceName)
	}
	if _, err := loadBalancerFor(ctx, c.hcpNS, flAPIServerCR); err != nil {
		t.Fatalf("the kube-apiserver-private Service's NLB: %v", err)
	}
	if svcs := flEndpointServices(c.infraID); len(svcs) != 2 {
		t.Errorf("want 2 endpoint services tagged for %s, the management account has %v", c.infraID, svcs)
	}
	suite.Eventually(t, e2eutil.ShortWait, "api through the API server's endpoint, *.apps through the router's", func(ctx context.Context) error {
		apiTarget, err := flEndpointDNSName(ctx, env.CustomerAWS, kas.Status.EndpointID)
		if err != nil {
			return err
		}
		appsTarget, err := flEndpointDNSName(ctx, env.CustomerAWS, router.Status.EndpointID)
		if err != nil {
			return err
		}
		records := flRecords(devenv.CustomerAccount, c.zoneName())
		return flExpectCNAMEs(records, map[string]string{"api." + c.zoneName(): apiTarget, "*.apps." + c.zoneName(): appsTarget})
	})
	suite.Eventually(t, e2eutil.ShortWait, "the API server endpoint's security group admitting tcp 6443 from the machine network", func(ctx context.Context) error {
		return flExpectIngress(c.infraID, flAPIServerCR, kas.Status.SecurityGroupID, 6443, env.Customer.CIDR)
	})
	if err := flExpectIngress(c.infraID, rsRouterCR, router.Status.SecurityGroupID, 443, env.Customer.CIDR); err != nil {
		t.Errorf("router endpoint's security group: %v", err)
	}

	flDeleteCluster(t, c)
	flExpectNothingLeft(t, devenv.CustomerAccount, c)
}

// flForcedNamespaceDeletion: with a Private cluster available, its
// control-plane operator stops (its pod gone) and someone deletes the
// control-plane namespace, stripping the finalizers that would have
// cleaned up. The customer's endpoint, security group and records stay
// behind. The operator recreates the namespace and the control-plane
// operator, which adopts what it finds; deleting the cluster afterwards
// leaves nothing in either account.
func flForcedNamespaceDeletion(t *testing.T) {
	ctx := context.Background()
	c := rsCreateCluster(t, "fl-ns", "flns", env.Customer.Zones[:2], nil)
	rsWaitReady(t, c, e2eutil.LongWait)
	var oldNS corev1.Namespace
	if err := env.Client.Get(ctx, types.NamespacedName{Name: c.hcpNS}, &oldNS); err != nil {
		t.Fatal(err)
	}

	env.StopControlPlaneOperator(c.hcpNS)
	if err := env.Client.Delete(ctx, &oldNS); err != nil {
		t.Fatalf("deleting namespace %s: %v", c.hcpNS, err)
	}
	suite.Eventually(t, e2eutil.LongWait, "the control-plane namespace to be gone, its finalizers stripped", func(ctx context.Context) error {
		if err := flStripFinalizers(ctx, c.hcpNS); err != nil {
			return err
		}
		var ns corev1.Namespace
		err := env.Client.Get(ctx, types.NamespacedName{Name: c.hcpNS}, &ns)
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		case ns.UID != oldNS.UID:
			return nil // already recreated
		}
		return fmt.Errorf("namespace %s is still %s", c.hcpNS, ns.Status.Phase)
	})
	left := rsLiveEndpoints(c.infraID)
	if len(left) == 0 {
		t.Fatalf("nothing was left behind in the customer account: the scenario did not hold")
	}
	t.Logf("left behind in the customer account: endpoints %+v, security groups %v", left, rsSecurityGroups(c.infraID))

	suite.Eventually(t, e2eutil.LongWait, "the operator to recreate the namespace and the control-plane operator's Deployment", func(ctx context.Context) error {
		var ns corev1.Namespace
		if err := env.Client.Get(ctx, types.NamespacedName{Name: c.hcpNS}, &ns); err != nil {
			return err
		}
		if ns.UID == oldNS.UID {
			return errors.New("the old namespace is still there")
		}
		// Let the kubelet stand-in run the new pod (it held the old one).
		return env.StartControlPlaneOperator(ctx, c.hcpNS)
	})
	suite.Eventually(t, e2eutil.LongWait+rsDriftWait, "the HostedCluster Available again", func(ctx context.Context) error {
		return flClusterAvailable(ctx, c)
	})
	rsWaitReady(t, c, e2eutil.LongWait)

	flDeleteCluster(t, c)
	flExpectNothingLeft(t, devenv.CustomerAccount, c)
}

// flHungCallIsolation: every call to the second customer's account hangs
// for ten minutes, far beyond any per-call or per-pass deadline. That
// customer's cluster is stuck; a cluster of the first customer, created
// after it, becomes Available within the normal bound all the same. Once the
// latency is lifted the stuck cluster recovers without a restart.
func flHungCallIsolation(t *testing.T) {
	ctx := context.Background()
	stuck := flCreateClusterIn(t, env.SecondCustomer, env.SecondCustomerAWS, "fl-hung", "flhung")
	env.Cloud.Faults.Set(flWithLatency(env.Cloud.Faults.Get(), sim.LatencyRule{Account: devenv.SecondCustomerAccount, Delay: sim.Duration(10 * time.Minute)}))
	t.Cleanup(func() { env.Cloud.Faults.Set(flWithoutLatency(env.Cloud.Faults.Get(), devenv.SecondCustomerAccount)) })
	stuck.create(t)
	// The stuck cluster's endpoint service is the management account's
	// work, which is not slowed: wait until its customer side is what waits.
	suite.Eventually(t, e2eutil.LongWait, "the stuck cluster's endpoint service", func(ctx context.Context) error {
		cr, err := rsCR(ctx, stuck.hcpNS)
		if err != nil {
			return err
		}
		if cr.Status.EndpointServiceName == "" {
			return errors.New("no endpoint service yet")
		}
		return nil
	})

	healthy := rsCreateCluster(t, "fl-ok", "flok", env.Customer.Zones[:2], nil)
	start := time.Now()
	suite.Eventually(t, e2eutil.LongWait, "the first customer's cluster Available while the second customer's calls hang", func(ctx context.Context) error {
		return flClusterAvailable(ctx, healthy)
	})
	t.Logf("the healthy cluster became Available in %v while the other customer's calls hung", time.Since(start).Round(time.Second))
	if err := flClusterAvailable(ctx, stuck.rsCluster); err == nil {
		t.Fatalf("the cluster whose calls hang is Available: the latency did not apply")
	}

	env.Cloud.Faults.Set(flWithoutLatency(env.Cloud.Faults.Get(), devenv.SecondCustomerAccount))
	lifted := time.Now()
	suite.Eventually(t, flRecoveryWait, "the stuck cluster to recover once its calls answer again", func(ctx context.Context) error {
		return flClusterAvailable(ctx, stuck.rsCluster)
	})
	t.Logf("the stuck cluster recovered %v after the latency was lifted", time.Since(lifted).Round(time.Second))
}

// --- helpers ---

// flCluster is an rsCluster prepared in a given customer's account and
// created later (create), so that faults can be set in between.
type flCluster struct {
	*rsCluster
	customer devenv.CustomerNetwork
}

func flCreateClusterIn(t *testing.T, customer devenv.CustomerNetwork, cfg aws.Config, prefix, name string) *flCluster {
	t.Helper()
	c := &rsCluster{ns: suite.CreateNamespace(t, prefix), name: name, infraID: name + "-" + strings.ToLower(e2eutil.RandomSuffix(5))}
	c.hcpNS = hcplinkv1beta1.HostedControlPlaneNamespace(c.ns, name)
	var err error
	if c.fixture, err = env.PrepareAWSClusterIn(context.Background(), customer, cfg, c.ns, name, c.infraID); err != nil {
		t.Fatalf("preparing customer account %s: %v", customer.Account, err)
	}
	c.hc = validPrivateCluster(c.ns, name, c.infraID)
	c.hc.Spec.Networking.MachineNetwork = []hcplinkv1beta1.MachineNetworkEntry{{CIDR: customer.CIDR}}
	c.hc.Spec.Platform.AWS.CloudProviderConfig = &hcplinkv1beta1.AWSCloudProviderConfig{VPC: customer.VPCID}
	c.hc.Spec.Platform.AWS.RolesRef = &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: c.fixture.ControlPlaneOperatorRoleARN}
	t.Cleanup(func() {
		if err := env.Client.Delete(context.Background(), c.hc); err != nil && !apierrors.IsNotFound(err) {
			t.Logf("deleting HostedCluster %s/%s: %v", c.ns, c.name, err)
		}
	})
	return &flCluster{rsCluster: c, customer: customer}
}

func (c *flCluster) create(t *testing.T) {
	t.Helper()
	if err := env.Client.Create(context.Background(), c.hc); err != nil {
		t.Fatalf("creating HostedCluster: %v", err)
	}
	for i, zone := range c.customer.Zones[:2] {
		createNodePool(t, c.ns, fmt.Sprintf("%s-np%d", c.name, i+1), c.name, c.customer.SubnetByAZ[zone])
	}
}

func flWithLatency(cfg sim.FaultConfig, rule sim.LatencyRule) sim.FaultConfig {
	cfg.Latency = append(slices.Clone(cfg.Latency), rule)
	return cfg
}

func flWithoutLatency(cfg sim.FaultConfig, account string) sim.FaultConfig {
	cfg.Latency = slices.DeleteFunc(slices.Clone(cfg.Latency), func(r sim.LatencyRule) bool { return r.Account == account })
	return cfg
}

// flClusterAvailable: the HostedCluster is Available with its private
// endpoint available.
func flClusterAvailable(ctx context.Context, c *rsCluster) error {
	var hc hcplinkv1beta1.HostedCluster
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.hc), &hc); err != nil {
		return err
	}
	if err := e2eutil.ConditionIs(hc.Status.Conditions, hcplinkv1beta1.AvailableCondition, metav1.ConditionTrue, ""); err != nil {
		return err
	}
	return e2eutil.ConditionIs(hc.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition, metav1.ConditionTrue, "")
}

func flGetCR(t *testing.T, hcpNS, name string) *hcplinkv1beta1.AWSEndpointService {
	t.Helper()
	cr := &hcplinkv1beta1.AWSEndpointService{}
	if err := env.Client.Get(context.Background(), types.NamespacedName{Namespace: hcpNS, Name: name}, cr); err != nil {
		t.Fatalf("AWSEndpointService %s: %v", name, err)
	}
	return cr
}

// flServed: both conditions of the AWSEndpointService True and its
// endpoint available in the cloud.
func flServed(ctx context.Context, hcpNS, name string) error {
	cr := &hcplinkv1beta1.AWSEndpointService{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: hcpNS, Name: name}, cr); err != nil {
		return fmt.Errorf("AWSEndpointService %s: %w", name, err)
	}
	for _, cond := range []string{hcplinkv1beta1.AWSEndpointServiceAvailableCondition, hcplinkv1beta1.AWSEndpointAvailableCondition} {
		if err := e2eutil.ConditionIs(cr.Status.Conditions, cond, metav1.ConditionTrue, ""); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if state := rsEndpointState(devenv.CustomerAccount, cr.Status.EndpointID); state != cloudaws.EndpointAvailable {
		return fmt.Errorf("%s: VPC endpoint %q is %q in the cloud", name, cr.Status.EndpointID, state)
	}
	return nil
}

func flEndpointDNSName(ctx context.Context, cfg aws.Config, endpointID string) (string, error) {
	out, err := ec2.NewFromConfig(cfg).DescribeVpcEndpoints(ctx, &ec2.DescribeVpcEndpointsInput{VpcEndpointIds: []string{endpointID}})
	if err != nil {
		return "", fmt.Errorf("describing VPC endpoint %s: %w", endpointID, err)
	}
	if len(out.VpcEndpoints) != 1 || len(out.VpcEndpoints[0].DnsEntries) == 0 {
		return "", fmt.Errorf("VPC endpoint %s has no DNS names", endpointID)
	}
	return strings.TrimSuffix(aws.ToString(out.VpcEndpoints[0].DnsEntries[0].DnsName), "."), nil
}

// flExpectCNAMEs checks each record is a CNAME to its target.
func flExpectCNAMEs(records map[string]cloudaws.RecordSet, want map[string]string) error {
	for name, target := range want {
		rs, ok := records[name]
		switch {
		case !ok:
			return fmt.Errorf("no record %s", name)
		case rs.Type != "CNAME" || len(rs.Values) != 1 || strings.TrimSuffix(rs.Values[0], ".") != target:
			return fmt.Errorf("record %s is %s %v, want CNAME %s", name, rs.Type, rs.Values, target)
		}
	}
	return nil
}

// flRecords returns the records (by normalised name) of an account's
// private zones named zone.
func flRecords(account, zone string) map[string]cloudaws.RecordSet {
	out := map[string]cloudaws.RecordSet{}
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		a := accounts[account]
		if a == nil {
			return
		}
		for _, z := range a.Route53.HostedZones {
			if !z.PrivateZone || rsRecordName(z.Name) != zone {
				continue
			}
			for _, rs := range z.Records {
				cp := *rs
				cp.Values = slices.Clone(rs.Values)
				out[rsRecordName(rs.Name)] = cp
			}
		}
	})
	return out
}

// flExpectIngress checks the security group is the one named for the CR
// and admits tcp port from cidr.
func flExpectIngress(infraID, crName, groupID string, port int, cidr string) error {
	var problem error = fmt.Errorf("security group %s not found in the customer account", groupID)
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		r := rsRegion(accounts, devenv.CustomerAccount)
		if r == nil || r.EC2.SecurityGroups[groupID] == nil {
			return
		}
		sg := r.EC2.SecurityGroups[groupID]
		if want := awscloud.SecurityGroupName(infraID, crName); sg.Name != want {
			problem = fmt.Errorf("security group %s is named %s, want %s", groupID, sg.Name, want)
			return
		}
		var rules []string
		for _, rule := range sg.Rules {
			if rule.Egress {
				continue
			}
			rules = append(rules, fmt.Sprintf("%s %d-%d %s", rule.Protocol, rule.FromPort, rule.ToPort, rule.CidrIPv4))
			if rule.Protocol == "tcp" && rule.FromPort == port && rule.ToPort == port && rule.CidrIPv4 == cidr {
				problem = nil
				return
			}
		}
		problem = fmt.Errorf("security group %s (%s) has ingress %v, want tcp %d from %s", groupID, sg.Name, rules, port, cidr)
	})
	return problem
}

// flEndpointServices lists the management account's endpoint services
// tagged for the cluster (any AWSEndpointService).
func flEndpointServices(infraID string) []string {
	var out []string
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		r := rsRegion(accounts, devenv.ManagementAccount)
		if r == nil {
			return
		}
		for id, svc := range r.PrivateLink.Services {
			if r.Tags[id][hcplinkv1beta1.ClusterTagKey(infraID)] == hcplinkv1beta1.ClusterTagValueOwned {
				out = append(out, id+" "+svc.Name+" "+svc.State)
			}
		}
	})
	sort.Strings(out)
	return out
}

// flLeftovers lists what the cloud still holds for the cluster: endpoint
// services (management account); VPC endpoints not yet deleted and
// security groups tagged for the cluster, and api / *.apps records in its
// zone (customer account).
func flLeftovers(account string, c *rsCluster) []string {
	left := flEndpointServices(c.infraID)
	clusterTag := hcplinkv1beta1.ClusterTagKey(c.infraID)
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		r := rsRegion(accounts, account)
		if r == nil {
			return
		}
		for id, ep := range r.PrivateLink.Endpoints {
			if r.Tags[id][clusterTag] == hcplinkv1beta1.ClusterTagValueOwned && ep.State != "deleted" {
				left = append(left, "VPC endpoint "+id+" ("+ep.State+")")
			}
		}
		for id := range r.EC2.SecurityGroups {
			if r.Tags[id][clusterTag] == hcplinkv1beta1.ClusterTagValueOwned {
				left = append(left, "security group "+id)
			}
		}
	})
	for name := range flRecords(account, c.zoneName()) {
		if name == "api."+c.zoneName() || name == "*.apps."+c.zoneName() {
			left = append(left, "record "+name)
		}
	}
	sort.Strings(left)
	return left
}

func flDeleteCluster(t *testing.T, c *rsCluster) {
	t.Helper()
	if err := env.Client.Delete(context.Background(), c.hc); err != nil {
		t.Fatalf("deleting the HostedCluster: %v", err)
	}
	suite.Eventually(t, e2eutil.LongWait, "the HostedCluster and its control-plane namespace to go", func(ctx context.Context) error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(c.hc), &hcplinkv1beta1.HostedCluster{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("HostedCluster still exists (err=%v)", err)
		}
		if err := env.Client.Get(ctx, types.NamespacedName{Name: c.hcpNS}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace %s still exists (err=%v)", c.hcpNS, err)
		}
		return nil
	})
}

// flExpectNothingLeft waits until the cloud holds nothing of the cluster
// (endpoints finish deleting on their own time).
func flExpectNothingLeft(t *testing.T, account string, c *rsCluster) {
	t.Helper()
	suite.Eventually(t, e2eutil.LongWait, "nothing of the cluster left in the cloud", func(context.Context) error {
		if left := flLeftovers(account, c); len(left) > 0 {
			return fmt.Errorf("the cloud still holds %v", left)
		}
		return nil
	})
}

// flStripFinalizers removes what waits on the stopped control-plane
// operator, as someone forcing the namespace away would: its finalizer on
// the AWSEndpointServices, and the HostedControlPlane's (held until the
// control-plane operator reports its cleanup). The operator's own finalizer
// on the AWSEndpointServices stays: the operator runs, deletes the endpoint
// service, and so lets the router's NLB and Service go. Stripping that one
// too would leave the NLB held by the endpoint service until the sweeper's
// grace period, and the namespace Terminating as long.
func flStripFinalizers(ctx context.Context, namespace string) error {
	var services hcplinkv1beta1.AWSEndpointServiceList
	if err := env.Client.List(ctx, &services, client.InNamespace(namespace)); err != nil {
		return err
	}
	for i := range services.Items {
		if err := flSetFinalizers(ctx, &services.Items[i], slices.DeleteFunc(slices.Clone(services.Items[i].Finalizers),
			func(f string) bool { return f == hcplinkv1beta1.ControlPlaneFinalizer })); err != nil {
			return err
		}
	}
	var hcps hcplinkv1beta1.HostedControlPlaneList
	if err := env.Client.List(ctx, &hcps, client.InNamespace(namespace)); err != nil {
		return err
	}
	for i := range hcps.Items {
		if err := flSetFinalizers(ctx, &hcps.Items[i], nil); err != nil {
			return err
		}
	}
	return nil
}

// flSetFinalizers replaces obj's finalizers with keep when they differ.
func flSetFinalizers(ctx context.Context, obj client.Object, keep []string) error {
	if slices.Equal(obj.GetFinalizers(), keep) || (len(keep) == 0 && len(obj.GetFinalizers()) == 0) {
		return nil
	}
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": keep, "resourceVersion": obj.GetResourceVersion()}})
	if err != nil {
		return err
	}
	if err := env.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, body)); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("stripping the finalizers of %T %s: %w", obj, obj.GetName(), err)
	}
	return nil
}
