package main

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

type cloudsimOptions struct {
	listen     string
	delays     string
	throttling bool
}

func newCloudsimCommand() *cobra.Command {
	opts := cloudsimOptions{}
	cmd := &cobra.Command{
		Use:   "cloudsim",
		Short: "Run the local AWS emulator (EC2, ELBv2, Route 53, IAM, STS) on a loopback address",
		Long: `cloudsim speaks the real AWS wire protocols, so the AWS SDKs and the aws CLI
work against it. The access key ID picks the account: a 12-digit key is that
account, any other key is account 000000000000; the secret is not checked.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCloudsim(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.listen, "listen", "127.0.0.1:4566", "loopback address to listen on")
	cmd.Flags().StringVar(&opts.delays, "delays", "fast", "how long asynchronous states last: fast or realistic")
	cmd.Flags().BoolVar(&opts.throttling, "throttling", false, "throttle callers at AWS's published default rates")
	return cmd
}

func runCloudsim(cmd *cobra.Command, opts cloudsimOptions) error {
	var delays sim.Delays
	switch opts.delays {
	case "fast":
		delays = sim.FastDelays()
	case "realistic":
		delays = sim.RealisticDelays()
	default:
		return fmt.Errorf("--delays must be fast or realistic, not %q", opts.delays)
	}
	faults := sim.FaultConfig{}
	if opts.throttling {
		faults.Throttling = sim.AWSDefaultThrottling()
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv := cloudsim.New(cloudsim.Options{Delays: &delays, Faults: &faults})
	if err := srv.Start(ctx, opts.listen); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "cloudsim is serving on %s (delays: %s, throttling: %v). Try:\n\n", srv.URL(), opts.delays, opts.throttling)
	fmt.Fprintf(out, "  export AWS_ENDPOINT_URL=%s AWS_ACCESS_KEY_ID=111111111111 AWS_SECRET_ACCESS_KEY=x AWS_DEFAULT_REGION=us-east-1\n", srv.URL())
	fmt.Fprintf(out, "  aws --endpoint-url %s ec2 describe-availability-zones\n", srv.URL())
	fmt.Fprintf(out, "  curl -s %s/_cloudsim/state\n\nPress Ctrl-C to stop.\n", srv.URL())
	<-ctx.Done()
	return context.Cause(ctx)
}
