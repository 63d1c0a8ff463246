package devenv

import "testing"

func TestCustomerAccountsAreDistinctAndKeepTheFirstTwo(t *testing.T) {
	tests := []struct {
		i            int
		account, net string
	}{
		{0, CustomerAccount, "10.1"},
		{1, SecondCustomerAccount, "10.2"},
		{2, "600000000002", "10.3"},
		{97, "600000000097", "10.98"},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		if got := CustomerAccountID(tc.i); got != tc.account || len(got) != 12 {
			t.Errorf("CustomerAccountID(%d) = %q, want %q (12 digits)", tc.i, got, tc.account)
		}
		if got := customerCIDRPrefix(tc.i); got != tc.net {
			t.Errorf("customerCIDRPrefix(%d) = %q, want %q", tc.i, got, tc.net)
		}
		if got := customerVPCCIDR(tc.i); got != tc.net+".0.0/16" {
			t.Errorf("customerVPCCIDR(%d) = %q, want %s.0.0/16", tc.i, got, tc.net)
		}
		seen[CustomerAccountID(tc.i)] = true
	}
	if seen[ManagementAccount] || len(seen) != len(tests) {
		t.Fatalf("accounts collide: %v", seen)
	}
}
