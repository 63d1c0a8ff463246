package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
)

// Lane is one cloud's corpus: its devenv, the namespace every case's
// objects live in, the healthy cluster beside the corpus and the valid
// objects each case starts from.
type Lane struct {
	Env       *devenv.Env
	Namespace string
	// Healthy is an Available private cluster that the corpus must not
	// disturb; update cases try their changes on it.
	Healthy *hcplinkv1beta1.HostedCluster
	// Target is another Available private cluster, which the serial cases
	// give NodePools it cannot use.
	Target *hcplinkv1beta1.HostedCluster
	// PrivateLinkConditions are the cloud's aggregated private-link
	// conditions, True on an Available private cluster.
	PrivateLinkConditions []string
	// ValidCluster is a private cluster the API server and the operator
	// accept, named after the case; nothing is prepared in the cloud for it.
	ValidCluster func(c *Run) *hcplinkv1beta1.HostedCluster
	// ValidNodePool is a NodePool of cluster the API server accepts.
	ValidNodePool func(c *Run, cluster string) *hcplinkv1beta1.NodePool
	// OwnedMarkers are strings only the cloud resources hcplink makes for
	// a cluster contain (not what its user made beforehand: a role, an
	// identity, a zone), to find what a deleted cluster left behind.
	OwnedMarkers func(infraID, clusterName string) []string
	// CloudState is the cloud's whole inventory as JSON.
	CloudState func() (json.RawMessage, error)
	// mu guards markers.
	mu sync.Mutex
	// markers are strings that only a cloud resource made for a case
	// would contain (its infra ID, its control-plane namespace).
	markers map[string]string
	// baseline is the cloud's inventory when the corpus starts: what the
	// cases' users made beforehand (identities) is in it already.
	baseline json.RawMessage
}

// Run is one case's names.
type Run struct {
	*Lane
	Name    string // the case's objects' name
	InfraID string
}

func (c *Run) hcpNamespace() string {
	return hcplinkv1beta1.HostedControlPlaneNamespace(c.Namespace, c.Name)
}

// Act does what a case's user does and returns the object whose
// condition answers it (nil when the API server is expected to refuse)
// and the API server's error. prepare, when set, makes beforehand what
// that user would have made first (an identity); it runs before the
// corpus's cloud accounting starts.
type Act struct {
	Run     func(ctx context.Context, c *Run) (client.Object, error)
	Prepare func(ctx context.Context, c *Run) error
}

// Want is how hcplink must answer a case.
type Want struct {
	// refused: the API server refuses the request; its message contains
	// every string (the field path first).
	refused []string
	// Otherwise the object the act returned carries condition condType with
	// status False (True when accepted is set), reason and a message that
	// contains mentions.
	condType, reason, mentions string
	accepted                   bool
}

func Refused(fieldAndWords ...string) Want { return Want{refused: fieldAndWords} }

func Condition(condType, reason, mentions string) Want {
	return Want{condType: condType, reason: reason, mentions: mentions}
}

// AcceptedAs: the input is not wrong after all; the object is accepted
// with condType True (reason AsExpected), and still nothing is changed in
// the cloud for it.
func AcceptedAs(condType string) Want {
	return Want{condType: condType, reason: hcplinkv1beta1.AsExpectedReason, accepted: true}
}

// Case is one bad input.
type Case struct {
	Name string
	Do   Act
	Want Want
}

