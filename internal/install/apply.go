package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/monitoring"
)

// validationNamespace holds namespaced objects during a dry run when the
// operator's namespace does not exist yet: the server validates them
// there (it refuses objects in a namespace that does not exist).
const validationNamespace = "default"

// Outcome is what applying one object did (or, in a dry run, would do).
type Outcome string

const (
	Created    Outcome = "created"
	Configured Outcome = "configured"
	Unchanged  Outcome = "unchanged"
)

// Result is one applied object.
type Result struct {
	Kind, Namespace, Name string
	Outcome               Outcome
	// Note says something a person should know about this object.
	Note string
}

// String is the line a person reads.
func (r Result) String() string {
	s := strings.ToLower(r.Kind) + " " + r.Name
	if r.Namespace != "" {
		s = strings.ToLower(r.Kind) + " " + r.Namespace + "/" + r.Name
	}
	s += " " + string(r.Outcome)
	if r.Note != "" {
		s += " (" + r.Note + ")"
	}
	return s
}

// ApplyOptions tune Apply.
type ApplyOptions struct {
	// DryRun has the API server validate and default every object
	// without persisting anything.
	DryRun bool
	// Progress receives one line per object as it is applied; nil
	// discards them.
	Progress io.Writer
	// Kinds, when set, limits the apply to objects of these kinds (see
	// IdentityKinds).
	Kinds []string
}

// IdentityKinds are the operator's namespace, ServiceAccount and RBAC:
// what a process running the operator outside the cluster (the local
// environment, tests) needs to act as the installed operator.
var IdentityKinds = []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding"}

// Apply server-side applies every object with the FieldManager field
// manager, taking over fields another manager set (install owns these
// objects). Applying the same options twice changes nothing.
func Apply(ctx context.Context, c client.Client, opts Options, ao ApplyOptions) ([]Result, error) {
	ms, err := renderedManifests(opts)
	if err != nil {
		return nil, err
	}
	if err := checkServed(c, ms, ao.Kinds); err != nil {
		return nil, err // before anything is applied
	}
	progress := ao.Progress
	if progress == nil {
		progress = io.Discard
	}
	namespaceMissing := false
	if ao.DryRun {
		ns := &corev1.Namespace{}
		err := c.Get(ctx, client.ObjectKey{Name: opts.withDefaults().Namespace}, ns)
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading namespace %s: %w", opts.withDefaults().Namespace, err)
		}
		namespaceMissing = apierrors.IsNotFound(err)
	}
	results := make([]Result, 0, len(ms))
	for _, m := range ms {
		if len(ao.Kinds) > 0 && !slices.Contains(ao.Kinds, m.object.GetKind()) {
			continue
		}
		r, err := applyOne(ctx, c, m.object, ao.DryRun, namespaceMissing)
		if err != nil {
			return results, err
		}
		results = append(results, r)
		fmt.Fprintln(progress, r)
	}
	return results, nil
}

func applyOne(ctx context.Context, c client.Client, desired *unstructured.Unstructured, dryRun, namespaceMissing bool) (Result, error) {
	obj := desired.DeepCopy()
	r := Result{Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if dryRun && namespaceMissing && obj.GetNamespace() != "" {
		obj.SetNamespace(validationNamespace)
		r.Note = fmt.Sprintf("validated in namespace %s: %s does not exist yet", validationNamespace, r.Namespace)
	}
	existing := &unstructured.Unstructured{}
	existing.SetGroupVersionKind(obj.GroupVersionKind())
	found := true
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), existing); apierrors.IsNotFound(err) {
		found = false
	} else if err != nil {
		return r, fmt.Errorf("reading %s: %w", describe(r), err)
	}
	applyOpts := []client.ApplyOption{client.FieldOwner(FieldManager), client.ForceOwnership}
	if dryRun {
		applyOpts = append(applyOpts, client.DryRunAll)
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), applyOpts...); err != nil {
		return r, fmt.Errorf("applying %s: %w (re-running install is safe)", describe(r), err)
	}
	switch {
	case !found:
		r.Outcome = Created
	case sameContent(existing, obj):
		r.Outcome = Unchanged
	default:
		r.Outcome = Configured
	}
	if dryRun {
		r.Note = strings.TrimPrefix(r.Note+"; dry run", "; ")
	}
	return r, nil
}

// sameContent compares two versions of an object, leaving out what every
// write changes.
func sameContent(a, b *unstructured.Unstructured) bool {
	strip := func(u *unstructured.Unstructured) map[string]any {
		c := u.DeepCopy()
		for _, f := range []string{"managedFields", "resourceVersion", "generation"} {
			unstructured.RemoveNestedField(c.Object, "metadata", f)
		}
		return c.Object
	}
	return equality.Semantic.DeepEqual(strip(a), strip(b))
}

func describe(r Result) string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// checkServed refuses, before anything is applied, objects of a kind the
// cluster does not serve and no CustomResourceDefinition of this install
// defines: applying the rest first would leave a half-done install and an
// error from the API server that does not say what to do.
func checkServed(c client.Client, ms []manifest, kinds []string) error {
	defined := map[schema.GroupKind]bool{}
	for _, m := range ms {
		if m.object.GetKind() != "CustomResourceDefinition" {
			continue
		}
		group, _, _ := unstructured.NestedString(m.object.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(m.object.Object, "spec", "names", "kind")
		defined[schema.GroupKind{Group: group, Kind: kind}] = true
	}
	var missing []string
	for _, m := range ms {
		gvk := m.object.GroupVersionKind()
		if (len(kinds) > 0 && !slices.Contains(kinds, gvk.Kind)) || defined[gvk.GroupKind()] {
			continue
		}
		_, err := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		switch {
		case meta.IsNoMatchError(err):
			missing = append(missing, gvk.Kind+" ("+gvk.GroupVersion().String()+")")
		case err != nil:
			return fmt.Errorf("asking the API server whether it serves %s: %w", gvk.Kind, err)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	msg := "the cluster does not serve " + strings.Join(missing, ", ") + "; nothing was applied"
	for _, m := range missing {
		if strings.HasPrefix(m, monitoring.PrometheusRuleKind.Kind+" ") {
			msg += ". --monitoring installs alerting rules for the Prometheus Operator: install its CRDs first, " +
				"drop --monitoring, or take the rules and dashboard with --monitoring --render and apply them where Prometheus runs"
			break
		}
	}
	return errors.New(msg)
}
