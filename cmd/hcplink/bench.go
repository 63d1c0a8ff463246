package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/hcplink/hcplink/internal/bench"
)

func newBenchCommand() *cobra.Command {
	opts := bench.Options{}
	var inProcess bool
	var output *outputFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Create many private AWS, Azure or GCP clusters at once on devenv and measure time, cloud calls and memory",
		Long: `bench starts devenv with cloudsim throttling as the cloud does — AWS's default
rates per account, or with --platform azure ARM's token buckets (per
subscription, principal and kind, and each subscription's global ones), or
with --platform gcp Compute Engine's rate quotas (reads and writes per
project, per minute) —
creates --clusters Private hosted clusters at once (on AWS spread over
--customer-accounts customer accounts), and prints: the time until all are
Available next to a lower bound (the binding token bucket's calls beyond its
burst ÷ its refill rate, plus the modelled provisioning chain) and their
ratio; cloud calls per cluster on the create path, by operation, before and
after leaving out the load-balancer stand-in's calls; calls per cluster-hour
at steady state, each periodic job at its production period (drift observed
over --window with a short drift interval); mutating calls in the quiet
window (must be 0); calls per cluster per drift pass, both operators
together; and the management operator's memory per cluster (it runs as its
own process with --debug-live-heap: its live heap after a forced collection,
with every cluster after the quiet window and after half of them are
deleted, two freshly restarted operator processes per count, three samples
each; the least-squares slope and the samples' spread). --output json prints one JSON
object, with the same keys on every cloud.`,
		Example: `  hcplink bench --clusters 50
  hcplink bench --platform azure --clusters 50 --output json
  hcplink bench --platform azure --clusters 50 --realistic
  hcplink bench --platform gcp --clusters 50 --output json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctrllog.SetLogger(logr.Discard())
			opts.JSON = output.format == formatJSON
			if opts.JSON || output.file != "" {
				opts.Progress = cmd.ErrOrStderr() // the result alone on stdout or in the file
			}
			if !inProcess {
				self, err := os.Executable()
				if err != nil {
					return fmt.Errorf("finding this binary to run the operator: %w", err)
				}
				opts.OperatorBinary = self
			}
			if opts.Clusters < 1 {
				return fmt.Errorf("--clusters must be at least 1")
			}
			if opts.CustomerAccounts < 1 {
				return fmt.Errorf("--customer-accounts must be at least 1")
			}
			return output.writeTo(cmd, func(w io.Writer) error {
				opts.Out = w
				return bench.Run(cmd.Context(), opts)
			})
		},
	}
	cmd.Flags().StringVar(&opts.Platform, "platform", bench.PlatformAWS, "the clusters' cloud: aws, azure or gcp")
	cmd.Flags().IntVar(&opts.Clusters, "clusters", 50, "how many clusters to create at once")
	cmd.Flags().IntVar(&opts.CustomerAccounts, "customer-accounts", 1, "how many customer accounts the clusters are spread over (each throttled on its own; AWS only)")
	output = bindOutput(cmd, formatTable, formatJSON) // json: one JSON object; progress on stderr
	cmd.Flags().DurationVar(&opts.Window, "window", 60*time.Second, "how long to observe the steady state")
	cmd.Flags().DurationVar(&opts.DriftInterval, "drift-interval", 15*time.Second, "the operators' drift-check interval while the steady state is observed (clusters are created at the production interval)")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 15*time.Minute, "how long to wait for all clusters to become Available")
	cmd.Flags().BoolVar(&opts.Realistic, "realistic", false, "cloudsim's realistic delays (load balancers, endpoint services, Private Link Services and endpoints provision as long as the clouds take) instead of the fast ones; the lower bound's provisioning chain follows")
	cmd.Flags().IntVar(&opts.AzureLoadBalancerConfigurations, "azure-load-balancer-configurations", 0, "with --platform azure: how many of the cloud provider's load-balancer configurations (each an internal load balancer with room for 8 Private Link Services) the operator places routers on (0: ceil(clusters/8), none for 8 or fewer)")
	cmd.Flags().BoolVar(&inProcess, "in-process-operator", false, "run the management operator in this process (no memory figure)")
	return cmd
}
