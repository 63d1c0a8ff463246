// Package sdkcalls finds, by reading the type-checked source, which cloud
// SDK methods a set of packages can call: directly, or through the
// functions of the cloud packages they use (internal/cloud/aws,
// internal/cloud/azure). Permission tables are kept equal to what it finds,
// so that a policy grants exactly what the code calls. Only tests import
// it.
package sdkcalls

import (
	"go/ast"
	"go/types"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// Module is hcplink's module path.
const Module = "github.com/hcplink/hcplink"

// Load type-checks the packages from source (dir: the module's root), their
// dependencies from the build's export data. A go command running at the
// same time (another build sharing the cache) can leave an export file
// missing for a moment, so a failed load is tried once more before it
// counts.
func Load(t testing.TB, dir string, patterns ...string) []*packages.Package {
	t.Helper()
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports,
		Dir:  dir,
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

// Classifier names the SDK call a function stands for ("" for any other).
type Classifier func(*types.Func) string

// Graph indexes the function bodies of the packages whose calls are
// followed (the cloud packages), so that a call into them is followed to
// the SDK calls it makes.
type Graph struct {
	bodies   map[string]funcBody // by types.Func.FullName()
	methods  map[string][]string // receiver type name → its exported methods' FullNames
	classify Classifier
}

type funcBody struct {
	node ast.Node
	info *types.Info
}

// NewGraph indexes the bodies of the loaded packages (dependencies
// included) whose import path is one of follow.
func NewGraph(pkgs []*packages.Package, classify Classifier, follow ...string) *Graph {
	g := &Graph{bodies: map[string]funcBody{}, methods: map[string][]string{}, classify: classify}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if !slices.Contains(follow, p.PkgPath) {
			return
		}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func)
				if !ok {
					continue
				}
				g.bodies[fn.FullName()] = funcBody{fd.Body, p.TypesInfo}
				if recv := fn.Type().(*types.Signature).Recv(); recv != nil && fn.Exported() {
					if named := namedOf(recv.Type()); named != nil {
						g.methods[named.Obj().Name()] = append(g.methods[named.Obj().Name()], fn.FullName())
					}
				}
			}
		}
	})
	return g
}

// From returns, sorted, the SDK calls the packages matching roots (a path,
// or a path ending in /... for everything below it) use — called or taken
// as a value — directly or through the followed packages. Test files are
// not loaded, so they do not count.
func (g *Graph) From(pkgs []*packages.Package, roots ...string) []string {
	found, visited := map[string]bool{}, map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if !MatchesRoot(p.PkgPath, roots) {
			return
		}
		for _, f := range p.Syntax {
			g.walk(f, p.TypesInfo, found, visited)
		}
	})
	return sortedKeys(found)
}

// MethodsOf lists the exported methods (FullNames) of a type of the
// followed packages, by the type's name.
func (g *Graph) MethodsOf(typeName string) []string { return g.methods[typeName] }

// FromFunc returns, sorted, the SDK calls reachable from one followed
// function (by types.Func.FullName()).
func (g *Graph) FromFunc(fullName string) []string {
	found, visited := map[string]bool{}, map[string]bool{fullName: true}
	if body, ok := g.bodies[fullName]; ok {
		g.walk(body.node, body.info, found, visited)
	}
	return sortedKeys(found)
}

func (g *Graph) walk(node ast.Node, info *types.Info, found, visited map[string]bool) {
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
		if call := g.classify(fn); call != "" {
			found[call] = true
			return true
		}
		name := fn.FullName()
		if body, ok := g.bodies[name]; ok && !visited[name] {
			visited[name] = true
			g.walk(body.node, body.info, found, visited)
		}
		return true
	})
}

// MatchesRoot says whether an import path is a root or below one ending
// in /....
func MatchesRoot(path string, roots []string) bool {
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

// awsServices maps the SDK interfaces of internal/cloud/aws/sdk.go and the
// SDK's service packages to IAM service prefixes.
var awsServices = map[string]string{
	Module + "/internal/cloud/aws.EC2API":                         "ec2",
	Module + "/internal/cloud/aws.ELBV2API":                       "elasticloadbalancing",
	Module + "/internal/cloud/aws.Route53API":                     "route53",
	Module + "/internal/cloud/aws.STSAPI":                         "sts",
	"github.com/aws/aws-sdk-go-v2/service/ec2":                    "ec2",
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2": "elasticloadbalancing",
	"github.com/aws/aws-sdk-go-v2/service/route53":                "route53",
	"github.com/aws/aws-sdk-go-v2/service/sts":                    "sts",
}

var paginatorOrWaiter = regexp.MustCompile(`^New(\w+?)(Paginator|[A-Z]\w*Waiter)$`)

// AWSAction is the IAM action ("ec2:DescribeSubnets") behind an SDK
// interface method of internal/cloud/aws, an SDK client method, or an SDK
// paginator's or waiter's constructor.
func AWSAction(fn *types.Func) string {
	if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
		named := namedOf(recv.Type())
		if named == nil || named.Obj().Pkg() == nil {
			return ""
		}
		pkg := named.Obj().Pkg().Path()
		if service, ok := awsServices[pkg+"."+named.Obj().Name()]; ok {
			return service + ":" + fn.Name()
		}
		if service, ok := awsServices[pkg]; ok && named.Obj().Name() == "Client" {
			return service + ":" + fn.Name()
		}
		return ""
	}
	if fn.Pkg() == nil {
		return ""
	}
	service, ok := awsServices[fn.Pkg().Path()]
	if !ok {
		return ""
	}
	if m := paginatorOrWaiter.FindStringSubmatch(fn.Name()); m != nil {
		return service + ":" + m[1]
	}
	return ""
}

// azurePackage is where the Azure SDK interfaces (sdk.go) live.
const azurePackage = Module + "/internal/cloud/azure"

// azureSDKPackages hold the SDK clients behind those interfaces.
var azureSDKPackages = map[string]bool{
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7":    true,
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns": true,
}

// AzureMethod names an SDK interface method of internal/cloud/azure/sdk.go,
// or an SDK client's method in its interface's terms
// (armnetwork.SubnetsClient.Get → "SubnetsAPI.Get"); azurecloud.MethodActions
// maps these names to RBAC actions.
func AzureMethod(fn *types.Func) string {
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil {
		return ""
	}
	named := namedOf(recv.Type())
	if named == nil || named.Obj().Pkg() == nil {
		return ""
	}
	path, typeName := named.Obj().Pkg().Path(), named.Obj().Name()
	switch {
	case path == azurePackage && strings.HasSuffix(typeName, "API"):
		if _, ok := named.Underlying().(*types.Interface); ok {
			return typeName + "." + fn.Name()
		}
	case azureSDKPackages[path] && strings.HasSuffix(typeName, "Client"):
		return strings.TrimSuffix(typeName, "Client") + "API." + fn.Name()
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

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Diff compares the actions code calls with those a permissions table
// grants: missing are called but not granted, unused granted but never
// called.
func Diff(called, granted []string) (missing, unused []string) {
	for _, a := range called {
		if !slices.Contains(granted, a) {
			missing = append(missing, a)
		}
	}
	for _, a := range granted {
		if !slices.Contains(called, a) {
			unused = append(unused, a)
		}
	}
	return missing, unused
}
