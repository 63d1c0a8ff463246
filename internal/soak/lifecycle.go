package soak

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/devenv"
)

// The lifecycle actions, as the report counts them.
const (
	actCreate         = "create"
	actDelete         = "delete"
	actDeleteCreating = "deleteWhileCreating"
	actToggleAccess   = "toggleAccess"
	actAddNodePool    = "addNodePool"
	actMoveNodePool   = "moveNodePool"
	actRemoveNodePool = "removeNodePool"
	actAllowOther     = "allowOther"
	actDisallowOther  = "disallowOther"
	actDrift          = "drift"
)

// creatingWindow: a deletion this soon after the create is a deletion
// while creation is still under way (the fast cloud provisions in seconds).
const creatingWindow = 10 * time.Second

// maxNodePools per cluster in a soak.
const maxNodePools = 3

// tally counts actions and their failures across the lives.
type tally struct {
	mu      sync.Mutex
	actions map[string]int
	errors  map[string]int
	drifts  map[string]int
}

func newTally() *tally {
	return &tally{actions: map[string]int{}, errors: map[string]int{}, drifts: map[string]int{}}
}

func (t *tally) done(action string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.errors[action]++
		return
	}
	t.actions[action]++
}

// life is one cluster's random life.
type life struct {
	env     *devenv.Env
	p       platform
	c       *cluster
	rng     *rand.Rand
	tally   *tally
	seats   chan struct{} // the cloud's capacity (nil: none)
	seated  bool
	created time.Time
	npSeq   int
	allowed bool
}

// run acts every few seconds until the faulty period ends.
func (l *life) run(ctx context.Context, until time.Time) {
	for {
		wait := time.Duration(2000+l.rng.Intn(6000)) * time.Millisecond
		if time.Now().Add(wait).After(until) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		l.step(ctx)
	}
}

func (l *life) step(ctx context.Context) {
	var hc hcplinkv1beta1.HostedCluster
	err := l.env.Client.Get(ctx, client.ObjectKey{Namespace: l.c.namespace, Name: l.c.name}, &hc)
	switch {
	case apierrors.IsNotFound(err):
		l.free()
		if l.seat() {
			l.tally.done(actCreate, l.create(ctx))
		}
		return
	case err != nil || hc.DeletionTimestamp != nil:
		return // still deleting
	}
	if time.Since(l.created) < creatingWindow && l.rng.Intn(5) == 0 {
		l.tally.done(actDeleteCreating, l.delete(ctx))
		return
	}
	switch n := l.rng.Intn(100); {
	case n < 20:
		l.tally.done(actToggleAccess, l.updateCluster(ctx, l.p.toggleAccess))
	case n < 35:
		l.tally.done(actAddNodePool, l.addNodePool(ctx))
	case n < 45:
		l.tally.done(actMoveNodePool, l.moveNodePool(ctx))
	case n < 55:
		l.tally.done(actRemoveNodePool, l.removeNodePool(ctx))
	case n < 70:
		l.allowed = !l.allowed
		on := l.allowed
		action := actAllowOther
		if !on {
			action = actDisallowOther
		}
		l.tally.done(action, l.updateCluster(ctx, func(hc *hcplinkv1beta1.HostedCluster) { l.p.allowOther(hc, on) }))
	case n < 92:
		what, err := l.p.drift(ctx, l.env, l.c, l.rng)
		l.tally.done(actDrift, err)
		if err == nil {
			l.tally.mu.Lock()
			l.tally.drifts[what]++
			l.tally.mu.Unlock()
		}
	default:
		l.tally.done(actDelete, l.delete(ctx))
	}
}

// seat takes a place in the cloud's capacity; free gives it back once the
// cluster is gone.
func (l *life) seat() bool {
	if l.seats == nil || l.seated {
		l.seated = true
		return true
	}
	select {
	case l.seats <- struct{}{}:
		l.seated = true
		return true
	default:
		return false
	}
}

func (l *life) free() {
	if l.seats != nil && l.seated {
		<-l.seats
	}
	l.seated = false
}

func (l *life) create(ctx context.Context) error {
	l.allowed = false
	if err := l.env.Client.Create(ctx, l.p.hostedCluster(l.c)); err != nil {
		return err
	}
	l.created = time.Now()
	return l.createNodePool(ctx, 0)
}

func (l *life) createNodePool(ctx context.Context, subnet int) error {
	l.npSeq++
	np := &hcplinkv1beta1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Namespace: l.c.namespace, Name: fmt.Sprintf("%s-np%d", l.c.name, l.npSeq)},
		Spec:       hcplinkv1beta1.NodePoolSpec{ClusterName: l.c.name, Platform: l.p.nodePoolPlatform(l.c, subnet)},
	}
	return l.env.Client.Create(ctx, np)
}

// delete removes the cluster and its NodePools, as a user tearing it down.
func (l *life) delete(ctx context.Context) error {
	pools, err := l.nodePools(ctx)
	if err != nil {
		return err
	}
	for i := range pools {
		if err := client.IgnoreNotFound(l.env.Client.Delete(ctx, &pools[i])); err != nil {
			return err
		}
	}
	hc := &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: l.c.namespace, Name: l.c.name}}
	return client.IgnoreNotFound(l.env.Client.Delete(ctx, hc))
}

func (l *life) nodePools(ctx context.Context) ([]hcplinkv1beta1.NodePool, error) {
	var list hcplinkv1beta1.NodePoolList
	if err := l.env.Client.List(ctx, &list, client.InNamespace(l.c.namespace)); err != nil {
		return nil, err
	}
	var out []hcplinkv1beta1.NodePool
	for _, np := range list.Items {
		if np.DeletionTimestamp == nil && np.Spec.ClusterName == l.c.name {
			out = append(out, np)
		}
	}
	return out, nil
}

func (l *life) addNodePool(ctx context.Context) error {
	pools, err := l.nodePools(ctx)
	if err != nil || len(pools) >= maxNodePools {
		return err
	}
	return l.createNodePool(ctx, l.rng.Intn(l.p.subnets(l.c)))
}

// moveNodePool puts a NodePool on another subnet (zone, on AWS).
func (l *life) moveNodePool(ctx context.Context) error {
	pools, err := l.nodePools(ctx)
	if err != nil || len(pools) == 0 {
		return err
	}
	key := client.ObjectKeyFromObject(&pools[l.rng.Intn(len(pools))])
	target := l.rng.Intn(l.p.subnets(l.c))
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var np hcplinkv1beta1.NodePool
		if err := l.env.Client.Get(ctx, key, &np); err != nil {
			return client.IgnoreNotFound(err)
		}
		np.Spec.Platform = l.p.nodePoolPlatform(l.c, target)
		return l.env.Client.Update(ctx, &np)
	})
}

// removeNodePool keeps at least one.
func (l *life) removeNodePool(ctx context.Context) error {
	pools, err := l.nodePools(ctx)
	if err != nil || len(pools) < 2 {
		return err
	}
	return client.IgnoreNotFound(l.env.Client.Delete(ctx, &pools[l.rng.Intn(len(pools))]))
}

func (l *life) updateCluster(ctx context.Context, change func(*hcplinkv1beta1.HostedCluster)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var hc hcplinkv1beta1.HostedCluster
		if err := l.env.Client.Get(ctx, client.ObjectKey{Namespace: l.c.namespace, Name: l.c.name}, &hc); err != nil {
			return client.IgnoreNotFound(err)
		}
		if hc.DeletionTimestamp != nil {
			return nil
		}
		change(&hc)
		return l.env.Client.Update(ctx, &hc)
	})
}
