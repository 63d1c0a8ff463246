package diagnose

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// genericFiles walk, judge and draw every cloud alike; a cloud's own
// walk, verdicts and clients live in its files and its entry of
// cloudPaths (platforms.go).
var genericFiles = []string{"diagnose.go", "kube_walk.go", "kube_verdicts.go", "model.go", "output.go", "svg.go"}

// TestGenericFilesNameNoCloud fails when a generic file imports a cloud's
// package or SDK, or picks a cloud's member (hc.Spec.Platform.AWS,
// hcplinkv1beta1.AzurePlatform): a new cloud adds its files and one line
// of the registry, and no switch here grows.
func TestGenericFilesNameNoCloud(t *testing.T) {
	for _, file := range genericFiles {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, cloud := range []string{"/internal/cloud/", "github.com/aws/", "github.com/Azure/", "google.golang.org/api/"} {
				if strings.Contains(p, cloud) {
					t.Errorf("%s imports %s; a cloud's code belongs in its own files", file, p)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && namedForCloud(sel.Sel.Name) {
				t.Errorf("%s picks .%s; a cloud's code belongs in its own files and its entry of cloudPaths", file, sel.Sel.Name)
			}
			return true
		})
	}
}

// namedForCloud: AWS, AzurePlatform, GCPPlatformSpec (not AWSome).
func namedForCloud(name string) bool {
	for _, cloud := range []string{"AWS", "Azure", "GCP"} {
		if rest, ok := strings.CutPrefix(name, cloud); ok && (rest == "" || unicode.IsUpper(rune(rest[0]))) {
			return true
		}
	}
	return false
}
