package awsendpointservice

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

const (
	mgmt     = cloudsimtest.ManagementAccount
	customer = cloudsimtest.CustomerAccount
	// cpoRole has an IAM path; the allowed principal must not.
	cpoRole       = "arn:aws:iam::222222222222:role/path/x-cpo"
	cpoPrincipal  = "arn:aws:iam::222222222222:role/x-cpo"
	customerRoot  = "arn:aws:iam::222222222222:root"
	testDrift     = 10 * time.Minute
	describeSvcs  = "ec2:DescribeVpcEndpointServiceConfigurations"
	createSvc     = "ec2:CreateVpcEndpointServiceConfiguration"
	describeLBs   = "elasticloadbalancing:DescribeLoadBalancers"
	describePerms = "ec2:DescribeVpcEndpointServicePermissions"
)

var testDelays = sim.Delays{
	LoadBalancerProvisioning: sim.Duration(60 * time.Second),
	LoadBalancerDeleting:     sim.Duration(10 * time.Second),
	EndpointPending:          sim.Duration(30 * time.Second),
	EndpointDeleting:         sim.Duration(10 * time.Second),
	EndpointServicePending:   sim.Duration(5 * time.Second),
}

var seq atomic.Int64

// world is cloudsim on a manual clock with the management VPC, and the
// test API server.
type world struct {
	t       *testing.T
	ctx     context.Context
	f       *cloudsimtest.Fixture
	clk     *sim.ManualClock
	ec2     *ec2.Client
	elb     *elbv2.Client
	vpc     string
	subnets []string
	zoneIDs []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	clk := sim.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	d := testDelays
	f := cloudsimtest.Start(t, cloudsim.Options{Clock: clk, Delays: &d})
	cfg := f.Config(t, mgmt)
	w := &world{t: t, ctx: ctrl.LoggerInto(t.Context(), testenv.Logger(t)), f: f, clk: clk, ec2: ec2.NewFromConfig(cfg), elb: elbv2.NewFromConfig(cfg)}
	vpc, err := w.ec2.CreateVpc(w.ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	if err != nil {
		t.Fatalf("CreateVpc: %v", err)
	}
	w.vpc = aws.ToString(vpc.Vpc.VpcId)
	zones, err := w.ec2.DescribeAvailabilityZones(w.ctx, &ec2.DescribeAvailabilityZonesInput{})
	if err != nil || len(zones.AvailabilityZones) < 2 {
		t.Fatalf("DescribeAvailabilityZones = %v, %v", zones, err)
	}
	for i, z := range zones.AvailabilityZones[:2] {
		s, err := w.ec2.CreateSubnet(w.ctx, &ec2.CreateSubnetInput{VpcId: vpc.Vpc.VpcId, CidrBlock: aws.String(fmt.Sprintf("10.0.%d.0/24", i)), AvailabilityZone: z.ZoneName})
		if err != nil {
			t.Fatalf("CreateSubnet: %v", err)
		}
		w.subnets = append(w.subnets, aws.ToString(s.Subnet.SubnetId))
		w.zoneIDs = append(w.zoneIDs, aws.ToString(z.ZoneId))
	}
	return w
}

// nlb creates an internal NLB; active after the provisioning delay.
func (w *world) nlb(name string) elbv2types.LoadBalancer {
	w.t.Helper()
	out, err := w.elb.CreateLoadBalancer(w.ctx, &elbv2.CreateLoadBalancerInput{Name: aws.String(name),
		Type: elbv2types.LoadBalancerTypeEnumNetwork, Scheme: elbv2types.LoadBalancerSchemeEnumInternal, Subnets: w.subnets})
	if err != nil {
		w.t.Fatalf("CreateLoadBalancer: %v", err)
	}
	return out.LoadBalancers[0]
}

func (w *world) activeNLB(name string) elbv2types.LoadBalancer {
	lb := w.nlb(name)
	w.clk.Advance(testDelays.LoadBalancerProvisioning.D() + time.Second)
	return lb
}

func (w *world) reconciler() *Reconciler {
	return &Reconciler{Client: env.Client, EC2: w.ec2, ELB: w.elb, Clock: w.clk, DriftInterval: testDrift}
}

// managementCluster is the reconciler of the management cluster id whose
// API server k reaches.
func (w *world) managementCluster(k client.Client, id string) *Reconciler {
	return &Reconciler{Client: k, EC2: w.ec2, ELB: w.elb, Clock: w.clk, DriftInterval: testDrift, ManagementClusterID: id}
}

func (w *world) calls(key string) sim.CallCount { return w.f.Calls(mgmt)[key] }

func (w *world) mutating() int64 { return sim.Sum(w.f.Calls(mgmt)).Mutating }

// services lists every endpoint service in the management account (a
// control read, uncounted for the controller's budget by diffing).
func (w *world) services() []ec2types.ServiceConfiguration {
	w.t.Helper()
	all, err := awscloud.ListEndpointServiceConfigurations(w.ctx, w.ec2)
	if err != nil {
		w.t.Fatalf("listing services: %v", err)
	}
	return all
}

func (w *world) service(name string) ec2types.ServiceConfiguration {
	w.t.Helper()
	for _, s := range w.services() {
		if aws.ToString(s.ServiceName) == name {
			return s
		}
	}
	w.t.Fatalf("endpoint service %q not found", name)
	return ec2types.ServiceConfiguration{}
}

func (w *world) principals(svc ec2types.ServiceConfiguration) []string {
	w.t.Helper()
	p, err := awscloud.ListAllowedPrincipals(w.ctx, w.ec2, aws.ToString(svc.ServiceId))
	if err != nil {
		w.t.Fatalf("permissions: %v", err)
	}
	return p
}

// cluster is one HostedCluster with its control-plane namespace.
type cluster struct {
	hc    *hcplinkv1beta1.HostedCluster
	hcpNS string
	k     client.Client // its management cluster's API server
}

func (w *world) cluster(mutate ...func(*hcplinkv1beta1.HostedCluster)) *cluster {
	w.t.Helper()
	return w.clusterIn(env, mutate...)
}

// clusterIn makes a cluster on the API server of e.
func (w *world) clusterIn(e *testenv.Env, mutate ...func(*hcplinkv1beta1.HostedCluster)) *cluster {
	w.t.Helper()
	ns := e.NewNamespace(w.t)
	n := seq.Add(1)
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("c%d", n)},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    fmt.Sprintf("infra-%d-%d", time.Now().UnixNano()%100000, n),
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.1.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{
				{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"}}},
			},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region:              cloudsimtest.Region,
				EndpointAccess:      hcplinkv1beta1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: "vpc-0123456789abcdef0"},
				RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: cpoRole},
				ResourceTags:        []hcplinkv1beta1.AWSResourceTag{{Key: "team", Value: "platform"}},
			}},
		},
	}
	for _, m := range mutate {
		m(hc)
	}
	createIn(w.t, e.Client, hc)
	c := &cluster{hc: hc, hcpNS: hcplinkv1beta1.HostedControlPlaneNamespace(ns, hc.Name), k: e.Client}
	createIn(w.t, e.Client, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.hcpNS}})
	return c
}

