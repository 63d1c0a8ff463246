package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/hcplink/hcplink/internal/soak"
)

func newSoakCommand() *cobra.Command {
	opts := soak.Options{}
	var output *outputFlags
	cmd := &cobra.Command{
		Use:   "soak",
		Short: "Run a fleet of private clusters through many faults at once on devenv and count what was lost",
		Long: `soak starts devenv (with --platform all, one per cloud at once, each in its
own process) and gives each
of --clusters hosted clusters a random life for --duration: created; endpoint
access (AWS, GCP) or topology (Azure) switched; NodePools added, moved to
another subnet and removed; another principal, subscription or project
allowed and removed; drift made through the cloud's API as a customer would
(a record deleted, a security group rule revoked, a VNet link removed, a
Private Service Connect endpoint deleted); deleted, sometimes while still
being created. All the while cloudsim throttles at the cloud's rates
and 10 % more, fails 2 % of calls with 500s and 503s, stalls 1 % for 3 s,
resets connections, loses replies to calls it did, and shows new and deleted
resources late (EC2's eventual consistency); the management operator runs
as two replicas with leader election on, and its replicas and the
control-plane operators are killed and restarted at random (the leader once
on purpose, so that the other takes over); the API server is restarted once;
and one cluster's cloud credentials (its AWS role's policies, its Azure
identity's role assignments, its GCP service account's roles in the
project) are revoked for a while, then restored. Then the faults
stop, the fleet settles, every cluster is deleted, and it prints: the actions
done, the clusters converged and how long after the faults that took, hot
loops, restarts and memory, conditions that said the cloud refused the
credentials while they were granted, and from cloudsim's ledger of every
resource's life the duplicates, the leaks and the foreign resources touched.
It fails unless every cluster converged and nothing was duplicated, leaked
or touched, no condition said something untrue and nothing looped.`,
		Example: `  hcplink soak --platform all --clusters 30 --duration 10m --output json
  hcplink soak --platform aws --clusters 4 --duration 2m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctrllog.SetLogger(logr.Discard())
			// Interrupted, the soak still stops its devenv (API server, etcd,
			// cloudsim) on the way out, and each cloud's process its own.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cmd.SetContext(ctx)
			opts.JSON = output.format == formatJSON
			opts.Progress = cmd.ErrOrStderr() // the result alone on stdout or in the file
			self, err := os.Executable()
			if err != nil {
				return fmt.Errorf("finding this binary to run each cloud's soak: %w", err)
			}
			opts.Executable = self
			return output.writeTo(cmd, func(w io.Writer) error {
				opts.Out = w
				return soak.Run(cmd.Context(), opts)
			})
		},
	}
	cmd.Flags().StringVar(&opts.Platform, "platform", soak.PlatformAll, "the clouds: aws, azure, gcp or all (at once, each in its own process on its own devenv)")
	cmd.Flags().IntVar(&opts.Clusters, "clusters", 30, "clusters per cloud")
	cmd.Flags().IntVar(&opts.CustomerAccounts, "customer-accounts", 1, "AWS: spread the clusters over this many customer accounts (cluster i in account i mod n)")
	cmd.Flags().DurationVar(&opts.Duration, "duration", 10*time.Minute, "how long the faults run")
	cmd.Flags().Int64Var(&opts.Seed, "seed", 1, "seed of the clusters' lives and of the cloud's faults")
	cmd.Flags().DurationVar(&opts.SettleTimeout, "settle-timeout", 10*time.Minute, "how long to wait for the fleet to settle after the faults, and again for everything to be deleted")
	cmd.Flags().BoolVar(&opts.Intense, "intense", false, "every fault often enough to happen at least once per cloud in a minute (operators killed every 8 s on average, spikes, resets and lost replies on 2 % of calls each)")
	cmd.Flags().StringVar(&opts.LogDir, "log-dir", "", "a directory for each cloud's operator logs (<cloud>-operators.log, JSON lines); none when empty")
	cmd.Flags().DurationVar(&opts.QuietWindow, "quiet-window", time.Minute, "how long the settled fleet is watched for hot loops")
	output = bindOutput(cmd, formatTable, formatJSON) // json: one JSON object; progress on stderr
	return cmd
}
