package aws

import (
	"context"
	"strings"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/hcplink/hcplink/internal/cloud"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// providerWorld is cloudsim with one active NLB in the management account.
type providerWorld struct {
	f     *cloudsimtest.Fixture
	p     *EndpointServiceProvider
	ec2   *ec2.Client
	lbARN string
}

func newProviderWorld(t *testing.T) *providerWorld {
	t.Helper()
	delays := sim.Delays{LoadBalancerProvisioning: sim.Duration(time.Millisecond), EndpointServicePending: sim.Duration(time.Millisecond)}
	f := cloudsimtest.Start(t, cloudsim.Options{Delays: &delays})
	cfg := f.Config(t, cloudsimtest.ManagementAccount)
	ec2c, elbc := ec2.NewFromConfig(cfg), elbv2.NewFromConfig(cfg)
	ctx := t.Context()
	vpc, err := ec2c.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: awssdk.String("10.0.0.0/16")})
	if err != nil {
		t.Fatal(err)
	}
	zones, err := ec2c.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := ec2c.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: vpc.Vpc.VpcId, CidrBlock: awssdk.String("10.0.0.0/24"), AvailabilityZone: zones.AvailabilityZones[0].ZoneName})
	if err != nil {
		t.Fatal(err)
	}
	lb, err := elbc.CreateLoadBalancer(ctx, &elbv2.CreateLoadBalancerInput{Name: awssdk.String("k8s-provider-private"),
		Type: elbv2types.LoadBalancerTypeEnumNetwork, Scheme: elbv2types.LoadBalancerSchemeEnumInternal, Subnets: []string{awssdk.ToString(sub.Subnet.SubnetId)}})
	if err != nil {
		t.Fatal(err)
	}
	return &providerWorld{f: f, p: NewEndpointServiceProvider(ec2c, elbc), ec2: ec2c, lbARN: awssdk.ToString(lb.LoadBalancers[0].LoadBalancerArn)}
}

func TestEndpointServiceProviderLifecycle(t *testing.T) {
	w := newProviderWorld(t)
	ctx := t.Context()
	tags := map[string]string{"kubernetes.io/cluster/infra-1": "owned", "hcplink.io/endpoint-service": "private-router"}

	svc, err := w.p.CreateService(ctx, w.lbARN, "token-1", tags)
	if err != nil {
		t.Fatalf("CreateService: %v", err)
	}
	again, err := w.p.CreateService(ctx, w.lbARN, "token-1", tags)
	if err != nil || awssdk.ToString(again.ServiceId) != awssdk.ToString(svc.ServiceId) {
		t.Fatalf("repeated create with the same token = %v, %v; want the same service", again, err)
	}
	_, err = w.p.CreateService(ctx, w.lbARN, "token-2", tags)
	if !IsLoadBalancerInUse(err) {
		t.Fatalf("create on a load balancer that backs a service: %v, want InvalidParameter", err)
	}
	if _, ok := cloud.AsError(err); !ok {
		t.Errorf("create error %T is not a classified cloud error", err)
	}

	name, id := awssdk.ToString(svc.ServiceName), awssdk.ToString(svc.ServiceId)
	got, err := w.p.ServiceByName(ctx, name)
	if err != nil || got == nil || !ServiceOnLoadBalancer(got, w.lbARN) || ServiceOnLoadBalancer(got, "arn:other") {
		t.Fatalf("ServiceByName = %+v, %v", got, err)
	}
	owned, err := w.p.ServicesByOwner(ctx, "infra-1", "private-router")
	if err != nil || len(owned) != 1 {
		t.Fatalf("ServicesByOwner = %d services, %v; want 1", len(owned), err)
	}
	if owned, _ := w.p.ServicesByOwner(ctx, "infra-2", "private-router"); len(owned) != 0 {
		t.Errorf("ServicesByOwner of another cluster = %d services, want 0", len(owned))
	}

	if err := w.p.SetPrincipals(ctx, id, []string{"arn:aws:iam::222222222222:role/a", "arn:aws:iam::222222222222:role/b"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.p.SetPrincipals(ctx, id, nil, []string{"arn:aws:iam::222222222222:role/b"}); err != nil {
		t.Fatal(err)
	}
	if p, err := w.p.AllowedPrincipals(ctx, id); err != nil || len(p) != 1 || p[0] != "arn:aws:iam::222222222222:role/a" {
		t.Errorf("AllowedPrincipals = %v, %v", p, err)
	}
	calls := w.f.Calls(cloudsimtest.ManagementAccount)["ec2:ModifyVpcEndpointServicePermissions"].Total
	if err := w.p.SetPrincipals(ctx, id, nil, nil); err != nil || w.f.Calls(cloudsimtest.ManagementAccount)["ec2:ModifyVpcEndpointServicePermissions"].Total != calls {
		t.Errorf("SetPrincipals with nothing to do called AWS (%v)", err)
	}

	if err := w.p.SetTags(ctx, id, map[string]string{"team": "a"}, []string{"hcplink.io/endpoint-service"}); err != nil {
		t.Fatal(err)
	}
	got, _ = w.p.ServiceByName(ctx, name)
	if m := TagMap(got.Tags); m["team"] != "a" || m["hcplink.io/endpoint-service"] != "" {
		t.Errorf("tags = %v", m)
	}

	gone, conns, err := w.p.DeleteService(ctx, id)
	if err != nil || !gone || conns != 0 {
		t.Fatalf("DeleteService = %v, %d, %v", gone, conns, err)
	}
	if got, err := w.p.ServiceByName(ctx, name); err != nil || got != nil {
		t.Errorf("ServiceByName after delete = %v, %v; want nil", got, err)
	}
	if gone, _, err := w.p.DeleteService(ctx, id); err != nil || !gone {
		t.Errorf("deleting a service already gone = %v, %v; want gone", gone, err)
	}
}

func TestEndpointServiceProviderLoadBalancers(t *testing.T) {
	w := newProviderWorld(t)
	ctx := t.Context()
	lb, err := w.p.LoadBalancerByName(ctx, "k8s-provider-private")
	if err != nil || lb == nil || awssdk.ToString(lb.LoadBalancerArn) != w.lbARN {
		t.Fatalf("LoadBalancerByName = %+v, %v", lb, err)
	}
	if lb, err := w.p.LoadBalancerByName(ctx, "k8s-missing-private"); err != nil || lb != nil {
		t.Errorf("a missing load balancer = %+v, %v; want nil, nil", lb, err)
	}
	all, err := w.p.LoadBalancers(ctx)
	if err != nil || len(all) != 1 {
		t.Errorf("LoadBalancers = %d, %v", len(all), err)
	}
}

func TestEndpointServiceProviderErrorsAreClassified(t *testing.T) {
	w := newProviderWorld(t)
	w.f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "ec2", Operation: "DescribeVpcEndpointServiceConfigurations",
		Code: CodeRequestLimitExceeded, Message: "Request limit exceeded. RequestID: 0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e", HTTPStatus: 503, Rate: 1}}})
	_, err := w.p.Services(context.Background())
	ce, ok := cloud.AsError(err)
	if !ok || ce.Class != cloud.ClassThrottled {
		t.Fatalf("Services error = %v, want a throttled cloud error", err)
	}
	if strings.Contains(ce.Message, "0b1c2d3e") || !strings.Contains(ce.Error(), "listing endpoint services") {
		t.Errorf("message %q (error %q): must be sanitised and say what was done", ce.Message, ce.Error())
	}
}

