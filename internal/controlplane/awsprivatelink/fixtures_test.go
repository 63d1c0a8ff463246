package awsprivatelink

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
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
	infraID  = "demo-x7k2p"
	// endpointPending is cloudsim's pending → available delay here.
	endpointPending  = 60 * time.Second
	endpointDeleting = 30 * time.Second
)

// leakPattern matches what must never reach a condition message.
var leakPattern = regexp.MustCompile(`(?i)(request ?id|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|StatusCode|https response error)`)

type cloudOpts struct {
	nlbZoneCount       int // zones of the NLB (the first of the customer's); 0: all three
	crossZone          bool
	acceptanceRequired bool
	noZone             bool // do not create the private hosted zone
	crName             string
}

// fixture is two cloudsim accounts, a management NLB with an endpoint
// service allowing the customer, a customer VPC with subnets in three
// zones and the cluster's private zone, and the CR in envtest.
type fixture struct {
	t    *testing.T
	ctx  context.Context
	f    *cloudsimtest.Fixture
	clk  *sim.ManualClock
	cust *ec2.Client
	r53  *route53.Client
	mgmt *ec2.Client

	zoneIDs     []string          // the customer's zone IDs, sorted
	subnets     map[string]string // zone ID → customer subnet
	vpc         string
	serviceName string
	zoneID      string // private hosted zone

	hcp *hcplinkv1beta1.HostedControlPlane
	cr  *hcplinkv1beta1.AWSEndpointService
	r   *Reconciler
}

func newFixture(t *testing.T, o cloudOpts) *fixture {
	t.Helper()
	clk := sim.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	delays := sim.Delays{EndpointPending: sim.Duration(endpointPending), EndpointDeleting: sim.Duration(endpointDeleting)}
	f := cloudsimtest.Start(t, cloudsim.Options{Clock: clk, Delays: &delays})
	ctx := t.Context()
	mcfg, ccfg := f.Config(t, mgmt), f.Config(t, customer)
	x := &fixture{t: t, ctx: ctx, f: f, clk: clk, cust: ec2.NewFromConfig(ccfg), r53: route53.NewFromConfig(ccfg), mgmt: ec2.NewFromConfig(mcfg), subnets: map[string]string{}}

	// Management: NLB in the chosen zones, endpoint service allowing the
	// customer account (the operator's part, by hand).
	mNames := zoneNames(t, x.mgmt)
	for id := range mNames {
		x.zoneIDs = append(x.zoneIDs, id)
	}
	sort.Strings(x.zoneIDs)
	x.zoneIDs = x.zoneIDs[:3]
	nlbZones := x.zoneIDs
	if o.nlbZoneCount > 0 {
		nlbZones = x.zoneIDs[:o.nlbZoneCount]
	}
	mvpc := must(x.mgmt.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")}))(t).Vpc.VpcId
	var msubnets []string
	for i, z := range nlbZones {
		out := must(x.mgmt.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: mvpc, CidrBlock: aws.String(fmt.Sprintf("10.0.%d.0/24", i)), AvailabilityZone: aws.String(mNames[z])}))(t)
		msubnets = append(msubnets, aws.ToString(out.Subnet.SubnetId))
	}
	elb := elbv2.NewFromConfig(mcfg)
	lb := must(elb.CreateLoadBalancer(ctx, &elbv2.CreateLoadBalancerInput{Name: aws.String("k8s-demo-private-0123456789"), Type: elbtypes.LoadBalancerTypeEnumNetwork,
		Scheme: elbtypes.LoadBalancerSchemeEnumInternal, Subnets: msubnets}))(t).LoadBalancers[0]
	if o.crossZone {
		must(elb.ModifyLoadBalancerAttributes(ctx, &elbv2.ModifyLoadBalancerAttributesInput{LoadBalancerArn: lb.LoadBalancerArn,
			Attributes: []elbtypes.LoadBalancerAttribute{{Key: aws.String("load_balancing.cross_zone.enabled"), Value: aws.String("true")}}}))(t)
	}
	svc := must(x.mgmt.CreateVpcEndpointServiceConfiguration(ctx, &ec2.CreateVpcEndpointServiceConfigurationInput{
		AcceptanceRequired: aws.Bool(o.acceptanceRequired), NetworkLoadBalancerArns: []string{aws.ToString(lb.LoadBalancerArn)}}))(t).ServiceConfiguration
	must(x.mgmt.ModifyVpcEndpointServicePermissions(ctx, &ec2.ModifyVpcEndpointServicePermissionsInput{
		ServiceId: svc.ServiceId, AddAllowedPrincipals: []string{"arn:aws:iam::" + customer + ":root"}}))(t)
	x.serviceName = aws.ToString(svc.ServiceName)

	// Customer: VPC, a subnet in each zone, the private zone.
	cNames := zoneNames(t, x.cust)
	x.vpc = aws.ToString(must(x.cust.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.1.0.0/16")}))(t).Vpc.VpcId)
	for i, z := range x.zoneIDs {
		x.subnets[z] = x.subnet(fmt.Sprintf("10.1.%d.0/24", i), cNames[z])
	}
	hcpName := "demo"
	if !o.noZone {
		out := must(x.r53.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: aws.String(awscloud.PrivateZoneName(hcpName)), CallerReference: aws.String(t.Name()),
			HostedZoneConfig: &r53types.HostedZoneConfig{PrivateZone: true},
			VPC:              &r53types.VPC{VPCId: aws.String(x.vpc), VPCRegion: r53types.VPCRegion(cloudsimtest.Region)}}))(t)
		x.zoneID = strings.TrimPrefix(aws.ToString(out.HostedZone.Id), "/hostedzone/")
	}

	// Kubernetes: the HCP and the CR with the operator's fields set.
	ns := env.NewNamespace(t)
	x.hcp = &hcplinkv1beta1.HostedControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: hcpName, Namespace: ns, Annotations: map[string]string{hcplinkv1beta1.ClusterAnnotation: "clusters/demo"}},
		Spec: hcplinkv1beta1.HostedControlPlaneSpec{
			InfraID:    infraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.1.0.0/16"}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{Service: hcplinkv1beta1.APIServer, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
				Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api.demo.example.com"}}}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region: cloudsimtest.Region, EndpointAccess: hcplinkv1beta1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: x.vpc},
				RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: "arn:aws:iam::" + customer + ":role/demo-cpo"},
				ResourceTags:        []hcplinkv1beta1.AWSResourceTag{{Key: "team", Value: "blue"}},
			}},
		},
	}
	if err := env.Client.Create(ctx, x.hcp); err != nil {
		t.Fatalf("creating HCP: %v", err)
	}
	name := o.crName
	if name == "" {
		name = hcplinkv1beta1.PrivateRouterServiceName
	}
	x.cr = &hcplinkv1beta1.AWSEndpointService{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: []metav1.OwnerReference{{APIVersion: hcplinkv1beta1.GroupVersion.String(),
			Kind: "HostedControlPlane", Name: hcpName, UID: x.hcp.UID, Controller: ptr.To(true)}}},
		Spec: hcplinkv1beta1.AWSEndpointServiceSpec{NetworkLoadBalancerName: "k8s-demo-private", SubnetIDs: x.subnetList(x.zoneIDs...),
			ResourceTags: x.hcp.Spec.Platform.AWS.ResourceTags},
	}
	if err := env.Client.Create(ctx, x.cr); err != nil {
		t.Fatalf("creating CR: %v", err)
	}
	patch := client.MergeFrom(x.cr.DeepCopy())
	x.cr.Status.EndpointServiceName = x.serviceName
	if err := env.Client.Status().Patch(ctx, x.cr, patch); err != nil {
		t.Fatalf("writing endpointServiceName: %v", err)
	}
	x.r = x.newReconciler()
	return x
}

