package reconcilekit

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/controlplane/hcpref"
)

// ObservedWriter writes the private-link object an observer keeps (of
// Kind): owned by the HostedControlPlane as its controller and carrying
// its cluster annotation, so that the management operator finds its
// cluster and the object goes with the control plane.
type ObservedWriter struct {
	Client client.Client
	Kind   string
	// FieldOwner names the observer's patches.
	FieldOwner string
	// CreateOptions go with the creation (an observer that names its
	// creations passes client.FieldOwner).
	CreateOptions []client.CreateOption
}

// Create creates obj (its name, namespace and spec set) owned by hcp and
// annotated with its cluster; keysAndValues go to the log line.
func (w ObservedWriter) Create(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane, obj client.Object, keysAndValues ...any) error {
	obj.SetOwnerReferences([]metav1.OwnerReference{hcpref.Controller(hcp)})
	if cluster := hcp.Annotations[hcplinkv1beta1.ClusterAnnotation]; cluster != "" {
		obj.SetAnnotations(map[string]string{hcplinkv1beta1.ClusterAnnotation: cluster})
	}
	if err := w.Client.Create(ctx, obj, w.CreateOptions...); err != nil {
		return fmt.Errorf("creating %s %s: %w", w.Kind, obj.GetName(), err)
	}
	ctrl.LoggerFrom(ctx).Info("Created "+w.Kind, append([]any{logKey(w.Kind), obj.GetName()}, keysAndValues...)...)
	return nil
}

// Patch merge-patches obj with spec (the fields that differ from what the
// observer wants; empty: none) and, in its metadata, hcp's cluster
// annotation when it differs and hcp as controller when it has none.
// Nothing is written when nothing differs.
func (w ObservedWriter) Patch(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane, obj client.Object, spec map[string]any, keysAndValues ...any) error {
	patch := map[string]any{}
	if len(spec) > 0 {
		patch["spec"] = spec
	}
	meta := map[string]any{}
	if cluster := hcp.Annotations[hcplinkv1beta1.ClusterAnnotation]; cluster != "" && obj.GetAnnotations()[hcplinkv1beta1.ClusterAnnotation] != cluster {
		meta["annotations"] = map[string]any{hcplinkv1beta1.ClusterAnnotation: cluster}
	}
	if metav1.GetControllerOf(obj) == nil {
		meta["ownerReferences"] = append(slices.Clone(obj.GetOwnerReferences()), hcpref.Controller(hcp))
	}
	if len(meta) > 0 {
		patch["metadata"] = meta
	}
	if len(patch) == 0 {
		return nil
	}
	raw, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	if err := w.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, raw), client.FieldOwner(w.FieldOwner)); err != nil {
		return fmt.Errorf("updating %s %s: %w", w.Kind, obj.GetName(), err)
	}
	ctrl.LoggerFrom(ctx).Info("Updated "+w.Kind, append([]any{logKey(w.Kind), obj.GetName()}, keysAndValues...)...)
	return nil
}