// corpus prepares the cases, waits for the cloud to be at rest, then runs
// every case of parallel at once, each as its own subtest, and beside
// them the target cases one after the other, while it watches the healthy
// cluster. Afterwards it deletes what the cases made and checks that the
// cloud saw no mutating call and holds nothing of any case.
func (l *Lane) Corpus(t *testing.T, parallel, serial []Case) {
	t.Helper()
	runs := l.nameCases(t, append(append([]Case(nil), parallel...), serial...))
	for i, tc := range append(append([]Case(nil), parallel...), serial...) {
		if tc.Do.Prepare != nil {
			if err := tc.Do.Prepare(context.Background(), runs[i]); err != nil {
				t.Fatalf("preparing case %q: %v", tc.Name, err)
			}
		}
	}
	l.settle(t, quietPeriod)
	before := l.Env.Cloud.Counters.Snapshot()
	var err error
	if l.baseline, err = l.CloudState(); err != nil {
		t.Fatalf("reading the cloud's inventory: %v", err)
	}
	stopWatch := l.watchAvailable()
	t.Run("cases", func(t *testing.T) {
		for i, tc := range parallel {
			t.Run(tc.Name, func(t *testing.T) {
				t.Parallel()
				l.runCase(t, runs[i], tc)
			})
		}
		serialRuns := runs[len(parallel):]
		t.Run("target", func(t *testing.T) {
			t.Parallel()
			for i, tc := range serial {
				ok := t.Run(tc.Name, func(t *testing.T) {
					l.runCase(t, serialRuns[i], tc)
					l.removeFromTarget(t, serialRuns[i])
				})
				if !ok {
					return // the target may still hold the case's NodePool
				}
			}
		})
	})
	l.deleteCases(t)
	changed, refusedCalls := mutatingOps(before, l.Env.Cloud.Counters.Snapshot())
	if len(changed) > 0 {
		t.Errorf("the corpus changed the cloud: %s", strings.Join(changed, ", "))
	}
	if len(refusedCalls) > 0 {
		t.Logf("mutating calls the cloud refused during the corpus (nothing changed): %s", strings.Join(refusedCalls, ", "))
	}
	l.requireNoCaseInCloud(t)
	if lapses := stopWatch(); len(lapses) > 0 {
		t.Errorf("the healthy cluster was not Available during the corpus %d times; first: %s", len(lapses), lapses[0])
	}
}

// quietPeriod is how long the cloud must see no mutating call before the
// corpus starts: longer than any follow-up write of a cluster that just
// became Available.
const quietPeriod = 3 * time.Second

// name gives every case its object name and infra ID.
func (l *Lane) nameCases(t *testing.T, cases []Case) []*Run {
	t.Helper()
	seen := map[string]bool{}
	runs := make([]*Run, len(cases))
	for i, tc := range cases {
		if seen[tc.Name] {
			t.Fatalf("two cases are named %q", tc.Name)
		}
		seen[tc.Name] = true
		runs[i] = &Run{Lane: l, Name: fmt.Sprintf("c%02d", i), InfraID: fmt.Sprintf("corpus-%02d-%s", i, RandomSuffix(5))}
		l.mark(runs[i])
	}
	return runs
}

// OnTarget gives the target cluster a NodePool in subnet; the target
// answers.
func OnTarget(subnet string) Act {
	return Act{Run: func(ctx context.Context, c *Run) (client.Object, error) {
		np := c.ValidNodePool(c, c.Target.Name)
		setNodePoolSubnet(np, subnet)
		if err := c.Env.Client.Create(ctx, np); err != nil {
			return nil, err
		}
		return c.Target.DeepCopy(), nil
	}}
}

func setNodePoolSubnet(np *hcplinkv1beta1.NodePool, subnet string) {
	switch {
	case np.Spec.Platform.AWS != nil:
		np.Spec.Platform.AWS.Subnet = &hcplinkv1beta1.AWSSubnetReference{ID: subnet}
	case np.Spec.Platform.Azure != nil:
		np.Spec.Platform.Azure.SubnetID = subnet
	case np.Spec.Platform.GCP != nil:
		np.Spec.Platform.GCP.Subnet = subnet
	}
}

// removeFromTarget deletes the case's NodePool of the target and waits
// until the target is whole again.
func (l *Lane) removeFromTarget(t *testing.T, c *Run) {
	t.Helper()
	np := &hcplinkv1beta1.NodePool{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name}}
	if err := l.Env.Client.Delete(context.Background(), np); client.IgnoreNotFound(err) != nil {
		t.Fatalf("deleting the case's NodePool: %v", err)
	}
	l.WaitAvailable(t, l.Target)
}

// waitAvailable waits until hc is Available with every private-link
// condition True.
func (l *Lane) WaitAvailable(t *testing.T, hc *hcplinkv1beta1.HostedCluster) {
	t.Helper()
	eventually(t, longWait, hc.Name+" to be Available", func(ctx context.Context) error {
		var got hcplinkv1beta1.HostedCluster
		if err := l.Env.Client.Get(ctx, client.ObjectKeyFromObject(hc), &got); err != nil {
			return err
		}
		for _, c := range append([]string{hcplinkv1beta1.AvailableCondition}, l.PrivateLinkConditions...) {
			if err := conditionIs(got.Status.Conditions, c, metav1.ConditionTrue); err != nil {
				return err
			}
		}
		return nil
	})
}

