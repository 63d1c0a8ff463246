package satoken

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// TestServiceAccountIdentity: a process given RestConfig, or the
// kubeconfig written from it, is the ServiceAccount and nothing more: the
// API server names it so, it may do what its Role grants in its namespace,
// and nothing elsewhere.
func TestServiceAccountIdentity(t *testing.T) {
	ctx := t.Context()
	ns, other := env.NewNamespace(t), env.NewNamespace(t)
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "worker"}}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "worker"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "worker"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "worker"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "worker"}}}
	for _, o := range []client.Object{sa, role, binding} {
		if err := env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}

	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := Keep(ctx, env.Client, ns, "worker", tokenFile, logr.Discard()); err != nil {
		t.Fatal(err)
	}
	direct := RestConfig(env.Config, tokenFile)
	raw, err := Kubeconfig(direct)
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := clientcmd.RESTConfigFromKubeConfig(raw)
	if err != nil {
		t.Fatalf("reading the written kubeconfig back: %v", err)
	}
	for name, cfg := range map[string]*rest.Config{"RestConfig": direct, "the kubeconfig": fromFile} {
		t.Run(name, func(t *testing.T) {
			if other := OtherCredentials(cfg); len(other) > 0 {
				t.Errorf("carries %v besides the token", other)
			}
			user, err := WhoAmI(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if want := "system:serviceaccount:" + ns + ":worker"; user != want {
				t.Errorf("the API server sees %q, want %q", user, want)
			}
			for _, c := range []struct {
				attrs authorizationv1.ResourceAttributes
				want  bool
			}{
				{authorizationv1.ResourceAttributes{Namespace: ns, Verb: "list", Resource: "configmaps"}, true},
				{authorizationv1.ResourceAttributes{Namespace: other, Verb: "list", Resource: "configmaps"}, false},
				{authorizationv1.ResourceAttributes{Verb: "list", Resource: "secrets"}, false},
			} {
				got, err := Allowed(ctx, cfg, c.attrs)
				if err != nil {
					t.Fatal(err)
				}
				if got != c.want {
					t.Errorf("may %s %s in %q = %v, want %v", c.attrs.Verb, c.attrs.Resource, c.attrs.Namespace, got, c.want)
				}
			}
		})
	}
}

// TestOtherCredentials names what an administrator's configuration
// carries, and nothing for a token alone.
func TestOtherCredentials(t *testing.T) {
	tests := []struct {
		name string
		cfg  *rest.Config
		want int
	}{
		{"token file only", &rest.Config{BearerTokenFile: "/run/token"}, 0},
		{"client certificate and key", &rest.Config{TLSClientConfig: rest.TLSClientConfig{CertData: []byte("c"), KeyData: []byte("k")}}, 2},
		{"certificate files", &rest.Config{TLSClientConfig: rest.TLSClientConfig{CertFile: "c", KeyFile: "k"}}, 2},
		{"impersonation", &rest.Config{BearerToken: "t", Impersonate: rest.ImpersonationConfig{UserName: "system:serviceaccount:a:b"}}, 1},
		{"basic auth", &rest.Config{Username: "admin", Password: "p"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := OtherCredentials(tt.cfg); len(got) != tt.want {
				t.Errorf("OtherCredentials = %v, want %d of them", got, tt.want)
			}
		})
	}
	// The test environment's own administrator must be caught.
	if got := OtherCredentials(env.Config); len(got) == 0 {
		t.Error("the administrator's configuration carries nothing besides a token, by OtherCredentials")
	}
}

// TestKeepReplacesTheToken: the token file is replaced with a new token
// at each refresh, whole, while the ServiceAccount's API access goes on.
func TestKeepReplacesTheToken(t *testing.T) {
	ns := env.NewNamespace(t)
	if err := env.Client.Create(t.Context(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "worker"}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "token")
	if err := keep(t.Context(), env.Client, ns, "worker", path, logr.Discard(), 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		now, err := os.ReadFile(path)
		if err != nil || len(now) == 0 {
			return false, fmt.Errorf("the token file was read empty or not at all mid-refresh: %v", err)
		}
		return string(now) != string(first), nil
	})
	if err != nil {
		t.Fatalf("the token file did not get a new token within 30s of a 100ms refresh: %v", err)
	}
	user, err := WhoAmI(t.Context(), RestConfig(env.Config, path))
	if err != nil {
		t.Fatal(err)
	}
	if want := "system:serviceaccount:" + ns + ":worker"; user != want {
		t.Errorf("with the refreshed token the API server sees %q, want %q", user, want)
	}
}
