package e2egcp

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	simgcp "github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/test/e2eutil"
)

// Rate quotas under load: several clusters created at once in one
// customer's project whose Compute Engine rate quotas are too low for all
// of them in one minute. The project is the scenario's own, so that its
// quotas and counters are its own: the other scenarios, in devenv's
// customer project, are not starved.
const (
	quotaProject       = "e2e-quota-customer"
	quotaProjectNumber = "400000000044"
	// quotaClusters are created at once under the low quota.
	quotaClusters = 5
	// quotaConvergeWait bounds the clusters' convergence: the quota's
	// three minutes or so, the outcome policy's waits on Throttled, and a
	// cluster's own time.
	quotaConvergeWait = 6 * time.Minute
)

// computeCalls are a project's Compute Engine calls: reads (get, list,
// operations), writes, and those the rate quota refused.
type computeCalls struct{ total, writes, refused int64 }

func (c computeCalls) reads() int64 { return c.total - c.writes }

func (c computeCalls) minus(o computeCalls) computeCalls {
	return computeCalls{c.total - o.total, c.writes - o.writes, c.refused - o.refused}
}

func (c computeCalls) String() string {
	return fmt.Sprintf("%d calls (%d reads, %d writes, %d refused)", c.total, c.reads(), c.writes, c.refused)
}

// computeCallsOf reads cloudsim's counters of the project.
func computeCallsOf(project string) computeCalls {
	return sumCompute(computeCalls{}, env.Cloud.Counters.Snapshot()[project])
}

// computeCallsBy reads cloudsim's counters of the clusters' control-plane
// operators (each its own service account): when they equal the
// project's, nobody else's calls are in a measurement.
func computeCallsBy(clusters ...*cluster) computeCalls {
	byPrincipal := env.Cloud.GCP.PrincipalCalls()
	var out computeCalls
	for _, c := range clusters {
		out = sumCompute(out, byPrincipal["serviceAccount:"+c.fixture.ControlPlaneOperatorServiceAccount])
	}
	return out
}

func sumCompute(out computeCalls, byOperation map[string]sim.CallCount) computeCalls {
	for op, n := range byOperation {
		if strings.HasPrefix(op, "compute.googleapis.com:") {
			out.total, out.writes, out.refused = out.total+n.Total, out.writes+n.Mutating, out.refused+n.Throttled
		}
	}
	return out
}

// checkOnlyClusters fails the measurement if the project's calls are not
// all the clusters' own (another scenario or a check read the project).
func checkOnlyClusters(t *testing.T, project, clusters computeCalls) {
	t.Helper()
	if project != clusters {
		t.Errorf("the project had %v, its clusters' control-plane operators %v: other calls are in the measurement", project, clusters)
	}
}

