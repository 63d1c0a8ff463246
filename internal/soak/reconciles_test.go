package soak

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// A real controller-runtime controller logging through the counter: the
// object it reconciles over and over is named as a hot loop, the one it
// reconciles once is not, and the counter's own lines reach nothing the
// wrapped logger did not ask for.
func TestObjectHotLoopsNameTheObject(t *testing.T) {
	counts := newObjectReconciles()
	const hotRounds = 20
	var hot atomic.Int32
	r := reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
		if req.Name == "hot" && hot.Add(1) < hotRounds {
			return reconcile.Result{RequeueAfter: time.Millisecond}, nil
		}
		return reconcile.Result{}, nil
	})
	c, err := controller.NewUnmanaged("looping", controller.Options{Reconciler: r, Logger: counts.logger(logr.Discard()), SkipNameValidation: ptr.To(true)})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan event.GenericEvent, 2)
	if err := c.Watch(source.Channel(events, &handler.EnqueueRequestForObject{})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	for _, name := range []string{"hot", "calm"} {
		events <- event.GenericEvent{Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}}
	}
	finished := func(context.Context) (bool, error) {
		return hot.Load() >= hotRounds && counts.snapshot()[reconciledObject{"looping", "ns/calm"}] > 0, nil
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, finished); err != nil {
		t.Fatalf("the controller did not finish its rounds: hot %d, counts %v", hot.Load(), counts.snapshot())
	}
	cancel()
	<-done

	after := counts.snapshot()
	if n := after[reconciledObject{"looping", "ns/hot"}]; n != hotRounds {
		t.Errorf("reconciles of ns/hot counted = %d, want %d (counts %v)", n, hotRounds, after)
	}
	loops := objectHotLoops(map[reconciledObject]int{}, after, time.Minute)
	if len(loops) != 1 || loops[0].Controller != "looping" || loops[0].Object != "ns/hot" {
		t.Errorf("hot loops = %+v, want looping on ns/hot alone (policy %.0f per object per minute)", loops, hotLoopPerObjectMinute)
	}
	if loops := objectHotLoops(after, after, time.Minute); len(loops) != 0 {
		t.Errorf("no reconcile in the window, yet hot loops %+v", loops)
	}
}

func TestObjectHotLoopsLeaveOutTheStandIns(t *testing.T) {
	after := map[reconciledObject]int{{"devenv-namespaces", "ns"}: 100, {"hostedcluster", "a/b"}: 3}
	if loops := objectHotLoops(nil, after, time.Minute); len(loops) != 0 {
		t.Errorf("hot loops = %+v, want none (devenv's stand-ins are not hcplink's; 3 a minute is within policy)", loops)
	}
	// A short window is judged as a minute: 4 reconciles in 20 s are not a loop, 12 are.
	after = map[reconciledObject]int{{"awsendpoint", "a/calm"}: 4, {"awsendpoint", "a/hot"}: 12}
	if loops := objectHotLoops(nil, after, 20*time.Second); len(loops) != 1 || loops[0].Object != "a/hot" {
		t.Errorf("hot loops in a 20 s window = %+v, want a/hot alone", loops)
	}
}
