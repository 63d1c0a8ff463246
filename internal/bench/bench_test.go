package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"testing"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/azure"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	"github.com/hcplink/hcplink/internal/devenv"
	"github.com/hcplink/hcplink/internal/intervals"
)

const customer = devenv.CustomerAccount

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestParseStatusKB(t *testing.T) {
	tests := []struct {
		name, status, field string
		want                int64
	}{
		{"peak", "Name:\thcplink\nVmPeak:\t 2000 kB\nVmHWM:\t   91648 kB\nVmRSS:\t 80000 kB\n", "VmHWM:", 91648 * 1024},
		{"resident", "Name:\thcplink\nVmHWM:\t   91648 kB\nVmRSS:\t 80000 kB\n", "VmRSS:", 80000 * 1024},
		{"absent", "Name:\thcplink\nVmRSS:\t 80000 kB\n", "VmHWM:", 0},
		{"garbled", "VmHWM:\tlots kB\n", "VmHWM:", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseStatusKB(tc.status, tc.field); got != tc.want {
				t.Fatalf("parseStatusKB = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestByOperationFoldsAccounts(t *testing.T) {
	got := byOperation(Snapshot{
		"111111111111": {"ec2:DescribeVpcs": {Total: 2, Throttled: 1, Failed: 1}},
		"222222222222": {"ec2:DescribeVpcs": {Total: 3}, "ec2:CreateVpc": {Total: 1, Mutating: 1}},
	})
	want := map[string]sim.CallCount{
		"ec2:DescribeVpcs": {Total: 5, Throttled: 1, Failed: 1},
		"ec2:CreateVpc":    {Total: 1, Mutating: 1},
	}
	if len(got) != len(want) || got["ec2:DescribeVpcs"] != want["ec2:DescribeVpcs"] || got["ec2:CreateVpc"] != want["ec2:CreateVpc"] {
		t.Fatalf("byOperation = %v, want %v", got, want)
	}
}

func TestWithoutLoadBalancerProvisioning(t *testing.T) {
	snap := Snapshot{
		devenv.ManagementAccount: {
			"elasticloadbalancing:CreateLoadBalancer":    {Total: 3, Mutating: 3},
			"elasticloadbalancing:DescribeLoadBalancers": {Total: 10, Throttled: 4, Failed: 4},
		},
		customer: {"elasticloadbalancing:DescribeLoadBalancers": {Total: 2}},
	}
	lb := map[string]int64{"elasticloadbalancing:CreateLoadBalancer": 3, "elasticloadbalancing:DescribeLoadBalancers": 8}
	got := withoutLoadBalancerProvisioning(snap, lb)
	tests := []struct {
		name, account, op string
		want              sim.CallCount
	}{
		{"the stand-in's creates are gone", devenv.ManagementAccount, "elasticloadbalancing:CreateLoadBalancer", sim.CallCount{}},
		{"the operator's describes stay", devenv.ManagementAccount, "elasticloadbalancing:DescribeLoadBalancers", sim.CallCount{Total: 2, Throttled: 2, Failed: 2}},
		{"other accounts are untouched", customer, "elasticloadbalancing:DescribeLoadBalancers", sim.CallCount{Total: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if c := got[tc.account][tc.op]; c != tc.want {
				t.Fatalf("%s %s = %+v, want %+v", tc.account, tc.op, c, tc.want)
			}
		})
	}
	if snap[devenv.ManagementAccount]["elasticloadbalancing:CreateLoadBalancer"].Total != 3 {
		t.Fatal("the input snapshot was changed")
	}
}

func TestJobOf(t *testing.T) {
	tests := []struct{ account, op, want string }{
		{customer, "sts:GetCallerIdentity", jobCPOCredentials},
		{devenv.ManagementAccount, "sts:GetCallerIdentity", jobOperatorCreds},
		{customer, "sts:AssumeRoleWithWebIdentity", jobTokenExchange},
		{customer, "ec2:DescribeVpcEndpoints", jobCPODrift},
		{devenv.ManagementAccount, "ec2:DescribeVpcEndpointServiceConfigurations", jobOperatorDrift},
	}
	for _, tc := range tests {
		if got := jobOf(tc.account, tc.op); got != tc.want {
			t.Errorf("jobOf(%s, %s) = %q, want %q", tc.account, tc.op, got, tc.want)
		}
	}
}

// Each job counts at its production period, not at the drift ratio: an
// operator credentials check every 30 minutes costs 2 calls an hour however
// short the run's drift interval is. The control-plane operator's check
// costs nothing at steady state: its drift checks' calls prove the
// credentials more often than the check would ask STS.
func TestSteadyStateCountsEachJobAtItsPeriod(t *testing.T) {
	in := SteadyInput{
		Clusters: 10,
		// 60 s at a 15 s drift interval: 4 drift runs; 10 clusters × 2
		// calls per run; the operator lists once per run for all.
		Quiet: Snapshot{
			customer:                 {"ec2:DescribeVpcEndpoints": {Total: 80}},
			devenv.ManagementAccount: {"ec2:DescribeVpcEndpointServiceConfigurations": {Total: 4}},
		},
		Window: time.Minute, DriftDuringRun: 15 * time.Second,
		Startup: Snapshot{
			// one check and one exchange per cluster, plus 5 throttled retries
			customer:                 {"sts:GetCallerIdentity": {Total: 15, Failed: 5, Throttled: 5}, "sts:AssumeRoleWithWebIdentity": {Total: 10}, "ec2:CreateVpcEndpoint": {Total: 10}},
			devenv.ManagementAccount: {"sts:GetCallerIdentity": {Total: 1}},
		},
	}
	jobs := steadyState(in)
	want := map[string]float64{
		jobCPODrift:       2 * 6,        // 2 calls × 6 runs/h
		jobOperatorDrift:  0.1 * 6,      // 1 listing ÷ 10 clusters × 6
		jobCPOCredentials: 0,            // proved by the drift checks' calls
		jobOperatorCreds:  0.1 * 2,      // every 30 min, one for the fleet
		jobTokenExchange:  1 * 1,        // hourly
		jobCPOSweep:       2 * 0.5,      // modelled: 2 listings every 2 h
		jobOperatorSweep:  1.0 / 10 * 2, // modelled: 1 listing for the fleet
	}
	var total float64
	for _, j := range jobs {
		if !near(j.PerClusterHour, want[j.Job]) {
			t.Errorf("%s = %v per cluster-hour, want %v", j.Job, j.PerClusterHour, want[j.Job])
		}
		total += want[j.Job]
	}
	if len(jobs) != len(want) {
		t.Fatalf("%d jobs, want %d", len(jobs), len(want))
	}
	if got := totalPerClusterHour(jobs); !near(got, total) {
		t.Fatalf("total = %v, want %v", got, total)
	}
	// By operation, the same figures: the control-plane operator's
	// check adds nothing to GetCallerIdentity, the operator's 0.2 does.
	byOp := map[string]float64{}
	for _, row := range steadyByOperation(in, jobs) {
		byOp[row.Operation] = row.Calls
	}
	if got := byOp["sts:GetCallerIdentity"]; !near(got, 0.2) {
		t.Errorf("sts:GetCallerIdentity = %v per cluster-hour by operation, want 0.2 (the jobs' figure)", got)
	}
	if got := byOp["sts:AssumeRoleWithWebIdentity"]; !near(got, 1) {
		t.Errorf("sts:AssumeRoleWithWebIdentity = %v per cluster-hour by operation, want 1", got)
	}
	// The old drift-ratio scaling would have said (80+4)/10 × 60 × 15/600 = 12.6.
	if total <= 12.6 || !near(total, 15) {
		t.Fatalf("honest total %v should exceed the drift-ratio figure", total)
	}
	if intervals.AWSDrift != 10*time.Minute {
		t.Logf("drift interval is now %v; the wanted figures assume 10m", intervals.AWSDrift)
	}
}

func TestBucketsAndLowerBound(t *testing.T) {
	throttling := sim.AWSDefaultThrottling()
	snap := Snapshot{
		customer: {
			// EC2 mutating, per operation: burst 50, 5/s → (80−50)/5 = 6 s
			"ec2:CreateVpcEndpoint": {Total: 90, Throttled: 10},
			// EC2 read: within the burst → 0 s
			"ec2:DescribeVpcEndpoints": {Total: 100},
			// Route 53: one bucket per account for reads and writes: (20+10−5)/5 = 5 s
			"route53:ChangeResourceRecordSets": {Total: 20},
			"route53:GetHostedZone":            {Total: 10},
		},
		"333333333333":           {"ec2:CreateVpcEndpoint": {Total: 60}}, // its own bucket: 2 s
		devenv.ManagementAccount: {"unthrottled:Thing": {Total: 1000}},
	}
	bs := buckets(snap, throttling)
	byKey := map[string]Bucket{}
	for _, b := range bs {
		byKey[b.Account+" "+b.Service+" "+b.Operation] = b
	}
	tests := []struct {
		key     string
		calls   int64
		seconds float64
	}{
		{customer + " ec2 CreateVpcEndpoint", 80, 6},
		{customer + " ec2 DescribeVpcEndpoints", 100, 0},
		{customer + " route53 ", 30, 5},
		{"333333333333 ec2 CreateVpcEndpoint", 60, 2},
	}
	for _, tc := range tests {
		b, ok := byKey[tc.key]
		if !ok {
			t.Errorf("no bucket %q in %+v", tc.key, bs)
			continue
		}
		if b.Calls != tc.calls || !near(b.Seconds, tc.seconds) {
			t.Errorf("%s: %d calls, %vs; want %d, %vs", tc.key, b.Calls, b.Seconds, tc.calls, tc.seconds)
		}
	}
	if len(bs) != len(tests) {
		t.Errorf("%d buckets, want %d (services without limits have none)", len(bs), len(tests))
	}

	delays := sim.Delays{LoadBalancerProvisioning: sim.Duration(150 * time.Second), EndpointServicePending: sim.Duration(10 * time.Second), EndpointPending: sim.Duration(90 * time.Second)}
	seconds, binding := lowerBound(bs, provisioningChain(delays))
	if !near(seconds, 6+250) || binding == nil || binding.Operation != "CreateVpcEndpoint" || binding.Account != customer {
		t.Fatalf("lowerBound = %v via %+v, want 256 via %s CreateVpcEndpoint", seconds, binding, customer)
	}
	if seconds, binding := lowerBound(nil, time.Second); !near(seconds, 1) || binding != nil {
		t.Fatalf("lowerBound of no calls = %v via %+v, want the chain alone", seconds, binding)
	}
}

func TestFitMemory(t *testing.T) {
	const kib = 1 << 10
	tests := []struct {
		name          string
		samples       []MemorySample
		slope, spread float64
	}{
		{"64 KiB per cluster, no spread", []MemorySample{{0, 100 << 20}, {0, 100 << 20}, {50, 100<<20 + 50*64*kib}, {50, 100<<20 + 50*64*kib}}, 64 * kib, 0},
		// means 1000 and 6000 → 100 per cluster; ranges 200 and 400 → ±(200+400)/2/50.
		{"spread from each end's range", []MemorySample{{0, 900}, {0, 1000}, {0, 1100}, {50, 5800}, {50, 6000}, {50, 6200}}, 100, 6},
		{"least squares over three counts", []MemorySample{{0, 0}, {10, 1200}, {20, 2000}}, 100, 0},
		{"shrinking", []MemorySample{{3, 2000}, {6, 1700}}, -100, 0},
		{"one count only", []MemorySample{{6, 1}, {6, 2}}, 0, 0},
		{"no samples", nil, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			slope, spread := fitMemory(tc.samples)
			if !near(slope, tc.slope) || !near(spread, tc.spread) {
				t.Fatalf("fitMemory = %v ± %v, want %v ± %v", slope, spread, tc.slope, tc.spread)
			}
		})
	}
}

func TestReportJSONHasTheIssueKeys(t *testing.T) {
	r := measure(measurement{
		clusters: 2, accounts: 1, elapsed: 10 * time.Second, window: time.Minute, drift: 15 * time.Second,
		create: Snapshot{
			customer:                 {"ec2:CreateVpcEndpoint": {Total: 2, Mutating: 2}},
			devenv.ManagementAccount: {"elasticloadbalancing:CreateLoadBalancer": {Total: 2, Mutating: 2}},
		},
		lbCreate:   map[string]int64{"elasticloadbalancing:CreateLoadBalancer": 2},
		quiet:      Snapshot{customer: {"ec2:DescribeVpcEndpoints": {Total: 8}}},
		throttling: sim.AWSDefaultThrottling(),
		delays:     sim.Delays{LoadBalancerProvisioning: sim.Duration(4 * time.Second), EndpointPending: sim.Duration(time.Second)},
		memory:     []MemorySample{{0, 1000}, {0, 1100}, {0, 900}, {2, 5000}, {2, 5200}, {2, 4800}},
	})
	var buf bytes.Buffer
	if err := r.writeJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, buf.String())
	}
	want := map[string]float64{
		"clusters":                      2,
		"secondsToAvailable":            10,
		"lowerBoundSeconds":             5,
		"ratio":                         2,
		"createCallsPerCluster":         1, // the stand-in's CreateLoadBalancer left out
		"steadyMutatingCalls":           0,
		"operatorBytesPerCluster":       2000,                // the live heap's least-squares slope
		"operatorBytesPerClusterSpread": 150,                 // (200 + 400) ÷ 2 ÷ 2 clusters
		"steadyCallsPerClusterHour":     1*6 + 2*0.5 + 0.5*2, // drift 8÷2÷4 × 6, modelled sweeps
		// 8 reads in 4 passes of 2 clusters; sweeps and tokens are no pass's.
		"steadyCallsPerClusterPerPass": 1,
	}
	for key, value := range want {
		v, ok := got[key].(float64)
		if !ok || !near(v, value) {
			t.Errorf("%s = %v, want %v", key, got[key], value)
		}
	}
	for _, key := range []string{"createByOperation", "createByOperationWithLoadBalancer", "steadyJobs", "steadyByOperation", "accounts", "operatorPeakBytes", "operatorMemorySamples", "operatorMemoryMethod", "steadyAccounting"} {
		if _, ok := got[key]; !ok {
			t.Errorf("no %q in %s", key, buf.String())
		}
	}
	var table bytes.Buffer
	r.print(&table)
	if !bytes.Contains(table.Bytes(), []byte("each periodic job at its production period")) || !bytes.Contains(table.Bytes(), []byte("2.0 ± 0.1 KiB")) ||
		!bytes.Contains(table.Bytes(), []byte("method: live heap after a forced collection")) {
		t.Fatalf("the table does not explain its accounting or its memory counts:\n%s", table.String())
	}
}

func TestAzureJobsCountDriftAtItsPeriodAndModelTokens(t *testing.T) {
	const mgmt, guest = "mgmt-sub", "guest-sub"
	in := SteadyInput{
		Clusters: 4, Window: time.Minute, DriftDuringRun: 15 * time.Second,
		Quiet: Snapshot{
			guest: {"Microsoft.Network:privateEndpoints/read": {Total: 16}, "Microsoft.Network:privateDnsZones/read": {Total: 16}},
			mgmt:  {"Microsoft.Network:privateLinkServices/read": {Total: 32}},
		},
	}
	jobs := azureSteadyState(in, mgmt)
	byJob := map[string]Job{}
	for _, j := range jobs {
		byJob[j.Job] = j
	}
	// 32 calls ÷ 4 clusters ÷ 4 drift runs = 2 per run, 12 runs an hour.
	if j := byJob[jobCPODrift]; !near(j.CallsPerRun, 2) || !near(j.PerClusterHour, 24) {
		t.Errorf("control-plane drift = %+v, want 2 calls/run, 24/h", j)
	}
	if j := byJob[jobOperatorDrift]; !near(j.CallsPerRun, 2) || !near(j.PerClusterHour, 24) {
		t.Errorf("operator drift = %+v, want 2 calls/run, 24/h", j)
	}
	if j := byJob[jobEntraToken]; !near(j.PerClusterHour, 1.25) {
		t.Errorf("Entra tokens = %+v, want 1 + 1/4 per cluster-hour", j)
	}
	if !near(byJob[jobCPOCredentials].PerClusterHour, 0) || !near(byJob[jobOperatorCreds].PerClusterHour, 0) {
		t.Errorf("credentials checks cost calls: %+v %+v", byJob[jobCPOCredentials], byJob[jobOperatorCreds])
	}
	// The endpoint read once an hour past the operator's report.
	if j := byJob[jobEndpointReread]; !near(j.PerClusterHour, 1) {
		t.Errorf("endpoint re-read = %+v, want 1 per cluster-hour", j)
	}
	if got := totalPerClusterHour(jobs); !near(got, 50.25) {
		t.Errorf("total = %v, want 50.25", got)
	}
	rows := spreadOverOperations(in, jobs, func(a, _ string) string { return azureJobOf(a, mgmt) }, map[string]string{jobEntraToken: "tokens", jobEndpointReread: "endpoint re-read"})
	var sum float64
	for _, r := range rows {
		sum += r.Calls
	}
	if !near(sum, 50.25) {
		t.Errorf("by-operation rows sum to %v, not the jobs' 50.25: %+v", sum, rows)
	}
}

func TestARMKind(t *testing.T) {
	for op, want := range map[string]string{
		"Microsoft.Network:privateEndpoints/read":                                "reads",
		"Microsoft.Network:privateEndpoints/write":                               "writes",
		"Microsoft.Network:privateLinkServices/delete":                           "deletes",
		"Microsoft.Network:privateLinkServices/privateEndpointConnections/write": "writes",
	} {
		if got := armKind(op); got != want {
			t.Errorf("armKind(%s) = %s, want %s", op, got, want)
		}
	}
}

func TestARMBucketsArePerPrincipalAndTheBusiestBinds(t *testing.T) {
	const mgmt, guest = "mgmt-sub", "guest-sub"
	limits := sim.ServiceLimits{NonMutating: sim.Limit{Burst: 250, PerSecond: 25}, Mutating: sim.Limit{Burst: 200, PerSecond: 10}}
	all := Snapshot{
		mgmt:  {"Microsoft.Network:privateLinkServices/write": {Total: 500, Throttled: 50}, "Microsoft.Network:loadBalancers/write": {Total: 100}},
		guest: {"Microsoft.Network:privateEndpoints/write": {Total: 4000}, "Microsoft.Network:privateEndpoints/read": {Total: 300}},
	}
	// The guest's 4000 writes: one busy control-plane operator (600) and
	// 34 quiet ones (100 each); its reads are one operator's.
	byPrincipal := PrincipalSnapshot{
		mgmt: {
			"operator": {"Microsoft.Network:privateLinkServices/write": {Total: 500, Throttled: 50}},
			"stand-in": {"Microsoft.Network:loadBalancers/write": {Total: 100}},
		},
		guest: {"busy-cpo": {"Microsoft.Network:privateEndpoints/write": {Total: 600}, "Microsoft.Network:privateEndpoints/read": {Total: 300}}},
	}
	for i := range 34 {
		byPrincipal[guest][fmt.Sprintf("cpo-%d", i)] = map[string]sim.CallCount{"Microsoft.Network:privateEndpoints/write": {Total: 100}}
	}
	bs := armBuckets(all, byPrincipal, limits)
	find := func(sub, scope, kind string) Bucket {
		for _, b := range bs {
			if b.Account == sub && b.Service == "arm "+scope && b.Operation == kind {
				return b
			}
		}
		t.Fatalf("no %s %s %s bucket in %+v", sub, scope, kind, bs)
		return Bucket{}
	}
	// The busy operator's own writes: 600, 400 beyond the burst at 10/s.
	if b := find(guest, "(principal busy-cpo)", "writes"); b.Calls != 600 || !near(b.Seconds, 40) {
		t.Errorf("busy control-plane operator's writes = %+v, want 600 calls, 40 s", b)
	}
	if b := find(guest, "(principal busy-cpo)", "reads"); b.Calls != 300 || !near(b.Seconds, 2) {
		t.Errorf("busy control-plane operator's reads = %+v, want 300 calls, 2 s", b)
	}
	// The operator's own bucket: 450 calls took a token, 250 beyond the burst at 10/s.
	if b := find(mgmt, "(principal operator)", "writes"); b.Calls != 450 || !near(b.Seconds, 25) {
		t.Errorf("operator bucket = %+v, want 450 calls, 25 s", b)
	}
	// The stand-in has its own bucket; the global one sees it too, at 15×.
	if b := find(mgmt, "(principal stand-in)", "writes"); b.Calls != 100 || b.Seconds != 0 {
		t.Errorf("stand-in bucket = %+v", b)
	}
	if b := find(mgmt, scopeGlobal, "writes"); b.Calls != 550 || b.Burst != 3000 || b.Seconds != 0 {
		t.Errorf("management global bucket = %+v", b)
	}
	// 4000 guest writes: global 1000 beyond 3000 at 150/s.
	if b := find(guest, scopeGlobal, "writes"); !near(b.Seconds, 1000.0/150) {
		t.Errorf("guest global bucket = %+v", b)
	}
	// The busiest real bucket binds, not an average share (4000 ÷ 35 would
	// be within the burst).
	if bound, binding := lowerBound(bs, 0); binding == nil || binding.Service != "arm (principal busy-cpo)" || !near(bound, 40) {
		t.Errorf("lower bound = %v from %+v, want 40 s from the busy operator's writes", bound, binding)
	}
}

func TestAzureProvisioningChainNamesRealDelays(t *testing.T) {
	d := azure.FastDelays()
	for _, name := range []string{"loadBalancerUpdating", "privateLinkServiceUpdating", "privateEndpointUpdating"} {
		if _, ok := d[name]; !ok {
			t.Fatalf("cloudsim has no delay %q: the chain reads a name that does not exist", name)
		}
	}
	want := d["loadBalancerUpdating"].D() + d["privateLinkServiceUpdating"].D() + d["privateEndpointUpdating"].D()
	if got := azureProvisioningChain(d, 1); got != want || got == 0 {
		t.Errorf("chain = %v, want %v", got, want)
	}
}

// Azure provisions one load balancer's frontends one at a time, so the
// last cluster's chain starts with every frontend of the busiest load
// balancer: 8 routers on one → 8 × 10 s, then the service's 30 s and the
// endpoint's 60 s.
func TestAzureChainWaitsForTheBusiestLoadBalancersFrontends(t *testing.T) {
	d := azure.RealisticDelays()
	for _, tc := range []struct {
		name       string
		placements map[string]int
		clusters   int
		want       time.Duration
	}{
		{"one cluster", nil, 1, 100 * time.Second},
		{"unplaced: all on the one internal load balancer", nil, 6, 150 * time.Second},
		{"placed: the busiest configuration", map[string]int{"kubernetes": 8, "lb-2": 7, "lb-3": 7}, 22, 170 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := azureProvisioningChain(d, busiestLoadBalancer(tc.placements, tc.clusters)); got != tc.want {
				t.Errorf("chain = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAzureReportHasTheSameKeysAndLeavesOutTheStandIn(t *testing.T) {
	const mgmt, guest = "mgmt-sub", "guest-sub"
	run := func(acct *accounting, platform string) map[string]any {
		r := measure(measurement{
			platform: platform, clusters: 2, accounts: 1, elapsed: 10 * time.Second, window: time.Minute, drift: 15 * time.Second,
			create: Snapshot{
				guest: {"Microsoft.Network:privateEndpoints/write": {Total: 2, Mutating: 2}},
				mgmt:  {"Microsoft.Network:loadBalancers/write": {Total: 2, Mutating: 2}, "Microsoft.Network:privateLinkServices/write": {Total: 2, Mutating: 2}},
			},
			lbCreate:   map[string]int64{"Microsoft.Network:loadBalancers/write": 2},
			quiet:      Snapshot{guest: {"Microsoft.Network:privateEndpoints/read": {Total: 8}}},
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
	az := run(azureAccounting(azure.DefaultThrottling(), azure.FastDelays(), mgmt), "Azure")
	aws := run(nil, "AWS")
	for key := range aws {
		if _, ok := az[key]; !ok {
			t.Errorf("the Azure report lacks %q", key)
		}
	}
	if az["platform"] != "Azure" {
		t.Errorf("platform = %v", az["platform"])
	}
	// 2 endpoint writes + 2 service writes over 2 clusters; the stand-in's
	// 2 load-balancer writes in the management subscription left out.
	if v, _ := az["createCallsPerCluster"].(float64); !near(v, 2) {
		t.Errorf("createCallsPerCluster = %v, want 2", az["createCallsPerCluster"])
	}
	if v, _ := az["createCallsPerClusterWithLoadBalancer"].(float64); !near(v, 3) {
		t.Errorf("createCallsPerClusterWithLoadBalancer = %v, want 3", az["createCallsPerClusterWithLoadBalancer"])
	}
	// drift 8 ÷ 2 clusters ÷ 4 runs × 12/h, plus the modelled tokens (1 + ½
	// per hour) and the endpoint's hourly read past the operator's report.
	if v, _ := az["steadyCallsPerClusterHour"].(float64); !near(v, 1*12+1.5+1) {
		t.Errorf("steadyCallsPerClusterHour = %v, want 14.5", az["steadyCallsPerClusterHour"])
	}
	if v, _ := az["steadyCallsPerClusterPerPass"].(float64); !near(v, 1) {
		t.Errorf("steadyCallsPerClusterPerPass = %v, want 1 (8 reads in 4 passes of 2 clusters)", az["steadyCallsPerClusterPerPass"])
	}
	if v, _ := az["lowerBoundSeconds"].(float64); !near(v, azureProvisioningChain(azure.FastDelays(), 2).Seconds()) {
		t.Errorf("lowerBoundSeconds = %v, want the chain alone (no bucket is past its burst)", az["lowerBoundSeconds"])
	}
}

// On Azure the busiest bucket's calls are spread over the chain's waits:
// each is a bound on its own and the longer binds, never their sum (a
// realistic run at 50 clusters took less than that sum).
func TestAzureBoundIsTheLongerOfChainAndBucket(t *testing.T) {
	const mgmt = "mgmt-sub"
	acct := azureAccounting(azure.DefaultThrottling(), azure.RealisticDelays(), mgmt)
	reads := func(n int64) PrincipalSnapshot {
		return PrincipalSnapshot{mgmt: {"stand-in": {"Microsoft.Network:loadBalancers/read": {Total: n}}}}
	}
	for _, tc := range []struct {
		name  string
		reads int64
		want  float64
	}{
		{"the chain binds", 1000, 170}, // 8 frontends × 10 s + 30 s + 60 s; the reads take 30 s
		{"the bucket binds", 6000, 230},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := measure(measurement{platform: "Azure", clusters: 50, accounts: 1, elapsed: 200 * time.Second, window: time.Minute, drift: 15 * time.Second,
				create: Snapshot{mgmt: {"Microsoft.Network:loadBalancers/read": {Total: tc.reads}}}, createByPrincipal: reads(tc.reads),
				accounting: acct, placements: map[string]int{"kubernetes": 8, "lb-2": 7}})
			if !near(r.LowerBoundSeconds, tc.want) || !r.LowerBoundOfLongest {
				t.Errorf("lower bound = %v s, want %v s", r.LowerBoundSeconds, tc.want)
			}
		})
	}
}

func TestRealisticDelaysReachCloudsimAndTheBound(t *testing.T) {
	az, err := newAzureFleet(Options{Realistic: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := az.devenvOptions(Options{}, io.Discard).AzureDelays["privateEndpointUpdating"].D(); got != time.Minute {
		t.Errorf("Azure endpoint provisioning given to cloudsim = %v, want the realistic 1m", got)
	}
	// load balancer 10 s + Private Link Service 30 s + endpoint 60 s.
	if got := azureAccounting(az.limits, az.delays, "mgmt").chain; got != 100*time.Second {
		t.Errorf("Azure provisioning chain = %v, want 1m40s", got)
	}
	fast, _ := newAzureFleet(Options{})
	if got := azureAccounting(fast.limits, fast.delays, "mgmt").chain; got >= time.Second {
		t.Errorf("Azure provisioning chain without --realistic = %v, want the fast presets'", got)
	}
	aws := newAWSFleet(Options{Realistic: true})
	if got := aws.devenvOptions(Options{}, io.Discard).Delays.EndpointPending.D(); got != 90*time.Second {
		t.Errorf("AWS endpoint provisioning given to cloudsim = %v, want the realistic 1m30s", got)
	}
	// NLB 150 s + endpoint service 10 s + endpoint 90 s.
	if got := awsAccounting(aws.throttling, aws.delays).chain; got != 250*time.Second {
		t.Errorf("AWS provisioning chain = %v, want 4m10s", got)
	}
}