func (x *fixture) newReconciler() *Reconciler {
	cfg := x.f.Config(x.t, customer)
	return &Reconciler{Client: env.Client, EC2: ec2.NewFromConfig(cfg), Route53: route53.NewFromConfig(cfg), Now: x.clk.Now}
}

func (x *fixture) subnet(cidr, zoneName string) string {
	out := must(x.cust.CreateSubnet(x.ctx, &ec2.CreateSubnetInput{VpcId: aws.String(x.vpc), CidrBlock: aws.String(cidr), AvailabilityZone: aws.String(zoneName)}))(x.t)
	return aws.ToString(out.Subnet.SubnetId)
}

func (x *fixture) subnetList(zones ...string) []string {
	var out []string
	for _, z := range zones {
		out = append(out, x.subnets[z])
	}
	sort.Strings(out)
	return out
}

func zoneNames(t *testing.T, c *ec2.Client) map[string]string {
	out := must(c.DescribeAvailabilityZones(t.Context(), &ec2.DescribeAvailabilityZonesInput{}))(t)
	m := map[string]string{}
	for _, z := range out.AvailabilityZones {
		m[aws.ToString(z.ZoneId)] = aws.ToString(z.ZoneName)
	}
	return m
}

func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatalf("setup call failed: %v", err)
		}
		return v
	}
}

func (x *fixture) reconcileWith(r *Reconciler) ctrl.Result {
	x.t.Helper()
	res, err := r.Reconcile(x.ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(x.cr)})
	if err != nil {
		x.t.Fatalf("Reconcile: %v", err)
	}
	return res
}

func (x *fixture) reconcile() ctrl.Result { x.t.Helper(); return x.reconcileWith(x.r) }

