package devenv

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/hcplink/hcplink/internal/testenv"
)

// After the API server restarts, what was stored is still there (same
// etcd) and a client made before the restart carries on with the same
// address, CA and credentials.
func TestAPIServerRestartKeepsDataAndClients(t *testing.T) {
	kube, cfg, err := testenv.StartEnvironment(t.Context(), testenv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kube.Stop() })
	k, err := client.New(cfg, client.Options{Scheme: testenv.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "before-restart"}}
	if err := k.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	if err := restartAPIServer(kube, t.TempDir()); err != nil {
		t.Fatalf("restarting the API server: %v", err)
	}
	if err := k.Get(t.Context(), client.ObjectKeyFromObject(ns), &corev1.Namespace{}); err != nil {
		t.Fatalf("the client made before the restart, after it: %v", err)
	}
	if err := k.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "after-restart"}}); err != nil {
		t.Fatalf("writing after the restart: %v", err)
	}
}
