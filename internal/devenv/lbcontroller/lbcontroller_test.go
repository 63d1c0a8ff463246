package lbcontroller

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

const (
	deadline      = 20 * time.Second
	createCall    = "elasticloadbalancing:CreateLoadBalancer"
	modifyAttrs   = "elasticloadbalancing:ModifyLoadBalancerAttributes"
	internalAnnot = "service.beta.kubernetes.io/aws-load-balancer-internal"
)

// cloud is a cloudsim with the management VPC: an internet gateway and, in
// two zones, a private and a public subnet.
type cloud struct {
	f       *cloudsimtest.Fixture
	cfg     aws.Config
	elb     *elbv2.Client
	private []string
	public  []string
}

func newCloud(t *testing.T, opts cloudsim.Options) *cloud {
	t.Helper()
	ctx := t.Context()
	f := cloudsimtest.Start(t, opts)
	cfg := f.Config(t, cloudsimtest.ManagementAccount)
	c := &cloud{f: f, cfg: cfg, elb: elbv2.NewFromConfig(cfg)}
	e := ec2.NewFromConfig(cfg)
	vpc, err := e.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")})
	if err != nil {
		t.Fatalf("CreateVpc: %v", err)
	}
	vpcID := vpc.Vpc.VpcId
	igw, err := e.CreateInternetGateway(ctx, &ec2.CreateInternetGatewayInput{})
	if err != nil {
		t.Fatalf("CreateInternetGateway: %v", err)
	}
	if _, err := e.AttachInternetGateway(ctx, &ec2.AttachInternetGatewayInput{InternetGatewayId: igw.InternetGateway.InternetGatewayId, VpcId: vpcID}); err != nil {
		t.Fatalf("AttachInternetGateway: %v", err)
	}
	zones, err := e.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
	if err != nil || len(zones.AvailabilityZones) < 2 {
		t.Fatalf("DescribeAvailabilityZones = %v, %v", zones, err)
	}
	for i, z := range zones.AvailabilityZones[:2] {
		for _, kind := range []struct {
			cidr string
			into *[]string
		}{{fmt.Sprintf("10.0.%d.0/24", 100+i), &c.private}, {fmt.Sprintf("10.0.%d.0/24", i), &c.public}} {
			s, err := e.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: vpcID, AvailabilityZone: z.ZoneName, CidrBlock: aws.String(kind.cidr)})
			if err != nil {
				t.Fatalf("CreateSubnet: %v", err)
			}
			*kind.into = append(*kind.into, aws.ToString(s.Subnet.SubnetId))
		}
	}
	return c
}

func (c *cloud) reconciler() *Reconciler {
	return &Reconciler{Client: env.Client, Options: Options{AWS: c.cfg, Subnets: map[string][]string{
		SchemeInternal: c.private, SchemeInternetFacing: c.public,
	}}}
}

func (c *cloud) calls(key string) int64 {
	return c.f.Calls(cloudsimtest.ManagementAccount)[key].Total
}

// describe returns the NLB of that name, or nil.
func (c *cloud) describe(t *testing.T, name string) *elbv2types.LoadBalancer {
	t.Helper()
	out, err := c.elb.DescribeLoadBalancers(t.Context(), &elbv2.DescribeLoadBalancersInput{Names: []string{name}})
	if awscloud.IsNotFound(err) {
		return nil
	}
	if err != nil || len(out.LoadBalancers) != 1 {
		t.Fatalf("DescribeLoadBalancers(%s) = %+v, %v", name, out, err)
	}
	return &out.LoadBalancers[0]
}

// count returns how many NLBs exist in the account.
func (c *cloud) count(t *testing.T) int {
	t.Helper()
	out, err := c.elb.DescribeLoadBalancers(t.Context(), &elbv2.DescribeLoadBalancersInput{})
	if err != nil {
		t.Fatal(err)
	}
	return len(out.LoadBalancers)
}