func (c *cluster) endpointService(t *testing.T, name, nlb string) *hcplinkv1beta1.AWSEndpointService {
	t.Helper()
	cr := &hcplinkv1beta1.AWSEndpointService{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.hcpNS, Name: name,
			Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: hcplinkv1beta1.ClusterAnnotationValue(c.hc.Namespace, c.hc.Name)}},
		Spec: hcplinkv1beta1.AWSEndpointServiceSpec{NetworkLoadBalancerName: nlb},
	}
	createIn(t, c.k, cr)
	return cr
}

func (c *cluster) nodePool(t *testing.T, name, subnet string) *hcplinkv1beta1.NodePool {
	t.Helper()
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.hc.Namespace, Name: name},
		Spec: hcplinkv1beta1.NodePoolSpec{ClusterName: c.hc.Name,
			Platform: hcplinkv1beta1.NodePoolPlatform{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSNodePoolPlatform{}}},
	}
	if subnet != "" {
		np.Spec.Platform.AWS.Subnet = &hcplinkv1beta1.AWSSubnetReference{ID: subnet}
	}
	create(t, np)
	return np
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	createIn(t, env.Client, obj)
}

func createIn(t *testing.T, k client.Client, obj client.Object) {
	t.Helper()
	if err := k.Create(t.Context(), obj); err != nil {
		t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
	}
}

func get(t *testing.T, obj client.Object) {
	t.Helper()
	getIn(t, env.Client, obj)
}

func getIn(t *testing.T, k client.Client, obj client.Object) {
	t.Helper()
	if err := k.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
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

func (w *world) reconcile(r *Reconciler, cr *hcplinkv1beta1.AWSEndpointService) ctrl.Result {
	w.t.Helper()
	res, err := r.Reconcile(w.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(cr)})
	if err != nil {
		w.t.Fatalf("Reconcile(%s): %v", cr.Name, err)
	}
	return res
}

// settle reconciles, letting cloudsim's clock run past pending states,
// until the condition is True.
func (w *world) settle(r *Reconciler, cr *hcplinkv1beta1.AWSEndpointService) {
	w.t.Helper()
	for range 6 {
		w.reconcile(r, cr)
		getIn(w.t, r.Client, cr)
		if c := meta.FindStatusCondition(cr.Status.Conditions, hcplinkv1beta1.AWSEndpointServiceAvailableCondition); c != nil && c.Status == metav1.ConditionTrue {
			return
		}
		w.clk.Advance(testDelays.EndpointServicePending.D() + time.Second)
	}
	w.t.Fatalf("AWSEndpointService %s did not become available: %+v", cr.Name, cr.Status.Conditions)
}

func condition(t *testing.T, cr *hcplinkv1beta1.AWSEndpointService) metav1.Condition {
	t.Helper()
	get(t, cr)
	c := meta.FindStatusCondition(cr.Status.Conditions, hcplinkv1beta1.AWSEndpointServiceAvailableCondition)
	if c == nil {
		t.Fatalf("no %s condition on %s", hcplinkv1beta1.AWSEndpointServiceAvailableCondition, cr.Name)
	}
	return *c
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
