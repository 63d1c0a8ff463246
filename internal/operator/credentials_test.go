package operator

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/prometheus/client_golang/prometheus/testutil"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/cloud/awshttp"
	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
	hcplatform "github.com/hcplink/hcplink/internal/operator/platform"
	awsplatform "github.com/hcplink/hcplink/internal/operator/platform/aws"
	"github.com/hcplink/hcplink/internal/testenv"
)

// runChecker runs a credentials checker until the test ends.
func runChecker(t *testing.T, c *credentialsChecker) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("checker returned %v", err)
		}
	})
}

func gauge(platform string) float64 {
	return testutil.ToFloat64(credentialsValid.WithLabelValues(platform))
}

func TestCredentialsCheckerRetriesUntilAccepted(t *testing.T) {
	refuse := sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "sts", Operation: "GetCallerIdentity",
		Code: "InvalidClientTokenId", Message: "The security token included in the request is invalid.", HTTPStatus: 403, Rate: 1}}}
	cloud := cloudsimtest.Start(t, cloudsim.Options{Faults: &refuse})
	cfg := cloud.Config(t, cloudsimtest.ManagementAccount)
	awshttp.Apply(&cfg)
	awscloud.Instrument(&cfg, "test-checker")
	const platform = "test-refused"
	credentialsValid.WithLabelValues(platform).Set(-1)
	checker := &credentialsChecker{caller: awsplatform.STSCaller(cfg), platform: platform, retryMin: 20 * time.Millisecond}
	runChecker(t, checker)

	testenv.Eventually(t, "the refused credentials to show", func() (bool, error) { return gauge(platform) == 0, nil })
	// The HostedCluster controller sees them refused, since when.
	if state, since := checker.CredentialsState(); state != hcplatform.CredentialsInvalid || since.IsZero() {
		t.Errorf("CredentialsState = %s since %s, want %s with a time", state, since, hcplatform.CredentialsInvalid)
	}
	// It keeps trying with backoff, and notices when the identity works.
	before := cloud.Calls(cloudsimtest.ManagementAccount)["sts:GetCallerIdentity"].Total
	testenv.Eventually(t, "a retry", func() (bool, error) {
		return cloud.Calls(cloudsimtest.ManagementAccount)["sts:GetCallerIdentity"].Total > before, nil
	})
	cloud.Server.Faults.Set(sim.FaultConfig{})
	testenv.Eventually(t, "the accepted credentials to show", func() (bool, error) { return gauge(platform) == 1, nil })
	if state, _ := checker.CredentialsState(); state != hcplatform.CredentialsValid {
		t.Errorf("CredentialsState = %s, want %s", state, hcplatform.CredentialsValid)
	}
}

func TestCredentialsCheckerSurvivesAnUnreachableCloud(t *testing.T) {
	cfg, err := config.LoadDefaultConfig(t.Context(),
		config.WithRegion(cloudsimtest.Region),
		config.WithBaseEndpoint("http://"+freeAddress(t)),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(cloudsimtest.ManagementAccount, "secret", "")),
		config.WithRetryMaxAttempts(1),
		config.WithSharedConfigFiles([]string{}),
		config.WithSharedCredentialsFiles([]string{}),
	)
	if err != nil {
		t.Fatal(err)
	}
	const platform = "test-unreachable"
	credentialsValid.WithLabelValues(platform).Set(-1)
	checker := &credentialsChecker{caller: awsplatform.STSCaller(cfg), platform: platform, retryMin: 20 * time.Millisecond}
	runChecker(t, checker)
	testenv.Eventually(t, "the unreachable cloud to show", func() (bool, error) { return gauge(platform) == 0, nil })
	// An unreachable cloud says nothing about the credentials: Unknown,
	// which never gives up the operator's cleanup.
	if state, _ := checker.CredentialsState(); state != hcplatform.CredentialsUnknown {
		t.Errorf("CredentialsState = %s, want %s", state, hcplatform.CredentialsUnknown)
	}
}
