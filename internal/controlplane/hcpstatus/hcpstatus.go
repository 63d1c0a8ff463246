// Package hcpstatus writes the control-plane operator's conditions on the
// HostedControlPlane. Several controllers (and the operator) write
// conditions on the same object, so each controller applies only its own
// condition by server-side apply under its own field manager: no writer
// clobbers another's entries, and no write happens when nothing changed.
package hcpstatus

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

// ApplyCondition sets cond on hcp's status under fieldOwner and reports
// whether it wrote. It stamps cond with hcp's generation, keeps the
// lastTransitionTime while the status stays the same, and writes nothing
// when the condition already reads the same (status, reason, message and
// observedGeneration). On success hcp.Status.Conditions holds the new
// condition too.
func ApplyCondition(ctx context.Context, c client.Client, hcp *hcplinkv1beta1.HostedControlPlane, cond metav1.Condition, fieldOwner string) (bool, error) {
	cond.ObservedGeneration = hcp.Generation
	existing := meta.FindStatusCondition(hcp.Status.Conditions, cond.Type)
	if existing != nil && Same(*existing, cond) {
		return false, nil
	}
	if existing != nil && existing.Status == cond.Status {
		cond.LastTransitionTime = existing.LastTransitionTime
	}
	if cond.LastTransitionTime.IsZero() {
		cond.LastTransitionTime = metav1.Now()
	}

	entry, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&cond)
	if err != nil {
		return false, fmt.Errorf("converting condition %s: %w", cond.Type, err)
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(hcplinkv1beta1.GroupVersion.String())
	u.SetKind("HostedControlPlane")
	u.SetNamespace(hcp.Namespace)
	u.SetName(hcp.Name)
	u.SetUID(hcp.UID) // apply to this object only, never to a successor of the same name
	if err := unstructured.SetNestedSlice(u.Object, []any{entry}, "status", "conditions"); err != nil {
		return false, fmt.Errorf("building the status of condition %s: %w", cond.Type, err)
	}
	if err := c.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return false, fmt.Errorf("writing condition %s of HostedControlPlane %s/%s: %w", cond.Type, hcp.Namespace, hcp.Name, err)
	}
	meta.SetStatusCondition(&hcp.Status.Conditions, cond)
	return true, nil
}

// Same reports whether two conditions read the same: type, status, reason,
// message and observedGeneration (lastTransitionTime aside).
func Same(a, b metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason &&
		a.Message == b.Message && a.ObservedGeneration == b.ObservedGeneration
}
