package azure

import "testing"

func TestFreePrefix(t *testing.T) {
	for _, tc := range []struct {
		name        string
		space, used []string
		bits        int
		want        string
		wantErr     bool
	}{
		{"empty VNet", []string{"10.1.0.0/16"}, nil, 28, "10.1.0.0/28", false},
		{"after the first subnet", []string{"10.1.0.0/16"}, []string{"10.1.0.0/24"}, 28, "10.1.1.0/28", false},
		{"in a gap", []string{"10.1.0.0/16"}, []string{"10.1.0.0/28", "10.1.0.32/27"}, 28, "10.1.0.16/28", false},
		{"unaligned subnet prefix", []string{"10.1.0.0/16"}, []string{"10.1.0.5/24"}, 28, "10.1.1.0/28", false},
		{"second address prefix", []string{"10.1.0.0/28", "192.168.0.0/24"}, []string{"10.1.0.0/28"}, 28, "192.168.0.0/28", false},
		{"full", []string{"10.1.0.0/28"}, []string{"10.1.0.0/28"}, 28, "", true},
		{"space smaller than the prefix", []string{"10.1.0.0/29"}, nil, 28, "", true},
		{"IPv6 space skipped", []string{"fd00::/48", "10.2.0.0/24"}, nil, 28, "10.2.0.0/28", false},
		{"bad prefix", []string{"10.1.0.0/16"}, []string{"nonsense"}, 28, "", true},
		{"top of the address range", []string{"255.255.255.224/27"}, []string{"255.255.255.224/28"}, 28, "255.255.255.240/28", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FreePrefix(tc.space, tc.used, tc.bits)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Errorf("FreePrefix = %q, %v; want %q (error %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
