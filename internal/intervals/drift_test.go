package intervals

import (
	"testing"
	"time"

	"github.com/hcplink/hcplink/internal/outcome"
)

func TestDriftDefaults(t *testing.T) {
	tests := []struct {
		platform string
		want     time.Duration
	}{
		{"AWS", 10 * time.Minute},
		{"Azure", 5 * time.Minute},
		{"azure", 5 * time.Minute},
		{"GCP", 5 * time.Minute},
		{"None", 0},
	}
	for _, tc := range tests {
		if got := DriftFor(tc.platform); got != tc.want {
			t.Errorf("DriftFor(%q) = %v, want %v", tc.platform, got, tc.want)
		}
	}
	if got, want := DriftHelp(), "AWS 10m0s, Azure 5m0s, GCP 5m0s"; got != want {
		t.Errorf("DriftHelp() = %q, want %q", got, want)
	}
}

// TestProofWindowOutlastsDrift: the control-plane operator's credentials
// check relies on the drift checks' calls to prove the credentials; that
// holds only while the proof window outlasts the longest jittered drift
// interval.
func TestProofWindowOutlastsDrift(t *testing.T) {
	if longest := outcome.LongestJitter(AWSDrift); longest >= CredentialsProofWindow {
		t.Errorf("the AWS drift checks come up to %v apart, not within the proof window %v", longest, CredentialsProofWindow)
	}
}
