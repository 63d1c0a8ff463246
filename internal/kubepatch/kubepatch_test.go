package kubepatch

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

func newConfigMap(t *testing.T, ns string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "x", Annotations: map[string]string{"keep": "1", "drop": "1"}}}
	if err := env.Client.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	return cm
}

// TestMergeTouchesOnlyItsFieldsAndNeverASuccessor: the patch sets and
// deletes only the fields it names; a successor of the same name (another
// UID) is refused, not overwritten.
func TestMergeTouchesOnlyItsFieldsAndNeverASuccessor(t *testing.T) {
	ns := env.NewNamespace(t)
	cm := newConfigMap(t, ns)
	if err := Merge(t.Context(), env.Client, cm, false, map[string]any{"metadata": map[string]any{"annotations": map[string]any{"drop": nil, "new": "2"}}}); err != nil {
		t.Fatal(err)
	}
	if got := cm.Annotations; got["keep"] != "1" || got["new"] != "2" || got["drop"] != "" {
		t.Errorf("annotations %v, want keep and new only", got)
	}

	stale := cm.DeepCopy()
	if err := env.Client.Delete(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	newConfigMap(t, ns)
	err := Merge(t.Context(), env.Client, stale, false, map[string]any{"metadata": map[string]any{"annotations": map[string]any{"new": "3"}}})
	if err == nil {
		t.Fatal("a patch meant for the deleted object landed on its successor")
	}
}

// TestFinalizersNeverDropAnotherWritersFinalizer: a change made from a
// stale copy conflicts instead of removing a finalizer added meanwhile.
func TestFinalizersNeverDropAnotherWritersFinalizer(t *testing.T) {
	cm := newConfigMap(t, env.NewNamespace(t))
	stale := cm.DeepCopy()
	if err := Finalizers(t.Context(), env.Client, cm, func() { cm.Finalizers = append(cm.Finalizers, "example.com/other") }); err != nil {
		t.Fatal(err)
	}
	err := Finalizers(t.Context(), env.Client, stale, func() { stale.Finalizers = append(stale.Finalizers, "example.com/mine") })
	if !apierrors.IsConflict(err) {
		t.Fatalf("a stale write = %v, want a conflict", err)
	}
	var got corev1.ConfigMap
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cm), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Finalizers) != 1 || got.Finalizers[0] != "example.com/other" {
		t.Errorf("finalizers %v, want the other writer's kept", got.Finalizers)
	}
	if err := Finalizers(t.Context(), env.Client, &got, func() { got.Finalizers = nil }); err != nil {
		t.Fatal(err)
	}
}
