package gcp_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Compute Engine's read quota counts per project per minute and answers
// 403 rateLimitExceeded; the next minute refills it; another project has
// its own; the counters see the throttled call.
func TestComputeRateQuota(t *testing.T) {
	e := start(t)
	e.f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		"compute.googleapis.com": {NonMutating: sim.Limit{Burst: 3}, Mutating: sim.Limit{Burst: 100}},
	}}})
	p := cloudsimtest.ManagementProject
	for i := range 3 {
		if _, err := e.compute.Networks.List(p).Do(); err != nil {
			t.Fatalf("read %d within the quota: %v", i+1, err)
		}
	}
	_, err := e.compute.Networks.List(p).Do()
	gerr := wantError(t, err, http.StatusForbidden, "rateLimitExceeded")
	if gerr.Message == "" {
		t.Fatal("no message")
	}
	if _, err := e.compute.Networks.List(cloudsimtest.CustomerProject).Do(); err != nil {
		t.Fatalf("another project's read: %v", err)
	}
	e.clock.Advance(time.Minute)
	if _, err := e.compute.Networks.List(p).Do(); err != nil {
		t.Fatalf("read in the next minute: %v", err)
	}
	if got := e.f.Calls(p)["compute.googleapis.com:networks.list"]; got.Total != 5 || got.Throttled != 1 || got.Mutating != 0 {
		t.Fatalf("counters: %+v, want 5 reads, one throttled", got)
	}
}

// An injected error rule answers in Google's envelope with its reason.
func TestInjectedErrors(t *testing.T) {
	e := start(t)
	e.f.Server.Faults.Set(sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "compute.googleapis.com", Operation: "networks.list", Nth: 1, Code: "backendError", HTTPStatus: 503}}})
	_, err := e.compute.Networks.List(cloudsimtest.ManagementProject).Do()
	wantError(t, err, http.StatusServiceUnavailable, "backendError")
	if _, err := e.compute.Networks.List(cloudsimtest.ManagementProject).Do(); err != nil {
		t.Fatalf("the second call: %v", err)
	}
}

// Cloud DNS counts per user: one principal's exhausted quota leaves
// another's calls alone, and the refusal is 429 rateLimitExceeded.
func TestDNSRateQuotaIsPerUser(t *testing.T) {
	e := start(t)
	e.f.Server.Faults.Set(sim.FaultConfig{Throttling: sim.Throttling{Enabled: true, Services: map[string]sim.ServiceLimits{
		"dns.googleapis.com": {NonMutating: sim.Limit{Burst: 2}, Mutating: sim.Limit{Burst: 2}},
	}}})
	p := cloudsimtest.CustomerProject
	admin := e.f.DNS(t, cloudsimtest.GCPAdminTokens())
	for range 2 {
		if _, err := admin.ManagedZones.List(p).Do(); err != nil {
			t.Fatal(err)
		}
	}
	_, err := admin.ManagedZones.List(p).Do()
	wantError(t, err, http.StatusTooManyRequests, "rateLimitExceeded")
	member := "serviceAccount:reader@" + p + ".iam.gserviceaccount.com"
	if err := e.f.Server.GCP.Grant(p, "roles/dns.reader", member, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.f.DNS(t, staticToken(e.f.Server.GCP.IssueToken(member))).ManagedZones.List(p).Do(); err != nil {
		t.Fatalf("another user's read in the same minute: %v", err)
	}
}
