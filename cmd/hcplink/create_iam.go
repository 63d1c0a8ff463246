package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newCreateIAMCommand() *cobra.Command {
	return &cobra.Command{Use: "iam", Short: "Create a cluster's IAM",
		RunE: func(*cobra.Command, []string) error { return errors.New("not built yet") }}
}

func newDestroyIAMCommand() *cobra.Command {
	return &cobra.Command{Use: "iam", Short: "Destroy a cluster's IAM",
		RunE: func(*cobra.Command, []string) error { return errors.New("not built yet") }}
}
