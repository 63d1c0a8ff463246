package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcv1 "github.com/hcplink/hcplink/api/v1beta1"
)

// TestStart starts a real API server and round-trips a HostedCluster.
func TestStart(t *testing.T) {
	env := Start(t)
	ns := env.NewNamespace(t)
	hc := &hcv1.HostedCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "demo"},
		Spec: hcv1.HostedClusterSpec{
			InfraID:    "demo-x7k2p",
			DNS:        hcv1.DNSSpec{BaseDomain: "demo.example.com"},
			Networking: hcv1.ClusterNetworking{MachineNetwork: []hcv1.MachineNetworkEntry{{CIDR: "10.0.0.0/16"}}},
			Services: []hcv1.ServicePublishingStrategyMapping{{
				Service:                   hcv1.APIServer,
				ServicePublishingStrategy: hcv1.ServicePublishingStrategy{Type: hcv1.LoadBalancerPublishing},
			}},
			Platform: hcv1.PlatformSpec{Type: hcv1.AWSPlatform, AWS: &hcv1.AWSPlatformSpec{Region: "us-east-1"}},
		},
	}
	if err := env.Client.Create(t.Context(), hc); err != nil {
		t.Fatalf("creating a HostedCluster: %v", err)
	}
	got := &hcv1.HostedCluster{}
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(hc), got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Platform.AWS.EndpointAccess != hcv1.AWSEndpointAccessPublic {
		t.Errorf("endpointAccess = %q, want the default Public", got.Spec.Platform.AWS.EndpointAccess)
	}
	for _, list := range []client.ObjectList{
		&hcv1.NodePoolList{}, &hcv1.HostedControlPlaneList{}, &hcv1.AWSEndpointServiceList{}, &hcv1.AzurePrivateLinkServiceList{},
		&hcv1.GCPPrivateServiceConnectList{},
	} {
		if err := env.Client.List(t.Context(), list, client.InNamespace(ns)); err != nil {
			t.Errorf("listing %T: %v", list, err)
		}
	}
}

func TestAssetsDirectoryRefusesADirectoryWithoutBinaries(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("KUBEBUILDER_ASSETS", empty)
	_, err := AssetsDirectory(context.Background(), "", nil)
	if err == nil {
		t.Fatal("want an error for a KUBEBUILDER_ASSETS without binaries")
	}
	for _, want := range []string{"KUBEBUILDER_ASSETS", empty, "kube-apiserver", "./hack/envtest-assets.sh"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestAssetsDirectoryExplicit(t *testing.T) {
	dir := fakeAssets(t)
	t.Setenv("KUBEBUILDER_ASSETS", t.TempDir()) // an explicit directory wins
	got, err := AssetsDirectory(context.Background(), dir, nil)
	if err != nil || got != dir {
		t.Fatalf("AssetsDirectory = %q, %v; want %q", got, err, dir)
	}
}

func TestRunAssetsScript(t *testing.T) {
	assets := fakeAssets(t)
	root := t.TempDir()
	script := filepath.Join(root, assetsScript)
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "#!/bin/sh\necho 'building...' >&2\necho\necho '" + assets + "'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	got, err := runAssetsScript(context.Background(), root, &progress)
	if err != nil || got != assets {
		t.Fatalf("runAssetsScript = %q, %v; want %q", got, err, assets)
	}
	if !strings.Contains(progress.String(), "building...") {
		t.Errorf("the script's progress was not passed on: %q", progress.String())
	}
}

func TestRunAssetsScriptMissing(t *testing.T) {
	_, err := runAssetsScript(context.Background(), t.TempDir(), nil)
	if err == nil || !strings.Contains(err.Error(), "KUBEBUILDER_ASSETS is not set") {
		t.Fatalf("want an error saying KUBEBUILDER_ASSETS is not set, got %v", err)
	}
	if err := missingAssets(err); !strings.Contains(err.Error(), "run ./hack/envtest-assets.sh") {
		t.Errorf("error %q does not say how to get the binaries", err)
	}
}

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Errorf("no go.mod in %s", root)
	}
	if _, err := os.Stat(filepath.Join(root, assetsScript)); err != nil {
		t.Errorf("no %s in %s", assetsScript, root)
	}
}

func TestDeclaresModule(t *testing.T) {
	tests := []struct {
		gomod string
		want  bool
	}{
		{"module github.com/hcplink/hcplink\n\ngo 1.26\n", true},
		{"// comment\nmodule \"github.com/hcplink/hcplink\"\n", true},
		{"module github.com/hcplink/hcplink/tools\n", false},
		{"module example.com/other\n", false},
		{"go 1.26\n", false},
	}
	for _, tt := range tests {
		if got := declaresModule([]byte(tt.gomod), modulePath); got != tt.want {
			t.Errorf("declaresModule(%q) = %v, want %v", tt.gomod, got, tt.want)
		}
	}
}

// fakeAssets returns a directory holding executable stand-ins for the
// binaries.
func fakeAssets(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if err := os.WriteFile(filepath.Join(dir, bin), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLoggerAfterCleanup: a line logged after the test's cleanups (as a
// stopping manager's goroutines do) is dropped; t.Log would panic the binary
// once the top-level test has completed.
func TestLoggerAfterCleanup(t *testing.T) {
	tb := &recordingTB{TB: t}
	log := Logger(tb)
	log.Info("while the test runs")
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
	log.Info("after the test ended")
	if len(tb.lines) != 1 || !strings.Contains(tb.lines[0], "while the test runs") {
		t.Errorf("logged %q, want only the line from before the cleanups", tb.lines)
	}
}

// recordingTB records Log lines and Cleanup functions instead of passing
// them to the real test.
type recordingTB struct {
	testing.TB
	lines    []string
	cleanups []func()
}

func (r *recordingTB) Log(args ...any)  { r.lines = append(r.lines, fmt.Sprint(args...)) }
func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
