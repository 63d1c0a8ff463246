package aws_test

import (
	"encoding/json"
	"go/ast"
	"go/types"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/operator/hostedcluster"
)

const module = "github.com/hcplink/hcplink"

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
	pkgs := loadTyped(t, patterns)
	a := newCallAnalysis(pkgs)
	for component, roots := range componentPackages {
		got := a.actionsFrom(pkgs, roots)
		want := awscloud.Actions(component)
		for _, action := range got {
			if !slices.Contains(want, action) {
				t.Errorf("%s calls %s, which the permissions table does not grant it", component, action)
			}
		}
		for _, action := range want {
			if !slices.Contains(got, action) {
				t.Errorf("the permissions table grants %s %s, which its code never calls", component, action)
			}
		}
	}
}

// loadTyped type-checks the packages from source, their dependencies from
// the build's export data. A go command running at the same time (another
// build sharing the cache) can leave an export file missing for a moment,
// so a failed load is tried once more before it counts.
func loadTyped(t *testing.T, patterns []string) []*packages.Package {
	t.Helper()
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports,
		Dir:  "../../..",
	}
	var pkgs []*packages.Package
	for attempt := 1; attempt <= 2; attempt++ {
		var err error
		if pkgs, err = packages.Load(cfg, patterns...); err != nil {
			t.Fatalf("loading packages: %v", err)
		}
		failed := false
		packages.Visit(pkgs, nil, func(p *packages.Package) { failed = failed || len(p.Errors) > 0 })
		if !failed {
			return pkgs
		}
	}
	packages.PrintErrors(pkgs)
	t.Fatal("the packages do not type-check")
	return nil
}

// callAnalysis indexes the function bodies of internal/cloud/aws so that
// calls into it can be followed.
type callAnalysis struct {
	bodies map[string]funcBody // by types.Func.FullName()
}

type funcBody struct {
	node ast.Node
	info *types.Info
}

func newCallAnalysis(pkgs []*packages.Package) *callAnalysis {
	a := &callAnalysis{bodies: map[string]funcBody{}}
	for _, p := range pkgs {
		if p.PkgPath != module+"/internal/cloud/aws" {
			continue
		}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				if fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					a.bodies[fn.FullName()] = funcBody{fd.Body, p.TypesInfo}
				}
			}
		}
	}
	return a
}

// actionsFrom returns, sorted, the actions used by the packages matching
// roots (a path, or a path ending in /... for everything below it).
func (a *callAnalysis) actionsFrom(pkgs []*packages.Package, roots []string) []string {
	actions := map[string]bool{}
	visited := map[string]bool{}
	for _, p := range pkgs {
		if !matchesRoot(p.PkgPath, roots) {
			continue
		}
		for _, f := range p.Syntax {
			a.walk(f, p.TypesInfo, actions, visited)
		}
	}
	out := make([]string, 0, len(actions))
	for action := range actions {
		out = append(out, action)
	}
	slices.Sort(out)
	return out
}

func matchesRoot(path string, roots []string) bool {
	for _, r := range roots {
		if base, ok := strings.CutSuffix(r, "/..."); ok {
			if path == base || strings.HasPrefix(path, base+"/") {
				return true
			}
		} else if path == r {
			return true
		}
	}
	return false
}

// walk records the action of every SDK function or method the node uses
// (called or taken as a value) and follows functions of internal/cloud/aws.
func (a *callAnalysis) walk(node ast.Node, info *types.Info, actions, visited map[string]bool) {
	ast.Inspect(node, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		fn, ok := info.Uses[id].(*types.Func)
		if !ok {
			return true
		}
		fn = fn.Origin()
		if action := sdkAction(fn); action != "" {
			actions[action] = true
			return true
		}
		name := fn.FullName()
		if body, ok := a.bodies[name]; ok && !visited[name] {
			visited[name] = true
			a.walk(body.node, body.info, actions, visited)
		}
		return true
	})
}

// sdkServices maps the SDK interfaces of sdk.go and the SDK's service
// packages to IAM service prefixes.
var sdkServices = map[string]string{
	module + "/internal/cloud/aws.EC2API":                         "ec2",
	module + "/internal/cloud/aws.ELBV2API":                       "elasticloadbalancing",
	module + "/internal/cloud/aws.Route53API":                     "route53",
	module + "/internal/cloud/aws.STSAPI":                         "sts",
	"github.com/aws/aws-sdk-go-v2/service/ec2":                    "ec2",
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2": "elasticloadbalancing",
	"github.com/aws/aws-sdk-go-v2/service/route53":                "route53",
	"github.com/aws/aws-sdk-go-v2/service/sts":                    "sts",
}

var paginatorOrWaiter = regexp.MustCompile(`^New(\w+?)(Paginator|[A-Z]\w*Waiter)$`)

// sdkAction is the IAM action behind an SDK interface method, an SDK
// client method, or an SDK paginator's constructor ("" for anything else).
func sdkAction(fn *types.Func) string {
	sig := fn.Type().(*types.Signature)
	if recv := sig.Recv(); recv != nil {
		named := namedOf(recv.Type())
		if named == nil || named.Obj().Pkg() == nil {
			return ""
		}
		owner := named.Obj().Pkg().Path() + "." + named.Obj().Name()
		if service, ok := sdkServices[owner]; ok {
			return service + ":" + fn.Name()
		}
		if service, ok := sdkServices[named.Obj().Pkg().Path()]; ok && named.Obj().Name() == "Client" {
			return service + ":" + fn.Name()
		}
		return ""
	}
	if fn.Pkg() == nil {
		return ""
	}
	service, ok := sdkServices[fn.Pkg().Path()]
	if !ok {
		return ""
	}
	if m := paginatorOrWaiter.FindStringSubmatch(fn.Name()); m != nil {
		return service + ":" + m[1]
	}
	return ""
}

func namedOf(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, _ := t.(*types.Named)
	return named
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
