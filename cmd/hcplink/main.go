// Command hcplink is the one binary of the project: operators, the CLI and the
// local cloud all live behind its subcommands.
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// kubectlPluginName: a link of this name on PATH makes the binary a kubectl
// plugin (`kubectl hcplink diagnose …`).
const kubectlPluginName = "kubectl-hcplink"

func main() {
	root := newRootCommand()
	if filepath.Base(os.Args[0]) == kubectlPluginName {
		root.Use = "kubectl hcplink" // so that usage and examples read as typed
	}
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
