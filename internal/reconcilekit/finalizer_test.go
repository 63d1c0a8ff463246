package reconcilekit

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

const (
	ours   = "example.com/control-plane"
	theirs = "example.com/management" // the other operator's, on the same object
)

// The control-plane operator's copy of an object is stale (its cache has
// not seen the management operator add its finalizer): adding or removing
// its own finalizer from that copy must never drop the other's. Dropping it
// let an AWSEndpointService deleted seconds after its endpoint service was
// created go without the management operator's cleanup, leaving the
// service on the load balancer.
func TestFinalizersFromAStaleCopyKeepTheOtherOperators(t *testing.T) {
	for _, tc := range []struct {
		name   string
		start  []string // the object's finalizers when the stale copy is read
		change func(obj client.Object) error
		want   []string
	}{
		{"ensure", nil, func(obj client.Object) error {
			_, err := EnsureFinalizer(t.Context(), env.Client, obj, ours, map[string]string{"example.com/kept": "x"})
			return err
		}, []string{ours, theirs}},
		{"remove", []string{ours}, func(obj client.Object) error {
			return RemoveFinalizer(t.Context(), env.Client, obj, ours)
		}, []string{theirs}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: env.NewNamespace(t), Name: "cr", Finalizers: tc.start}}
			if err := env.Client.Create(t.Context(), cm); err != nil {
				t.Fatal(err)
			}
			stale := cm.DeepCopy()
			cm.Finalizers = append(cm.Finalizers, theirs)
			if err := env.Client.Update(t.Context(), cm); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = env.Client.Patch(t.Context(), cm, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)))
			})

			err := tc.change(stale)
			if err != nil && !apierrors.IsConflict(err) {
				t.Fatalf("changing the finalizer from a stale copy: %v, want success or a conflict", err)
			}
			got := &corev1.ConfigMap{}
			if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cm), got); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(got.Finalizers, theirs) {
				t.Fatalf("finalizers after a change from a stale copy = %v: the other operator's %s was dropped", got.Finalizers, theirs)
			}
			if err != nil {
				// The conflict is looked at again from a fresh read.
				if err := tc.change(got); err != nil {
					t.Fatalf("changing the finalizer from a fresh copy: %v", err)
				}
				if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(cm), got); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(sorted(got.Finalizers), sorted(tc.want)) {
				t.Errorf("finalizers = %v, want %v", got.Finalizers, tc.want)
			}
		})
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
