package main

import (
	"fmt"
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
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Create many private AWS clusters at once on devenv and measure time, cloud calls and memory",
		Long: `bench starts devenv with cloudsim throttling at AWS's default rates, creates
--clusters Private AWS hosted clusters at once and prints: the time until all
are Available; cloud calls per cluster on the create path, by operation; calls
per cluster-hour at steady state (observed over --window with a short drift
interval, scaled to the default 10m); mutating calls at steady state (must be
0); and the management operator's peak memory (it runs as its own process).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctrllog.SetLogger(logr.Discard())
			opts.Out = cmd.OutOrStdout()
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
			return bench.Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Clusters, "clusters", 50, "how many clusters to create at once")
	cmd.Flags().DurationVar(&opts.Window, "window", 60*time.Second, "how long to observe the steady state")
	cmd.Flags().DurationVar(&opts.DriftInterval, "drift-interval", 15*time.Second, "the operators' drift-check interval during the run")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 15*time.Minute, "how long to wait for all clusters to become Available")
	cmd.Flags().BoolVar(&inProcess, "in-process-operator", false, "run the management operator in this process (no memory figure)")
	return cmd
}
