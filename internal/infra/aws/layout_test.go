package aws

import (
	"net/netip"
	"strings"
	"testing"
)

func TestComputeLayout(t *testing.T) {
	tests := []struct {
		vpc         string
		zones       int
		wantPublic  []string
		wantPrivate []string
	}{
		{"10.0.0.0/16", 1, []string{"10.0.0.0/20"}, []string{"10.0.128.0/20"}},
		{"10.0.0.0/16", 3, []string{"10.0.0.0/20", "10.0.16.0/20", "10.0.32.0/20"}, []string{"10.0.128.0/20", "10.0.144.0/20", "10.0.160.0/20"}},
		{"10.0.0.0/16", 6, []string{"10.0.0.0/20", "10.0.16.0/20", "10.0.32.0/20", "10.0.48.0/20", "10.0.64.0/20", "10.0.80.0/20"},
			[]string{"10.0.128.0/20", "10.0.144.0/20", "10.0.160.0/20", "10.0.176.0/20", "10.0.192.0/20", "10.0.208.0/20"}},
		{"172.16.32.0/20", 1, []string{"172.16.32.0/24"}, []string{"172.16.40.0/24"}},
		{"172.16.32.0/20", 2, []string{"172.16.32.0/24", "172.16.33.0/24"}, []string{"172.16.40.0/24", "172.16.41.0/24"}},
		{"172.16.32.0/20", 6, []string{"172.16.32.0/24", "172.16.33.0/24", "172.16.34.0/24", "172.16.35.0/24", "172.16.36.0/24", "172.16.37.0/24"},
			[]string{"172.16.40.0/24", "172.16.41.0/24", "172.16.42.0/24", "172.16.43.0/24", "172.16.44.0/24", "172.16.45.0/24"}},
		{"192.168.7.0/24", 1, []string{"192.168.7.0/28"}, []string{"192.168.7.128/28"}},
		{"192.168.7.0/24", 4, []string{"192.168.7.0/28", "192.168.7.16/28", "192.168.7.32/28", "192.168.7.48/28"},
			[]string{"192.168.7.128/28", "192.168.7.144/28", "192.168.7.160/28", "192.168.7.176/28"}},
		{"192.168.7.0/24", 6, []string{"192.168.7.0/28", "192.168.7.16/28", "192.168.7.32/28", "192.168.7.48/28", "192.168.7.64/28", "192.168.7.80/28"},
			[]string{"192.168.7.128/28", "192.168.7.144/28", "192.168.7.160/28", "192.168.7.176/28", "192.168.7.192/28", "192.168.7.208/28"}},
	}
	for _, tt := range tests {
		t.Run(tt.vpc+"/"+string(rune('0'+tt.zones)), func(t *testing.T) {
			vpc := netip.MustParsePrefix(tt.vpc)
			l, err := ComputeLayout(vpc, tt.zones, 6)
			if err != nil {
				t.Fatalf("ComputeLayout: %v", err)
			}
			if got := prefixes(l.Public); strings.Join(got, " ") != strings.Join(tt.wantPublic, " ") {
				t.Errorf("public = %v, want %v", got, tt.wantPublic)
			}
			if got := prefixes(l.Private); strings.Join(got, " ") != strings.Join(tt.wantPrivate, " ") {
				t.Errorf("private = %v, want %v", got, tt.wantPrivate)
			}
			assertDisjointInside(t, vpc, append(l.Public, l.Private...))
		})
	}
}

// TestComputeLayoutCoversEverySizeAndZoneCount checks the layout's
// invariants for every allowed VPC size and zone count.
func TestComputeLayoutCoversEverySizeAndZoneCount(t *testing.T) {
	for bits := 16; bits <= 24; bits++ {
		for zones := 1; zones <= 6; zones++ {
			vpc := netip.PrefixFrom(netip.MustParseAddr("10.20.0.0"), bits)
			l, err := ComputeLayout(vpc, zones, 6)
			if err != nil {
				t.Fatalf("/%d with %d zones: %v", bits, zones, err)
			}
			if len(l.Public) != zones || len(l.Private) != zones {
				t.Fatalf("/%d with %d zones: %d public and %d private subnets", bits, zones, len(l.Public), len(l.Private))
			}
			assertDisjointInside(t, vpc, append(l.Public, l.Private...))
		}
	}
}

func TestComputeLayoutRefusesImpossibleLayouts(t *testing.T) {
	tests := []struct {
		vpc         string
		zones, have int
		wantErr     string
	}{
		{"10.0.0.0/15", 1, 6, "between /16 and /24"},
		{"10.0.0.0/25", 1, 6, "between /16 and /24"},
		{"10.0.1.0/16", 1, 6, "host bits set: use 10.0.0.0/16"},
		{"10.0.0.0/16", 0, 6, "at least one zone"},
		{"10.0.0.0/16", 4, 3, "the region has 3"},
		{"10.0.0.0/16", 9, 12, "at most 8"},
		{"fd00::/56", 1, 6, "only IPv4"},
	}
	for _, tt := range tests {
		t.Run(tt.vpc, func(t *testing.T) {
			_, err := ComputeLayout(netip.MustParsePrefix(tt.vpc), tt.zones, tt.have)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ComputeLayout(%s, %d zones of %d) = %v, want an error containing %q", tt.vpc, tt.zones, tt.have, err, tt.wantErr)
			}
		})
	}
}

func prefixes(ps []netip.Prefix) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func assertDisjointInside(t *testing.T, vpc netip.Prefix, subnets []netip.Prefix) {
	t.Helper()
	for i, a := range subnets {
		if !vpc.Contains(a.Addr()) || a.Bits() < vpc.Bits() || a.Bits() > 28 {
			t.Errorf("subnet %s is not a valid subnet of %s", a, vpc)
		}
		for _, b := range subnets[i+1:] {
			if a.Overlaps(b) {
				t.Errorf("subnets %s and %s overlap", a, b)
			}
		}
	}
}
