package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

type cloudsimOptions struct {
	listen     string
	delays     string
	throttling bool
	tls        bool
	caFile     string
}

func newCloudsimCommand() *cobra.Command {
	opts := cloudsimOptions{}
	cmd := &cobra.Command{
		Use:   "cloudsim",
		Short: "Run the local cloud (AWS: EC2, ELBv2, Route 53, IAM, STS; Azure: Resource Manager, Entra ID; GCP: Compute Engine, Cloud DNS, STS, IAM Credentials) on a loopback address",
		Long: `cloudsim speaks the real AWS wire protocols, so the AWS SDKs and the aws CLI
work against it. The access key ID picks the account: a 12-digit key is that
account, any other key is account 000000000000; the secret is not checked.

On the same listener it serves Azure Resource Manager (/subscriptions/...) and
Entra ID (/<tenant>/oauth2/v2.0/token). Azure clients send bearer tokens over
HTTPS only: run with --tls, and give clients the CA file it writes.

It also serves Google Cloud's Compute Engine (/compute/v1/...), Cloud DNS
(/dns/v1/...), STS (/sts/v1/token) and IAM Credentials (/iamcredentials/v1/...).
Projects are made through /_cloudsim/gcp/projects; the administrator's token
is printed at start.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCloudsim(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.listen, "listen", "127.0.0.1:4566", "loopback address to listen on")
	cmd.Flags().StringVar(&opts.delays, "delays", "fast", "how long asynchronous states last: fast or realistic")
	cmd.Flags().BoolVar(&opts.throttling, "throttling", false, "throttle callers at AWS's, ARM's and Compute Engine's published default rates")
	cmd.Flags().BoolVar(&opts.tls, "tls", false, "serve HTTPS with a certificate authority generated at start (Azure clients need it)")
	cmd.Flags().StringVar(&opts.caFile, "ca-file", "", "where --tls writes the CA certificate (default: cloudsim-ca.pem in the temporary directory)")
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
		faults.Throttling.Services[azure.ThrottlingService] = azure.DefaultThrottling()
		for service, limits := range gcp.DefaultQuotas() {
			faults.Throttling.Services[service] = limits
		}
	}
	azureDelays, gcpDelays := azure.FastDelays(), gcp.FastDelays()
	if opts.delays == "realistic" {
		azureDelays, gcpDelays = azure.RealisticDelays(), gcp.RealisticDelays()
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv := cloudsim.New(cloudsim.Options{Delays: &delays, Faults: &faults, TLS: opts.tls, AzureDelays: azureDelays, GCPDelays: &gcpDelays})
	if err := srv.Start(ctx, opts.listen); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if opts.tls {
		caFile, err := writeCAFile(opts.caFile, srv.CACertPEM())
		if err != nil {
			return err
		}
		opts.caFile = caFile
		printAzureHelp(out, srv.URL(), caFile)
	}
	fmt.Fprintf(out, "cloudsim is serving on %s (delays: %s, throttling: %v). Try:\n\n", srv.URL(), opts.delays, opts.throttling)
	fmt.Fprintf(out, "  export AWS_ENDPOINT_URL=%s AWS_ACCESS_KEY_ID=111111111111 AWS_SECRET_ACCESS_KEY=x AWS_DEFAULT_REGION=us-east-1\n", srv.URL())
	if opts.tls {
		fmt.Fprintf(out, "  export AWS_CA_BUNDLE=%s CURL_CA_BUNDLE=%s\n", opts.caFile, opts.caFile)
	}
	fmt.Fprintf(out, "  aws --endpoint-url %s ec2 describe-availability-zones\n", srv.URL())
	printGCPHelp(out, srv.URL())
	fmt.Fprintf(out, "  curl -s %s/_cloudsim/state\n\nPress Ctrl-C to stop.\n", srv.URL())
	<-ctx.Done()
	return context.Cause(ctx)
}

// writeCAFile writes the CA certificate where clients can be told to trust it.
func writeCAFile(path string, pem []byte) (string, error) {
	if path == "" {
		path = filepath.Join(os.TempDir(), "cloudsim-ca.pem")
	}
	if err := os.WriteFile(path, pem, 0o644); err != nil {
		return "", fmt.Errorf("writing the CA certificate: %w", err)
	}
	return path, nil
}

func printGCPHelp(out io.Writer, url string) {
	fmt.Fprintf(out, "  curl -s -X POST %s/_cloudsim/gcp/projects -d '{\"projectId\": \"my-project\"}'\n", url)
	fmt.Fprintf(out, "  export CLOUDSDK_AUTH_ACCESS_TOKEN=%s CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE=%s/compute/v1/ CLOUDSDK_API_ENDPOINT_OVERRIDES_DNS=%s/dns/v1/\n", gcp.AdminToken, url, url)
	fmt.Fprintf(out, "  gcloud compute networks list --project=my-project\n")
}

func printAzureHelp(out io.Writer, url, caFile string) {
	fmt.Fprintf(out, "cloudsim's CA certificate is in %s. Azure (bootstrap tenant %s, Owner of every subscription):\n\n", caFile, azure.DefaultTenantID)
	fmt.Fprintf(out, "  export REQUESTS_CA_BUNDLE=%s NODE_EXTRA_CA_CERTS=%s SSL_CERT_FILE=%s\n", caFile, caFile, caFile)
	// The /adfs authority keeps az's MSAL from asking login.microsoftonline.com
	// to validate our host (the Debian az cannot be told to skip it).
	fmt.Fprintf(out, "  az cloud register -n cloudsim --endpoint-resource-manager %s/ --endpoint-active-directory %s/adfs \\\n", url, url)
	fmt.Fprintf(out, "      --endpoint-active-directory-resource-id https://management.core.windows.net/ --endpoint-active-directory-graph-resource-id https://graph.windows.net/\n")
	fmt.Fprintf(out, "  az cloud set -n cloudsim\n")
	fmt.Fprintf(out, "  az login --service-principal -u %s -p %s --tenant %s\n", azure.AdminClientID, azure.AdminClientSecret, azure.DefaultTenantID)
	fmt.Fprintf(out, "  (subscriptions %s; the SDKs need DisableInstanceDiscovery and a cloud.Configuration with both endpoints at %s)\n\n", strings.Join(azure.DefaultSubscriptions, ", "), url)
}
