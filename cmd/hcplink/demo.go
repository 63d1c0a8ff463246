package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/go-logr/logr"

	"github.com/hcplink/hcplink/internal/demo"
)

func newDemoCommand() *cobra.Command {
	opts := demo.Options{}
	var platform string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "A guided tour: a private hosted cluster on AWS, Azure and GCP, on a local management cluster and a local cloud",
		Long: `demo starts a management cluster on this machine (kube-apiserver and etcd,
built from source the first time), cloudsim as the cloud, and both operators,
once per cloud.

On AWS it creates a Private hosted cluster with two NodePools and prints one
line per step of the data flow as it completes, with the cloud IDs; switches
the cluster to PublicAndPrivate and back; adds a NodePool in a third zone;
deletes the cluster; and shows that the cloud holds nothing for it.

On Azure it does the same with a Private cluster: the internal load
balancer's frontend, the Private Link Service, the Private Endpoint, the
private zone with its link and records, each read over ARM; PublicAndPrivate
and back; a NodePool in another subnet; delete; and proof over ARM that
neither subscription holds anything of the cluster.

On GCP it creates a Private cluster: the router's internal forwarding rule,
the service attachment, the endpoint's address and Private Service Connect
forwarding rule, the private zone and its records, each read over the Compute
Engine and Cloud DNS APIs; PublicAndPrivate and back; delete; and proof that
neither project holds anything of the cluster.

Each cloud ends with its own timing table. --platform aws, azure or gcp walks
one.

With --keep each tour stops once its cluster is available and everything keeps
running until interrupted, with the lines to point kubectl, the aws CLI, the
az CLI and the Azure SDKs at it.`,
		Example: `  hcplink demo                    # AWS, Azure, then GCP
  hcplink demo --platform azure   # Azure only
  hcplink demo --platform gcp     # GCP only
  hcplink demo --platform aws --keep`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The operators' own logs would drown the tour.
			ctrllog.SetLogger(logr.Discard())
			opts.Out = cmd.OutOrStdout()
			platforms, err := demo.ParsePlatforms(platform)
			if err != nil {
				return err
			}
			opts.Platforms = platforms
			if opts.Executable, err = os.Executable(); err != nil {
				return fmt.Errorf("finding this binary to run each cloud's tour: %w", err)
			}
			return demo.Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&platform, "platform", "all", "the cloud to walk: aws, azure, gcp or all (AWS, Azure, then GCP)")
	cmd.Flags().BoolVar(&opts.Keep, "keep", false, "stop once the cluster is available and keep everything running until interrupted")
	cmd.Flags().DurationVar(&opts.StepTimeout, "step-timeout", 0, "how long any one step may take before the demo gives up (default 90s)")
	return cmd
}