// countIn returns how many NLBs were made for Services of namespace ns
// (the running controller serves every namespace, other tests' too).
func (c *cloud) countIn(t *testing.T, ns string) int {
	t.Helper()
	out, err := c.elb.DescribeLoadBalancers(t.Context(), &elbv2.DescribeLoadBalancersInput{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, lb := range out.LoadBalancers {
		tags, err := c.elb.DescribeTags(t.Context(), &elbv2.DescribeTagsInput{ResourceArns: []string{aws.ToString(lb.LoadBalancerArn)}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range tags.TagDescriptions[0].Tags {
			if aws.ToString(tag.Key) == ServiceNameTagKey && strings.HasPrefix(aws.ToString(tag.Value), ns+"/") {
				n++
			}
		}
	}
	return n
}

func createService(t *testing.T, ns, name string, annotations map[string]string) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: annotations},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeLoadBalancer,
			Ports:    []corev1.ServicePort{{Name: "https", Port: 443}},
			Selector: map[string]string{"app": "private-router"},
		},
	}
	if err := env.Client.Create(t.Context(), svc); err != nil {
		t.Fatalf("creating Service: %v", err)
	}
	return svc
}

// settle calls Reconcile, as the workqueue would after each requested
// delay, until it asks for nothing more, within the deadline.
func settle(t *testing.T, r *Reconciler, svc *corev1.Service) {
	t.Helper()
	var last ctrl.Result
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, deadline, true, func(ctx context.Context) (bool, error) {
		res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)})
		if err != nil {
			return false, err
		}
		last = res
		return res.IsZero(), nil
	})
	if err != nil {
		t.Fatalf("Reconcile did not settle within %v (last %+v): %v", deadline, last, err)
	}
}

func get(t *testing.T, svc *corev1.Service) *corev1.Service {
	t.Helper()
	got := &corev1.Service{}
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(svc), got); err != nil {
		t.Fatal(err)
	}
	return got
}

func attribute(t *testing.T, c *cloud, lb *elbv2types.LoadBalancer, key string) string {
	t.Helper()
	out, err := c.elb.DescribeLoadBalancerAttributes(t.Context(), &elbv2.DescribeLoadBalancerAttributesInput{LoadBalancerArn: lb.LoadBalancerArn})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range out.Attributes {
		if aws.ToString(a.Key) == key {
			return aws.ToString(a.Value)
		}
	}
	return ""
}

