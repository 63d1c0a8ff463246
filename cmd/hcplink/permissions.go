package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	awsinfra "github.com/hcplink/hcplink/internal/infra/aws"
	"github.com/hcplink/hcplink/internal/infra/awsiam"
)

// grant is what one identity needs on one cloud: its actions with why, and
// the document a cloud takes them in.
type grant struct {
	rows     func() [][2]string // action, why; sorted by action
	document func(scopes []string) string
}

// awsGrants, azureGrants and gcpGrants are every identity hcplink asks permissions
// for, each rendered from the table its code is tested against.
var awsGrants = map[string]grant{
	"control-plane-operator": awsComponentGrant(awscloud.ControlPlaneOperator),
	"management-operator":    awsComponentGrant(awscloud.ManagementOperator),
	"worker":                 awsComponentGrant(awscloud.Worker),
	"cli": {
		rows: func() [][2]string {
			return rowsOf(awsinfra.Permissions, func(p awsinfra.Permission) (string, string, bool) {
				return p.Action, string(p.Command) + ": " + p.Why, true
			})
		},
		document: func([]string) string { return awsiam.CLIPolicy() },
	},
	"diagnose": awsComponentGrant(awscloud.Diagnose),
}

var azureGrants = map[string]grant{
	"management-operator":    azureComponentGrant(azurecloud.ManagementOperator),
	"control-plane-operator": azureComponentGrant(azurecloud.ControlPlaneOperator),
	"diagnose":               azureComponentGrant(azurecloud.Diagnose),
}

var gcpGrants = map[string]grant{
	"management-operator":    gcpComponentGrant(gcpcloud.ManagementOperator),
	"control-plane-operator": gcpComponentGrant(gcpcloud.ControlPlaneOperator),
	"diagnose":               gcpComponentGrant(gcpcloud.Diagnose),
}

func awsComponentGrant(c awscloud.Component) grant {
	return grant{
		rows: func() [][2]string {
			return rowsOf(awscloud.Permissions, func(p awscloud.Permission) (string, string, bool) { return p.Action, p.Why, p.Component == c })
		},
		document: func([]string) string { return awscloud.Policy(c) },
	}
}

func azureComponentGrant(c azurecloud.Component) grant {
	return grant{
		rows: func() [][2]string {
			return rowsOf(azurecloud.Permissions, func(p azurecloud.Permission) (string, string, bool) { return p.Action, p.Why, p.Component == c })
		},
		document: func(scopes []string) string { return azurecloud.CustomRoleJSON(c, scopes...) },
	}
}

func gcpComponentGrant(c gcpcloud.Component) grant {
	return grant{
		rows: func() [][2]string {
			return rowsOf(gcpcloud.Permissions, func(p gcpcloud.Permission) (string, string, bool) {
				why := p.Why
				if cv, ok := gcpcloud.CaveatOf(c, p.Permission); ok {
					why += " (should your IAM refuse it in a custom role, bind " + cv.Instead + ")"
				}
				return p.Permission, why, p.Component == c
			})
		},
		document: func([]string) string { return gcpcloud.Role(c).JSON() },
	}
}

// rowsOf lists the action and reason of each entry of a permissions table
// that row keeps.
func rowsOf[P any](table []P, row func(P) (action, why string, keep bool)) [][2]string {
	var rows [][2]string
	for _, p := range table {
		if action, why, keep := row(p); keep {
			rows = append(rows, [2]string{action, why})
		}
	}
	return rows
}

func newPermissionsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "permissions",
		Short: "Print the exact permissions each hcplink identity needs, as a policy or role to grant",
		Long: `Prints what one hcplink identity needs on a cloud, rendered from the same table
its code is tested against (every call is in the table, and nothing else):
an IAM policy document on AWS, a custom role definition on Azure and on
Google Cloud. --explain
lists each action with the call that needs it instead.`,
	}
	cmd.AddCommand(newPermissionsCloudCommand("aws", awsGrants, false, `  # The control-plane operator's role policy, for aws iam put-role-policy:
  hcplink permissions aws control-plane-operator > policy.json

  # Why diagnose needs each action:
  hcplink permissions aws diagnose --explain`))
	cmd.AddCommand(newPermissionsCloudCommand("azure", azureGrants, true, `  # The management operator's custom role, for az role definition create:
  hcplink permissions azure management-operator --scope /subscriptions/<management-subscription> > role.json
  az role definition create --role-definition @role.json`))
	cmd.AddCommand(newPermissionsCloudCommand("gcp", gcpGrants, false, `  # The control-plane operator's custom role in the customer's project, for gcloud:
  hcplink permissions gcp control-plane-operator > role.json
  gcloud iam roles create `+gcpcloud.RoleID(gcpcloud.ControlPlaneOperator)+` --project=<customer-project> --file=role.json
  # Its Google service account also needs `+gcpcloud.SignInRole+` for the operator's
  # Kubernetes ServiceAccount (workload identity federation).`))
	return cmd
}

// cloudNames are the clouds as their users name them.
var cloudNames = map[string]string{"aws": "AWS", "azure": "Azure", "gcp": "Google Cloud"}

// newPermissionsCloudCommand prints one cloud's grants; scoped clouds (Azure)
// put assignable scopes in the document.
func newPermissionsCloudCommand(cloud string, grants map[string]grant, scoped bool, example string) *cobra.Command {
	names := make([]string, 0, len(grants))
	for name := range grants {
		names = append(names, name)
	}
	slices.Sort(names)
	var explain bool
	var scopes []string
	cmd := &cobra.Command{
		Use:       cloud + " " + strings.Join(names, "|"),
		Short:     "Print what one identity needs on " + cloudNames[cloud],
		Example:   example,
		ValidArgs: names,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 || grants[args[0]].document == nil {
				return fmt.Errorf("name one identity: %s", strings.Join(names, ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			g := grants[args[0]]
			if explain {
				return writeRows(cmd.OutOrStdout(), g.rows())
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), g.document(scopes))
			return err
		},
	}
	cmd.Flags().BoolVar(&explain, "explain", false, "list each action with the call that needs it, instead of the document")
	if scoped {
		cmd.Flags().StringSliceVar(&scopes, "scope", nil, "the role's assignable scopes (the subscription or resource groups it is assigned at)")
	}
	return cmd
}

func writeRows(w io.Writer, rows [][2]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\n", r[0], r[1])
	}
	return tw.Flush()
}
