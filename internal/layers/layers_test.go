package layers

import (
	"path"
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