func subnetsOf(lb *elbv2types.LoadBalancer) []string {
	var out []string
	for _, az := range lb.AvailabilityZones {
		out = append(out, aws.ToString(az.SubnetId))
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// TestInternalLoadBalancer: an internal, cross-zone Service (the
// private-router's annotations) gets an internal NLB in the private subnets,
// becomes active, and its DNS name lands in status. A restarted controller
// never makes a second NLB.
func TestInternalLoadBalancer(t *testing.T) {
	c := newCloud(t, cloudsim.Options{})
	ns := env.NewNamespace(t)
	svc := createService(t, ns, "private-router", map[string]string{
		"service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
		internalAnnot:                  "true",
		awsSchemeAnnotation:            "internal",
		awsCrossZoneAnnotation:         "true",
		awsAttributesAnnotation:        "load_balancing.cross_zone.enabled=true",
		"hcplink.io/cluster":           "clusters/demo",
		"example.com/unrelated-to-aws": "x",
	})
	r := c.reconciler()

	// The first pass creates the NLB, which is still provisioning.
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)})
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter <= 0 || res.RequeueAfter > maxPoll {
		t.Errorf("first pass RequeueAfter %v, want a short wait for the NLB to become active", res.RequeueAfter)
	}
	if got := get(t, svc); !controllerutil.ContainsFinalizer(got, Finalizer) || len(got.Status.LoadBalancer.Ingress) != 0 {
		t.Errorf("after the first pass: finalizers %v, status %+v; want the finalizer and no address yet", got.Finalizers, got.Status)
	}

	// A restart here (a new controller, nothing in memory) adopts the NLB.
	r = c.reconciler()
	settle(t, r, svc)

	name := LoadBalancerName(ns, "private-router", svc.UID)
	lb := c.describe(t, name)
	if lb == nil {
		t.Fatalf("no NLB %s", name)
	}
	if lb.Scheme != elbv2types.LoadBalancerSchemeEnumInternal || lb.Type != elbv2types.LoadBalancerTypeEnumNetwork {
		t.Errorf("NLB scheme %s type %s, want internal network", lb.Scheme, lb.Type)
	}
	if got, want := subnetsOf(lb), sorted(c.private); !slices.Equal(got, want) {
		t.Errorf("NLB subnets %v, want the private ones %v", got, want)
	}
	if lb.State == nil || lb.State.Code != elbv2types.LoadBalancerStateEnumActive {
		t.Errorf("NLB state %+v, want active", lb.State)
	}
	if v := attribute(t, c, lb, crossZoneAttribute); v != "true" {
		t.Errorf("cross-zone %q, want true", v)
	}
	tags, err := c.elb.DescribeTags(t.Context(), &elbv2.DescribeTagsInput{ResourceArns: []string{aws.ToString(lb.LoadBalancerArn)}})
	if err != nil {
		t.Fatal(err)
	}
	gotTags := map[string]string{}
	for _, tag := range tags.TagDescriptions[0].Tags {
		gotTags[aws.ToString(tag.Key)] = aws.ToString(tag.Value)
	}
	if gotTags[ServiceNameTagKey] != ns+"/private-router" || gotTags[ClusterTagKey] != "devenv" {
		t.Errorf("NLB tags %v", gotTags)
	}

	hostname := get(t, svc).Status.LoadBalancer.Ingress
	if len(hostname) != 1 || hostname[0].Hostname != aws.ToString(lb.DNSName) {
		t.Fatalf("status ingress %+v, want the NLB's DNS name %s", hostname, aws.ToString(lb.DNSName))
	}
	if pattern := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `-[0-9a-f]{16}\.elb\.us-east-1\.amazonaws\.com$`); !pattern.MatchString(hostname[0].Hostname) {
		t.Errorf("hostname %q does not match %s", hostname[0].Hostname, pattern)
	}

	// More passes, by this controller and a restarted one: still one NLB,
	// created once, attributes set once, status untouched.
	rv := get(t, svc).ResourceVersion
	for _, again := range []*Reconciler{r, c.reconciler(), c.reconciler()} {
		settle(t, again, svc)
	}
	if n := c.calls(createCall); n != 1 {
		t.Errorf("%d CreateLoadBalancer calls, want 1", n)
	}
	if n := c.calls(modifyAttrs); n != 1 {
		t.Errorf("%d ModifyLoadBalancerAttributes calls, want 1", n)
	}
	if n := c.count(t); n != 1 {
		t.Errorf("%d NLBs, want 1", n)
	}
	if got := get(t, svc).ResourceVersion; got != rv {
		t.Error("the Service was written although nothing changed")
	}

	// Deleting the Service deletes the NLB, then lets the Service go.
	if err := env.Client.Delete(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	settle(t, r, svc)
	if lb := c.describe(t, name); lb != nil {
		t.Errorf("NLB %s still exists", name)
	}
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(svc), &corev1.Service{}); !apierrors.IsNotFound(err) {
		t.Errorf("Service still exists after its NLB went: %v", err)
	}
}

