package install

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// kustomizationFile lists the rendered files, so that `kubectl apply -k
// DIR` or a kustomize overlay takes them as they are.
const kustomizationFile = "kustomization.yaml"

// manifest is one rendered object: the unstructured form that is both
// written out and applied, and its file name.
type manifest struct {
	object *unstructured.Unstructured
	file   string
}

// manifests converts objs to what gets written and applied: no status,
// no empty spec and no creationTimestamp (server-side apply would
// otherwise claim them).
func manifests(objs []client.Object) ([]manifest, error) {
	out := make([]manifest, 0, len(objs))
	for i, obj := range objs {
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, fmt.Errorf("converting %s %s: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
		}
		delete(content, "status")
		if spec, ok := content["spec"].(map[string]any); ok && len(spec) == 0 {
			delete(content, "spec") // a Namespace's empty spec
		}
		unstructured.RemoveNestedField(content, "metadata", "creationTimestamp")
		u := &unstructured.Unstructured{Object: content}
		out = append(out, manifest{object: u, file: fmt.Sprintf("%02d-%s-%s.yaml", i, strings.ToLower(u.GetKind()), u.GetName())})
	}
	return out, nil
}

// Render writes every object as YAML documents to w.
func Render(w io.Writer, opts Options) error {
	ms, err := renderedManifests(opts)
	if err != nil {
		return err
	}
	for i, m := range ms {
		data, err := yaml.Marshal(m.object.Object)
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return nil
}

// RenderDir writes one file per object and a kustomization.yaml listing
// them into dir (created if missing) and returns the files' names.
func RenderDir(dir string, opts Options) ([]string, error) {
	ms, err := renderedManifests(opts)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var kustomization bytes.Buffer
	kustomization.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n")
	files := make([]string, 0, len(ms)+1)
	for _, m := range ms {
		data, err := yaml.Marshal(m.object.Object)
		if err != nil {
			return nil, err
		}
		// Secrets may hold credentials: readable by the owner only.
		if err := os.WriteFile(filepath.Join(dir, m.file), data, 0o600); err != nil {
			return nil, err
		}
		fmt.Fprintf(&kustomization, "- %s\n", m.file)
		files = append(files, m.file)
	}
	if err := os.WriteFile(filepath.Join(dir, kustomizationFile), kustomization.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return append(files, kustomizationFile), nil
}

func renderedManifests(opts Options) ([]manifest, error) {
	objs, err := Objects(opts)
	if err != nil {
		return nil, err
	}
	return manifests(objs)
}
