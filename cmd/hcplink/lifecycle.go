package main

import "github.com/spf13/cobra"

// The verbs a platform team starts with. Each cloud's infrastructure and
// IAM commands live in their own file (create_infra.go, create_iam.go).
func newCreateCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create the cloud infrastructure and IAM a private hosted cluster needs",
	}
	cmd.AddCommand(newCreateInfraCommand(), newCreateIAMCommand())
	return cmd
}

func newDestroyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "destroy",
		Short: "Destroy what `hcplink create` made, and nothing else",
	}
	cmd.AddCommand(newDestroyInfraCommand(), newDestroyIAMCommand())
	return cmd
}
