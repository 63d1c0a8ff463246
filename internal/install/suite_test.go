package install

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/hcplink/hcplink/internal/satoken"
	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

// settleWithin bounds each wait for a running operator: one that a loaded
// 2-core machine meets.
const settleWithin = 60 * time.Second

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.UseDevMode(true)))
	testenv.Main(m, &env)
}

// kube is a client with install's scheme on the test API server, as an
// administrator.
func kube(t *testing.T) client.Client {
	t.Helper()
	c, err := NewClient(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// serviceAccountKube is the operator's ServiceAccount in namespace as a
// pod of it would reach the API server (a token of it, nothing else), as
// the local environment runs the operator (internal/devenv/rbac.go).
func serviceAccountKube(t *testing.T, c client.Client, namespace string) *rest.Config {
	t.Helper()
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := satoken.Keep(t.Context(), c, namespace, ServiceAccountName, tokenFile, logr.Discard()); err != nil {
		t.Fatal(err)
	}
	return satoken.RestConfig(env.Config, tokenFile)
}
