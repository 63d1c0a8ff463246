package main

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/infra/awsiam"
)

func newCreateIAMCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "iam", Short: "Create a cluster's IAM in a cloud account"}
	cmd.AddCommand(newCreateIAMAWSCommand(), newCreateIAMAzureCommand(), newCreateIAMGCPCommand())
	return cmd
}

func newDestroyIAMCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "iam", Short: "Destroy a cluster's IAM"}
	cmd.AddCommand(newDestroyIAMAWSCommand(), newDestroyIAMAzureCommand(), newDestroyIAMGCPCommand())
	return cmd
}

// iamFlags are the flags create and destroy share.
type iamFlags struct {
	opts          awsiam.Options
	tags          []string
	operator, cli bool
	operatorUser  string
	diagnose      bool
	diagnoseUser  string
	credsFile     string
}

func (f *iamFlags) bind(cmd *cobra.Command, create bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.opts.InfraID, "infra-id", "", "the cluster's infra ID: names and tags every role and instance profile")
	fl.StringVar(&f.opts.IssuerURL, "oidc-issuer-url", "", "the management cluster's service-account issuer (https://...)")
	fl.BoolVar(&f.operator, "operator", false, "the management operator's own IAM user, in the management account, instead of a cluster's IAM")
	fl.StringVar(&f.operatorUser, "operator-user", awsiam.DefaultOperatorUser, "with --operator: the user's name")
	fl.BoolVar(&f.diagnose, "diagnose", false, "the read-only user 'hcplink diagnose' runs as, in the account of the credentials (run it in the management and in the customer account), instead of a cluster's IAM")
	fl.StringVar(&f.diagnoseUser, "diagnose-user", awsiam.DefaultDiagnoseUser, "with --diagnose: the user's name")
	cmd.MarkFlagsMutuallyExclusive("operator", "diagnose")
	if !create {
		return
	}
	fl.StringVar(&f.opts.Namespace, "namespace", "clusters", "the HostedCluster's namespace (its control-plane operator is the only one its role trusts)")
	fl.StringVar(&f.opts.Name, "name", "", "the HostedCluster's name")
	fl.StringSliceVar(&f.tags, "additional-tags", nil, "extra tags for every entity, KEY=VALUE, comma-separated")
	fl.StringVar(&f.credsFile, "credentials-file", "", "with --operator or --diagnose: write a new access key to this file (AWS credentials format) unless it exists")
	fl.BoolVar(&f.cli, "cli", false, "print the policy whoever runs hcplink create or destroy infra aws needs, and create nothing")
	cmd.MarkFlagsMutuallyExclusive("cli", "operator", "diagnose")
}

func iamClient(cmd *cobra.Command) (*iam.Client, error) {
	cfg, err := awscloud.LoadConfig(cmd.Context())
	if err != nil {
		return nil, err
	}
	return iam.NewFromConfig(cfg), nil
}

func newCreateIAMAWSCommand() *cobra.Command {
	var f iamFlags
	var output *outputFlags
	cmd := &cobra.Command{
		Use:   "aws",
		Short: "Create the OIDC provider and the roles a private hosted cluster needs, or the management operator's user",
		Long: `Creates, in the account of the standard AWS credentials (AWS_PROFILE, AWS_* variables,
AWS_ENDPOINT_URL...), the OIDC provider of the management cluster's service-account issuer
(or reuses the account's), the control-plane operator's role trusting only that cluster's
control-plane-operator ServiceAccount, and the workers' role and instance profile. Each
role's policy holds exactly the actions hcplink calls (the table in internal/cloud/aws).
Re-running is safe: existing entities are found and their policies rewritten.

--operator instead creates the management operator's user, in the management account,
with exactly the management operator's policy; --credentials-file writes it an access key
for 'hcplink install --aws-private-creds'. --diagnose creates the read-only user that
'hcplink diagnose' runs as, holding exactly the reads diagnose makes (run it once in the
management account and once in the customer's). --cli prints the policy the create/destroy
infra commands need.`,
		Example: `  # A cluster's IAM in the customer account:
  hcplink create iam aws --infra-id demo-x1 --namespace clusters --name demo \
    --oidc-issuer-url https://oidc.mgmt.example.com --output-file iam.json

  # The management operator's user, in the management account:
  hcplink create iam aws --operator --credentials-file ./hcplink-operator.credentials

  # diagnose's read-only user, in each account (here the customer's):
  AWS_PROFILE=customer hcplink create iam aws --diagnose --credentials-file ./diagnose-customer.credentials

  # The policy to grant whoever runs create/destroy infra aws:
  hcplink create iam aws --cli > hcplink-cli-policy.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.cli {
				return writePolicyDocument(cmd, output, awsiam.CLIPolicy())
			}
			client, err := iamClient(cmd)
			if err != nil {
				return err
			}
			var out any
			switch {
			case f.operator:
				out, err = awsiam.CreateOperator(cmd.Context(), client, cmd.ErrOrStderr(), f.operatorUser, f.credsFile)
			case f.diagnose:
				out, err = awsiam.CreateDiagnoseUser(cmd.Context(), client, cmd.ErrOrStderr(), f.diagnoseUser, f.credsFile)
			default:
				if f.opts.Tags, err = parseInfraTags(f.tags); err != nil {
					return err
				}
				out, err = awsiam.Create(cmd.Context(), client, cmd.ErrOrStderr(), f.opts)
			}
			if err != nil {
				return rerunIsSafe(err)
			}
			return output.writeResult(cmd, out)
		},
	}
	f.bind(cmd, true)
	output = bindOutput(cmd, formatJSON, formatYAML, formatText)
	return cmd
}

func newDestroyIAMAWSCommand() *cobra.Command {
	var f iamFlags
	cmd := &cobra.Command{
		Use:   "aws",
		Short: "Delete the roles and instance profile of an infra ID (and its OIDC provider when no other role trusts it)",
		Example: `  hcplink destroy iam aws --infra-id demo-x1 --oidc-issuer-url https://oidc.mgmt.example.com
  hcplink destroy iam aws --operator
  hcplink destroy iam aws --diagnose`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !f.operator && !f.diagnose && f.opts.InfraID == "" {
				return errors.New("--infra-id is required (or --operator for the management operator's user, --diagnose for diagnose's)")
			}
			client, err := iamClient(cmd)
			if err != nil {
				return err
			}
			if f.operator {
				return awsiam.DestroyOperator(cmd.Context(), client, cmd.ErrOrStderr(), f.operatorUser)
			}
			if f.diagnose {
				return awsiam.DestroyDiagnoseUser(cmd.Context(), client, cmd.ErrOrStderr(), f.diagnoseUser)
			}
			return awsiam.Destroy(cmd.Context(), client, cmd.ErrOrStderr(), f.opts)
		},
	}
	f.bind(cmd, false)
	return cmd
}

// writePolicyDocument writes an IAM policy document: JSON, the form IAM
// takes (for json and text), or the same document as YAML.
func writePolicyDocument(cmd *cobra.Command, output *outputFlags, policy string) error {
	b := []byte(policy + "\n")
	if output.format == formatYAML {
		var err error
		if b, err = yaml.JSONToYAML(b); err != nil {
			return err
		}
	}
	return output.writeBytes(cmd, b)
}

// rerunIsSafe tells, with a create command's error, that running it again
// picks up where it stopped (it finds what exists and goes on).
func rerunIsSafe(err error) error {
	return fmt.Errorf("%w\n(re-running the same command is safe: it finds what exists and goes on)", err)
}
