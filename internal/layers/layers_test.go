package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

const module = "github.com/hcplink/hcplink"

// cliLibraries are the production packages the CLI's commands are built
// from (their tests may import what they like).
var cliLibraries = []string{
	"./internal/diagnose/...",
	"./internal/demo/...",
	"./internal/bench/...",
	"./internal/infra/...",
}

// controllerTrees hold the operators' controllers.
var controllerTrees = []string{
	module + "/internal/operator",
	module + "/internal/controlplane",
}

// TestCLILibrariesImportNoController fails when a CLI library imports a
// package of either operator: the names, tables and intervals it needs
// belong in a shared package. devenv, which runs the operators in place
// of a management cluster, may; the rule is about direct imports.
func TestCLILibrariesImportNoController(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedImports, Dir: "../.."}, cliLibraries...)
	if err != nil {
		t.Fatalf("listing packages: %v", err)
	}
	if len(pkgs) < len(cliLibraries) {
		t.Fatalf("found %d packages under %v: the listing is broken", len(pkgs), cliLibraries)
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		for imported := range p.Imports {
			if isController(imported) {
				t.Errorf("%s imports the controller package %s; move what it uses to api/v1beta1, internal/cloud/<cloud> or another shared package", p.PkgPath, imported)
			}
		}
	}
}

func isController(path string) bool {
	for _, tree := range controllerTrees {
		if path == tree || strings.HasPrefix(path, tree+"/") {
			return true
		}
	}
	return false
}

// TestPackageNamesMatchFolders: a package is named for its folder, so that
// an import reads the same everywhere (an importer may still name it, as
// awscloud names internal/cloud/aws). Commands are package main.
func TestPackageNamesMatchFolders(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName, Dir: "../.."}, "./...")
	if err != nil {
		t.Fatalf("listing packages: %v", err)
	}
	for _, p := range pkgs {
		if p.Name == "main" || p.Name == path.Base(p.PkgPath) {
			continue
		}
		t.Errorf("package %s is named %s; name it %s", p.PkgPath, p.Name, path.Base(p.PkgPath))
	}
}

// genericOperatorPackages are the management operator's packages that
// serve every cloud: each cloud's part is a platform descriptor
// (internal/operator/platform/<cloud>) and its controllers.
var genericOperatorPackages = []string{
	module + "/internal/operator",
	module + "/internal/operator/hostedcluster",
	module + "/internal/operator/nodepool",
	module + "/internal/operator/platform",
}

// registryFile is the one file of the generic packages that names the
// clouds: where the operator's options for each cloud are declared and the
// registry is assembled from them.
const registryFile = "internal/operator/options.go"

// TestGenericOperatorCodeNamesNoCloud fails when a production file of the
// management operator's generic packages (the HostedCluster and NodePool
// controllers, the registry, the operator's setup) imports a cloud's
// package — internal/cloud/<cloud>, a cloud SDK, a platform descriptor, a
// cloud's controller — or picks a cloud's member of the API types
// (spec.platform.aws, AWSPlatform): what differs per cloud belongs in its
// descriptor, so that a new cloud adds packages and one line in
// registryFile.
func TestGenericOperatorCodeNamesNoCloud(t *testing.T) {
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedFiles, Dir: "../.."}, genericOperatorPackages...)
	if err != nil {
		t.Fatalf("listing packages: %v", err)
	}
	if len(pkgs) != len(genericOperatorPackages) {
		t.Fatalf("found %d packages for %v: the listing is broken", len(pkgs), genericOperatorPackages)
	}
	files := 0
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		for _, file := range p.GoFiles {
			if strings.HasSuffix(filepath.ToSlash(file), "/"+registryFile) {
				continue
			}
			files++
			for _, problem := range namesACloud(t, file) {
				t.Errorf("%s: %s; move it to the cloud's platform descriptor (internal/operator/platform/<cloud>)", file, problem)
			}
		}
	}
	if files == 0 {
		t.Fatal("read no file: the listing is broken")
	}
}

// namesACloud lists how a Go file names a cloud.
func namesACloud(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing %s: %v", file, err)
	}
	var out []string
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); isCloudSpecific(p) {
			out = append(out, "it imports "+p)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			switch sel.Sel.Name {
			case "AWS", "Azure", "AWSPlatform", "AzurePlatform":
				out = append(out, "it picks ."+sel.Sel.Name)
			}
		}
		return true
	})
	return out
}

// isCloudSpecific reports whether an import path is one cloud's: its
// package under internal/cloud, its SDK, or a management-operator package
// other than the generic ones (a descriptor, a cloud's controller).
func isCloudSpecific(p string) bool {
	switch {
	case strings.HasPrefix(p, module+"/internal/cloud/"),
		strings.HasPrefix(p, "github.com/aws/"),
		strings.HasPrefix(p, "github.com/Azure/"):
		return true
	case strings.HasPrefix(p, module+"/internal/operator/"):
		return !slices.Contains(genericOperatorPackages, p)
	}
	return false
}
