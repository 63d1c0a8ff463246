// Package testenv starts a real kube-apiserver and etcd (controller-runtime's
// envtest) with the hcplink CRDs installed, for tests and for the local
// environment.
//
// The binaries come from KUBEBUILDER_ASSETS or, when that is unset, from
// hack/envtest-assets.sh, which builds them once and caches them. Nothing is
// ever skipped: when the binaries cannot be found, starting fails with a
// message saying how to get them.
//
// In a test:
//
//	env := testenv.Start(t) // stopped by t.Cleanup
//	ns := env.NewNamespace(t)
//
// Once per package:
//
//	var env *testenv.Env
//	func TestMain(m *testing.M) { testenv.Main(m, &env) }
//
// Outside tests (devenv): StartEnvironment.
package testenv

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	clientevents "k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/config/crd"
)

const (
	// modulePath identifies the repository's go.mod when walking up to it.
	modulePath = "github.com/hcplink/hcplink"
	// assetsScript builds (once) and prints the envtest binaries directory.
	assetsScript = "hack/envtest-assets.sh"
	// startTimeout bounds the start of etcd and of kube-apiserver each; a
	// loaded CI machine needs more than envtest's 20 s default.
	startTimeout = 90 * time.Second
	// stopTimeout bounds their stop.
	stopTimeout = 30 * time.Second
)

// Options configure StartEnvironment and New. The zero value is what tests
// want.
type Options struct {
	// BinaryAssetsDirectory holds kube-apiserver and etcd. Empty means
	// KUBEBUILDER_ASSETS, or else the directory hack/envtest-assets.sh prints.
	BinaryAssetsDirectory string

	// CRDDirectoryPaths, when set, are installed instead of the hcplink CRDs
	// embedded from config/crd.
	CRDDirectoryPaths []string

	// AdditionalCRDs are installed besides the hcplink CRDs.
	AdditionalCRDs []*apiextensionsv1.CustomResourceDefinition

	// AttachControlPlaneOutput streams the output of kube-apiserver and etcd
	// to this process's stdout and stderr.
	AttachControlPlaneOutput bool

	// Progress receives the progress of hack/envtest-assets.sh (the first
	// build takes minutes). Nil means os.Stderr.
	Progress io.Writer
}

// Scheme returns a scheme with the Kubernetes built-in kinds, the
// CustomResourceDefinition kind and the hcplink.io/v1beta1 kinds.
func Scheme() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	utilruntime.Must(hcplinkv1beta1.AddToScheme(s))
	return s
}

// StartEnvironment starts kube-apiserver and etcd, installs the CRDs and
// waits until they are served. The caller stops the environment with
// Environment.Stop. ctx bounds finding the binaries (which may build them).
func StartEnvironment(ctx context.Context, opts Options) (*envtest.Environment, *rest.Config, error) {
	assets, err := AssetsDirectory(ctx, opts.BinaryAssetsDirectory, opts.Progress)
	if err != nil {
		return nil, nil, err
	}

	never := false
	env := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		UseExistingCluster:       &never,
		Scheme:                   Scheme(),
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: startTimeout,
		ControlPlaneStopTimeout:  stopTimeout,
		AttachControlPlaneOutput: opts.AttachControlPlaneOutput,
	}
	if len(opts.CRDDirectoryPaths) > 0 {
		env.CRDDirectoryPaths = opts.CRDDirectoryPaths
	} else {
		crds, err := crd.CustomResourceDefinitions()
		if err != nil {
			return nil, nil, fmt.Errorf("loading the hcplink CRDs: %w", err)
		}
		env.CRDs = crds
	}
	env.CRDs = append(env.CRDs, opts.AdditionalCRDs...)

	cfg, err := env.Start()
	if err != nil {
		// Start may fail after etcd or kube-apiserver came up; do not leak them.
		_ = env.Stop()
		return nil, nil, fmt.Errorf("starting envtest with binaries from %s: %w", assets, err)
	}
	return env, cfg, nil
}

// Env is a running envtest with a client for the hcplink kinds.
type Env struct {
	// Environment is the running envtest.
	Environment *envtest.Environment
	// Config reaches the API server as an administrator.
	Config *rest.Config
	// Client is a direct (uncached) client with Scheme registered.
	Client client.Client
	// Scheme has the Kubernetes, CRD and hcplink kinds.
	Scheme *k8sruntime.Scheme
}

// New starts an environment (see StartEnvironment) and builds its client.
func New(ctx context.Context, opts Options) (*Env, error) {
	env, cfg, err := StartEnvironment(ctx, opts)
	if err != nil {
		return nil, err
	}
	scheme := Scheme()
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("building a client for envtest: %w", err)
	}
	return &Env{Environment: env, Config: cfg, Client: c, Scheme: scheme}, nil
}

