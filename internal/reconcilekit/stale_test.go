package reconcilekit

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/metrics"
)

// TestAStaleFinalizerWriteIsAQuietRequeue runs a controller registered as
// the control-plane operators' are (EndpointController.Setup) and as the
// management operator's are (ServiceController.Setup), whose first pass
// adds its finalizer from a copy the other operator has just changed: the
// write meets a conflict. That pass must log no error (controller-runtime
// logs a returned error as "Reconciler error" with a stack), be counted,
// and be followed by a pass that lands the finalizer, although the other
// operator's change is not an event the control-plane registration's
// predicates pass.
func TestAStaleFinalizerWriteIsAQuietRequeue(t *testing.T) {
	for _, tc := range []struct {
		name     string
		register func(mgr ctrl.Manager, name string, r reconcile.Reconciler) error
	}{
		{"control-plane registration", func(mgr ctrl.Manager, name string, r reconcile.Reconciler) error {
			return EndpointController{Name: name, For: &corev1.ConfigMap{}, List: &corev1.ConfigMapList{}, Workers: 1}.Setup(mgr, r)
		}},
		{"management registration", func(mgr ctrl.Manager, name string, r reconcile.Reconciler) error {
			return ServiceController{Name: name, Kind: "ConfigMap", For: &corev1.ConfigMap{}, List: &corev1.ConfigMapList{}, Workers: 1,
				Platform: func(*hcplinkv1beta1.HostedCluster) any { return nil }}.Setup(mgr, controller.Options{}, r)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { staleFinalizerWrite(t, tc.register) })
	}
}

func staleFinalizerWrite(t *testing.T, register func(mgr ctrl.Manager, name string, r reconcile.Reconciler) error) {
	ns := env.NewNamespace(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cr"}}
	if err := env.Client.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.Patch(context.Background(), cm, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`)))
	})

	errs := &errorLog{}
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Logger:                 logr.New(errs),
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	name := "stale-" + ns
	var passes, stale atomic.Int32
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		passes.Add(1)
		got := &corev1.ConfigMap{}
		if err := mgr.GetClient().Get(ctx, req.NamespacedName, got); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		if stale.Add(1) == 1 {
			// The other operator adds its finalizer after this copy was read.
			theirsAdded := got.DeepCopy()
			theirsAdded.Finalizers = append(theirsAdded.Finalizers, theirs)
			if err := env.Client.Update(ctx, theirsAdded); err != nil {
				t.Errorf("adding the other operator's finalizer: %v", err)
			}
		}
		_, err := EnsureFinalizer(ctx, mgr.GetClient(), got, ours, nil)
		return reconcile.Result{}, err
	})
	if err := register(mgr, name, r); err != nil {
		t.Fatal(err)
	}
	before := testutil.ToFloat64(metrics.StaleFinalizerCounter(name))
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() { defer close(stopped); _ = mgr.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-stopped })

	got := &corev1.ConfigMap{}
	err = wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
			return false, err
		}
		return slices.Contains(got.Finalizers, ours), nil
	})
	if err != nil {
		t.Fatalf("the finalizer never landed after the stale write (%d passes): finalizers %v: %v", passes.Load(), got.Finalizers, err)
	}
	if !slices.Contains(got.Finalizers, theirs) {
		t.Errorf("finalizers %v: the other operator's %s was dropped", got.Finalizers, theirs)
	}
	if lines := errs.lines(); len(lines) > 0 {
		t.Errorf("a stale finalizer write was logged as an error: %q", lines)
	}
	if n := testutil.ToFloat64(metrics.StaleFinalizerCounter(name)) - before; n != 1 {
		t.Errorf("%s{controller=%q} rose by %v, want 1", metrics.StaleFinalizersName, name, n)
	}
}

// errorLog is a log sink that keeps the messages logged as errors and
// drops the rest.
type errorLog struct {
	mu   sync.Mutex
	errs []string
}

func (l *errorLog) Init(logr.RuntimeInfo)          {}
func (l *errorLog) Enabled(int) bool               { return false }
func (l *errorLog) Info(int, string, ...any)       {}
func (l *errorLog) WithValues(...any) logr.LogSink { return l }
func (l *errorLog) WithName(string) logr.LogSink   { return l }
func (l *errorLog) Error(err error, msg string, _ ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, msg+": "+err.Error())
}

func (l *errorLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.errs)
}
