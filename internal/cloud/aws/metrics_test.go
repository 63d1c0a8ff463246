package aws

import (
	"context"
	"net"
	"testing"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hcplink/hcplink/internal/cloud"
	"github.com/hcplink/hcplink/internal/cloud/awshttp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// closedEndpoint returns a loopback URL nobody listens on.
func closedEndpoint(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

func count(component, service, operation, outcome string) float64 {
	return testutil.ToFloat64(cloud.RequestCounter(component, service, operation, outcome))
}

func TestInstrumentCountsEachOutcome(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{Faults: &sim.FaultConfig{Errors: []sim.ErrorRule{{
		Service: "sts", Operation: "GetCallerIdentity", Account: cloudsimtest.CustomerAccount,
		Code: "InvalidClientTokenId", HTTPStatus: 403, Rate: 1,
	}}}})
	ctx := context.Background()

	// A success against cloudsim.
	good := f.Config(t, cloudsimtest.ManagementAccount)
	awshttp.Apply(&good)
	Instrument(&good, "test-success")
	before := count("test-success", "STS", "GetCallerIdentity", OutcomeSuccess)
	if _, err := sts.NewFromConfig(good).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err != nil {
		t.Fatalf("GetCallerIdentity: %v", err)
	}
	if got := count("test-success", "STS", "GetCallerIdentity", OutcomeSuccess) - before; got != 1 {
		t.Errorf("success count = %v, want 1", got)
	}

	// A refused identity: an access-denied code is a client error.
	bad := f.Config(t, cloudsimtest.CustomerAccount)
	awshttp.Apply(&bad)
	Instrument(&bad, "test-denied")
	before = count("test-denied", "STS", "GetCallerIdentity", OutcomeClientError)
	_, err := sts.NewFromConfig(bad).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if !IsAccessDenied(err) || ErrorCode(err) != "InvalidClientTokenId" {
		t.Fatalf("GetCallerIdentity error = %v, want InvalidClientTokenId", err)
	}
	if got := count("test-denied", "STS", "GetCallerIdentity", OutcomeClientError) - before; got != 1 {
		t.Errorf("client_error count = %v, want 1", got)
	}

	// Nobody listening: a server error, counted once per attempt.
	down, err := LoadConfig(ctx,
		config.WithRegion(cloudsimtest.Region),
		config.WithBaseEndpoint(closedEndpoint(t)),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(cloudsimtest.ManagementAccount, "secret", "")),
		config.WithRetryMaxAttempts(2),
		config.WithSharedConfigFiles([]string{}),
		config.WithSharedCredentialsFiles([]string{}),
	)
	if err != nil {
		t.Fatal(err)
	}
	Instrument(&down, "test-down")
	before = count("test-down", "STS", "GetCallerIdentity", OutcomeServerError)
	if _, err := sts.NewFromConfig(down).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err == nil {
		t.Fatal("GetCallerIdentity against a closed port succeeded")
	}
	if got := count("test-down", "STS", "GetCallerIdentity", OutcomeServerError) - before; got != 2 {
		t.Errorf("server_error count = %v, want 2 (one per attempt)", got)
	}
	if n := testutil.CollectAndCount(cloud.RequestDurations(), "hcplink_cloud_request_duration_seconds"); n < 3 {
		t.Errorf("duration series = %d, want at least 3", n)
	}
}
