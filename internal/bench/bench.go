// Package bench measures hcplink at scale on devenv: N private AWS clusters
// created at once against a cloud that throttles like AWS, then a quiet
// period. It reports how long the clusters take to become available, how
// many cloud calls each costs on the way, how many calls a cluster costs per
// hour when nothing changes (and that none of them mutate), and the
// management operator's peak memory.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	cloudaws "github.com/hcplink/hcplink/internal/cloudsim/aws"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

// Options configure a run.
type Options struct {
	Out      io.Writer
	Clusters int
	// Window is how long the quiet period is observed.
	Window time.Duration
	// DriftInterval is the operators' drift-check interval during the run;
	// short, so that the window sees many checks. Steady-state figures are
	// scaled to DefaultDriftInterval.
	DriftInterval time.Duration
	// OperatorBinary runs the management operator as its own process, so
	// that its memory is its own.
	OperatorBinary string
	// Timeout bounds the wait for all clusters to become available.
	Timeout time.Duration
}

// DefaultDriftInterval is the operators' drift-check interval in production.
const DefaultDriftInterval = 10 * time.Minute

// Run performs the benchmark and prints its table.
func Run(ctx context.Context, opts Options) (err error) {
	out := opts.Out
	throttling := sim.AWSDefaultThrottling()
	env, err := devenv.Start(ctx, devenv.Options{
		Progress:       out,
		Faults:         &sim.FaultConfig{Throttling: throttling},
		OperatorBinary: opts.OperatorBinary,
		DriftInterval:  opts.DriftInterval,
	})
	if err != nil {
		return err
	}
	defer func() {
		if stopErr := env.Stop(); stopErr != nil && err == nil {
			err = stopErr
		}
	}()
	raiseQuotas(env, opts.Clusters)

	fmt.Fprintf(out, "\npreparing %d customer roles and private zones\n", opts.Clusters)
	clusters, err := prepare(ctx, env, opts.Clusters)
	if err != nil {
		return err
	}
	env.Cloud.Counters.Reset()

	fmt.Fprintf(out, "creating %d Private clusters at once (cloudsim throttles at AWS's default rates)\n", opts.Clusters)
	start := time.Now()
	for _, c := range clusters {
		if err := create(ctx, env, c); err != nil {
			return err
		}
	}
	waitCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	available, err := waitAvailable(waitCtx, env, clusters, out)
	elapsed := time.Since(start)
	if err != nil {
		return fmt.Errorf("%d of %d clusters available after %v: %w", available, len(clusters), elapsed.Round(time.Second), err)
	}
	createCalls := env.Cloud.Counters.Snapshot()

	fmt.Fprintf(out, "observing %v of quiet with a %v drift interval\n", opts.Window, opts.DriftInterval)
	env.Cloud.Counters.Reset()
	select {
	case <-time.After(opts.Window):
	case <-ctx.Done():
		return ctx.Err()
	}
	quietCalls := env.Cloud.Counters.Snapshot()

	report{
		clusters: opts.Clusters, elapsed: elapsed, window: opts.Window, drift: opts.DriftInterval,
		create: createCalls, quiet: quietCalls, peakRSS: peakRSS(env.OperatorPID),
	}.print(out)
	return nil
}

type cluster struct {
	namespace, name, infraID, role string
}

func prepare(ctx context.Context, env *devenv.Env, n int) ([]cluster, error) {
	out := make([]cluster, n)
	for i := range out {
		c := cluster{namespace: fmt.Sprintf("bench-%03d", i), name: "hc", infraID: fmt.Sprintf("bench-%03d", i)}
		if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}); err != nil {
			return nil, err
		}
		fixture, err := env.PrepareAWSCluster(ctx, c.namespace, c.name+"-"+strconv.Itoa(i), c.infraID)
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
			Networking: hcplinkv1beta1.ClusterNetworking{MachineNetwork: []hcplinkv1beta1.MachineNetworkEntry{{CIDR: env.Customer.CIDR}}},
			Services: []hcplinkv1beta1.ServicePublishingStrategyMapping{{
				Service: hcplinkv1beta1.APIServer,
				ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{
					Type: hcplinkv1beta1.RoutePublishing, Route: &hcplinkv1beta1.RoutePublishingStrategy{Hostname: "api." + c.name + ".bench.example.com"},
				},
			}},
			Platform: hcplinkv1beta1.PlatformSpec{Type: hcplinkv1beta1.AWSPlatform, AWS: &hcplinkv1beta1.AWSPlatformSpec{
				Region:              devenv.Region,
				EndpointAccess:      hcplinkv1beta1.AWSEndpointAccessPrivate,
				CloudProviderConfig: &hcplinkv1beta1.AWSCloudProviderConfig{VPC: env.Customer.VPCID},
				RolesRef:            &hcplinkv1beta1.AWSRolesRef{ControlPlaneOperatorARN: c.role},
			}},
		},
	}
	if err := env.Client.Create(ctx, hc); err != nil {
		return fmt.Errorf("creating %s/%s: %w", c.namespace, c.name, err)
	}
	for i, zone := range env.Customer.Zones[:2] {
		np := &hcplinkv1beta1.NodePool{
			ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: fmt.Sprintf("%s-%d", c.name, i)},
			Spec: hcplinkv1beta1.NodePoolSpec{ClusterName: c.name, Platform: hcplinkv1beta1.NodePoolPlatform{
				Type: hcplinkv1beta1.AWSPlatform,
				AWS:  &hcplinkv1beta1.AWSNodePoolPlatform{Subnet: &hcplinkv1beta1.AWSSubnetReference{ID: env.Customer.SubnetByAZ[zone]}},
			}},
		}
		if err := env.Client.Create(ctx, np); err != nil {
			return err
		}
	}
	return nil
}