func TestDeleteServiceRejectsConnections(t *testing.T) {
	w := newProviderWorld(t)
	ctx := t.Context()
	svc, err := w.p.CreateService(ctx, w.lbARN, "token-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	id := awssdk.ToString(svc.ServiceId)
	if err := w.p.SetPrincipals(ctx, id, []string{"arn:aws:iam::" + cloudsimtest.CustomerAccount + ":root"}, nil); err != nil {
		t.Fatal(err)
	}
	cust := ec2.NewFromConfig(w.f.Config(t, cloudsimtest.CustomerAccount))
	vpc, err := cust.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: awssdk.String("10.1.0.0/16")})
	if err != nil {
		t.Fatal(err)
	}
	zones, err := cust.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
	if err != nil {
		t.Fatal(err)
	}
	var subnets []string
	for i, z := range zones.AvailabilityZones {
		s, err := cust.CreateSubnet(ctx, &ec2.CreateSubnetInput{VpcId: vpc.Vpc.VpcId, CidrBlock: awssdk.String("10.1." + string(rune('0'+i)) + ".0/24"), AvailabilityZone: z.ZoneName})
		if err != nil {
			t.Fatal(err)
		}
		subnets = append(subnets, awssdk.ToString(s.Subnet.SubnetId))
	}
	// Wait (bounded) for the service to be Available before connecting.
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := w.p.ServiceByName(ctx, awssdk.ToString(svc.ServiceName))
		if err == nil && got != nil && string(got.ServiceState) == ServiceStateAvailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("service not Available: %+v, %v", got, err)
		}
	}
	var created bool
	for _, s := range subnets {
		if _, err := cust.CreateVpcEndpoint(ctx, &ec2.CreateVpcEndpointInput{VpcEndpointType: ec2types.VpcEndpointTypeInterface,
			VpcId: vpc.Vpc.VpcId, ServiceName: svc.ServiceName, SubnetIds: []string{s}}); err == nil {
			created = true
			break
		}
	}
	if !created {
		t.Fatal("no customer endpoint could connect to the service")
	}
	gone, _, err := w.p.DeleteService(ctx, id)
	if err != nil || !gone {
		t.Fatalf("DeleteService with a connected endpoint = %v, %v; want the connection rejected and the service gone", gone, err)
	}
	if n := w.f.Calls(cloudsimtest.ManagementAccount)["ec2:RejectVpcEndpointConnections"].Total; n != 1 {
		t.Errorf("RejectVpcEndpointConnections calls = %d, want 1", n)
	}
}