// deleteTargetLeavingNodePools deletes the target cluster while its
// NodePool remains: the cluster and everything made for it in the cloud
// must go, and the NodePool must say its cluster is gone.
// beforeTarget is the cloud's inventory before the target was created.
func (l *Lane) DeleteTargetLeavingNodePools(t *testing.T, infraID string, beforeTarget json.RawMessage) {
	t.Helper()
	ctx := context.Background()
	if err := l.Env.Client.Delete(ctx, l.Target); err != nil {
		t.Fatal(err)
	}
	eventually(t, longWait, "the target cluster to be gone", func(ctx context.Context) error {
		err := l.Env.Client.Get(ctx, client.ObjectKeyFromObject(l.Target), &hcplinkv1beta1.HostedCluster{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (err=%v)", err)
	})
	np := &hcplinkv1beta1.NodePool{ObjectMeta: metav1.ObjectMeta{Namespace: l.Namespace, Name: "target-np1"}}
	l.requireCondition(t, np, Condition(hcplinkv1beta1.NodePoolValidConfigurationCondition, hcplinkv1beta1.HostedClusterNotFoundReason, "delete this NodePool"))
	hcpNS := hcplinkv1beta1.HostedControlPlaneNamespace(l.Namespace, l.Target.Name)
	eventually(t, longWait, "nothing of the target left in the cloud", func(context.Context) error {
		state, err := l.CloudState()
		if err != nil {
			return err
		}
		for _, m := range append(l.OwnedMarkers(infraID, l.Target.Name), hcpNS+"/") {
			if more(state, beforeTarget, m) {
				return fmt.Errorf("the cloud still holds something made for the target (it mentions %q: first …%s…, last …%s…)", m, aroundFirst(state, m), around(state, m))
			}
		}
		return nil
	})
	if err := l.Env.Client.Delete(ctx, np); err != nil {
		t.Fatal(err)
	}
}

func (l *Lane) mark(c *Run) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.markers == nil {
		l.markers = map[string]string{}
	}
	l.markers[c.InfraID] = c.Name
	// Load balancers are tagged with their Service's "<namespace>/<name>".
	l.markers[c.hcpNamespace()+"/"] = c.Name
}

func (l *Lane) runCase(t *testing.T, c *Run, tc Case) {
	ctx := context.Background()
	obj, err := tc.Do.Run(ctx, c)
	if len(tc.Want.refused) > 0 {
		requireRefused(t, err, tc.Want.refused)
	} else {
		if err != nil {
			t.Fatalf("the API server refused the case, so it does not reach the operators: %v", err)
		}
		l.requireCondition(t, obj, tc.Want)
		if _, ok := obj.(*hcplinkv1beta1.HostedCluster); ok && tc.Want.condType == hcplinkv1beta1.ValidConfigurationCondition && !tc.Want.accepted &&
			tc.Want.reason != hcplinkv1beta1.NamespaceConflictReason && tc.Want.reason != hcplinkv1beta1.NamespaceNameTooLongReason {
			l.requireNoControlPlaneNamespace(t, c)
		}
	}
	l.requireNothingInCloud(t, c)
}

// requireRefused fails unless err is the API server's Invalid (or
// Forbidden) answer and its message contains every string in words.
func requireRefused(t *testing.T, err error, words []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the API server accepted the request; want a refusal mentioning %q", words)
	}
	if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
		t.Fatalf("want an Invalid error, got %v", err)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal does not mention %q:\n%v", w, err)
		}
	}
}

