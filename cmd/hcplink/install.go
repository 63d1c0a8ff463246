package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func newInstallCommand() *cobra.Command {
	return &cobra.Command{Use: "install", Short: "Install the management operator",
		RunE: func(*cobra.Command, []string) error { return errors.New("not built yet") }}
}

func newUninstallCommand() *cobra.Command {
	return &cobra.Command{Use: "uninstall", Short: "Uninstall the management operator",
		RunE: func(*cobra.Command, []string) error { return errors.New("not built yet") }}
}
