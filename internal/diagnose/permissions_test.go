package diagnose_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
	"github.com/hcplink/hcplink/internal/sdkcalls"
)

const (
	diagnosePkg = sdkcalls.Module + "/internal/diagnose"
	awsPkg      = sdkcalls.Module + "/internal/cloud/aws"
	azurePkg    = sdkcalls.Module + "/internal/cloud/azure"
)

// TestPermissionsAreExactlyWhatDiagnoseCalls follows every SDK call of
// diagnose's code (through the functions of internal/cloud/aws and
// internal/cloud/azure it uses) and compares the actions they need with
// the tables: a new call without its permission fails here (it would be
// denied under the read-only policy), and so does a permission no code
// needs.
func TestPermissionsAreExactlyWhatDiagnoseCalls(t *testing.T) {
	pkgs := sdkcalls.Load(t, "../..", diagnosePkg, awsPkg, azurePkg)

	awsCalled := sdkcalls.NewGraph(pkgs, sdkcalls.AWSAction, awsPkg).From(pkgs, diagnosePkg)
	compareActions(t, "AWS", awsCalled, awscloud.Actions(awscloud.Diagnose))

	var azureNeeded []string
	for _, method := range sdkcalls.NewGraph(pkgs, sdkcalls.AzureMethod, azurePkg).From(pkgs, diagnosePkg) {
		actions, ok := azurecloud.MethodActions[method]
		if !ok {
			t.Errorf("diagnose calls %s, which azurecloud.MethodActions does not map", method)
		}
		azureNeeded = append(azureNeeded, actions...)
	}
	slices.Sort(azureNeeded)
	compareActions(t, "Azure", slices.Compact(azureNeeded), azurecloud.Actions(azurecloud.Diagnose))
}

func compareActions(t *testing.T, cloud string, called, granted []string) {
	t.Helper()
	if len(called) == 0 {
		t.Fatalf("found no %s SDK call in diagnose: the analysis is broken", cloud)
	}
	missing, unused := sdkcalls.Diff(called, granted)
	for _, a := range missing {
		t.Errorf("diagnose calls what needs %s, which its %s table does not grant", a, cloud)
	}
	for _, a := range unused {
		t.Errorf("diagnose's %s table grants %s, which its code never needs", cloud, a)
	}
}

// readAction: the verbs of AWS reads, and Azure's read suffix.
var (
	awsRead   = regexp.MustCompile(`^(ec2|elasticloadbalancing|route53|sts):(Describe|List|Get)[A-Z][A-Za-z]+$`)
	gcpRead   = regexp.MustCompile(`^(compute|dns)\.[A-Za-z]+\.(get|list)$`)
	azureRead = regexp.MustCompile(`^Microsoft\.Network/[A-Za-z]+(/[A-Za-z]+)*/read$`)
)

// permission is one row of diagnose's part of a cloud's table.
type permission struct{ Action, Why string }

// diagnoseRows keeps the rows of a cloud's table that row says are
// diagnose's.
func diagnoseRows[P any](table []P, row func(P) (permission, bool)) []permission {
	var out []permission
	for _, p := range table {
		if r, ok := row(p); ok {
			out = append(out, r)
		}
	}
	return out
}

func awsRows() []permission {
	return diagnoseRows(awscloud.Permissions, func(p awscloud.Permission) (permission, bool) {
		return permission{p.Action, p.Why}, p.Component == awscloud.Diagnose
	})
}

func gcpRows() []permission {
	return diagnoseRows(gcpcloud.Permissions, func(p gcpcloud.Permission) (permission, bool) {
		return permission{p.Permission, p.Why}, p.Component == gcpcloud.Diagnose
	})
}

func azureRows() []permission {
	return diagnoseRows(azurecloud.Permissions, func(p azurecloud.Permission) (permission, bool) {
		return permission{p.Action, p.Why}, p.Component == azurecloud.Diagnose
	})
}

// TestPermissionsAreReadsListedOnceSortedWithAReason: diagnose never
// writes, so its rows hold nothing but reads.
func TestPermissionsAreReadsListedOnceSortedWithAReason(t *testing.T) {
	for _, tc := range []struct {
		cloud string
		table []permission
		read  *regexp.Regexp
	}{
		{"AWS", awsRows(), awsRead},
		{"Azure", azureRows(), azureRead},
		{"GCP", gcpRows(), gcpRead},
	} {
		var actions []string
		for _, p := range tc.table {
			actions = append(actions, p.Action)
			if !tc.read.MatchString(p.Action) {
				t.Errorf("%s %s is not a read", tc.cloud, p.Action)
			}
			if strings.TrimSpace(p.Why) == "" {
				t.Errorf("%s %s says not why it is needed", tc.cloud, p.Action)
			}
		}
		if !slices.IsSorted(actions) || len(slices.Compact(slices.Clone(actions))) != len(actions) {
			t.Errorf("the %s table is not sorted with each action once: %v", tc.cloud, actions)
		}
	}
}

// TestReadPatternsRejectWrites keeps the read check able to fail.
func TestReadPatternsRejectWrites(t *testing.T) {
	for _, write := range []string{"ec2:CreateVpcEndpoint", "ec2:ModifyVpcEndpointServicePermissions", "route53:ChangeResourceRecordSets", "sts:AssumeRole"} {
		if awsRead.MatchString(write) {
			t.Errorf("%s passes as an AWS read", write)
		}
	}
	for _, write := range []string{"compute.forwardingRules.pscCreate", "compute.serviceAttachments.update", "dns.changes.create", "compute.addresses.use"} {
		if gcpRead.MatchString(write) {
			t.Errorf("%s passes as a GCP read", write)
		}
	}
	for _, write := range []string{"Microsoft.Network/privateEndpoints/write", "Microsoft.Network/privateDnsZones/A/delete", "Microsoft.Network/virtualNetworks/join/action"} {
		if azureRead.MatchString(write) {
			t.Errorf("%s passes as an Azure read", write)
		}
	}
}

func TestAWSPolicyGrantsTheTableOnEveryResource(t *testing.T) {
	var doc struct {
		Version   string
		Statement []struct {
			Sid, Effect, Resource string
			Action                []string
		}
	}
	policy := awscloud.Policy(awscloud.Diagnose)
	if err := json.Unmarshal([]byte(policy), &doc); err != nil {
		t.Fatalf("policy is not JSON: %v\n%s", err, policy)
	}
	if len(doc.Statement) != 1 {
		t.Fatalf("policy = %+v", doc)
	}
	st := doc.Statement[0]
	if st.Sid != awscloud.StatementID(string(awscloud.Diagnose)) || st.Sid != "HcplinkDiagnose" || st.Effect != "Allow" || st.Resource != "*" ||
		!slices.Equal(st.Action, awscloud.Actions(awscloud.Diagnose)) {
		t.Errorf("statement = %+v, want Allow of %v on *", st, awscloud.Actions(awscloud.Diagnose))
	}
}

func TestAzureCustomRoleHoldsTheTable(t *testing.T) {
	scope := "/subscriptions/x/resourceGroups/y"
	role := azurecloud.CustomRole(azurecloud.Diagnose, scope)
	if !slices.Equal(role.Actions, azurecloud.Actions(azurecloud.Diagnose)) || len(role.Actions) == 0 || role.NotActions == nil ||
		!slices.Equal(role.AssignableScopes, []string{scope}) || role.Name != "hcplink diagnose" ||
		role.Description != "What hcplink diagnose reads, and nothing else." {
		t.Errorf("role = %+v", role)
	}
}
