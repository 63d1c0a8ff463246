// Package crd embeds the CustomResourceDefinitions that `make generate`
// writes into this directory, so that tests, the local environment and the
// installer apply exactly those files wherever the binary runs.
package crd

import (
	"embed"
	"fmt"
	"io/fs"
	"path"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

//go:embed *.yaml
var files embed.FS

// Files returns the generated CRD manifests, one YAML file each.
func Files() fs.FS { return files }

// CustomResourceDefinitions parses the generated CRD manifests, in file name
// order.
func CustomResourceDefinitions() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	names, err := fs.Glob(files, "*.yaml")
	if err != nil {
		return nil, err
	}
	crds := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(names))
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("parsing %s: %w", path.Join("config/crd", name), err)
		}
		crds = append(crds, crd)
	}
	return crds, nil
}
