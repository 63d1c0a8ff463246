package aws_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"github.com/hcplink/hcplink/internal/cloudsim"
	"github.com/hcplink/hcplink/internal/cloudsim/cloudsimtest"
)

func TestCallerIdentityFollowsTheAccessKey(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	ctx := context.Background()
	for _, tc := range []struct{ key, account string }{
		{"123456789012", "123456789012"},
		{"AKIAEXAMPLE", "000000000000"},
	} {
		out, err := sts.NewFromConfig(f.ConfigWithKeys(t, tc.key, "x", "")).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			t.Fatalf("GetCallerIdentity with key %s: %v", tc.key, err)
		}
		if got := aws.ToString(out.Account); got != tc.account {
			t.Errorf("key %s: account = %s, want %s", tc.key, got, tc.account)
		}
		if got, want := aws.ToString(out.Arn), "arn:aws:iam::"+tc.account+":root"; got != want {
			t.Errorf("key %s: arn = %s, want %s", tc.key, got, want)
		}
	}
}

func TestZoneNamesMapToDifferentZoneIDsPerAccount(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	ctx := context.Background()
	mapping := func(account string) map[string]string {
		out, err := ec2.NewFromConfig(f.Config(t, account)).DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{})
		if err != nil {
			t.Fatalf("DescribeAvailabilityZones for %s: %v", account, err)
		}
		m := map[string]string{}
		for _, z := range out.AvailabilityZones {
			m[aws.ToString(z.ZoneName)] = aws.ToString(z.ZoneId)
		}
		return m
	}
	a, again, b := mapping("111111111111"), mapping("111111111111"), mapping("222222222222")
	if len(a) != 6 {
		t.Fatalf("us-east-1 has %d zones, want 6: %v", len(a), a)
	}
	same := true
	for name, id := range a {
		if again[name] != id {
			t.Errorf("account's mapping changed between calls: %s → %s then %s", name, id, again[name])
		}
		if b[name] != id {
			same = false
		}
	}
	if same {
		t.Errorf("accounts 111111111111 and 222222222222 got the same zone mapping %v; want them to differ", a)
	}
}

func TestUnknownActionIsAnAWSError(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	_, err := ec2.NewFromConfig(f.Config(t, "111111111111")).DescribeAvailabilityZones(context.Background(),
		&ec2.DescribeAvailabilityZonesInput{ZoneNames: []string{"us-east-1z"}})
	var apiErr smithy.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode() != "InvalidParameterValue" {
		t.Fatalf("error = %v, want InvalidParameterValue", err)
	}
}

// TestSDKConfiguredOnlyFromTheEnvironment points an SDK at cloudsim the way
// a user would: AWS_ENDPOINT_URL and static keys in the environment, and
// nothing else.
func TestSDKConfiguredOnlyFromTheEnvironment(t *testing.T) {
	f := cloudsimtest.Start(t, cloudsim.Options{})
	empty := t.TempDir() + "/none"
	t.Setenv("AWS_ENDPOINT_URL", f.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "333333333333")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "anything")
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv("AWS_CONFIG_FILE", empty)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", empty)
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out, err := ec2.NewFromConfig(cfg).DescribeAvailabilityZones(context.Background(), &ec2.DescribeAvailabilityZonesInput{})
	if err != nil {
		t.Fatalf("DescribeAvailabilityZones through AWS_ENDPOINT_URL: %v", err)
	}
	if len(out.AvailabilityZones) != 3 || aws.ToString(out.AvailabilityZones[0].RegionName) != "eu-west-1" {
		t.Fatalf("zones = %+v, want eu-west-1's three", out.AvailabilityZones)
	}
	if calls := f.Calls("333333333333")["ec2:DescribeAvailabilityZones"]; calls.Total != 1 {
		t.Fatalf("cloudsim counted %+v for account 333333333333, want 1 call", calls)
	}
}
