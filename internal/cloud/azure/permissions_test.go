package azurecloud_test

import (
	"encoding/json"
	"go/ast"
	"go/types"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	azurecloud "github.com/hcplink/hcplink/internal/cloud/azure"
)

const (
	module  = "github.com/hcplink/hcplink"
	pkgPath = module + "/internal/cloud/azure"
)

// providerComponents: which operator's identity each provider runs with.
var providerComponents = map[string]azurecloud.Component{
	"PrivateLinkServices": azurecloud.ManagementOperator,
	"PrivateEndpoints":    azurecloud.ControlPlaneOperator,
	"PrivateDNS":          azurecloud.ControlPlaneOperator,
}

// componentPackages are the packages whose code runs with each
// component's identity.
var componentPackages = map[azurecloud.Component]string{
	azurecloud.ControlPlaneOperator: module + "/internal/controlplane/...",
	azurecloud.ManagementOperator:   module + "/internal/operator/...",
}

// sdkPackages map the SDK packages whose clients stand behind the
// interfaces of sdk.go.
var sdkPackages = map[string]bool{
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v7":    true,
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/privatedns/armprivatedns": true,
}

// TestPermissionsAreExactlyWhatTheProvidersCall follows every method of
// each provider (through every function of this package it uses) to the
// SDK interface methods it calls, maps them to actions with MethodActions,
// and compares with the table of the provider's component: a new call
// without its permission fails here, and so does a permission no provider
// needs.
func TestPermissionsAreExactlyWhatTheProvidersCall(t *testing.T) {
	pkgs := loadTyped(t, pkgPath)
	a := newCallAnalysis(pkgs)
	got := map[azurecloud.Component]map[string]bool{}
	for provider, component := range providerComponents {
		if got[component] == nil {
			got[component] = map[string]bool{}
		}
		methods := a.methodsOf(provider)
		if len(methods) == 0 {
			t.Fatalf("provider %s has no methods", provider)
		}
		for _, m := range methods {
			for _, method := range a.sdkMethodsFrom(m) {
				actions, ok := azurecloud.MethodActions[method]
				if !ok {
					t.Errorf("%s calls %s, which MethodActions does not map", provider, method)
				}
				for _, action := range actions {
					got[component][action] = true
				}
			}
		}
	}
	for component, actions := range got {
		compareActions(t, component, keys(actions), azurecloud.Actions(component), true)
	}
}

// TestOperatorsCallOnlyWhatTheTableGrants follows each operator's packages
// (through internal/cloud/azure) to the SDK methods they call, directly on
// an SDK client or through a provider: each must be granted. (The
// converse — every grant used — is checked on the providers above.)
func TestOperatorsCallOnlyWhatTheTableGrants(t *testing.T) {
	var patterns []string
	for _, p := range componentPackages {
		patterns = append(patterns, p)
	}
	pkgs := loadTyped(t, append(patterns, pkgPath)...)
	a := newCallAnalysis(pkgs)
	for component, root := range componentPackages {
		base := strings.TrimSuffix(root, "/...")
		methods := map[string]bool{}
		for _, p := range pkgs {
			if p.PkgPath != base && !strings.HasPrefix(p.PkgPath, base+"/") {
				continue
			}
			for _, f := range p.Syntax {
				for _, m := range a.sdkMethodsIn(f, p.TypesInfo) {
					methods[m] = true
				}
			}
		}
		var got []string
		for m := range methods {
			actions, ok := azurecloud.MethodActions[m]
			if !ok {
				t.Errorf("%s calls %s, which has no entry in MethodActions (add it to sdk.go and the table)", component, m)
			}
			got = append(got, actions...)
		}
		slices.Sort(got)
		compareActions(t, component, slices.Compact(got), azurecloud.Actions(component), false)
	}
}

func compareActions(t *testing.T, c azurecloud.Component, got, want []string, exact bool) {
	t.Helper()
	for _, action := range got {
		if !slices.Contains(want, action) {
			t.Errorf("%s calls what needs %s, which the permissions table does not grant it", c, action)
		}
	}
	if !exact {
		return
	}
	for _, action := range want {
		if !slices.Contains(got, action) {
			t.Errorf("the permissions table grants %s %s, which its providers never need", c, action)
		}
	}
}

// TestEverySDKMethodIsMapped: each method of each interface of sdk.go has
// its actions, and MethodActions names no method that does not exist.
func TestEverySDKMethodIsMapped(t *testing.T) {
	pkgs := loadTyped(t, pkgPath)
	scope := pkgs[0].Types.Scope()
	declared := map[string]bool{}
	for _, name := range scope.Names() {
		obj, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || !strings.HasSuffix(name, "API") {
			continue
		}
		iface, ok := obj.Type().Underlying().(*types.Interface)
		if !ok {
			continue
		}
		for i := 0; i < iface.NumMethods(); i++ {
			key := name + "." + iface.Method(i).Name()
			declared[key] = true
			if len(azurecloud.MethodActions[key]) == 0 {
				t.Errorf("%s has no actions in MethodActions", key)
			}
		}
	}
	for key := range azurecloud.MethodActions {
		if !declared[key] {
			t.Errorf("MethodActions maps %s, which no interface of sdk.go declares", key)
		}
	}
}

