package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newCreateInfraCommand() *cobra.Command {
	return &cobra.Command{Use: "infra", Short: "Create a cluster's network infrastructure",
		RunE: func(*cobra.Command, []string) error { return errors.New("not built yet") }}
}

func newDestroyInfraCommand() *cobra.Command {
	return &cobra.Command{Use: "infra", Short: "Destroy a cluster's network infrastructure",
		RunE: func(*cobra.Command, []string) error { return errors.New("not built yet") }}
}