// TestInternetFacingThenInternalThenClusterIP: a Service without
// annotations gets an internet-facing NLB in the public subnets without
// touching attributes; asking for internal replaces it; turning the Service
// into a ClusterIP removes the NLB, the finalizer and the address.
func TestInternetFacingThenInternalThenClusterIP(t *testing.T) {
	c := newCloud(t, cloudsim.Options{})
	ns := env.NewNamespace(t)
	svc := createService(t, ns, "router", nil)
	r := c.reconciler()
	settle(t, r, svc)

	name := LoadBalancerName(ns, "router", svc.UID)
	lb := c.describe(t, name)
	if lb == nil || lb.Scheme != elbv2types.LoadBalancerSchemeEnumInternetFacing {
		t.Fatalf("NLB %+v, want internet-facing", lb)
	}
	if got, want := subnetsOf(lb), sorted(c.public); !slices.Equal(got, want) {
		t.Errorf("NLB subnets %v, want the public ones %v", got, want)
	}
	if n := c.calls(modifyAttrs); n != 0 {
		t.Errorf("%d ModifyLoadBalancerAttributes calls for a Service that asks for nothing", n)
	}
	first := aws.ToString(lb.LoadBalancerArn)

	got := get(t, svc)
	got.Annotations = map[string]string{internalAnnot: "true"}
	if err := env.Client.Update(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	settle(t, r, svc)
	lb = c.describe(t, name)
	if lb == nil || lb.Scheme != elbv2types.LoadBalancerSchemeEnumInternal || aws.ToString(lb.LoadBalancerArn) == first {
		t.Fatalf("NLB %+v, want a new internal one", lb)
	}
	if n := c.count(t); n != 1 {
		t.Errorf("%d NLBs, want 1 (the old one replaced)", n)
	}
	if ing := get(t, svc).Status.LoadBalancer.Ingress; len(ing) != 1 || ing[0].Hostname != aws.ToString(lb.DNSName) {
		t.Errorf("status %+v, want the new NLB's name", ing)
	}

	got = get(t, svc)
	got.Spec.Type = corev1.ServiceTypeClusterIP
	for i := range got.Spec.Ports {
		got.Spec.Ports[i].NodePort = 0
	}
	if err := env.Client.Update(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	settle(t, r, svc)
	if n := c.count(t); n != 0 {
		t.Errorf("%d NLBs after the Service became ClusterIP, want 0", n)
	}
	if got := get(t, svc); controllerutil.ContainsFinalizer(got, Finalizer) || len(got.Status.LoadBalancer.Ingress) != 0 {
		t.Errorf("finalizers %v status %+v, want neither", got.Finalizers, got.Status)
	}
}

// TestDeleteWaitsForEndpointService: an NLB that carries a VPC endpoint
// service cannot be deleted (ResourceInUse); the Service keeps its
// finalizer and the controller retries until the operator has removed the
// endpoint service.
func TestDeleteWaitsForEndpointService(t *testing.T) {
	c := newCloud(t, cloudsim.Options{})
	ns := env.NewNamespace(t)
	svc := createService(t, ns, "private-router", map[string]string{internalAnnot: "true"})
	r := c.reconciler()
	settle(t, r, svc)
	name := LoadBalancerName(ns, "private-router", svc.UID)
	lb := c.describe(t, name)

	e := ec2.NewFromConfig(c.cfg)
	es, err := e.CreateVpcEndpointServiceConfiguration(t.Context(), &ec2.CreateVpcEndpointServiceConfigurationInput{
		NetworkLoadBalancerArns: []string{aws.ToString(lb.LoadBalancerArn)}, AcceptanceRequired: aws.Bool(false),
	})
	if err != nil {
		t.Fatalf("CreateVpcEndpointServiceConfiguration: %v", err)
	}

	if err := env.Client.Delete(t.Context(), svc); err != nil {
		t.Fatal(err)
	}
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)})
	if err != nil || res.RequeueAfter != inUseRequeue {
		t.Errorf("Reconcile = %+v, %v; want a requeue after %v", res, err, inUseRequeue)
	}
	if got := get(t, svc); !controllerutil.ContainsFinalizer(got, Finalizer) || c.describe(t, name) == nil {
		t.Fatal("the finalizer or the NLB went while the endpoint service still uses it")
	}

	if _, err := e.DeleteVpcEndpointServiceConfigurations(t.Context(), &ec2.DeleteVpcEndpointServiceConfigurationsInput{
		ServiceIds: []string{aws.ToString(es.ServiceConfiguration.ServiceId)},
	}); err != nil {
		t.Fatalf("DeleteVpcEndpointServiceConfigurations: %v", err)
	}
	settle(t, r, svc)
	if c.describe(t, name) != nil {
		t.Error("NLB still exists")
	}
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(svc), &corev1.Service{}); !apierrors.IsNotFound(err) {
		t.Errorf("Service still exists: %v", err)
	}
}

