package soak

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

func TestHotLoops(t *testing.T) {
	before := map[string]float64{"awsendpoint": 100, "hostedcluster": 50}
	after := map[string]float64{"awsendpoint": 100 + 10*2, "hostedcluster": 50 + 10*100, "nodepool": 5, "devenv-namespaces": 10 * 100}
	rates, loops := hotLoops(before, after, 10, 2*time.Minute)
	if rates["awsendpoint"] != 1 || rates["hostedcluster"] != 50 || rates["nodepool"] != 0.25 {
		t.Errorf("rates = %v, want awsendpoint 1, hostedcluster 50, nodepool 0.25 per cluster per minute", rates)
	}
	if len(loops) != 1 || loops[0].Controller != "hostedcluster" {
		t.Errorf("hot loops = %+v, want hostedcluster alone (policy %.0f; devenv's stand-ins are not hcplink's)", loops, hotLoopPerClusterMinute)
	}
	if _, loops := hotLoops(before, after, 0, time.Minute); len(loops) != 0 {
		t.Errorf("no cluster, yet hot loops %+v", loops)
	}
}

func TestIsConverged(t *testing.T) {
	cond := func(status metav1.ConditionStatus, gen int64) metav1.Condition {
		return metav1.Condition{Type: hcplinkv1beta1.AvailableCondition, Status: status, ObservedGeneration: gen}
	}
	for _, tt := range []struct {
		name  string
		gen   int64
		conds []metav1.Condition
		want  bool
	}{
		{"available at its generation", 3, []metav1.Condition{cond(metav1.ConditionTrue, 3)}, true},
		{"available for an older spec", 3, []metav1.Condition{cond(metav1.ConditionTrue, 2)}, false},
		{"not available", 3, []metav1.Condition{cond(metav1.ConditionFalse, 3)}, false},
		{"no condition yet", 1, nil, false},
		{"another condition behind", 3, []metav1.Condition{cond(metav1.ConditionTrue, 3), {Type: "Other", Status: metav1.ConditionTrue, ObservedGeneration: 1}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hc := &hcplinkv1beta1.HostedCluster{ObjectMeta: metav1.ObjectMeta{Generation: tt.gen}, Status: hcplinkv1beta1.HostedClusterStatus{Conditions: tt.conds}}
			if got := isConverged(hc); got != tt.want {
				t.Errorf("isConverged = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	clean := CloudReport{Cloud: "aws", Present: 3, Converged: 3, Ledger: sim.LedgerReport{Leaks: map[string][]sim.LedgerEntry{}}}
	r := &Report{Clouds: []CloudReport{clean}}
	r.judge()
	if !r.Pass || len(r.Problems) != 0 {
		t.Errorf("a clean soak: pass %v, problems %v", r.Pass, r.Problems)
	}
	bad := clean
	bad.Converged = 2
	bad.Ledger.Duplicates = []sim.Duplicate{{}}
	bad.Ledger.Leaks = map[string][]sim.LedgerEntry{"222222222222": {{ID: "vpce-1"}}}
	bad.Ledger.ForeignTouched = []sim.Touch{{}}
	bad.HotLoops = []HotLoop{{Controller: "x"}}
	r = &Report{Clouds: []CloudReport{bad}}
	r.judge()
	if r.Pass || len(r.Problems) != 5 {
		t.Errorf("a soak with one of each problem: pass %v, problems %v (want 5)", r.Pass, r.Problems)
	}
}

func TestUntrueConditions(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	windows := map[string][]window{"soak-001": {{from: t0, to: t0.Add(time.Minute)}}}
	tw := &truthWatch{seen: map[string]deniedAt{}}
	for i, d := range []deniedAt{
		{cluster: "soak-001", object: "inside", at: t0.Add(30 * time.Second)},
		{cluster: "soak-001", object: "just after the restore", at: t0.Add(time.Minute + truthSlack)},
		{cluster: "soak-001", object: "before the revocation", at: t0.Add(-5 * time.Second)},
		{cluster: "soak-001", object: "long after the restore", at: t0.Add(time.Minute + truthSlack + time.Second)},
		{cluster: "soak-002", object: "never revoked", at: t0.Add(30 * time.Second)},
	} {
		tw.seen[fmt.Sprint(i)] = d
	}
	got := tw.untrue(windows)
	want := []string{"before the revocation", "long after the restore", "never revoked"}
	if len(got) != len(want) {
		t.Fatalf("untrue = %q, want those of %q", got, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w+":") {
			t.Errorf("untrue[%d] = %q, want %q", i, got[i], w)
		}
	}
}

// A condition False since before the revocation that turns AccessDenied
// during it is dated when the refusal is first seen, not by its
// lastTransitionTime (which moves only with the status); a refusal seen
// again is the same one; one that ends and comes back is another.
func TestRefusalsAreDatedWhenFirstSeen(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	tw := &truthWatch{clusters: map[string]string{"soak-001": "soak-001"}, seen: map[string]deniedAt{}, current: map[string]string{}}
	cond := func(reason string) []metav1.Condition {
		return []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: reason, LastTransitionTime: metav1.NewTime(t0.Add(-time.Minute))}}
	}
	tw.observe(t0, "HostedCluster soak-001/hc", "soak-001", cond("Pending"))
	tw.observe(t0.Add(10*time.Second), "HostedCluster soak-001/hc", "soak-001", cond(hcplinkv1beta1.AccessDeniedReason))
	tw.observe(t0.Add(12*time.Second), "HostedCluster soak-001/hc", "soak-001", cond(hcplinkv1beta1.AccessDeniedReason))
	windows := map[string][]window{"soak-001": {{from: t0.Add(5 * time.Second), to: t0.Add(20 * time.Second)}}}
	if len(tw.seen) != 1 {
		t.Fatalf("%d refusals seen, want 1", len(tw.seen))
	}
	if u := tw.untrue(windows); len(u) != 0 {
		t.Errorf("a refusal first seen inside the window is reported untrue: %q", u)
	}
	tw.observe(t0.Add(14*time.Second), "HostedCluster soak-001/hc", "soak-001", cond("Pending"))
	tw.observe(t0.Add(time.Hour), "HostedCluster soak-001/hc", "soak-001", cond(hcplinkv1beta1.AccessDeniedReason))
	if u := tw.untrue(windows); len(u) != 1 {
		t.Errorf("a refusal that came back an hour later: untrue = %q, want it alone", u)
	}
}

// --platform names one cloud or all three; all runs AWS, Azure and GCP.
func TestPlatformsFor(t *testing.T) {
	for _, tc := range []struct {
		flag string
		want []string
	}{
		{"", []string{"aws"}}, {"aws", []string{"aws"}}, {"Azure", []string{"azure"}}, {"gcp", []string{"gcp"}},
		{"all", []string{"aws", "azure", "gcp"}},
	} {
		ps, err := platformsFor(Options{Platform: tc.flag})
		if err != nil {
			t.Fatalf("%q: %v", tc.flag, err)
		}
		var got []string
		for _, p := range ps {
			got = append(got, p.name())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("--platform %q soaks %v, want %v", tc.flag, got, tc.want)
		}
	}
	if _, err := platformsFor(Options{Platform: "ibm"}); err == nil || !strings.Contains(err.Error(), "aws, azure, gcp or all") {
		t.Errorf("--platform ibm: %v, want an error naming the choices", err)
	}
}
