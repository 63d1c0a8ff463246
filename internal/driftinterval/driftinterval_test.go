package driftinterval

import (
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	tests := []struct {
		platform string
		want     time.Duration
	}{
		{"AWS", 10 * time.Minute},
		{"Azure", 5 * time.Minute},
		{"azure", 5 * time.Minute},
		{"None", 0},
	}
	for _, tc := range tests {
		if got := For(tc.platform); got != tc.want {
			t.Errorf("For(%q) = %v, want %v", tc.platform, got, tc.want)
		}
	}
	if got, want := Help(), "AWS 10m0s, Azure 5m0s"; got != want {
		t.Errorf("Help() = %q, want %q", got, want)
	}
}
