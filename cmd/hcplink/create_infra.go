package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/hcplink/hcplink/internal/cloud"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	awsinfra "github.com/hcplink/hcplink/internal/infra/aws"
)

func newCreateInfraCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "infra", Short: "Create a cluster's network infrastructure in a cloud account"}
	cmd.AddCommand(newCreateInfraAWSCommand())
	return cmd
}

func newDestroyInfraCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "infra", Short: "Destroy a cluster's network infrastructure"}
	cmd.AddCommand(newDestroyInfraAWSCommand())
	return cmd
}

// infraFlags are the flags create and destroy share.
type infraFlags struct {
	opts awsinfra.Options
	tags []string
}

func (f *infraFlags) bind(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.opts.InfraID, "infra-id", "", "unique ID of the cluster's infrastructure; names and tags every resource (required)")
	fl.StringVar(&f.opts.Name, "name", "", "the cluster's name: the private zones are NAME.BASE-DOMAIN and NAME.hypershift.local (default: the infra ID)")
	fl.StringVar(&f.opts.BaseDomain, "base-domain", "", "domain whose public hosted zone exists in the account (required)")
	fl.StringVar(&f.opts.Region, "region", awsinfra.DefaultRegion, "AWS region")
	_ = cmd.MarkFlagRequired("infra-id")
	_ = cmd.MarkFlagRequired("base-domain")
}

func (f *infraFlags) clients(cmd *cobra.Command) (awsinfra.Clients, error) {
	cfg, err := awscloud.LoadConfig(cmd.Context(), config.WithRegion(f.opts.Region))
	if err != nil {
		return awsinfra.Clients{}, err
	}
	return awsinfra.NewClients(cfg, f.opts.Region), nil
}

// infraProgress writes the resource lines to stderr, with a spinner only when
// stderr is a terminal.
func infraProgress() awsinfra.Progress {
	return &awsinfra.LineProgress{W: os.Stderr, Spinner: term.IsTerminal(int(os.Stderr.Fd()))}
}

func newCreateInfraAWSCommand() *cobra.Command {
	var f infraFlags
	var output *outputFlags
	cmd := &cobra.Command{
		Use:   "aws",
		Short: "Create the VPC, subnets, gateways and private zones a private hosted cluster's workers need",
		Long: `Creates, in the account of the standard AWS credentials (AWS_PROFILE, AWS_* variables,
AWS_ENDPOINT_URL...), a VPC with one public and one private subnet per zone, an internet
gateway, NAT gateways, route tables, an S3 gateway endpoint, and the private zones
NAME.BASE-DOMAIN and NAME.hypershift.local on the VPC. Every resource is tagged
kubernetes.io/cluster/INFRA-ID=owned and found again by its tags: re-running the same
command is always safe, and finishes what an interrupted run started.

Each resource is printed on stderr as it is created or found; the result (the IDs a
HostedCluster and its NodePools need) goes to stdout or --output-file.`,
		Example: `  # Three zones, one NAT gateway per zone:
  hcplink create infra aws --infra-id demo-x1 --name demo --base-domain example.com \
    --region us-east-1 --zones us-east-1a,us-east-1b,us-east-1c --output-file infra.json

  # A small VPC with a single NAT gateway:
  hcplink create infra aws --infra-id demo-x2 --base-domain example.com \
    --vpc-cidr 10.10.0.0/20 --single-nat-gateway --output text`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tags, err := parseInfraTags(f.tags)
			if err != nil {
				return err
			}
			f.opts.AdditionalTags = tags
			clients, err := f.clients(cmd)
			if err != nil {
				return err
			}
			out, err := awsinfra.Create(cmd.Context(), f.opts, awsinfra.Deps{Clients: clients, Progress: infraProgress()})
			if _, fromAWS := cloud.AsError(err); fromAWS {
				return fmt.Errorf("%w\n(re-running the same command is safe: it finds what exists by its tags and goes on)", err)
			}
			if err != nil {
				return err
			}
			b, err := out.Render(output.format)
			if err != nil {
				return err
			}
			return output.writeBytes(cmd, b)
		},
	}
	f.bind(cmd)
	fl := cmd.Flags()
	fl.StringSliceVar(&f.opts.Zones, "zones", nil, "availability zones, comma-separated (default: the region's first)")
	fl.StringVar(&f.opts.VPCCIDR, "vpc-cidr", awsinfra.DefaultVPCCIDR, "the VPC's CIDR block, /16 to /24; subnets are computed from it")
	fl.BoolVar(&f.opts.SingleNATGateway, "single-nat-gateway", false, "one NAT gateway for every zone (cheaper, one zone's failure takes egress down)")
	fl.BoolVar(&f.opts.PublicOnly, "public-only", false, "public subnets only: no NAT gateways, no private subnets")
	fl.StringSliceVar(&f.tags, "additional-tags", nil, "extra tags for every resource, KEY=VALUE, comma-separated")
	output = bindOutput(cmd, awsinfra.FormatJSON, awsinfra.FormatYAML, awsinfra.FormatText)
	return cmd
}

func newDestroyInfraAWSCommand() *cobra.Command {
	var f infraFlags
	cmd := &cobra.Command{
		Use:   "aws",
		Short: "Delete everything tagged for the infra ID: what create made and what hcplink's operators left",
		Long: `Deletes, in whole passes until nothing tagged kubernetes.io/cluster/INFRA-ID=owned remains,
the VPC endpoints, security groups, the two private zones (only those tagged for this infra
ID), NAT gateways, route tables, subnets, internet gateway, VPC, Elastic IPs and DHCP options.
It waits on NAT gateways and endpoints, saying which. Re-running it is always safe.`,
		Example: `  hcplink destroy infra aws --infra-id demo-x1 --name demo --base-domain example.com --region us-east-1`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			clients, err := f.clients(cmd)
			if err != nil {
				return err
			}
			if err := awsinfra.Destroy(cmd.Context(), f.opts, awsinfra.Deps{Clients: clients, Progress: infraProgress()}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "nothing tagged for %s remains in %s\n", f.opts.InfraID, f.opts.Region)
			return nil
		},
	}
	f.bind(cmd)
	return cmd
}

// parseInfraTags reads KEY=VALUE pairs.
func parseInfraTags(pairs []string) (map[string]string, error) {
	tags := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--additional-tags %q: use KEY=VALUE", p)
		}
		tags[k] = v
	}
	return tags, nil
}
