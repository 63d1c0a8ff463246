package bench

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

// awsFleet is N Private AWS clusters over K customer accounts, cloudsim
// throttling every account at AWS's default rates.
type awsFleet struct {
	customerAccounts int
	throttling       sim.Throttling
	delays           sim.Delays
}

func newAWSFleet(opts Options) *awsFleet {
	delays := sim.FastDelays()
	if opts.Realistic {
		delays = sim.RealisticDelays()
	}
	return &awsFleet{customerAccounts: max(1, opts.CustomerAccounts), throttling: sim.AWSDefaultThrottling(), delays: delays}
}

func (f *awsFleet) name() string  { return "AWS" }
func (f *awsFleet) accounts() int { return f.customerAccounts }
func (f *awsFleet) throttlingSays() string {
	return "cloudsim throttles at AWS's default rates, per account"
}

func (f *awsFleet) devenvOptions(opts Options, progress io.Writer) devenv.Options {
	return devenv.Options{
		Progress:       progress,
		Delays:         &f.delays,
		Faults:         &sim.FaultConfig{Throttling: f.throttling},
		OperatorBinary: opts.OperatorBinary,
		// The production interval while creating: no drift check runs
		// during creation and inflates the create path.
		CustomerAccounts: f.customerAccounts,
	}
}

func (f *awsFleet) prepare(ctx context.Context, env *devenv.Env, n int, progress io.Writer) ([]cluster, error) {
	raiseQuotas(env, n)
	fmt.Fprintf(progress, "\npreparing %d customer roles and private zones in %d customer accounts\n", n, f.customerAccounts)
	return prepare(ctx, env, n, env.Customers[:f.customerAccounts])
}

// operatorStart: the operator's STS calls before the clusters.
func (f *awsFleet) operatorStart(setup Snapshot) Snapshot {
	return Snapshot{devenv.ManagementAccount: pick(setup[devenv.ManagementAccount], "sts:")}
}

func (f *awsFleet) create(ctx context.Context, env *devenv.Env, c cluster) error {
	return create(ctx, env, c)
}

func (f *awsFleet) accounting(*devenv.Env) *accounting { return awsAccounting(f.throttling, f.delays) }

// patient is cfg retrying throttled set-up calls for as long as a
// throttled account needs: the set-up runs under the same token buckets as
// the operators, and is not what the bench measures.
func patient(cfg aws.Config) aws.Config {
	cfg = cfg.Copy()
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 20
			o.RateLimiter = ratelimit.None
		})
	}
	return cfg
}

// prepare gives cluster i to customer account i mod len(customers).
func prepare(ctx context.Context, env *devenv.Env, n int, customers []devenv.Customer) ([]cluster, error) {
	out := make([]cluster, n)
	for i := range out {
		customer := customers[i%len(customers)]
		c := cluster{namespace: fmt.Sprintf("bench-%03d", i), name: "hc", infraID: fmt.Sprintf("bench-%03d", i), customer: customer.Network}
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}); err != nil {
			return nil, err
		}
		fixture, err := env.PrepareAWSClusterIn(ctx, customer.Network, patient(customer.AWS), c.namespace, c.name+"-"+strconv.Itoa(i), c.infraID)
		if err != nil {
			return nil, err
		}
		c.name = c.name + "-" + strconv.Itoa(i)
		c.role = fixture.ControlPlaneOperatorRoleARN
		out[i] = c
	}
	return out, nil
}

func create(ctx context.Context, env *devenv.Env, c cluster) error {
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    c.infraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "bench.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: c.customer.CIDR}}},
			Services:   devenv.APIServerByRoute("api." + c.name + ".bench.example.com"),
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region:              devenv.Region,
				EndpointAccess:      hcplinkv1beta1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: c.customer.VPCID},
				RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: c.role},
			}},
		},
	}
	if err := env.Client.Create(ctx, hc); err != nil {
		return fmt.Errorf("creating %s/%s: %w", c.namespace, c.name, err)
	}
	for i, zone := range c.customer.Zones[:2] {
		np := &hcplinkv1beta1.NodePool{
			ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: fmt.Sprintf("%s-%d", c.name, i)},
			Spec: hcplinkv1beta1.NodePoolSpec{ClusterName: c.name, Platform: hcplinkv1beta1.NodePoolPlatform{
				Type: hcplinkv1beta1.AWSPlatform,
				AWS:  &hcplinkv1beta1.AWSNodePoolPlatform{Subnet: &hcplinkv1beta1.AWSSubnetReference{ID: c.customer.SubnetByAZ[zone]}},
			}},
		}
		if err := env.Client.Create(ctx, np); err != nil {
			return err
		}
	}
	return nil
}

// pick keeps the operations whose names start with prefix.
func pick(ops map[string]sim.CallCount, prefix string) map[string]sim.CallCount {
	out := map[string]sim.CallCount{}
	for op, c := range ops {
		if strings.HasPrefix(op, prefix) {
			out[op] = c
		}
	}
	return out
}

// raiseQuotas lifts the per-region quotas that a benchmark of many clusters
// sharing one customer VPC would hit, as a Service Quotas increase would.
func raiseQuotas(env *devenv.Env, clusters int) {
	env.Cloud.AWS.Inspect(func(accounts map[string]*cloudaws.Account) {
		for _, account := range accounts {
			for _, region := range account.Regions {
				raise(region, clusters)
			}
		}
	})
}

// raise lifts one region's quotas to fit the benchmark: every cluster has an
// NLB in the management region and an interface endpoint and a security
// group in the shared customer VPC.
func raise(region *cloudaws.Region, clusters int) {
	room := 2*clusters + 10
	region.ELB.Quotas.NetworkLoadBalancers = max(region.ELB.Quotas.NetworkLoadBalancers, room)
	region.PrivateLink.Quotas.InterfaceEndpointsPerVPC = max(region.PrivateLink.Quotas.InterfaceEndpointsPerVPC, room)
	region.EC2.Quotas.SecurityGroupsPerVPC = max(region.EC2.Quotas.SecurityGroupsPerVPC, room+2500)
}