// TestThrottledBacksOff: throttling is a jittered requeue, not an error.
func TestThrottledBacksOff(t *testing.T) {
	c := newCloud(t, cloudsim.Options{})
	c.f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{
		Service: "elasticloadbalancing", Operation: "DescribeLoadBalancers", Code: "Throttling", Message: "Rate exceeded", HTTPStatus: 400, Rate: 1,
	}}})
	svc := createService(t, env.NewNamespace(t), "router", nil)
	r := c.reconciler()
	seen := map[time.Duration]bool{}
	for range 5 {
		res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)})
		if err != nil {
			t.Fatalf("Reconcile returned %v; throttling should be a requeue", err)
		}
		if res.RequeueAfter < throttledRequeue || res.RequeueAfter >= 2*throttledRequeue {
			t.Errorf("RequeueAfter %v, want within [%v, %v)", res.RequeueAfter, throttledRequeue, 2*throttledRequeue)
		}
		seen[res.RequeueAfter] = true
	}
	if len(seen) < 2 {
		t.Errorf("five throttled passes all waited %v: no jitter", seen)
	}
	if n := c.calls(createCall); n != 0 {
		t.Errorf("%d CreateLoadBalancer calls while DescribeLoadBalancers is throttled", n)
	}
}

// TestNoSubnetsForScheme: without subnets for a scheme the Service stays
// pending, without an error loop or a finalizer.
func TestNoSubnetsForScheme(t *testing.T) {
	c := newCloud(t, cloudsim.Options{})
	svc := createService(t, env.NewNamespace(t), "router", nil)
	r := c.reconciler()
	delete(r.Options.Subnets, SchemeInternetFacing)
	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(svc)})
	if err != nil || !res.IsZero() {
		t.Errorf("Reconcile = %+v, %v; want nothing", res, err)
	}
	if got := get(t, svc); len(got.Finalizers) != 0 || c.count(t) != 0 {
		t.Errorf("finalizers %v, %d NLBs; want none", got.Finalizers, c.count(t))
	}
}

// TestRunning runs the controller in a manager (the watch wiring, Events):
// an AWS Service gets its address and goes away with its NLB; an Azure
// Service and a GKE one get an Event and are left alone.
func TestRunning(t *testing.T) {
	c := newCloud(t, cloudsim.Options{})
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Logger:                 testenv.Logger(t),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// go test -count=N starts this manager N times in one process.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{Client: mgr.GetClient(), Options: c.reconciler().Options}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	ns := env.NewNamespace(t)
	awsSvc := createService(t, ns, "private-router", map[string]string{internalAnnot: "true"})
	azure := createService(t, ns, "azure-router", map[string]string{"service.beta.kubernetes.io/azure-load-balancer-internal": "true"})

	testenv.Eventually(t, "the AWS Service gets an address", func(ctx context.Context) error {
		if ing := get(t, awsSvc).Status.LoadBalancer.Ingress; len(ing) != 1 || ing[0].Hostname == "" {
			return fmt.Errorf("ingress %+v", ing)
		}
		return nil
	})
	gcp := createService(t, ns, "gcp-router", map[string]string{GCPLoadBalancerTypeAnnotation: GCPInternal})
	for _, other := range []*corev1.Service{azure, gcp} {
		testenv.Eventually(t, "the "+other.Name+" Service gets an Event", func(ctx context.Context) error {
			var list eventsv1.EventList
			if err := env.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
				return err
			}
			for _, e := range list.Items {
				if e.Regarding.Name == other.Name && e.Reason == reasonNotEmulated && e.Type == corev1.EventTypeNormal {
					return nil
				}
			}
			return fmt.Errorf("no %s Event among %d", reasonNotEmulated, len(list.Items))
		})
		if got := get(t, other); len(got.Finalizers) != 0 || len(got.Status.LoadBalancer.Ingress) != 0 {
			t.Errorf("Service %s touched: finalizers %v status %+v", other.Name, got.Finalizers, got.Status)
		}
	}
	if n := c.countIn(t, ns); n != 1 {
		t.Errorf("%d NLBs, want 1 (none for Azure or GCP)", n)
	}

	if err := env.Client.Delete(t.Context(), awsSvc); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "the AWS Service and its NLB go", func(ctx context.Context) error {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(awsSvc), &corev1.Service{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("Service still there: %v", err)
		}
		if n := c.countIn(t, ns); n != 0 {
			return fmt.Errorf("%d NLBs", n)
		}
		return nil
	})
}
