package validationtest

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/testenv"
)

// env is one API server for the whole package.
var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// objectFunc builds an object in a namespace under a name.
type objectFunc func(namespace, name string) client.Object

// with builds on base and applies mutate.
func with[T client.Object](base func(namespace, name string) T, mutate func(T)) objectFunc {
	return func(namespace, name string) client.Object {
		obj := base(namespace, name)
		if mutate != nil {
			mutate(obj)
		}
		return obj
	}
}

// requireRefused fails unless err is the API server's Invalid error and its
// message contains every string in want (the field path first).
func requireRefused(t *testing.T, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the API server accepted the object; want a refusal mentioning %q", want)
	}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want an Invalid error, got %v", err)
	}
	t.Logf("refused: %v", err)
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not mention %q:\n%v", w, err)
		}
	}
}
