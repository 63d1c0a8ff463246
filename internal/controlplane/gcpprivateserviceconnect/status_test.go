package gcpprivateserviceconnect

import (
	"testing"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

func TestConnectionOutcome(t *testing.T) {
	tests := []struct {
		status string
		done   bool
		reason string
		grows  bool
	}{
		{gcpcloud.PSCAccepted, true, "", false},
		{gcpcloud.PSCPending, false, hcplinkv1beta1.PSCConnectionPendingReason, true},
		{"", false, hcplinkv1beta1.PSCConnectionPendingReason, true},
		{gcpcloud.PSCRejected, false, hcplinkv1beta1.PSCConnectionRejectedReason, true},
		{gcpcloud.PSCClosed, false, hcplinkv1beta1.PSCConnectionClosedReason, true},
		{gcpcloud.PSCNeedsAttention, false, hcplinkv1beta1.PSCConnectionPendingReason, true},
	}
	for _, tt := range tests {
		o := ConnectionOutcome("ep", tt.status)
		if o.Done() != tt.done || o.Reason != tt.reason || o.Grows() != tt.grows {
			t.Errorf("%q: %+v", tt.status, o)
		}
		if !tt.done && (o.After <= 0 || leakPattern.MatchString(o.Message)) {
			t.Errorf("%q: a status that is not accepted is looked at again, in plain words: %+v", tt.status, o)
		}
	}
}

func TestExternalNameTarget(t *testing.T) {
	if got := externalNameTarget("Demo"); got != "api.demo.hypershift.local" {
		t.Errorf("externalNameTarget = %q", got)
	}
}
