package soak

import (
	"context"
	"math/rand"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

// platform is what differs between the clouds in a soak.
type platform interface {
	name() string
	devenvOptions(opts Options) devenv.Options
	// capacity is how many clusters the cloud can hold at once in devenv,
	// and why (0: no limit).
	capacity() (int, string)
	prepare(ctx context.Context, env *devenv.Env, n int) ([]*cluster, error)
	// principals are hcplink's callers, for the ledger.
	principals(env *devenv.Env, clusters []*cluster) []string
	hostedCluster(c *cluster) *hcplinkv1beta1.HostedCluster
	// nodePoolPlatform puts a NodePool on the cluster's subnet number i.
	nodePoolPlatform(c *cluster, i int) hcplinkv1beta1.NodePoolPlatform
	subnets(c *cluster) int
	toggleAccess(hc *hcplinkv1beta1.HostedCluster)
	// allowOther adds another principal or subscription, or removes it.
	allowOther(hc *hcplinkv1beta1.HostedCluster, on bool)
	// drift changes one of the cluster's cloud resources behind hcplink's
	// back, through the cloud's API as a customer would, and says what.
	drift(ctx context.Context, env *devenv.Env, c *cluster, rng *rand.Rand) (string, error)
	// revoke takes the cluster's cloud credentials away through the
	// cloud's IAM API; restore gives them back.
	revoke(ctx context.Context, env *devenv.Env, c *cluster) (restore func(context.Context) error, err error)
	// throttling is the cloud's own throttling, on all the time.
	throttling() sim.Throttling
}

// cluster is one soaked cluster and what its cloud prepared for it.
type cluster struct {
	index                    int
	namespace, name, infraID string
	// AWS
	role        string
	zoneID      string
	customer    devenv.CustomerNetwork
	customerAWS aws.Config
	// Azure
	azure devenv.AzureClusterFixture
	cidr  string
	// GCP
	gcp devenv.GCPClusterFixture
}

func (c *cluster) hcpNamespace() string {
	return hcplinkv1beta1.HostedControlPlaneNamespace(c.namespace, c.name)
}

// chaos is the weather of the faulty period: the rates (extra
// throttling 10 %, server errors 2 %, spikes of several seconds on 1 % of
// calls), some resets and lost replies, and reads a few seconds behind.
func chaos(intense bool) *sim.Chaos {
	if intense {
		c := chaos(false)
		c.SpikeRate, c.ResetRate, c.LostReplyRate = intenseTransportRate, intenseTransportRate, intenseTransportRate
		return c
	}
	return &sim.Chaos{
		ThrottleRate:    0.10,
		ServerErrorRate: 0.02,
		SpikeRate:       0.01,
		Spike:           sim.Duration(3 * time.Second),
		ResetRate:       0.005,
		LostReplyRate:   0.005,
		Consistency:     sim.Consistency{CreateLag: sim.Duration(3 * time.Second), DeleteLag: sim.Duration(3 * time.Second)},
	}
}

// intenseTransportRate: the share of calls each transport fault hits in an
// intense soak: a short soak's few hundred calls per cloud see each several
// times.
const intenseTransportRate = 0.02

// operatorReplicas: the management operator runs as two replicas with
// leader election on, so that a killed leader is a handover.
const operatorReplicas = 2

// driftInterval is the operators' drift check during the soak: short, so
// that drift made in the faulty period is repaired while it settles.
const driftInterval = 30 * time.Second
