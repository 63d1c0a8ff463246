package bench

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/gcp"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

const (
	gcpMgmt     = "mgmt-project"
	gcpCustomer = "customer-project"
	compute     = "compute.googleapis.com"
)

func TestGCPJobOf(t *testing.T) {
	tests := []struct {
		project, op, want string
	}{
		{"global", gcpSTSExchange, jobGCPExchange},
		{"global", gcpImpersonation, jobGCPImpersonation},
		{"global", gcpOAuthToken, jobGCPOperatorToken},
		{gcpMgmt, compute + ":serviceAttachments.get", jobOperatorDrift},
		{gcpCustomer, compute + ":forwardingRules.get", jobCPODrift},
		{gcpCustomer, "dns.googleapis.com:resourceRecordSets.list", jobCPODrift},
	}
	for _, tc := range tests {
		if got := gcpJobOf(tc.project, tc.op, gcpMgmt); got != tc.want {
			t.Errorf("gcpJobOf(%s, %s) = %q, want %q", tc.project, tc.op, got, tc.want)
		}
	}
}

// Drift is observed and counted at each operator's production interval;
// the tokens are modelled, and the sign-in calls seen on the create path
// are not counted a second time in the by-operation rows.
func TestGCPSteadyStateCountsDriftAtItsPeriodAndModelsTokens(t *testing.T) {
	in := SteadyInput{
		Clusters: 4, Window: time.Minute, DriftDuringRun: 15 * time.Second,
		Quiet: Snapshot{
			gcpCustomer: {compute + ":forwardingRules.get": {Total: 16}, "dns.googleapis.com:managedZones.get": {Total: 16}, "dns.googleapis.com:resourceRecordSets.list": {Total: 16}},
			gcpMgmt:     {compute + ":serviceAttachments.list": {Total: 4}},
		},
		Startup: Snapshot{"global": {gcpSTSExchange: {Total: 4}, gcpImpersonation: {Total: 4}, gcpOAuthToken: {Total: 1}}},
	}
	jobs := gcpSteadyState(in, gcpMgmt)
	byJob := map[string]Job{}
	for _, j := range jobs {
		byJob[j.Job] = j
	}
	// 48 calls ÷ 4 clusters ÷ 4 drift runs = 3 per pass, 12 passes an hour.
	if j := byJob[jobCPODrift]; !near(j.CallsPerRun, 3) || !near(j.PerClusterHour, 36) {
		t.Errorf("control-plane drift = %+v, want 3 calls/run, 36/h", j)
	}
	// One listing per pass for the management cluster: ¼ per cluster.
	if j := byJob[jobOperatorDrift]; !near(j.CallsPerRun, 0.25) || !near(j.PerClusterHour, 3) {
		t.Errorf("operator drift = %+v, want 0.25 calls/run, 3/h", j)
	}
	if got := callsPerDriftPass(jobs); !near(got, 3.25) {
		t.Errorf("calls per pass = %v, want 3.25", got)
	}
	// 1 exchange + 1 impersonation per cluster-hour, the operator's ¼.
	tokens := byJob[jobGCPExchange].PerClusterHour + byJob[jobGCPImpersonation].PerClusterHour + byJob[jobGCPOperatorToken].PerClusterHour
	if !near(tokens, 2.25) {
		t.Errorf("tokens = %v per cluster-hour, want 2.25", tokens)
	}
	if !near(byJob[jobCPOCredentials].PerClusterHour, 0) || !near(byJob[jobOperatorCreds].PerClusterHour, 0) {
		t.Errorf("credentials checks cost calls: %+v %+v", byJob[jobCPOCredentials], byJob[jobOperatorCreds])
	}
	// The endpoint read once an hour past the operator's report.
	if j := byJob[jobEndpointReread]; !near(j.PerClusterHour, 1) {
		t.Errorf("endpoint re-read = %+v, want 1 per cluster-hour", j)
	}
	total := totalPerClusterHour(jobs)
	if !near(total, 42.25) {
		t.Errorf("total = %v, want 42.25", total)
	}
	acct := gcpAccounting(gcp.DefaultQuotas(), gcp.FastDelays(), gcpMgmt)
	rows := spreadOverOperations(in, jobs, acct.jobOf, acct.modelled)
	var sum float64
	for _, r := range rows {
		sum += r.Calls
	}
	if !near(sum, total) {
		t.Errorf("by-operation rows sum to %v, not the jobs' %v: %+v", sum, total, rows)
	}
}

func TestQuotaWindowWait(t *testing.T) {
	tests := []struct {
		calls     int64
		perMinute float64
		want      float64
	}{
		{0, 1500, 0},
		{1500, 1500, 0},
		// The first window may end at once: two windows cost no whole minute.
		{3000, 1500, 0},
		{3001, 1500, 60},
		{4500, 1500, 60},
		{7500, 1500, 180},
		{7501, 1500, 240},
	}
	for _, tc := range tests {
		if got := quotaWindowWait(tc.calls, tc.perMinute); !near(got, tc.want) {
			t.Errorf("quotaWindowWait(%d, %v) = %v, want %v", tc.calls, tc.perMinute, got, tc.want)
		}
	}
}

