package cloudsim_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resources/armresources"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	"github.com/aws/smithy-go"
	"google.golang.org/api/googleapi"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

func setChaos(t *testing.T, f *cloudsimtest.Fixture, ch sim.Chaos) {
	t.Helper()
	f.Control(t, http.MethodPut, "/_cloudsim/faults", sim.FaultConfig{Chaos: &ch, Seed: 7}, nil)
}

func awsCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

// The SDK's own classifiers decide what its retryer does with an error.
func sdkThrottles(err error) bool {
	return retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) == aws.TrueTernary
}

func sdkRetries(err error) bool {
	return retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err) == aws.TrueTernary
}

// Extra throttling speaks each AWS protocol's own code, and the SDK's
// retryer takes it for throttling.
func TestChaosThrottlesInEachAWSProtocolsWords(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	setChaos(t, f, sim.Chaos{ThrottleRate: 1})
	cfg := f.Config(t, cloudsimtest.CustomerAccount)
	_, err := ec2.NewFromConfig(cfg).DescribeVpcs(context.Background(), &ec2.DescribeVpcsInput{})
	if awsCode(err) != "RequestLimitExceeded" || !sdkThrottles(err) {
		t.Errorf("EC2 error = %v, want RequestLimitExceeded that the SDK takes for throttling", err)
	}
	_, err = route53.NewFromConfig(cfg).ListHostedZones(context.Background(), &route53.ListHostedZonesInput{})
	if awsCode(err) != "Throttling" || !sdkThrottles(err) {
		t.Errorf("Route 53 error = %v, want Throttling that the SDK takes for throttling", err)
	}
	if got := f.Calls(cloudsimtest.CustomerAccount)["ec2:DescribeVpcs"]; got.Throttled != 1 {
		t.Errorf("EC2 counts = %+v, want the call counted as throttled", got)
	}
}

// Server errors are a 500 or a 503 in EC2's words, half each for a seed,
// and the SDK retries both.
func TestChaosServerErrorsAreRetryableAWSErrors(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	setChaos(t, f, sim.Chaos{ServerErrorRate: 1})
	client := ec2.NewFromConfig(f.Config(t, cloudsimtest.CustomerAccount))
	codes := map[string]int{}
	for range 20 {
		_, err := client.DescribeVpcs(context.Background(), &ec2.DescribeVpcsInput{})
		if !sdkRetries(err) {
			t.Fatalf("error %v is not one the SDK retries", err)
		}
		codes[awsCode(err)]++
	}
	if codes["InternalError"] == 0 || codes["Unavailable"] == 0 || len(codes) != 2 {
		t.Errorf("codes = %v, want both InternalError and Unavailable and nothing else", codes)
	}
}