func (x *fixture) get() *hcplinkv1beta1.AWSEndpointService {
	x.t.Helper()
	cr := &hcplinkv1beta1.AWSEndpointService{}
	if err := env.Client.Get(x.ctx, client.ObjectKeyFromObject(x.cr), cr); err != nil {
		x.t.Fatalf("reading CR: %v", err)
	}
	return cr
}

func (x *fixture) condition() metav1.Condition {
	x.t.Helper()
	cr := x.get()
	c := meta.FindStatusCondition(cr.Status.Conditions, hcplinkv1beta1.AWSEndpointAvailableCondition)
	if c == nil {
		x.t.Fatal("no AWSEndpointAvailable condition")
	}
	if c.ObservedGeneration != cr.Generation {
		x.t.Errorf("observedGeneration %d, want %d", c.ObservedGeneration, cr.Generation)
	}
	if leakPattern.MatchString(c.Message) {
		x.t.Errorf("condition message leaks request IDs or HTTP text: %q", c.Message)
	}
	return *c
}

func (x *fixture) requireCondition(status metav1.ConditionStatus, reason string, contains ...string) metav1.Condition {
	x.t.Helper()
	c := x.condition()
	if c.Status != status || c.Reason != reason {
		x.t.Fatalf("AWSEndpointAvailable = %s/%s %q, want %s/%s", c.Status, c.Reason, c.Message, status, reason)
	}
	for _, s := range contains {
		if !strings.Contains(c.Message, s) {
			x.t.Fatalf("message %q lacks %q", c.Message, s)
		}
	}
	return c
}

// ready drives the CR to an available endpoint.
func (x *fixture) ready() {
	x.t.Helper()
	x.reconcile()
	x.requireCondition(metav1.ConditionFalse, hcplinkv1beta1.EndpointPendingReason)
	x.clk.Advance(endpointPending + time.Second)
	x.reconcile()
	x.requireCondition(metav1.ConditionTrue, hcplinkv1beta1.AWSSuccessReason)
}

func (x *fixture) endpoints() []ec2types.VpcEndpoint {
	x.t.Helper()
	out := must(x.cust.DescribeVpcEndpoints(x.ctx, &ec2.DescribeVpcEndpointsInput{Filters: []ec2types.Filter{
		{Name: aws.String("tag:" + hcplinkv1beta1.ClusterTagKey(infraID)), Values: []string{"owned"}}}}))(x.t)
	return out.VpcEndpoints
}

func (x *fixture) endpoint() ec2types.VpcEndpoint {
	x.t.Helper()
	eps := x.endpoints()
	if len(eps) != 1 {
		x.t.Fatalf("%d endpoints tagged for the cluster, want 1", len(eps))
	}
	return eps[0]
}

func (x *fixture) securityGroups() []ec2types.SecurityGroup {
	x.t.Helper()
	out := must(x.cust.DescribeSecurityGroups(x.ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{
		{Name: aws.String("tag:" + hcplinkv1beta1.ClusterTagKey(infraID)), Values: []string{"owned"}}}}))(x.t)
	return out.SecurityGroups
}

// records returns the zone's CNAMEs: normalised name → value.
func (x *fixture) records() map[string]string {
	x.t.Helper()
	out := must(x.r53.ListResourceRecordSets(x.ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(x.zoneID)}))(x.t)
	m := map[string]string{}
	for _, rs := range out.ResourceRecordSets {
		if rs.Type == r53types.RRTypeCname {
			m[awscloud.RecordName(aws.ToString(rs.Name))] = aws.ToString(rs.ResourceRecords[0].Value)
		}
	}
	return m
}

// mutating sums the customer account's mutating calls.
func (x *fixture) calls() (total, mutating int64, byOp map[string]sim.CallCount) {
	byOp = x.f.Calls(customer)
	sum := sim.Sum(byOp)
	return sum.Total, sum.Mutating, byOp
}

func (x *fixture) patchCR(mutate func(cr *hcplinkv1beta1.AWSEndpointService)) {
	x.t.Helper()
	cr := x.get()
	patch := client.MergeFrom(cr.DeepCopy())
	mutate(cr)
	if err := env.Client.Patch(x.ctx, cr, patch); err != nil {
		x.t.Fatalf("patching CR: %v", err)
	}
}

func (x *fixture) patchHCP(mutate func(hcp *hcplinkv1beta1.HostedControlPlane)) {
	x.t.Helper()
	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if err := env.Client.Get(x.ctx, client.ObjectKeyFromObject(x.hcp), hcp); err != nil {
		x.t.Fatal(err)
	}
	patch := client.MergeFrom(hcp.DeepCopy())
	mutate(hcp)
	if err := env.Client.Patch(x.ctx, hcp, patch); err != nil {
		x.t.Fatalf("patching HCP: %v", err)
	}
}
