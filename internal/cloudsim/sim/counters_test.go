package sim

import "testing"

func TestIsMutating(t *testing.T) {
	for op, want := range map[string]bool{
		"DescribeVpcEndpoints":          false,
		"ListResourceRecordSets":        false,
		"GetHostedZone":                 false,
		"GetCallerIdentity":             false,
		"CreateVpcEndpoint":             true,
		"ModifyVpcEndpoint":             true,
		"ChangeResourceRecordSets":      true,
		"DeleteVpcEndpoints":            true,
		"AuthorizeSecurityGroupIngress": true,
		"AssumeRole":                    true,
	} {
		if got := IsMutating(op); got != want {
			t.Errorf("IsMutating(%s) = %v, want %v", op, got, want)
		}
	}
}

func TestCountersSeparateAccountsAndOutcomes(t *testing.T) {
	c := NewCounters()
	vpcs := CallKey{Service: "ec2", Operation: "DescribeVpcs"}
	create := CallKey{Service: "ec2", Operation: "CreateVpc"}
	c.Record("a", vpcs, Succeeded)
	c.Record("a", vpcs, Throttled)
	c.Record("a", create, Errored)
	c.Record("b", create, Succeeded)

	snap := c.Snapshot()
	if got, want := snap["a"]["ec2:DescribeVpcs"], (CallCount{Total: 2, Throttled: 1, Failed: 1}); got != want {
		t.Errorf("a DescribeVpcs = %+v, want %+v", got, want)
	}
	if got, want := snap["a"]["ec2:CreateVpc"], (CallCount{Total: 1, Mutating: 1, Failed: 1}); got != want {
		t.Errorf("a CreateVpc = %+v, want %+v", got, want)
	}
	if got, want := Totals(snap), (CallCount{Total: 4, Mutating: 2, Throttled: 1, Failed: 2}); got != want {
		t.Errorf("totals = %+v, want %+v", got, want)
	}
	snap["a"]["ec2:CreateVpc"] = CallCount{}
	if c.Snapshot()["a"]["ec2:CreateVpc"].Total != 1 {
		t.Error("changing a snapshot changed the counters")
	}
	c.Reset()
	if len(c.Snapshot()) != 0 {
		t.Error("Reset left counts behind")
	}
}
