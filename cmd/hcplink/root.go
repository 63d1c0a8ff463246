package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hcplink/hcplink/internal/version"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "hcplink",
		Short:         "Private connectivity between hosted control planes and their workers",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newVersionCommand(), newCloudsimCommand(), newDemoCommand(), newBenchCommand(), newSoakCommand())
	root.AddCommand(newControlPlaneOperatorCommand())
	root.AddCommand(newOperatorCommand())
	root.AddCommand(newCreateCommand(), newDestroyCommand(), newInstallCommand(), newUninstallCommand(), newDiagnoseCommand())
	root.AddCommand(newPermissionsCommand())
	return root
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the hcplink version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "hcplink %s\n", version.Version)
			return err
		},
	}
}
