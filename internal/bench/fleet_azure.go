package bench

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

// azureFleet is N Private Azure clusters in the guest subscription, each
// control-plane operator with its own workload identity, cloudsim
// throttling with ARM's token buckets.
type azureFleet struct {
	limits sim.ServiceLimits
	delays azure.Delays
}

func newAzureFleet(opts Options) (*azureFleet, error) {
	if opts.CustomerAccounts > 1 {
		return nil, fmt.Errorf("--customer-accounts is for AWS; the Azure devenv has one guest subscription")
	}
	delays := azure.FastDelays()
	if opts.Realistic {
		delays = azure.RealisticDelays()
	}
	return &azureFleet{limits: azure.DefaultThrottling(), delays: delays}, nil
}

func (f *azureFleet) name() string  { return "Azure" }
func (f *azureFleet) accounts() int { return 1 }
func (f *azureFleet) throttlingSays() string {
	return "cloudsim throttles with ARM's token buckets: per subscription, principal and kind, and each subscription's global ones"
}

// devenvOptions: the management operator runs as its own process (unless
// --in-process-operator), so that its memory is its own.
func (f *azureFleet) devenvOptions(opts Options, progress io.Writer) devenv.Options {
	return devenv.Options{
		Progress:       progress,
		OperatorBinary: opts.OperatorBinary,
		Platform:       devenv.PlatformAzure,
		AzureDelays:    f.delays,
		// Enough internal load balancers for the clusters' Private Link
		// Services, as a management cluster with more than 8 needs.
		AzureLoadBalancerConfigurations: devenv.AzureLoadBalancerConfigurationsFor(opts.AzureLoadBalancerConfigurations, opts.Clusters),
		Faults:                          &sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{azure.ThrottlingService: f.limits}}},
	}
}

func (f *azureFleet) prepare(ctx context.Context, env *devenv.Env, n int, progress io.Writer) ([]cluster, error) {
	fmt.Fprintf(progress, "\npreparing %d control-plane operator identities (create iam azure: managed identity, federated credential, custom role and assignment) in the guest subscription\n", n)
	cidr, err := env.AzureGuestAddressSpace(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]cluster, n)
	for i := range out {
		c := cluster{namespace: fmt.Sprintf("bench-%03d", i), name: fmt.Sprintf("hc-%d", i), infraID: fmt.Sprintf("bench-%03d", i), cidr: cidr}
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}); err != nil {
			return nil, err
		}
		fixture, err := env.PrepareAzureCluster(ctx, c.namespace, c.name, c.infraID)
		if err != nil {
			return nil, err
		}
		c.azure = fixture
		out[i] = c
	}
	return out, nil
}

// operatorStart: the operator's start-up costs no ARM call (its
// credentials check asks Entra ID for a token).
func (f *azureFleet) operatorStart(Snapshot) Snapshot { return Snapshot{} }

func (f *azureFleet) create(ctx context.Context, env *devenv.Env, c cluster) error {
	fx := c.azure
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID:    c.infraID,
			DNS:        hcplinkv1beta1.DNSSpec{BaseDomain: "bench.example.com"},
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: c.cidr}}},
			Services:   devenv.APIServerByRoute("api." + c.name + ".bench.example.com"),
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzurePlatformSpec{
				SubscriptionID: fx.SubscriptionID, ResourceGroupName: fx.ResourceGroup, Location: fx.Location,
				VnetID: fx.VNetID, SubnetID: fx.SubnetID, Topology: hcplinkv1beta1.AzureTopologyPrivate,
				Private:  &hcplinkv1beta1.AzurePrivateSpec{Type: hcplinkv1beta1.AzurePrivateTypePrivateLink},
				TenantID: fx.TenantID, AzureAuthenticationConfig: hcplinkv1beta1.WorkloadIdentitiesConfig(fx.ControlPlaneOperatorClientID),
			}},
		},
	}
	if err := env.Client.Create(ctx, hc); err != nil {
		return fmt.Errorf("creating %s/%s: %w", c.namespace, c.name, err)
	}
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name + "-0"},
		Spec: hcplinkv1beta1.NodePoolSpec{ClusterName: c.name, Platform: hcplinkv1beta1.NodePoolPlatform{
			Type: hcplinkv1beta1.AzurePlatform, Azure: &hcplinkv1beta1.AzureNodePoolPlatform{SubnetID: fx.SubnetID},
		}},
	}
	return env.Client.Create(ctx, np)
}

func (f *azureFleet) accounting(env *devenv.Env) *accounting {
	return azureAccounting(f.limits, f.delays, env.AzureManagement.SubscriptionID)
}