// Stop stops kube-apiserver and etcd.
func (e *Env) Stop() error {
	if err := e.Environment.Stop(); err != nil {
		return fmt.Errorf("stopping envtest: %w", err)
	}
	return nil
}

// Start starts an environment for one test (or benchmark) and stops it when
// the test ends. It fails the test when the environment cannot start.
func Start(t testing.TB, opts ...Options) *Env {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	env, err := New(t.Context(), o)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("testenv: %v", err)
		}
	})
	return env
}

// Main starts one environment for a package's tests, stores it in *env,
// runs the tests and stops the environment. Call it from TestMain. When
// the environment cannot start, the package fails (exit status 1).
func Main(m *testing.M, env **Env) {
	os.Exit(runMain(m, env))
}

func runMain(m *testing.M, env **Env) int {
	e, err := New(context.Background(), Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: testenv: %v\n", err)
		return 1
	}
	*env = e
	code := m.Run()
	if err := e.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// NewNamespace creates a namespace with a generated name for one test and
// returns its name. envtest runs no namespace controller, so the namespace
// is not deleted afterwards; the names never collide.
func (e *Env) NewNamespace(t testing.TB) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "test-"}}
	if err := e.Client.Create(t.Context(), ns); err != nil {
		t.Fatalf("testenv: creating a namespace: %v", err)
	}
	return ns.Name
}

// EventRecorder records Events to the API server as component, until the
// test ends.
func (e *Env) EventRecorder(t testing.TB, component string) clientevents.EventRecorder {
	t.Helper()
	cs, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		t.Fatalf("testenv: a clientset for Events: %v", err)
	}
	b := clientevents.NewBroadcaster(&clientevents.EventSinkImpl{Interface: cs.EventsV1()})
	if err := b.StartRecordingToSinkWithContext(t.Context()); err != nil {
		t.Fatalf("testenv: recording Events: %v", err)
	}
	t.Cleanup(b.Shutdown)
	return b.NewRecorder(e.Scheme, component)
}

// AssetsDirectory returns the directory with the kube-apiserver and etcd
// binaries: dir if set, else KUBEBUILDER_ASSETS, else the output of
// hack/envtest-assets.sh run from the repository root (cheap once the
// binaries are cached; the first build takes minutes and reports its
// progress to progress, or to os.Stderr when nil).
func AssetsDirectory(ctx context.Context, dir string, progress io.Writer) (string, error) {
	if dir != "" {
		return dir, checkAssets(dir, "Options.BinaryAssetsDirectory")
	}
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, checkAssets(dir, "KUBEBUILDER_ASSETS")
	}
	root, err := RepoRoot()
	if err != nil {
		return "", missingAssets(err)
	}
	dir, err = runAssetsScript(ctx, root, progress)
	if err != nil {
		return "", missingAssets(err)
	}
	return dir, checkAssets(dir, assetsScript)
}

func runAssetsScript(ctx context.Context, root string, progress io.Writer) (string, error) {
	if progress == nil {
		progress = os.Stderr
	}
	script := filepath.Join(root, assetsScript)
	if _, err := os.Stat(script); err != nil {
		return "", fmt.Errorf("KUBEBUILDER_ASSETS is not set and %s is missing", script)
	}
	var stdout bytes.Buffer
	cmd := exec.CommandContext(ctx, script)
	cmd.Dir = root
	cmd.Stdout = &stdout
	cmd.Stderr = progress
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("KUBEBUILDER_ASSETS is not set and %s failed: %w", script, err)
	}
	// The script prints the directory as its last line of output.
	var last string
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			last = line
		}
	}
	if last == "" {
		return "", fmt.Errorf("KUBEBUILDER_ASSETS is not set and %s printed no directory", script)
	}
	return last, nil
}

func checkAssets(dir, source string) error {
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		p := filepath.Join(dir, bin)
		info, err := os.Stat(p)
		if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
			return missingAssets(fmt.Errorf("%s is %s, but it holds no executable %s", source, dir, bin))
		}
	}
	return nil
}

func missingAssets(cause error) error {
	return fmt.Errorf("envtest binaries (kube-apiserver, etcd) not found: %w; "+
		"run ./hack/envtest-assets.sh from the repository root (it builds them once, about 15 minutes on 2 cores) "+
		"and set KUBEBUILDER_ASSETS to the directory it prints", cause)
}

// RepoRoot returns the root of the hcplink repository: the nearest
// directory, from the working directory upwards, whose go.mod declares the
// hcplink module; failing that, the same search from this source file.
func RepoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	for _, start := range starts {
		if root, ok := findModuleRoot(start); ok {
			return root, nil
		}
	}
	return "", errors.New("the hcplink repository root (a go.mod declaring " + modulePath + ") is not above the working directory")
}

func findModuleRoot(dir string) (string, bool) {
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && declaresModule(data, modulePath) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func declaresModule(gomod []byte, module string) bool {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == module
		}
	}
	return false
}