// ARM throttles with a 429 and Retry-After, and fails with 500s and 503s;
// the SDK's retry policy retries them (it made a second attempt).
func TestChaosOnARM(t *testing.T) {
	f := cloudsimtest.StartAzure(t, cloudsim.Options{})
	sub := cloudsimtest.CustomerSubscription
	sp := f.AzureServicePrincipalWithRole(t, "soak", "Contributor", "/subscriptions/"+sub)
	groups, err := armresources.NewResourceGroupsClient(sub, f.AzureCredential(t, sp), f.AzureClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := groups.CreateOrUpdate(ctx, "rg", armresources.ResourceGroup{Location: to.Ptr("eastus")}, nil); err != nil {
		t.Fatal(err) // also fetches the token before the chaos starts
	}
	setChaos(t, f, sim.Chaos{ThrottleRate: 1})
	_, err = groups.Get(ctx, "rg", nil)
	var respErr *azcore.ResponseError
	if !errors.As(err, &respErr) || respErr.StatusCode != http.StatusTooManyRequests || respErr.RawResponse.Header.Get("Retry-After") == "" {
		t.Fatalf("error = %v, want a 429 with Retry-After", err)
	}

	setChaos(t, f, sim.Chaos{ServerErrorRate: 1})
	opts := f.AzureClientOptions()
	opts.Retry.MaxRetries = 1
	opts.Retry.RetryDelay = time.Millisecond
	retrying, err := armresources.NewResourceGroupsClient(sub, f.AzureCredential(t, sp), opts)
	if err != nil {
		t.Fatal(err)
	}
	_, err = retrying.Get(ctx, "rg", nil)
	if !errors.As(err, &respErr) || (respErr.StatusCode != 500 && respErr.StatusCode != 503) {
		t.Fatalf("error = %v, want a 500 or 503", err)
	}
	var calls map[string]map[string]sim.CallCount
	f.Control(t, http.MethodGet, "/_cloudsim/calls", nil, &calls)
	if got := calls[sub]["Microsoft.Resources:subscriptions/resourceGroups/read"]; got.Failed != 3 {
		t.Errorf("resource group reads = %+v, want 3 failed: the 429 and two attempts of the retried server error", got)
	}
}

// Google's APIs throttle with 429 rateLimitExceeded.
func TestChaosOnGCP(t *testing.T) {
	f := cloudsimtest.StartGCP(t, cloudsim.Options{})
	f.AddGCPProject(t, "soak-project", "400000000009")
	svc := f.Compute(t, cloudsimtest.GCPAdminTokens())
	setChaos(t, f, sim.Chaos{ThrottleRate: 1})
	_, err := svc.Networks.List("soak-project").Do()
	var gErr *googleapi.Error
	if !errors.As(err, &gErr) || gErr.Code != http.StatusTooManyRequests || len(gErr.Errors) == 0 || gErr.Errors[0].Reason != "rateLimitExceeded" {
		t.Fatalf("error = %v, want 429 rateLimitExceeded", err)
	}
}

// A reset connection never reaches the cloud, and the SDK retries it.
func TestChaosResetsConnectionsBeforeTheCloudSeesThem(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	setChaos(t, f, sim.Chaos{ResetRate: 1})
	_, err := ec2.NewFromConfig(f.Config(t, cloudsimtest.CustomerAccount)).DescribeVpcs(context.Background(), &ec2.DescribeVpcsInput{})
	if err == nil || !sdkRetries(err) {
		t.Fatalf("error = %v, want a connection error the SDK retries", err)
	}
	if got := f.Calls(cloudsimtest.CustomerAccount)["ec2:DescribeVpcs"]; got.Total != 0 {
		t.Errorf("the cloud saw the reset call: %+v", got)
	}
	var counts cloudsim.TransportCounts
	f.ControlGet(t, "/_cloudsim/transport", &counts)
	if counts.Resets != 1 {
		t.Errorf("transport counts = %+v, want 1 reset", counts)
	}
}

// A lost reply's work is done: the VPC exists though its creator saw an error.
func TestChaosLostReplyDoesTheWork(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	client := ec2.NewFromConfig(f.Config(t, cloudsimtest.CustomerAccount))
	ctx := context.Background()
	setChaos(t, f, sim.Chaos{LostReplyRate: 1})
	if _, err := client.CreateVpc(ctx, &ec2.CreateVpcInput{CidrBlock: aws.String("10.0.0.0/16")}); err == nil || !sdkRetries(err) {
		t.Fatalf("error = %v, want a connection error the SDK retries", err)
	}
	setChaos(t, f, sim.Chaos{})
	out, err := client.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Vpcs) != 1 {
		t.Fatalf("VPCs = %d, want the one whose reply was lost", len(out.Vpcs))
	}
}

// A spike delays the call; the counts say how many were delayed.
func TestChaosSpikesDelayCalls(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	setChaos(t, f, sim.Chaos{SpikeRate: 1, Spike: sim.Duration(300 * time.Millisecond)})
	start := time.Now()
	if _, err := ec2.NewFromConfig(f.Config(t, cloudsimtest.CustomerAccount)).DescribeVpcs(context.Background(), &ec2.DescribeVpcsInput{}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("the call took %v, want at least the 300ms spike", took)
	}
	if got := f.Server.TransportCounts().Spikes; got != 1 {
		t.Errorf("spikes = %d, want 1", got)
	}
}
