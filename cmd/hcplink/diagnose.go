package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hcplink/hcplink/internal/diagnose"
)

// exit ends the process with the report's code: the report already said
// what is wrong, so no "Error:" line follows it.
var exit = os.Exit

type diagnoseFlags struct {
	output                                              *outputFlags
	svg                                                 string
	managementProfile, customerProfile, customerRoleARN string
	guestSubscription                                   string
}

func newDiagnoseCommand() *cobra.Command {
	var f diagnoseFlags
	cmd := &cobra.Command{
		Use:   "diagnose <namespace>/<cluster>",
		Short: "Walk a cluster's private path hop by hop and say where it breaks",
		Long: `diagnose walks the private path of a hosted cluster from the management
cluster to the customer's network, reading Kubernetes and whatever cloud
credentials are at hand. It never writes anything.

AWS: HostedCluster, HostedControlPlane, router Service, network load balancer,
endpoint service, VPC endpoint, security group, private zone, DNS records,
ExternalName Services; then the same from its own Service for every other
private endpoint (kube-apiserver-private, when the API server is published
by LoadBalancer), each hop naming its endpoint. Azure: the same, through the internal load balancer,
private link service, private endpoint, private DNS zone, VNet link and A
records. GCP: the router's forwarding rule and service attachment (its
accept list and connected endpoints) in the management project, then the
PSC endpoint (its connection status and address), the Cloud DNS zone and
its api and *.apps A records in the cluster's project.

Each hop is ✓ (holds), ✗ (broken, with one sentence of what to do) or ?
(could not be checked, with why: a missing credential is a ?, not an error).
Exit code: 0 every hop holds, 1 a hop is broken, 2 nothing broken but some
hops could not be checked.

Credentials: the management account comes from the standard AWS chain
(AWS_* environment, the default profile, an instance role) or
--management-profile; the customer's from --customer-profile, or
--customer-role-arn (assumed with the management credentials). Azure uses
the default Azure credential chain and the AZURE_* endpoint environment;
--guest-subscription overrides the cluster's subscription. GCP signs in as
Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud auth
application-default login, or the metadata server), one identity holding the
role "hcplink permissions gcp diagnose" prints in both projects; a refused
read names the permission it lacks.

--svg draws the path as a picture for a support ticket. There is no --png:
the pure-Go SVG rasteriser on the Go module proxy (oksvg) draws no text,
and the text is the point of the picture; convert the SVG with
rsvg-convert or open it in a browser.

As a kubectl plugin: put a symlink named kubectl-hcplink to this binary on
your PATH and run "kubectl hcplink diagnose <namespace>/<cluster>".`,
		Example: `  hcplink diagnose clusters/alpha
  hcplink diagnose clusters/alpha --customer-role-arn arn:aws:iam::111122223333:role/hcplink-diagnose -o json
  hcplink diagnose clusters/alpha --customer-profile customer --svg alpha.svg
  hcplink diagnose clusters/beta --guest-subscription 00000000-0000-0000-0000-000000000000 -o yaml
  GOOGLE_APPLICATION_CREDENTIALS=diagnose-key.json hcplink diagnose clusters/gamma --svg gamma.svg`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runDiagnose(cmd, args[0], f) },
	}
	f.output = bindOutput(cmd, diagnose.FormatText, diagnose.FormatJSON, diagnose.FormatYAML)
	fl := cmd.Flags()
	fl.StringVar(&f.svg, "svg", "", "also draw the path as an SVG picture in this file")
	fl.StringVar(&f.managementProfile, "management-profile", "", "AWS profile of the management account (default: the standard chain)")
	fl.StringVar(&f.customerProfile, "customer-profile", "", "AWS profile of the customer's account")
	fl.StringVar(&f.customerRoleARN, "customer-role-arn", "", "role in the customer's account to assume with the management credentials")
	fl.StringVar(&f.guestSubscription, "guest-subscription", "", "Azure subscription of the cluster's network (default: the cluster's spec)")
	addKubeconfigFlag(cmd)
	return cmd
}

func runDiagnose(cmd *cobra.Command, arg string, f diagnoseFlags) error {
	namespace, name, ok := strings.Cut(arg, "/")
	if !ok || namespace == "" || name == "" {
		return fmt.Errorf("name the cluster as <namespace>/<cluster>, not %q", arg)
	}
	if f.customerProfile != "" && f.customerRoleARN != "" {
		return fmt.Errorf("use --customer-profile or --customer-role-arn, not both")
	}
	kube, err := kubeClient()
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	opts := diagnose.Options{Kube: kube, Namespace: namespace, Name: name}
	diagnose.LoadClients(ctx, &opts, diagnose.Credentials{Getenv: os.Getenv, AzureGuestSubscription: f.guestSubscription,
		AWS: diagnose.AWSCredentials{ManagementProfile: f.managementProfile, CustomerProfile: f.customerProfile, CustomerRoleARN: f.customerRoleARN}})
	report, err := diagnose.Diagnose(ctx, opts)
	if err != nil {
		return err
	}
	if err := f.output.writeTo(cmd, func(w io.Writer) error { return diagnose.Write(w, report, f.output.format) }); err != nil {
		return err
	}
	if f.svg != "" {
		if err := os.WriteFile(f.svg, []byte(diagnose.SVG(report)), 0o644); err != nil {
			return fmt.Errorf("writing the picture: %w", err)
		}
	}
	if code := report.ExitCode(); code != 0 {
		exit(code)
	}
	return nil
}