// Several clusters created at once in a project whose Compute Engine rate
// quotas cannot serve them in one minute: each cluster is refused, says
// so in plain words while it waits, and converges once the quota's next
// minutes allow; the project's calls stay within the work (what one
// cluster needs without a quota, times the clusters, plus the drift
// checks of those already done and the passes the refusals cost); and
// nothing is made twice or left behind.
func TestRateQuotaUnderLoadConverges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	customer, err := env.AddGCPCustomer(ctx, quotaProject, quotaProjectNumber)
	if err != nil {
		t.Fatalf("adding the scenario's customer project: %v", err)
	}
	customerProjects.Store(quotaProject, struct{}{})
	cloud := &cloudsimtest.Fixture{Server: env.Cloud, URL: env.CloudURL}

	// What one cluster's creation costs in the project on the default
	// quota, from its HostedCluster's creation until it is Available; and
	// what one drift check of it costs once it is.
	perCluster, perDrift := quotaBaseline(t, customer)

	// The write quota: below half the clusters' writes, so that those
	// writes, made within seconds of each other, cannot all fit in the
	// two minutes the burst can straddle: some are refused whenever it
	// starts, and the last cluster waits for a third minute. Reads keep
	// the default: with this suite's 20 s drift checks (production's are
	// 5 minutes), a read quota would mostly meter the drift checks of the
	// clusters already done.
	writeQuota := int(math.Ceil(float64(quotaClusters*perCluster.writes)/2)) - 1
	if writeQuota < 1 {
		t.Fatalf("one cluster made %d writes: too few for a write quota to refuse %d clusters", perCluster.writes, quotaClusters)
	}
	cloud.SetGCPQuotas(t, quotaProject, simgcp.QuotaOverride{Service: "compute.googleapis.com", Group: simgcp.QuotaGroupWrite, PerMinute: writeQuota})
	t.Cleanup(func() { cloud.ClearGCPQuotas(t, quotaProject) })
	t.Logf("one cluster without a quota: %v to Available, %v over one drift check; the project's quota: %d writes a minute for %d clusters",
		perCluster, perDrift, writeQuota, quotaClusters)

	clusters := make([]*cluster, quotaClusters)
	for i := range clusters {
		clusters[i] = prepareClusterIn(t, customer, fmt.Sprintf("quota-%d", i))
	}
	before, beforeByClusters, start := computeCallsOf(quotaProject), computeCallsBy(clusters...), time.Now()
	for _, c := range clusters {
		c.create(t, hcplinkv1beta1.GCPEndpointAccessPrivate)
	}
	watch := watchUnderQuota(t, clusters)
	end := time.Now()
	loaded := computeCallsOf(quotaProject).minus(before)
	checkOnlyClusters(t, loaded, computeCallsBy(clusters...).minus(beforeByClusters))
	elapsed := end.Sub(start)
	windows := int(end.Truncate(time.Minute).Sub(start.Truncate(time.Minute))/time.Minute) + 1
	t.Logf("%d clusters Available %v after their creation, over %d of the quota's minutes: %v", quotaClusters, elapsed.Round(time.Second), windows, loaded)

	// The quota applied, and the refusals reached the conditions.
	if loaded.refused == 0 {
		t.Errorf("no call was refused: the quota did not apply, the scenario proves nothing")
	}
	if len(watch.messages) == 0 {
		t.Errorf("no GCPPrivateServiceConnect said it was throttled while %d calls were refused", loaded.refused)
	}
	for name, m := range watch.messages {
		checkThrottledMessage(t, name, m)
	}
	for what, m := range watch.others {
		t.Logf("while refused, %s: %s", what, m)
		checkPlain(t, m)
	}

	// Calls bounded by the work: each cluster's creation as measured
	// without a quota; a drift check for every drift interval (at its
	// shortest, jittered) a cluster spent Available before the last one
	// was; and for every refused call, a pass that stopped there and is
	// done again (at most callsPerPass calls). Refused calls themselves
	// are bounded by the outcome policy: a refused pass stops at its
	// refusal, and a refusal by a quota of per-minute windows is looked at
	// again only once the next minute has started (outcome.UntilRefill),
	// so a cluster is refused at most once in each of the quota's minutes.
	refusedBound := int64(quotaClusters * windows)
	// The shortest drift interval: Jitter spreads it over ±15 %.
	driftChecks := watch.driftChecks(end, driftInterval*85/100)
	bound := quotaClusters*perCluster.total + driftChecks*perDrift.total + loaded.refused*callsPerPass
	t.Logf("bound: %d clusters x %d + %d drift checks x %d + %d refused x %d = %d calls; refused at most %d",
		quotaClusters, perCluster.total, driftChecks, perDrift.total, loaded.refused, callsPerPass, bound, refusedBound)
	if loaded.total > bound {
		t.Errorf("%v for %d clusters, more than the work bounds (%d): the control-plane operators call more than the quota's refusals justify", loaded, quotaClusters, bound)
	}
	if loaded.refused > refusedBound {
		t.Errorf("%d refused calls over %d minutes for %d clusters, more than the outcome policy allows (%d): a refused pass is tried again before the quota's next minute", loaded.refused, windows, quotaClusters, refusedBound)
	}

	// The path of each, read back once the quota is lifted (the reads
	// would count against it): no duplicate in the project's history;
	// deleted, nothing of it left.
	cloud.ClearGCPQuotas(t, quotaProject)
	for _, c := range clusters {
		c.waitPath(t, c.fixture.Subnet)
		c.checkNoDuplicates(t, map[string]int{"serviceAttachments": 1})
	}
	for _, c := range clusters { // all at once, then each checked
		hc := &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: c.Name}}
		if err := env.Client.Delete(ctx, hc); err != nil {
			t.Fatalf("deleting HostedCluster %s: %v", c.Name, err)
		}
	}
	for _, c := range clusters {
		c.deleteAndCheckNothingLeft(t)
	}
}

