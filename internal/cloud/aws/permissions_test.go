package aws_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/operator/hostedcluster"
	"github.com/hcplink/hcplink/internal/sdkcalls"
)

const module = sdkcalls.Module

// componentPackages are the packages whose code runs with each component's
// credentials.
var componentPackages = map[awscloud.Component][]string{
	awscloud.ControlPlaneOperator: {module + "/internal/controlplane/..."},
	awscloud.ManagementOperator:   {module + "/internal/operator/..."},
}

// TestPermissionsAreExactlyWhatTheCodeCalls follows, from each component's
// packages (and through every function and method of internal/cloud/aws
// they use), the calls of the SDK interfaces in sdk.go, of SDK clients and
// of SDK paginators, and compares the actions they need with the table: a
// new call without its permission fails here, and so does a permission no
// code needs.
func TestPermissionsAreExactlyWhatTheCodeCalls(t *testing.T) {
	patterns := []string{module + "/internal/cloud/aws"}
	for _, p := range componentPackages {
		patterns = append(patterns, p...)
	}
	pkgs := sdkcalls.Load(t, "../../..", patterns...)
	calls := sdkcalls.NewGraph(pkgs, sdkcalls.AWSAction, module+"/internal/cloud/aws")
	for component, roots := range componentPackages {
		missing, unused := sdkcalls.Diff(calls.From(pkgs, roots...), awscloud.Actions(component))
		for _, action := range missing {
			t.Errorf("%s calls %s, which the permissions table does not grant it", component, action)
		}
		for _, action := range unused {
			t.Errorf("the permissions table grants %s %s, which its code never calls", component, action)
		}
	}
}

func TestPermissionsTableHasEachActionOnceWithAReason(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range awscloud.Permissions {
		key := string(p.Component) + " " + p.Action
		if seen[key] {
			t.Errorf("%s is listed twice", key)
		}
		seen[key] = true
		if strings.TrimSpace(p.Why) == "" {
			t.Errorf("%s says not why it is needed", key)
		}
		if !regexp.MustCompile(`^(ec2|elasticloadbalancing|route53|sts):[A-Z][A-Za-z]+$`).MatchString(p.Action) {
			t.Errorf("%s is not an IAM action of a service hcplink calls", key)
		}
	}
}

func TestPoliciesRenderEveryActionOnceSortedAndDeterministic(t *testing.T) {
	for _, tc := range []struct {
		component awscloud.Component
		render    func() string
		sid       string
	}{
		{awscloud.ControlPlaneOperator, awscloud.ControlPlaneOperatorPolicy, "HcplinkControlPlaneOperator"},
		{awscloud.ManagementOperator, awscloud.ManagementOperatorPolicy, "HcplinkManagementOperator"},
	} {
		t.Run(string(tc.component), func(t *testing.T) {
			rendered := tc.render()
			if again := tc.render(); again != rendered {
				t.Fatalf("two renderings differ:\n%s\n%s", rendered, again)
			}
			var doc struct {
				Version   string
				Statement []struct {
					Sid, Effect, Resource string
					Action                []string
				}
			}
			if err := json.Unmarshal([]byte(rendered), &doc); err != nil {
				t.Fatalf("policy is not JSON: %v\n%s", err, rendered)
			}
			if doc.Version != "2012-10-17" || len(doc.Statement) != 1 {
				t.Fatalf("policy = %+v", doc)
			}
			st := doc.Statement[0]
			if st.Sid != tc.sid || st.Effect != "Allow" || st.Resource != "*" {
				t.Errorf("statement = %+v", st)
			}
			if !slices.IsSorted(st.Action) || len(slices.Compact(slices.Clone(st.Action))) != len(st.Action) {
				t.Errorf("actions not sorted and unique: %v", st.Action)
			}
			if !slices.Equal(st.Action, awscloud.Actions(tc.component)) {
				t.Errorf("actions = %v, want the table's %v", st.Action, awscloud.Actions(tc.component))
			}
		})
	}
}

func TestTrustPolicyNamesTheControlPlaneOperatorsServiceAccount(t *testing.T) {
	if awscloud.ControlPlaneOperatorServiceAccount != hostedcluster.ControlPlaneOperatorName {
		t.Fatalf("the role trusts ServiceAccount %q, the operator creates %q", awscloud.ControlPlaneOperatorServiceAccount, hostedcluster.ControlPlaneOperatorName)
	}
	for _, tc := range []struct{ ns, name, wantSubject string }{
		{"clusters", "demo", "system:serviceaccount:clusters-demo:control-plane-operator"},
		{"clusters", "prod.eu.1", "system:serviceaccount:clusters-prod-eu-1:control-plane-operator"},
	} {
		if got := awscloud.ControlPlaneOperatorSubject(tc.ns, tc.name); got != tc.wantSubject {
			t.Errorf("subject of %s/%s = %q, want %q", tc.ns, tc.name, got, tc.wantSubject)
		}
		var doc struct {
			Statement []struct {
				Principal map[string]string
				Action    string
				Condition map[string]map[string]string
			}
		}
		policy := awscloud.ControlPlaneOperatorTrustPolicy("arn:aws:iam::222222222222:oidc-provider/oidc.example.com/abc", "oidc.example.com/abc", tc.ns, tc.name)
		if err := json.Unmarshal([]byte(policy), &doc); err != nil {
			t.Fatalf("trust policy is not JSON: %v", err)
		}
		st := doc.Statement[0]
		eq := st.Condition["StringEquals"]
		if st.Action != "sts:AssumeRoleWithWebIdentity" || st.Principal["Federated"] != "arn:aws:iam::222222222222:oidc-provider/oidc.example.com/abc" ||
			eq["oidc.example.com/abc:sub"] != tc.wantSubject || eq["oidc.example.com/abc:aud"] != "sts.amazonaws.com" {
			t.Errorf("trust policy for %s/%s:\n%s", tc.ns, tc.name, policy)
		}
	}
}

// TestReadmeShowsTheGeneratedControlPlaneOperatorPolicy keeps the README's
// copy-paste recipe true: its policy block must be exactly the generated one.
func TestReadmeShowsTheGeneratedControlPlaneOperatorPolicy(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := awscloud.ControlPlaneOperatorPolicy()
	blocks := regexp.MustCompile("(?s)```json\n(.*?)\n```").FindAllStringSubmatch(string(readme), -1)
	for _, b := range blocks {
		if strings.Contains(b[1], `"HcplinkControlPlaneOperator"`) {
			if b[1] != want {
				t.Fatalf("README.md's control-plane operator policy is out of date; replace its json block with:\n%s", want)
			}
			return
		}
	}
	t.Fatalf("README.md has no json block with the control-plane operator policy (Sid HcplinkControlPlaneOperator); add:\n%s", want)
}
