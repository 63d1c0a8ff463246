// Command hcplink is the one binary of the project: operators, the CLI and the
// local cloud all live behind its subcommands.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
