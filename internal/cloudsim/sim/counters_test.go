package sim

import "testing"

func TestIsMutating(t *testing.T) {
	for key, want := range map[CallKey]bool{
		{"ec2", "DescribeVpcEndpoints"}:                                                false,
		{"route53", "ListResourceRecordSets"}:                                          false,
		{"route53", "GetHostedZone"}:                                                   false,
		{"sts", "GetCallerIdentity"}:                                                   false,
		{"sts", "AssumeRoleWithWebIdentity"}:                                           false, // a token exchange writes nothing
		{"sts", "AssumeRole"}:                                                          false,
		{"ec2", "CreateVpcEndpoint"}:                                                   true,
		{"ec2", "ModifyVpcEndpoint"}:                                                   true,
		{"route53", "ChangeResourceRecordSets"}:                                        true,
		{"ec2", "DeleteVpcEndpoints"}:                                                  true,
		{"ec2", "AuthorizeSecurityGroupIngress"}:                                       true,
		{"iam", "AssumeRole"}:                                                          true, // only STS's exchanges are exempt
		{"iam", "CreateOpenIDConnectProvider"}:                                         true,
		{"Microsoft.Network", "virtualNetworks/read"}:                                  false,
		{"Microsoft.Network", "virtualNetworks/write"}:                                 true,
		{"Microsoft.Network", "privateLinkServices/privateEndpointConnections/delete"}: true,
		{"compute.googleapis.com", "serviceAttachments.get"}:                           false,
		{"compute.googleapis.com", "regionOperations.wait"}:                            false,
		{"compute.googleapis.com", "serviceAttachments.patch"}:                         true,
		{"dns.googleapis.com", "changes.create"}:                                       true,
		{"sts.googleapis.com", "token"}:                                                false,
	} {
		if got := IsMutating(key); got != want {
			t.Errorf("IsMutating(%s) = %v, want %v", key, got, want)
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
	if got, want := Sum(snap["a"]), (CallCount{Total: 3, Mutating: 1, Throttled: 1, Failed: 2}); got != want {
		t.Errorf("account a's sum = %+v, want %+v", got, want)
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
