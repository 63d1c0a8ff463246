package sim

import (
	"testing"
	"time"
)

func ec2Call(op string) Call {
	return Call{Account: "111111111111", Region: "us-east-1", Key: CallKey{Service: "ec2", Operation: op}}
}

// admitted counts how many of n back-to-back calls the faults let through.
func admitted(f *Faults, c Call, n int) int {
	ok := 0
	for range n {
		if d := f.Decide(c); !d.Throttled && d.Error == nil {
			ok++
		}
	}
	return ok
}

func TestThrottlingFollowsTheTokenBucket(t *testing.T) {
	clock := NewManualClock(time.Unix(1_700_000_000, 0))
	f := NewFaults(clock)
	f.Set(FaultConfig{Throttling: AWSDefaultThrottling()})

	describe := ec2Call("DescribeVpcs")
	if got := admitted(f, describe, 150); got != 100 {
		t.Fatalf("burst of DescribeVpcs admitted %d, want the bucket size 100", got)
	}
	clock.Advance(time.Second)
	if got := admitted(f, describe, 50); got != 20 {
		t.Fatalf("one second later admitted %d, want the refill of 20", got)
	}
	// EC2 gives every API its own bucket: another Describe is unaffected.
	if got := admitted(f, ec2Call("DescribeSubnets"), 100); got != 100 {
		t.Fatalf("DescribeSubnets admitted %d after DescribeVpcs drained its bucket, want 100", got)
	}
	if got := admitted(f, ec2Call("CreateVpc"), 60); got != 50 {
		t.Fatalf("mutating burst admitted %d, want 50", got)
	}
	// Another account has buckets of its own.
	other := describe
	other.Account = "222222222222"
	if got := admitted(f, other, 100); got != 100 {
		t.Fatalf("second account admitted %d, want 100", got)
	}
	clock.Advance(time.Hour)
	if got := admitted(f, describe, 150); got != 100 {
		t.Fatalf("after an idle hour admitted %d, want the bucket size 100 (no overfill)", got)
	}
}

func TestRoute53SharesOneBucketPerAccount(t *testing.T) {
	clock := NewManualClock(time.Unix(1_700_000_000, 0))
	f := NewFaults(clock)
	f.Set(FaultConfig{Throttling: AWSDefaultThrottling()})
	list := Call{Account: "111111111111", Key: CallKey{Service: "route53", Operation: "ListHostedZones"}}
	change := Call{Account: "111111111111", Key: CallKey{Service: "route53", Operation: "ChangeResourceRecordSets"}}
	if got := admitted(f, list, 3) + admitted(f, change, 5); got != 5 {
		t.Fatalf("route53 admitted %d calls in one instant across operations, want 5", got)
	}
}

func TestThrottlingOffAdmitsEverything(t *testing.T) {
	f := NewFaults(NewManualClock(time.Unix(0, 0)))
	if got := admitted(f, ec2Call("DescribeVpcs"), 1000); got != 1000 {
		t.Fatalf("admitted %d of 1000 with throttling off", got)
	}
}

func TestErrorRules(t *testing.T) {
	tests := []struct {
		name  string
		rule  ErrorRule
		calls []Call
		// fails lists which of the calls must fail.
		fails []bool
	}{
		{
			name:  "third matching call fails once",
			rule:  ErrorRule{Service: "ec2", Operation: "CreateVpcEndpoint", Nth: 3, Code: "InternalError"},
			calls: []Call{ec2Call("CreateVpcEndpoint"), ec2Call("DescribeVpcs"), ec2Call("CreateVpcEndpoint"), ec2Call("CreateVpcEndpoint"), ec2Call("CreateVpcEndpoint")},
			fails: []bool{false, false, false, true, false},
		},
		{
			name:  "rule for another account never fires",
			rule:  ErrorRule{Account: "999999999999", Rate: 1, Code: "AccessDenied"},
			calls: []Call{ec2Call("DescribeVpcs"), ec2Call("CreateVpc")},
			fails: []bool{false, false},
		},
		{
			name:  "rate 1 fails every matching call",
			rule:  ErrorRule{Service: "ec2", Rate: 1, Code: "RequestLimitExceeded"},
			calls: []Call{ec2Call("DescribeVpcs"), ec2Call("CreateVpc")},
			fails: []bool{true, true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFaults(NewManualClock(time.Unix(0, 0)))
			f.Set(FaultConfig{Errors: []ErrorRule{tc.rule}})
			for i, c := range tc.calls {
				d := f.Decide(c)
				if got := d.Error != nil; got != tc.fails[i] {
					t.Errorf("call %d (%s): failed=%v, want %v", i, c.Key, got, tc.fails[i])
				}
				if d.Error != nil && d.Error.Code != tc.rule.Code {
					t.Errorf("call %d: code %s, want %s", i, d.Error.Code, tc.rule.Code)
				}
			}
		})
	}
}

func TestRateRuleIsRepeatableAndEndsWithItsPeriod(t *testing.T) {
	clock := NewManualClock(time.Unix(0, 0))
	run := func() []bool {
		f := NewFaults(clock)
		f.Set(FaultConfig{Seed: 42, Errors: []ErrorRule{{Service: "ec2", Rate: 0.3, Code: "RequestLimitExceeded", For: Duration(time.Minute)}}})
		var out []bool
		for range 200 {
			out = append(out, f.Decide(ec2Call("DescribeVpcs")).Error != nil)
		}
		return out
	}
	first, second := run(), run()
	failed := 0
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("call %d differs between two runs with the same seed", i)
		}
		if first[i] {
			failed++
		}
	}
	if failed < 40 || failed > 80 {
		t.Fatalf("%d of 200 calls failed at rate 0.3, want about 60", failed)
	}

	f := NewFaults(clock)
	f.Set(FaultConfig{Errors: []ErrorRule{{Rate: 1, Code: "InternalError", For: Duration(time.Minute)}}})
	if f.Decide(ec2Call("DescribeVpcs")).Error == nil {
		t.Fatal("rule did not fire inside its period")
	}
	clock.Advance(61 * time.Second)
	if d := f.Decide(ec2Call("DescribeVpcs")); d.Error != nil {
		t.Fatalf("rule still fires after its period: %v", d.Error.Code)
	}
}

func TestLatencyRulesAddUp(t *testing.T) {
	f := NewFaults(NewManualClock(time.Unix(0, 0)))
	f.Set(FaultConfig{Latency: []LatencyRule{
		{Service: "ec2", Delay: Duration(100 * time.Millisecond)},
		{Operation: "CreateVpc", Delay: Duration(50 * time.Millisecond)},
		{Service: "route53", Delay: Duration(time.Second)},
	}})
	if got := f.Decide(ec2Call("CreateVpc")).Latency; got != 150*time.Millisecond {
		t.Fatalf("latency %v, want 150ms", got)
	}
}