// requireCondition polls obj until its condition answers w.
func (l *Lane) requireCondition(t *testing.T, obj client.Object, w Want) {
	t.Helper()
	status := metav1.ConditionFalse
	if w.accepted {
		status = metav1.ConditionTrue
	}
	var last metav1.Condition
	eventually(t, shortWait, fmt.Sprintf("%s %s=%s/%s", obj.GetName(), w.condType, status, w.reason), func(ctx context.Context) error {
		if err := l.Env.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		c := meta.FindStatusCondition(conditionsOf(obj), w.condType)
		switch {
		case c == nil:
			return fmt.Errorf("no %s condition yet", w.condType)
		case c.Status != status || c.Reason != w.reason:
			return fmt.Errorf("%s is %s/%s (%s)", w.condType, c.Status, c.Reason, c.Message)
		case !strings.Contains(c.Message, w.mentions):
			return fmt.Errorf("%s's message %q does not mention %q", w.condType, c.Message, w.mentions)
		}
		last = *c
		return nil
	})
	requirePlainMessage(t, last.Message)
}

// requirePlainMessage: condition messages say what to do in plain words,
// with no URLs, request IDs or JSON.
func requirePlainMessage(t *testing.T, msg string) {
	t.Helper()
	for _, bad := range []string{"http://", "https://", "RequestID", "request id", "{\"", "\n"} {
		if strings.Contains(msg, bad) {
			t.Errorf("the condition message contains %q: %s", bad, msg)
		}
	}
}

func conditionsOf(obj client.Object) []metav1.Condition {
	switch o := obj.(type) {
	case *hcplinkv1beta1.HostedCluster:
		return o.Status.Conditions
	case *hcplinkv1beta1.NodePool:
		return o.Status.Conditions
	}
	return nil
}

// requireNothingInCloud fails when the cloud holds anything made for the
// case: a marker of it appears more often than when the corpus started.
func (l *Lane) requireNothingInCloud(t *testing.T, c *Run) {
	t.Helper()
	state, err := l.CloudState()
	if err != nil {
		t.Fatalf("reading the cloud's inventory: %v", err)
	}
	for _, m := range []string{c.InfraID, c.hcpNamespace() + "/"} {
		if more(state, l.baseline, m) {
			t.Errorf("the cloud holds something made for the case (it mentions %q: …%s…)", m, around(state, m))
		}
	}
}

// around is the text around marker's last mention in state, to name what
// holds it.
func around(state []byte, marker string) string {
	i := bytes.LastIndex(state, []byte(marker))
	return string(state[max(0, i-300):min(len(state), i+len(marker)+100)])
}

// aroundFirst is the text around marker's first mention in state.
func aroundFirst(state []byte, marker string) string {
	i := bytes.Index(state, []byte(marker))
	return string(state[max(0, i-300):min(len(state), i+len(marker)+300)])
}

// more reports whether now mentions marker more often than then.
func more(now, then []byte, marker string) bool {
	return bytes.Count(now, []byte(marker)) > bytes.Count(then, []byte(marker))
}

// requireNoCaseInCloud fails when the cloud holds anything made for any case.
func (l *Lane) requireNoCaseInCloud(t *testing.T) {
	t.Helper()
	state, err := l.CloudState()
	if err != nil {
		t.Fatalf("reading the cloud's inventory: %v", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for m, name := range l.markers {
		if more(state, l.baseline, m) {
			t.Errorf("after the corpus, the cloud holds something made for case %s (it mentions %q)", name, m)
		}
	}
}

// CreateCluster creates the case's valid cluster changed by mutate.
func CreateCluster(mutate func(c *Run, hc *hcplinkv1beta1.HostedCluster)) Act {
	return Act{Run: func(ctx context.Context, c *Run) (client.Object, error) {
		hc := c.ValidCluster(c)
		if mutate != nil {
			mutate(c, hc)
		}
		return hc, c.Env.Client.Create(ctx, hc)
	}}
}

// CreateNodePool creates a NodePool of the case's name, for the cluster
// cluster names (the healthy one when nil), changed by mutate.
func CreateNodePool(cluster func(c *Run) string, mutate func(c *Run, np *hcplinkv1beta1.NodePool)) Act {
	return Act{Run: func(ctx context.Context, c *Run) (client.Object, error) {
		name := c.Healthy.Name
		if cluster != nil {
			name = cluster(c)
		}
		np := c.ValidNodePool(c, name)
		if mutate != nil {
			mutate(c, np)
		}
		return np, c.Env.Client.Create(ctx, np)
	}}
}

// UpdateHealthy tries change on the healthy cluster (the API server must
// refuse it, so the cluster is left as it was).
func UpdateHealthy(change func(hc *hcplinkv1beta1.HostedCluster)) Act {
	return Act{Run: func(ctx context.Context, c *Run) (client.Object, error) {
		var hc hcplinkv1beta1.HostedCluster
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := c.Env.Client.Get(ctx, client.ObjectKeyFromObject(c.Healthy), &hc); err != nil {
				return err
			}
			change(&hc)
			return c.Env.Client.Update(ctx, &hc)
		})
		return &hc, err
	}}
}