// Windows are per project and group; refused calls took no count; the
// stand-in's calls count against the management project; a service
// without a quota figure (Cloud DNS) bounds nothing.
func TestGCPQuotaWindowsArePerProjectAndGroup(t *testing.T) {
	quotas := map[string]sim.ServiceLimits{compute: {NonMutating: sim.Limit{Burst: 10}, Mutating: sim.Limit{Burst: 5}}}
	all := Snapshot{
		gcpMgmt: {
			compute + ":forwardingRules.insert":    {Total: 12, Mutating: 12, Throttled: 1},
			compute + ":serviceAttachments.insert": {Total: 10, Mutating: 10},
			compute + ":regionOperations.wait":     {Total: 30, Throttled: 5},
		},
		gcpCustomer: {
			compute + ":addresses.insert":            {Total: 3, Mutating: 3},
			"dns.googleapis.com:managedZones.create": {Total: 500, Mutating: 500},
		},
	}
	bs := gcpQuotaWindows(all, quotas)
	if len(bs) != 3 {
		t.Fatalf("buckets = %+v, want the management project's reads and writes and the customer's writes", bs)
	}
	// 21 writes at 5 a minute: 5 windows, 3 whole minutes.
	if b := bs[0]; b.Account != gcpMgmt || b.Operation != "writes" || b.Calls != 21 || !near(b.Seconds, 180) {
		t.Errorf("binding = %+v, want the management project's 21 writes, 180 s", b)
	}
	for _, b := range bs[1:] {
		switch {
		case b.Account == gcpMgmt && b.Operation == "reads":
			if b.Calls != 25 || !near(b.Seconds, 60) {
				t.Errorf("management reads = %+v, want 25 calls, 60 s", b)
			}
		case b.Account == gcpCustomer && b.Operation == "writes":
			if b.Calls != 3 || b.Seconds != 0 {
				t.Errorf("customer writes = %+v, want 3 calls, 0 s", b)
			}
		default:
			t.Errorf("unexpected bucket %+v", b)
		}
	}
}

func TestGCPProvisioningChainIsFourOperationsAndAChange(t *testing.T) {
	for name, d := range map[string]gcp.Delays{"fast": gcp.FastDelays(), "realistic": gcp.RealisticDelays()} {
		want := 4*d.Operation.D() + d.DNSChange.D()
		if got := gcpProvisioningChain(d); got != want || got == 0 {
			t.Errorf("%s: chain = %v, want %v", name, got, want)
		}
	}
	if got := gcpProvisioningChain(gcp.RealisticDelays()); got != 90*time.Second {
		t.Errorf("realistic chain = %v, want 4 × 15 s + 30 s", got)
	}
}

func TestGCPReportHasTheSameKeysAndLeavesOutTheStandIn(t *testing.T) {
	run := func(acct *accounting, platform string) map[string]any {
		r := measure(measurement{
			platform: platform, clusters: 2, accounts: 1, elapsed: 10 * time.Second, window: time.Minute, drift: 15 * time.Second,
			create: Snapshot{
				gcpCustomer: {compute + ":addresses.insert": {Total: 2, Mutating: 2}, compute + ":forwardingRules.insert": {Total: 2, Mutating: 2}},
				gcpMgmt:     {compute + ":forwardingRules.insert": {Total: 2, Mutating: 2}, compute + ":serviceAttachments.insert": {Total: 2, Mutating: 2}},
			},
			// devenv's GCP stand-in counts under the short service name.
			lbCreate:   map[string]int64{"compute:forwardingRules.insert": 2},
			quiet:      Snapshot{gcpCustomer: {compute + ":forwardingRules.get": {Total: 8}}},
			accounting: acct,
			throttling: sim.AWSDefaultThrottling(),
		})
		var buf bytes.Buffer
		if err := r.writeJSON(&buf); err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	g := run(gcpAccounting(gcp.DefaultQuotas(), gcp.FastDelays(), gcpMgmt), "GCP")
	aws := run(nil, "AWS")
	for key := range aws {
		if _, ok := g[key]; !ok {
			t.Errorf("the GCP report lacks %q", key)
		}
	}
	// 6 calls of hcplink's over 2 clusters; the stand-in's 2 rules left out.
	if v, _ := g["createCallsPerCluster"].(float64); !near(v, 3) {
		t.Errorf("createCallsPerCluster = %v, want 3", g["createCallsPerCluster"])
	}
	if v, _ := g["createCallsPerClusterWithLoadBalancer"].(float64); !near(v, 4) {
		t.Errorf("createCallsPerClusterWithLoadBalancer = %v, want 4", g["createCallsPerClusterWithLoadBalancer"])
	}
	if v, _ := g["steadyCallsPerClusterPerPass"].(float64); !near(v, 1) {
		t.Errorf("steadyCallsPerClusterPerPass = %v, want 1 (8 reads in 4 passes of 2 clusters)", g["steadyCallsPerClusterPerPass"])
	}
	if v, _ := g["lowerBoundSeconds"].(float64); !near(v, gcpProvisioningChain(gcp.FastDelays()).Seconds()) {
		t.Errorf("lowerBoundSeconds = %v, want the chain alone (no window is full)", g["lowerBoundSeconds"])
	}
}

func TestGoogleOperation(t *testing.T) {
	for in, want := range map[string]string{
		"compute:forwardingRules.get":    compute + ":forwardingRules.get",
		compute + ":forwardingRules.get": compute + ":forwardingRules.get",
		"no-service":                     "no-service",
	} {
		if got := googleOperation(in); got != want {
			t.Errorf("googleOperation(%q) = %q, want %q", in, got, want)
		}
	}
}
