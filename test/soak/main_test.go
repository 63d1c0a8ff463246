package soak_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/hcplink/hcplink/internal/soak"
)

// TestMain doubles as one cloud's soak: a soak of several clouds runs each
// in its own process (`<executable> soak --platform <cloud> …`), and here
// the executable is this test binary, so that the short soak needs no
// hcplink binary built first.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "soak" {
		os.Exit(oneCloud(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// oneCloud parses the flags soak gives each cloud's process and runs it.
func oneCloud(args []string) int {
	ctrllog.SetLogger(logr.Discard())
	opts := soak.Options{Out: os.Stdout, Progress: os.Stderr}
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.StringVar(&opts.Platform, "platform", "", "")
	output := fs.String("output", "json", "")
	fs.IntVar(&opts.Clusters, "clusters", 3, "")
	fs.DurationVar(&opts.Duration, "duration", time.Minute, "")
	fs.Int64Var(&opts.Seed, "seed", 1, "")
	fs.DurationVar(&opts.SettleTimeout, "settle-timeout", 4*time.Minute, "")
	fs.DurationVar(&opts.QuietWindow, "quiet-window", 30*time.Second, "")
	fs.BoolVar(&opts.Intense, "intense", false, "")
	fs.StringVar(&opts.LogDir, "log-dir", "", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	opts.JSON = *output == "json"
	if err := soak.Run(context.Background(), opts); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
