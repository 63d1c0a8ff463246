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
	"unicode"

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

// A genericLayer is one operator's cloud-neutral code: the packages that
// serve every cloud, and the one file among them that names the clouds to
// assemble the platform registry.
type genericLayer struct {
	// packages are the layer's generic packages, by import path.
	packages []string
	// registryFile assembles the registry from the clouds' descriptors.
	registryFile string
	// descriptors is where a cloud's specifics go instead.
	descriptors string
	// allowed are the places known to name a cloud that are yet to move,
	// by file (relative to the module) and what it names, each with the
	// reason it stays for now.
	allowed map[allowedName]string
}

// An allowedName is one file's naming of a cloud, as namesACloud words it.
type allowedName struct{ file, names string }

// managementOperator's generic packages serve every cloud: each cloud's
// part is a platform descriptor (internal/operator/platform/<cloud>) and
// its controllers. The registry is assembled from the operator's options
// for each cloud.
var managementOperator = genericLayer{
	packages: []string{
		module + "/internal/operator",
		module + "/internal/operator/hostedcluster",
		module + "/internal/operator/nodepool",
		module + "/internal/operator/platform",
	},
	registryFile: "internal/operator/options.go",
	descriptors:  "internal/operator/platform/<cloud>",
}

// controlPlaneOperator's generic packages — its setup, the router
// Services, the credentials check, the HostedControlPlane reference, the
// registry, and the reconciler kit both operators' cloud controllers share
// — serve every cloud; each cloud's part is a descriptor
// (internal/controlplane/platform/<cloud>) and its controllers.
var controlPlaneOperator = genericLayer{
	packages: []string{
		module + "/internal/controlplane",
		module + "/internal/controlplane/routers",
		module + "/internal/controlplane/credentials",
		module + "/internal/controlplane/hcpref",
		module + "/internal/controlplane/platform",
		module + "/internal/reconcilekit",
	},
	registryFile: "internal/controlplane/platforms.go",
	descriptors:  "internal/controlplane/platform/<cloud>",
}

// TestGenericOperatorCodeNamesNoCloud fails when a production file of the
// management operator's generic packages (the HostedCluster and NodePool
// controllers, the registry, the operator's setup) names a cloud (see
// namesACloud): what differs per cloud belongs in its descriptor, so that a
// new cloud adds packages and one line in the registry file.
func TestGenericOperatorCodeNamesNoCloud(t *testing.T) {
	checkNamesNoCloud(t, managementOperator)
}

// TestGenericControlPlaneCodeNamesNoCloud is the same rule for the
// control-plane operator: its setup, router Services, credentials check,
// registry and the shared reconciler kit name no cloud, outside the file
// that assembles the registry.
func TestGenericControlPlaneCodeNamesNoCloud(t *testing.T) {
	checkNamesNoCloud(t, controlPlaneOperator)
}

// checkNamesNoCloud reports every production file of the layer's generic
// packages, other than its registry file, that names a cloud.
func checkNamesNoCloud(t *testing.T, layer genericLayer) {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedFiles, Dir: "../.."}, layer.packages...)
	if err != nil {
		t.Fatalf("listing packages: %v", err)
	}
	if len(pkgs) != len(layer.packages) {
		t.Fatalf("found %d packages for %v: the listing is broken", len(pkgs), layer.packages)
	}
	files, registryRead := 0, false
	used := map[allowedName]bool{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		for _, file := range p.GoFiles {
			rel := moduleRelative(t, file)
			if rel == layer.registryFile {
				registryRead = true
				continue
			}
			files++
			for _, problem := range namesACloud(t, file) {
				if at := (allowedName{rel, problem}); layer.allowed[at] != "" {
					used[at] = true
					continue
				}
				t.Errorf("%s: %s; move it to the cloud's platform descriptor (%s)", file, problem, layer.descriptors)
			}
		}
	}
	if files == 0 {
		t.Fatal("read no file: the listing is broken")
	}
	if !registryRead {
		t.Errorf("%s is not among the generic packages' files: update the layer's registryFile", layer.registryFile)
	}
	for at := range layer.allowed {
		if !used[at] {
			t.Errorf("%s no longer says %q: remove it from the allowed places", at.file, at.names)
		}
	}
}

// moduleRelative is a listed file's path relative to the module's root.
func moduleRelative(t *testing.T, file string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(root, file)
	if err != nil {
		t.Fatalf("%s is outside the module: %v", file, err)
	}
	return filepath.ToSlash(rel)
}

// namesACloud lists how a Go file names a cloud: it imports a cloud's
// package — internal/cloud/<cloud>, a cloud SDK, a platform descriptor, a
// cloud's controller — or picks a cloud's member of the API types
// (spec.platform.aws, AWSPlatform, AzureConfigurationValidCondition).
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
		if sel, ok := n.(*ast.SelectorExpr); ok && isCloudName(sel.Sel.Name) {
			out = append(out, "it picks ."+sel.Sel.Name)
		}
		return true
	})
	return out
}

// isCloudName reports whether an identifier is named for a cloud: AWS,
// AzurePlatform, GCPPlatformSpec (but not AWSome or Azurely).
func isCloudName(name string) bool {
	for _, cloud := range []string{"AWS", "Azure", "GCP"} {
		rest, ok := strings.CutPrefix(name, cloud)
		if ok && (rest == "" || unicode.IsUpper(rune(rest[0]))) {
			return true
		}
	}
	return false
}

// isCloudSpecific reports whether an import path is one cloud's: its
// package under internal/cloud, its SDK, or an operator package that is
// no layer's generic package (a descriptor, a cloud's controller).
func isCloudSpecific(p string) bool {
	switch {
	case strings.HasPrefix(p, module+"/internal/cloud/"),
		strings.HasPrefix(p, "github.com/aws/"),
		strings.HasPrefix(p, "github.com/Azure/"),
		strings.HasPrefix(p, "google.golang.org/api/"),
		strings.HasPrefix(p, "cloud.google.com/go/"):
		return true
	case isController(p):
		return !slices.Contains(managementOperator.packages, p) && !slices.Contains(controlPlaneOperator.packages, p)
	}
	return false
}