func TestPermissionsTableHasEachActionOnceWithAReason(t *testing.T) {
	seen := map[string]bool{}
	valid := regexp.MustCompile(`^Microsoft\.Network/[A-Za-z]+(/[A-Za-z]+)*/(read|write|delete|action)$`)
	for _, p := range azurecloud.Permissions {
		key := string(p.Component) + " " + p.Action
		if seen[key] {
			t.Errorf("%s is listed twice", key)
		}
		seen[key] = true
		if strings.TrimSpace(p.Why) == "" {
			t.Errorf("%s says not why it is needed", key)
		}
		if !valid.MatchString(p.Action) {
			t.Errorf("%s is not an Azure RBAC action of Microsoft.Network", key)
		}
	}
}

func TestCustomRoleJSON(t *testing.T) {
	scope := "/subscriptions/x/resourceGroups/y"
	for _, c := range []azurecloud.Component{azurecloud.ControlPlaneOperator, azurecloud.ManagementOperator} {
		var role azurecloud.RoleDefinition
		if err := json.Unmarshal([]byte(azurecloud.CustomRoleJSON(c, scope)), &role); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(role.Actions, azurecloud.Actions(c)) || !slices.IsSorted(role.Actions) || len(role.Actions) == 0 ||
			!slices.Equal(role.AssignableScopes, []string{scope}) || role.NotActions == nil {
			t.Errorf("%s role = %+v", c, role)
		}
	}
}

// loadTyped type-checks the packages from source, their dependencies from
// export data; a failed load (a build sharing the cache) is tried once
// more before it counts.
func loadTyped(t *testing.T, patterns ...string) []*packages.Package {
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

// callAnalysis indexes the function bodies of internal/cloud/azure.
type callAnalysis struct {
	bodies  map[string]funcBody // by types.Func.FullName()
	methods map[string][]string // receiver type name → FullNames
}

type funcBody struct {
	node ast.Node
	info *types.Info
}

func newCallAnalysis(pkgs []*packages.Package) *callAnalysis {
	a := &callAnalysis{bodies: map[string]funcBody{}, methods: map[string][]string{}}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.PkgPath != pkgPath {
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
				a.bodies[fn.FullName()] = funcBody{fd.Body, p.TypesInfo}
				if recv := fn.Type().(*types.Signature).Recv(); recv != nil && fn.Exported() {
					if named := namedOf(recv.Type()); named != nil {
						a.methods[named.Obj().Name()] = append(a.methods[named.Obj().Name()], fn.FullName())
					}
				}
			}
		}
	})
	return a
}

func (a *callAnalysis) methodsOf(typeName string) []string { return a.methods[typeName] }

// sdkMethodsFrom lists the SDK methods ("SubnetsAPI.Get") reachable from
// the function fullName.
func (a *callAnalysis) sdkMethodsFrom(fullName string) []string {
	found, visited := map[string]bool{}, map[string]bool{fullName: true}
	body := a.bodies[fullName]
	a.walk(body.node, body.info, found, visited)
	return keys(found)
}

// sdkMethodsIn lists the SDK methods reachable from a file.
func (a *callAnalysis) sdkMethodsIn(f *ast.File, info *types.Info) []string {
	found := map[string]bool{}
	a.walk(f, info, found, map[string]bool{})
	return keys(found)
}

// walk records every SDK method the node uses (an interface method of
// sdk.go, or an SDK client's method, as "<Interface>.<Method>") and
// follows functions of internal/cloud/azure.
func (a *callAnalysis) walk(node ast.Node, info *types.Info, found, visited map[string]bool) {
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
		if m := sdkMethod(fn); m != "" {
			found[m] = true
			return true
		}
		name := fn.FullName()
		if body, ok := a.bodies[name]; ok && !visited[name] {
			visited[name] = true
			a.walk(body.node, body.info, found, visited)
		}
		return true
	})
}

// sdkMethod names an SDK interface method of sdk.go, or the method of an
// SDK client (armnetwork.SubnetsClient.Get → "SubnetsAPI.Get";
// PrivateZonesClient → "PrivateZonesAPI"), "" for anything else.
func sdkMethod(fn *types.Func) string {
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
	case path == pkgPath && strings.HasSuffix(typeName, "API"):
		if _, ok := named.Underlying().(*types.Interface); ok {
			return typeName + "." + fn.Name()
		}
	case sdkPackages[path] && strings.HasSuffix(typeName, "Client"):
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

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