// quotaBaseline creates one Private cluster in the customer's project on
// the default quota and returns the project's Compute Engine calls from
// its creation until it is Available, and over one drift check after
// that; then deletes it and waits until nothing of it is left, so that
// none of its calls count afterwards.
func quotaBaseline(t *testing.T, customer devenv.GCPCustomerNetwork) (create, drift computeCalls) {
	t.Helper()
	c := prepareClusterIn(t, customer, "quota-base")
	before := computeCallsOf(quotaProject)
	c.create(t, hcplinkv1beta1.GCPEndpointAccessPrivate)
	c.waitAvailable(t)
	available, availableByCluster := computeCallsOf(quotaProject), computeCallsBy(c)
	create = available.minus(before)
	checkOnlyClusters(t, create, availableByCluster)
	// One drift check: the longest jittered interval and the pass itself.
	since := time.Now()
	suite.Eventually(t, oneDriftCheck+e2eutil.ShortWait, "one drift check of the baseline cluster", func(context.Context) error {
		if elapsed := time.Since(since); elapsed < oneDriftCheck {
			return fmt.Errorf("%v of %v", elapsed.Round(time.Second), oneDriftCheck)
		}
		return nil
	})
	drift = computeCallsOf(quotaProject).minus(available)
	checkOnlyClusters(t, drift, computeCallsBy(c).minus(availableByCluster))
	c.waitPath(t, c.fixture.Subnet)
	c.deleteAndCheckNothingLeft(t)
	return create, drift
}

// quotaWatch is what the scenario saw of the clusters while they
// converged: the first message of each cluster's summary condition
// (GCPPrivateServiceConnectAvailable, which the HostedCluster folds in)
// while Throttled, every other Throttled condition's first message, and
// when each cluster became Available.
type quotaWatch struct {
	messages  map[string]string // cluster → its summary's first Throttled message
	others    map[string]string // cluster/type → the first Throttled message
	available map[string]time.Time
}

func (w *quotaWatch) see(name string, conditions []metav1.Condition) {
	for _, cond := range conditions {
		switch {
		case cond.Reason != hcplinkv1beta1.ThrottledReason:
		case cond.Type == hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition:
			if w.messages[name] == "" {
				w.messages[name] = cond.Message
			}
		case w.others[name+"/"+cond.Type] == "":
			w.others[name+"/"+cond.Type] = cond.Message
		}
	}
}

// watchUnderQuota polls the clusters until every one is Available over
// its private path, recording what their GCPPrivateServiceConnects say
// while the quota refuses them.
func watchUnderQuota(t *testing.T, clusters []*cluster) *quotaWatch {
	t.Helper()
	w := &quotaWatch{messages: map[string]string{}, others: map[string]string{}, available: map[string]time.Time{}}
	suite.Eventually(t, quotaConvergeWait, fmt.Sprintf("%d clusters to become Available under the quota", len(clusters)), func(ctx context.Context) error {
		waiting := 0
		for _, c := range clusters {
			if _, done := w.available[c.Name]; done {
				continue
			}
			if cr, err := c.psc(ctx); err == nil {
				w.see(c.Name, cr.Status.Conditions)
			}
			hc, err := c.Get(ctx)
			if err != nil {
				return err
			}
			if e2eutil.ConditionIs(hc.Status.Conditions, hcplinkv1beta1.GCPPrivateServiceConnectAvailableCondition, metav1.ConditionTrue, "") != nil ||
				e2eutil.ConditionIs(hc.Status.Conditions, hcplinkv1beta1.AvailableCondition, metav1.ConditionTrue, "") != nil {
				waiting++
				continue
			}
			w.available[c.Name] = time.Now()
		}
		if waiting > 0 {
			return fmt.Errorf("%d of %d clusters not Available yet", waiting, len(clusters))
		}
		return nil
	})
	return w
}

// driftChecks is how many drift checks the clusters can have made between
// becoming Available and end: one per interval (at its shortest), and one
// more each for a pass under way.
func (w *quotaWatch) driftChecks(end time.Time, shortest time.Duration) int64 {
	var n int64
	for _, at := range w.available {
		n += int64(end.Sub(at)/shortest) + 1
	}
	return n
}

// checkThrottledMessage: the summary condition, while Throttled, says in
// plain words that Google's rate quota of the project refused the call
// and when hcplink looks again.
func checkThrottledMessage(t *testing.T, cluster, m string) {
	t.Helper()
	t.Logf("while refused, %s: %s", cluster, m)
	for _, want := range []string{"rate quota", quotaProject, "Next check at"} {
		if !strings.Contains(m, want) {
			t.Errorf("the Throttled message does not say %q: %s", want, m)
		}
	}
	checkPlain(t, m)
}

// checkPlain: no URL, resource path, project number, JSON or the client's
// error text.
func checkPlain(t *testing.T, m string) {
	t.Helper()
	for _, leak := range []string{"://", "projects/", quotaProjectNumber, "{", "googleapi:", "requestId"} {
		if strings.Contains(m, leak) {
			t.Errorf("the Throttled message carries %q: %s", leak, m)
		}
	}
}
