package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// demoPlan is what the guided tour walks through, one line per step of the
// seed's data flow. It is printed until every step is built.
var demoPlan = []string{
	"start a management cluster on this machine (kube-apiserver + etcd) and cloudsim, the local AWS",
	"create a Private AWS hosted cluster with two NodePools in different availability zones",
	"the control-plane operator creates the private-router Service; the cloud gives it an internal NLB",
	"the observer records the NLB in an AWSEndpointService; the operator puts a VPC endpoint service on it",
	"the control-plane operator creates the VPC endpoint, its security group and the hypershift.local records",
	"switch the cluster to PublicAndPrivate and back to Private",
	"add a NodePool in a third zone: the endpoint gains a subnet",
	"delete the cluster and prove the cloud holds nothing for it",
}

func newDemoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "A guided tour of hcplink on a local management cluster and a local cloud",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			fmt.Fprintln(out, "The hcplink demo is not built yet. When it is, it will:")
			for i, step := range demoPlan {
				fmt.Fprintf(out, "  %d. %s\n", i+1, step)
			}
			fmt.Fprintln(out, "\nWhat works today: `hcplink cloudsim` runs the local AWS; `make test` runs every test.")
			return nil
		},
	}
}
