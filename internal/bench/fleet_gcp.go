package bench

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

// gcpFleet is N Private GCP clusters in the customer project, each
// control-plane operator signed in by workload identity federation as its
// own service account, cloudsim counting Compute Engine's per-project
// per-minute rate quotas.
type gcpFleet struct {
	quotas map[string]sim.ServiceLimits
	delays gcp.Delays
}

func newGCPFleet(opts Options) (*gcpFleet, error) {
	if opts.CustomerAccounts > 1 {
		return nil, fmt.Errorf("--customer-accounts is for AWS; the GCP devenv has one customer project")
	}
	delays := gcp.FastDelays()
	if opts.Realistic {
		delays = gcp.RealisticDelays()
	}
	return &gcpFleet{quotas: gcp.DefaultQuotas(), delays: delays}, nil
}

func (f *gcpFleet) name() string  { return "GCP" }
func (f *gcpFleet) accounts() int { return 1 }
func (f *gcpFleet) throttlingSays() string {
	return "cloudsim counts Compute Engine's rate quotas: reads and writes per project, per minute"
}

// devenvOptions: the management operator runs as its own process (unless
// --in-process-operator), so that its memory is its own; the management
// network has a PSC NAT subnetwork per cluster, as Google allows one
// service attachment on each.
func (f *gcpFleet) devenvOptions(opts Options, progress io.Writer) devenv.Options {
	return devenv.Options{
		Progress:       progress,
		OperatorBinary: opts.OperatorBinary,
		Platform:       devenv.PlatformGCP,
		GCPNATSubnets:  opts.Clusters,
		Faults:         &sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: f.quotas}},
	}
}

func (f *gcpFleet) prepare(ctx context.Context, env *devenv.Env, n int, progress io.Writer) ([]cluster, error) {
	// devenv seeds with the fast delays; the clusters meet the chosen ones.
	env.Cloud.GCP.SetDelays(f.delays)
	fmt.Fprintf(progress, "\npreparing %d control-plane operator identities (a service account with its custom role, impersonable through the customer's workload identity pool provider) in the customer project\n", n)
	out := make([]cluster, n)
	for i := range out {
		c := cluster{namespace: fmt.Sprintf("bench-%03d", i), name: fmt.Sprintf("hc-%d", i), infraID: fmt.Sprintf("bench-%03d", i)}
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}); err != nil {
			return nil, err
		}
		fixture, err := env.PrepareGCPCluster(ctx, c.namespace, c.name, c.infraID)
		if err != nil {
			return nil, err
		}
		c.gcp = fixture
		out[i] = c
	}
	return out, nil
}

// operatorStart: the operator's start-up token is modelled with the
// others (gcpSteadyState), so no start-up call is kept.
func (f *gcpFleet) operatorStart(Snapshot) Snapshot { return Snapshot{} }

func (f *gcpFleet) create(ctx context.Context, env *devenv.Env, c cluster) error {
	fx := c.gcp
	hc := &hcplinkv1beta1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name},
		Spec: hcplinkv1beta1.HostedClusterSpec{
			InfraID: c.infraID,
			DNS:     hcplinkv1beta1.DNSSpec{BaseDomain: "bench.example.com"},
			// The customer network's workers' subnetworks (devenv's).
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: "10.10.0.0/16"}}},
			Services:   devenv.APIServerByRoute("api." + c.name + ".bench.example.com"),
			Platform:   fx.Platform(hcplinkv1beta1.GCPEndpointAccessPrivate),
		},
	}
	if err := env.Client.Create(ctx, hc); err != nil {
		return fmt.Errorf("creating %s/%s: %w", c.namespace, c.name, err)
	}
	return nil
}

func (f *gcpFleet) accounting(env *devenv.Env) *accounting {
	return gcpAccounting(f.quotas, f.delays, env.GCPManagement.Project)
}