// waitAvailable polls until every cluster reports Available, printing the
// count as it grows.
func waitAvailable(ctx context.Context, env *devenv.Env, clusters []cluster, out io.Writer) (int, error) {
	last := -1
	for {
		ready := 0
		for _, c := range clusters {
			var hc hcplinkv1beta1.HostedCluster
			if err := env.Client.Get(ctx, types.NamespacedName{Namespace: c.namespace, Name: c.name}, &hc); err != nil {
				return ready, err
			}
			if meta.IsStatusConditionTrue(hc.Status.Conditions, hcplinkv1beta1.AvailableCondition) {
				ready++
			}
		}
		if ready != last {
			fmt.Fprintf(out, "  %d/%d available\n", ready, len(clusters))
			last = ready
		}
		if ready == len(clusters) {
			return ready, nil
		}
		select {
		case <-ctx.Done():
			return ready, ctx.Err()
		case <-time.After(time.Second):
		}
	}
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

// peakRSS reads the process's high-water resident memory (VmHWM), in bytes.
func peakRSS(pid int) int64 {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	return parseVmHWM(string(b))
}

// parseVmHWM finds "VmHWM: <n> kB" in a /proc/<pid>/status text and
// returns it in bytes (0 when absent).
func parseVmHWM(status string) int64 {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// perClusterHour scales calls seen over window, with the operators checking
// for drift every drift, to calls per cluster per hour at the production
// drift interval.
func perClusterHour(calls int64, clusters int, window, drift time.Duration) float64 {
	scale := (time.Hour.Seconds() / window.Seconds()) * (drift.Seconds() / DefaultDriftInterval.Seconds())
	return float64(calls) / float64(clusters) * scale
}

type report struct {
	clusters      int
	elapsed       time.Duration
	window, drift time.Duration
	create, quiet map[string]map[string]sim.CallCount
	peakRSS       int64
}

func (r report) print(out io.Writer) {
	n := float64(r.clusters)
	fmt.Fprintf(out, "\n%-54s %12s\n", "measure", "value")
	fmt.Fprintln(out, strings.Repeat("-", 67))
	fmt.Fprintf(out, "%-54s %12d\n", "clusters", r.clusters)
	fmt.Fprintf(out, "%-54s %11.1fs\n", "time until all are Available", r.elapsed.Seconds())

	fmt.Fprintf(out, "\ncreate path: calls per cluster, by operation (both accounts)\n")
	create := byOperation(r.create)
	for _, op := range sortedKeys(create) {
		c := create[op]
		line := fmt.Sprintf("  %-52s %12.2f", op, float64(c.Total)/n)
		if c.Throttled > 0 {
			line += fmt.Sprintf("  (%.2f throttled)", float64(c.Throttled)/n)
		}
		fmt.Fprintln(out, line)
	}
	totals := sim.Totals(r.create)
	fmt.Fprintf(out, "  %-52s %12.2f\n", "all operations", float64(totals.Total)/n)

	quiet := sim.Totals(r.quiet)
	fmt.Fprintf(out, "\nsteady state (observed %v, drift every %v, scaled to %v)\n", r.window, r.drift, DefaultDriftInterval)
	fmt.Fprintf(out, "  %-52s %12.2f\n", "calls per cluster-hour", perClusterHour(quiet.Total, r.clusters, r.window, r.drift))
	fmt.Fprintf(out, "  %-52s %12d\n", "mutating calls in the window (must be 0)", quiet.Mutating)
	quietByOp := byOperation(r.quiet)
	for _, op := range sortedKeys(quietByOp) {
		fmt.Fprintf(out, "    %-50s %12.2f per cluster-hour\n", op, perClusterHour(quietByOp[op].Total, r.clusters, r.window, r.drift))
	}
	if r.peakRSS > 0 {
		fmt.Fprintf(out, "\n%-54s %9.1f MiB\n", "management operator peak memory (VmHWM)", float64(r.peakRSS)/(1<<20))
	}
}

// byOperation folds per-account counts into per-operation counts.
func byOperation(snap map[string]map[string]sim.CallCount) map[string]sim.CallCount {
	out := map[string]sim.CallCount{}
	for _, ops := range snap {
		for op, c := range ops {
			sum := out[op]
			sum.Total += c.Total
			sum.Mutating += c.Mutating
			sum.Throttled += c.Throttled
			sum.Failed += c.Failed
			out[op] = sum
		}
	}
	return out
}

func sortedKeys(m map[string]sim.CallCount) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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