// ThenUpdate creates with first (which must be accepted), then tries change.
func ThenUpdate[T client.Object](first Act, change func(c *Run, obj T)) Act {
	return Act{Prepare: first.Prepare, Run: func(ctx context.Context, c *Run) (client.Object, error) {
		obj, err := first.Run(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("creating the object to change: %w", err)
		}
		typed := obj.(T)
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := c.Env.Client.Get(ctx, client.ObjectKeyFromObject(typed), typed); err != nil {
				return err
			}
			change(c, typed)
			return c.Env.Client.Update(ctx, typed)
		})
		return typed, err
	}}
}

// watchAvailable records every moment the healthy cluster is not
// Available until stop is called; stop returns what it saw.
func (l *Lane) watchAvailable() (stop func() []string) {
	ctx, cancel := context.WithCancel(context.Background())
	var lapses []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			var hc hcplinkv1beta1.HostedCluster
			err := l.Env.Client.Get(ctx, client.ObjectKeyFromObject(l.Healthy), &hc)
			if err == nil {
				err = conditionIs(hc.Status.Conditions, hcplinkv1beta1.AvailableCondition, metav1.ConditionTrue)
			}
			if err != nil && ctx.Err() == nil {
				lapses = append(lapses, time.Now().Format(time.RFC3339Nano)+": "+err.Error())
			}
			select {
			case <-ctx.Done():
			case <-time.After(pollEvery):
			}
		}
	}()
	return func() []string {
		cancel()
		<-done
		return lapses
	}
}

// mutatingCalls is the number of mutating cloud calls per account (or
// subscription) so far.
func (l *Lane) mutatingCalls() map[string]int64 {
	out := map[string]int64{}
	for account, ops := range l.Env.Cloud.Counters.Snapshot() {
		for _, cc := range ops {
			out[account] += cc.Mutating
		}
	}
	return out
}

// mutatingOps lists, per account and operation, the mutating calls made
// since before that succeeded (changed) and those the cloud refused.
func mutatingOps(before, after map[string]map[string]sim.CallCount) (changed, refused []string) {
	for account, ops := range after {
		for op, cc := range ops {
			b := before[account][op]
			d := cc.Mutating - b.Mutating
			if d <= 0 {
				continue
			}
			// An operation is mutating or not as a whole, so its failures
			// are failed mutations.
			failed := min(d, cc.Failed-b.Failed)
			if ok := d - failed; ok > 0 {
				changed = append(changed, fmt.Sprintf("%s %s ×%d", account, op, ok))
			}
			if failed > 0 {
				refused = append(refused, fmt.Sprintf("%s %s ×%d", account, op, failed))
			}
		}
	}
	sort.Strings(changed)
	sort.Strings(refused)
	return changed, refused
}

// settle waits until no mutating call has been made for quiet, so that
// the corpus starts from a cloud at rest.
func (l *Lane) settle(t *testing.T, quiet time.Duration) {
	t.Helper()
	last, since := l.mutatingCalls(), time.Now()
	eventually(t, longWait, "the cloud to be at rest", func(context.Context) error {
		now := l.mutatingCalls()
		if !equalCounts(now, last) {
			last, since = now, time.Now()
		}
		if time.Since(since) < quiet {
			return fmt.Errorf("mutating calls %v, %v ago", now, time.Since(since).Round(time.Millisecond))
		}
		return nil
	})
}

