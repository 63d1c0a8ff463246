package main

import (
	"github.com/spf13/cobra"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/go-logr/logr"

	"github.com/hcplink/hcplink/internal/demo"
)

func newDemoCommand() *cobra.Command {
	opts := demo.Options{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "A guided tour: a private AWS hosted cluster on a local management cluster and a local cloud",
		Long: `demo starts a management cluster on this machine (kube-apiserver and etcd,
built from source the first time), cloudsim as the cloud, and both operators.
It creates a Private AWS hosted cluster with two NodePools and prints one line
per step of the data flow as it completes, with the cloud IDs; switches the
cluster to PublicAndPrivate and back; adds a NodePool in a third zone; deletes
the cluster; and shows that the cloud holds nothing for it.

With --keep it stops once the cluster is available and leaves everything
running, printing the lines to point kubectl and the aws CLI at it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The operators' own logs would drown the tour.
			ctrllog.SetLogger(logr.Discard())
			opts.Out = cmd.OutOrStdout()
			return demo.Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Keep, "keep", false, "stop once the cluster is available and keep everything running until interrupted")
	cmd.Flags().DurationVar(&opts.StepTimeout, "step-timeout", 0, "how long any one step may take before the demo gives up (default 90s)")
	return cmd
}
