package gcp_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

func TestRequestName(t *testing.T) {
	for _, tc := range []struct {
		method, host, path string
		service, operation string
	}{
		{"POST", "compute.googleapis.com", "/compute/v1/projects/p/regions/us-central1/serviceAttachments", "compute", "POST serviceAttachments"},
		{"PATCH", "compute.googleapis.com", "/compute/v1/projects/p/regions/us-central1/serviceAttachments/sa-1", "compute", "PATCH serviceAttachments"},
		{"POST", "compute.googleapis.com", "/compute/v1/projects/p/regions/us-central1/operations/operation-1-2/wait", "compute", "POST operations/wait"},
		{"GET", "compute.googleapis.com", "/compute/v1/projects/p/global/networks/n", "compute", "GET networks"},
		{"GET", "dns.googleapis.com", "/dns/v1/projects/p/managedZones/z/rrsets", "dns", "GET managedZones/rrsets"},
		{"POST", "sts.googleapis.com", "/v1/token", "sts", "POST token"},
		{"POST", "iamcredentials.googleapis.com", "/v1/projects/-/serviceAccounts/a@p.iam.gserviceaccount.com:generateAccessToken", "iamcredentials", "POST serviceAccounts:generateAccessToken"},
		// cloudsim serves every API on one listener under path prefixes.
		{"GET", "127.0.0.1:8080", "/compute/v1/projects/p/regions/us-central1/addresses/a", "compute", "GET addresses"},
		{"POST", "127.0.0.1:8080", "/dns/v1/projects/p/managedZones/z/changes", "dns", "POST managedZones/changes"},
		{"POST", "127.0.0.1:8080", "/sts/v1/token", "sts", "POST token"},
		{"POST", "127.0.0.1:8080", "/iamcredentials/v1/projects/-/serviceAccounts/a@p.iam.gserviceaccount.com:generateAccessToken", "iamcredentials", "POST serviceAccounts:generateAccessToken"},
	} {
		service, operation := gcpcloud.RequestName(tc.method, tc.host, tc.path)
		if service != tc.service || operation != tc.operation {
			t.Errorf("RequestName(%s %s%s) = %q, %q; want %q, %q", tc.method, tc.host, tc.path, service, operation, tc.service, tc.operation)
		}
	}
}

// Every call of both operators, the sign-in's included, is counted.
func TestEveryCallIsCounted(t *testing.T) {
	w := newWorld(t)
	before := map[string]float64{}
	counters := map[string]prometheus.Counter{}
	for _, k := range []struct{ component, service, operation string }{
		{"control-plane-operator", "sts", "POST token"},
		{"control-plane-operator", "iamcredentials", "POST serviceAccounts:generateAccessToken"},
		{"control-plane-operator", "compute", "POST addresses"},
		{"control-plane-operator", "compute", "POST operations/wait"},
		{"operator", "compute", "POST serviceAttachments"},
	} {
		key := k.component + " " + k.service + " " + k.operation
		counters[key] = cloudRequestCounter(k.component, k.service, k.operation)
		before[key] = testCounter(counters[key])
	}
	m, c := w.managementSide(), w.controlPlaneSide()
	w.connect(c, w.publish(m))
	for key, counter := range counters {
		if testCounter(counter) <= before[key] {
			t.Errorf("%s was not counted", key)
		}
	}
}

func testCounter(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

func cloudRequestCounter(component, service, operation string) prometheus.Counter {
	return cloud.RequestCounter(component, service, operation, cloud.OutcomeSuccess)
}

// The sign-in is made once and its token reused: a whole cluster's
// creation costs one token exchange and one impersonation.
func TestSignInIsReused(t *testing.T) {
	w := newWorld(t)
	w.connect(w.controlPlaneSide(), w.publish(w.managementSide()))
	signIn := w.f.Calls("global")
	if sts, iam := signIn["sts.googleapis.com:token"].Total, signIn["iamcredentials.googleapis.com:serviceAccounts.generateAccessToken"].Total; sts != 1 || iam != 1 {
		t.Fatalf("the control-plane operator signed in %d times at STS and %d at IAM Credentials, want once each", sts, iam)
	}
	if keys := signIn["oauth2.googleapis.com:token"].Total; keys != 1 {
		t.Fatalf("the management operator signed in %d times with its key, want once", keys)
	}
}