func equalCounts(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// conditionIs checks one condition's status.
func conditionIs(conditions []metav1.Condition, condType string, status metav1.ConditionStatus) error {
	c := meta.FindStatusCondition(conditions, condType)
	switch {
	case c == nil:
		return fmt.Errorf("no %s condition", condType)
	case c.Status != status:
		return fmt.Errorf("%s is %s (%s: %s)", condType, c.Status, c.Reason, c.Message)
	}
	return nil
}

// eventually polls check until it returns nil or the deadline passes; each
// check gets its own short deadline, so that the failure names the last
// real answer rather than the deadline.
func eventually(t *testing.T, timeout time.Duration, what string, check func(ctx context.Context) error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
		last := check(ctx)
		cancel()
		if last == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting %v for %s: %v", timeout, what, last)
		}
		time.Sleep(pollEvery)
	}
}

// checkTimeout bounds one poll of eventually.
const checkTimeout = 10 * time.Second

// deleteCases deletes every HostedCluster and NodePool of the lane's
// namespace but the healthy cluster, and waits until they are gone.
func (l *Lane) deleteCases(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	keep := func(o client.Object) bool {
		return o.GetName() == l.Healthy.Name || (l.Target != nil && o.GetName() == l.Target.Name) || strings.HasPrefix(o.GetName(), "healthy-") ||
			strings.HasPrefix(o.GetName(), "target-")
	}
	var nps hcplinkv1beta1.NodePoolList
	var hcs hcplinkv1beta1.HostedClusterList
	for _, list := range []client.ObjectList{&nps, &hcs} {
		if err := l.Env.Client.List(ctx, list, client.InNamespace(l.Namespace)); err != nil {
			t.Fatal(err)
		}
	}
	var objs []client.Object
	for i := range nps.Items {
		if !keep(&nps.Items[i]) {
			objs = append(objs, &nps.Items[i])
		}
	}
	for i := range hcs.Items {
		if !keep(&hcs.Items[i]) {
			objs = append(objs, &hcs.Items[i])
		}
	}
	for _, o := range objs {
		if err := l.Env.Client.Delete(ctx, o); client.IgnoreNotFound(err) != nil {
			t.Errorf("deleting %s: %v", o.GetName(), err)
		}
	}
	eventually(t, longWait, "every case's objects to be gone", func(ctx context.Context) error {
		var left []string
		for _, o := range objs {
			if err := l.Env.Client.Get(ctx, client.ObjectKeyFromObject(o), o); !apierrors.IsNotFound(err) {
				left = append(left, fmt.Sprintf("%T %s (finalizers %v, conditions %s)", o, o.GetName(), o.GetFinalizers(), jsonOf(conditionsOf(o))))
			}
		}
		if len(left) > 0 {
			return fmt.Errorf("still there: %v", left)
		}
		return nil
	})
}

// requireNoControlPlaneNamespace: nothing was made for a refused cluster.
func (l *Lane) requireNoControlPlaneNamespace(t *testing.T, c *Run) {
	t.Helper()
	err := l.Env.Client.Get(context.Background(), client.ObjectKey{Name: c.hcpNamespace()}, &corev1.Namespace{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("the control-plane namespace %s of a refused cluster exists (err=%v)", c.hcpNamespace(), err)
	}
}

func CreateNamespace(t *testing.T, env *devenv.Env, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := env.Client.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	return ns.Name
}

// RandomSuffix is n lowercase letters.
func RandomSuffix(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rand.IntN(26))
	}
	return string(b)
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// RouteServices publishes every service by Route, the API server and
// OAuth with hostnames.
func RouteServices(name string) []hcplinkv1beta1.ServicePublishingStrategyMapping {
	domain := strings.ReplaceAll(name, ".", "-") + ".example.test"
	route := func(s hcplinkv1beta1.ServiceType, host string) hcplinkv1beta1.ServicePublishingStrategyMapping {
		m := hcplinkv1beta1.ServicePublishingStrategyMapping{Service: s, ServicePublishingStrategy: hcplinkv1beta1.ServicePublishingStrategy{Type: hcplinkv1beta1.RoutePublishing}}
		if host != "" {
			m.ServicePublishingStrategy.Route = &hcplinkv1beta1.RoutePublishingStrategy{Hostname: host}
		}
		return m
	}
	return []hcplinkv1beta1.ServicePublishingStrategyMapping{route(hcplinkv1beta1.APIServer, "api."+domain), route(hcplinkv1beta1.OAuthServer, "oauth."+domain),
		route(hcplinkv1beta1.Konnectivity, ""), route(hcplinkv1beta1.Ignition, "")}
}
