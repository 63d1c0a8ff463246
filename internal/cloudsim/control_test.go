package cloudsim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

func put(t *testing.T, url string, body any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, url, bytes.NewReader(b))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("PUT %s: %v", url, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT %s: %s", url, resp.Status)
	}
}

func TestControlAPICountsCallsPerAccountAndOperation(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	ctx := context.Background()
	mgmt := ec2.NewFromConfig(f.Config(t, cloudsimtest.ManagementAccount))
	for range 3 {
		if _, err := mgmt.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sts.NewFromConfig(f.Config(t, cloudsimtest.CustomerAccount)).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err != nil {
		t.Fatal(err)
	}

	var calls map[string]map[string]sim.CallCount
	f.ControlGet(t, "/_cloudsim/calls", &calls)
	if got := calls[cloudsimtest.ManagementAccount]["ec2:DescribeAvailabilityZones"]; got.Total != 3 || got.Mutating != 0 {
		t.Errorf("management DescribeAvailabilityZones = %+v, want 3 calls, 0 mutating", got)
	}
	if got := calls[cloudsimtest.CustomerAccount]["sts:GetCallerIdentity"]; got.Total != 1 {
		t.Errorf("customer GetCallerIdentity = %+v, want 1 call", got)
	}
	if _, leaked := calls[cloudsimtest.CustomerAccount]["ec2:DescribeAvailabilityZones"]; leaked {
		t.Error("the customer account was charged for the management account's calls")
	}

	req, _ := http.NewRequest(http.MethodDelete, f.URL+"/_cloudsim/calls", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	calls = nil
	f.ControlGet(t, "/_cloudsim/calls", &calls)
	if len(calls) != 0 {
		t.Errorf("calls after reset = %v, want none", calls)
	}
}

func TestControlAPIInjectsTheNthCallError(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	put(t, f.URL+"/_cloudsim/faults", sim.FaultConfig{Errors: []sim.ErrorRule{
		{Service: "ec2", Operation: "DescribeAvailabilityZones", Nth: 2, Code: "UnauthorizedOperation", HTTPStatus: 403, Message: "You are not authorized to perform this operation."},
	}})
	client := ec2.NewFromConfig(f.Config(t, cloudsimtest.ManagementAccount))
	var codes []string
	for range 3 {
		_, err := client.DescribeAvailabilityZones(context.Background(), &ec2.DescribeAvailabilityZonesInput{})
		var apiErr smithy.APIError
		switch {
		case err == nil:
			codes = append(codes, "ok")
		case errors.As(err, &apiErr):
			codes = append(codes, apiErr.ErrorCode())
		default:
			t.Fatalf("error is not an AWS API error: %v", err)
		}
	}
	if got := strings.Join(codes, ","); got != "ok,UnauthorizedOperation,ok" {
		t.Fatalf("outcomes = %s, want ok,UnauthorizedOperation,ok", got)
	}
	var calls map[string]map[string]sim.CallCount
	f.ControlGet(t, "/_cloudsim/calls", &calls)
	if got := calls[cloudsimtest.ManagementAccount]["ec2:DescribeAvailabilityZones"]; got.Total != 3 || got.Failed != 1 {
		t.Errorf("counts = %+v, want 3 total, 1 failed", got)
	}
}

func TestThrottledCallsGetAWSThrottlingCodes(t *testing.T) {
	clock := sim.NewManualClock(time.Unix(1_700_000_000, 0))
	throttling := sim.AWSDefaultThrottling()
	f := cloudsimtest.Start(t, cloudsim.Options{Clock: clock, Faults: &sim.FaultConfig{Throttling: throttling}})
	ctx := context.Background()
	client := ec2.NewFromConfig(f.Config(t, cloudsimtest.ManagementAccount))

	burst := int(throttling.Services["ec2"].NonMutating.Burst)
	var throttled int
	for range burst + 5 {
		_, err := client.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
		var apiErr smithy.APIError
		if errors.As(err, &apiErr) && apiErr.ErrorCode() == "RequestLimitExceeded" {
			throttled++
		} else if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if throttled != 5 {
		t.Fatalf("%d of %d calls throttled, want the 5 beyond the bucket of %d", throttled, burst+5, burst)
	}
	clock.Advance(time.Second)
	if _, err := client.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{}); err != nil {
		t.Fatalf("after a refill second the call still fails: %v", err)
	}

	// STS throttles with the Query services' code.
	put(t, f.URL+"/_cloudsim/faults", sim.FaultConfig{Errors: []sim.ErrorRule{{Service: "sts", Rate: 1, Code: "Throttling", Message: "Rate exceeded"}}})
	_, err := sts.NewFromConfig(f.Config(t, cloudsimtest.ManagementAccount)).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "Throttling" {
		t.Fatalf("sts error = %v, want Throttling", err)
	}
	var calls map[string]map[string]sim.CallCount
	f.ControlGet(t, "/_cloudsim/calls", &calls)
	if got := calls[cloudsimtest.ManagementAccount]["ec2:DescribeAvailabilityZones"].Throttled; got != 5 {
		t.Errorf("throttled count = %d, want 5", got)
	}
	if got := calls[cloudsimtest.ManagementAccount]["sts:GetCallerIdentity"].Throttled; got != 1 {
		t.Errorf("sts throttled count = %d, want 1 (injected throttling counts as throttled)", got)
	}
}

func TestControlAPIDelaysAndStateAndReset(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	put(t, f.URL+"/_cloudsim/delays?preset=realistic", nil)
	var delays sim.Delays
	f.ControlGet(t, "/_cloudsim/delays", &delays)
	if delays != sim.RealisticDelays() {
		t.Fatalf("delays = %+v, want the realistic preset", delays)
	}
	put(t, f.URL+"/_cloudsim/delays", map[string]string{"loadBalancerProvisioning": "2s"})
	f.ControlGet(t, "/_cloudsim/delays", &delays)
	if delays.LoadBalancerProvisioning.D() != 2*time.Second {
		t.Fatalf("loadBalancerProvisioning = %v, want 2s", delays.LoadBalancerProvisioning.D())
	}

	if _, err := ec2.NewFromConfig(f.Config(t, cloudsimtest.CustomerAccount)).DescribeAvailabilityZones(context.Background(), &ec2.DescribeAvailabilityZonesInput{}); err != nil {
		t.Fatal(err)
	}
	var state struct {
		AWS map[string]struct {
			Regions map[string]json.RawMessage `json:"regions"`
		} `json:"aws"`
	}
	f.ControlGet(t, "/_cloudsim/state", &state)
	if _, ok := state.AWS[cloudsimtest.CustomerAccount].Regions["us-east-1"]; !ok {
		t.Fatalf("state has no us-east-1 region for the customer account: %+v", state)
	}
	resp, err := http.Post(f.URL+"/_cloudsim/reset", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	state.AWS = nil
	f.ControlGet(t, "/_cloudsim/state", &state)
	if len(state.AWS) != 0 {
		t.Fatalf("state after reset = %+v, want empty", state.AWS)
	}
}

func TestControlAPIRefusesUnknownFields(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	req, _ := http.NewRequest(http.MethodPut, f.URL+"/_cloudsim/faults", strings.NewReader(`{"throttle": true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status = %s, want 400 for a misspelt field", resp.Status)
	}
}
