package hostedcluster

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

func TestControlPlaneGiveUp(t *testing.T) {
	deletion := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	grace := 10 * time.Minute
	invalidSince := func(at time.Time) *metav1.Condition {
		c := cond(hcplinkv1beta1.ValidCloudCredentialsCondition, metav1.ConditionFalse, "InvalidCredentials", "AWS refused the role: AccessDenied")
		c.LastTransitionTime = metav1.NewTime(at)
		return &c
	}
	validCreds := cond(hcplinkv1beta1.ValidCloudCredentialsCondition, metav1.ConditionTrue, "AsExpected", "")
	unknownCreds := cond(hcplinkv1beta1.ValidCloudCredentialsCondition, metav1.ConditionUnknown, "InternalError", "")
	tests := []struct {
		name        string
		now         time.Time
		credentials *metav1.Condition
		giveUp      bool
		deadline    time.Time
		why         string
	}{
		// Field problem 2: a cluster whose credentials were never checked
		// must not hang forever.
		{name: "never reported, grace not over", now: deletion.Add(9 * time.Minute), deadline: deletion.Add(grace), why: "never reported"},
		{name: "never reported, grace over", now: deletion.Add(grace), giveUp: true, deadline: deletion.Add(grace), why: "never reported"},
		{name: "valid credentials long after the grace period: never", now: deletion.Add(24 * time.Hour), credentials: &validCreds},
		{name: "Unknown credentials never (field problem 1)", now: deletion.Add(24 * time.Hour), credentials: &unknownCreds},
		{name: "invalid before deletion, grace not over", now: deletion.Add(9 * time.Minute), credentials: invalidSince(deletion.Add(-time.Hour)),
			deadline: deletion.Add(grace), why: "invalid cloud credentials (AWS refused the role: AccessDenied)"},
		{name: "invalid before deletion, grace over", now: deletion.Add(grace), credentials: invalidSince(deletion.Add(-time.Hour)), giveUp: true, deadline: deletion.Add(grace)},
		{name: "became invalid during deletion: grace counts from then", now: deletion.Add(grace + time.Minute), credentials: invalidSince(deletion.Add(5 * time.Minute)),
			deadline: deletion.Add(15 * time.Minute)},
		{name: "became invalid during deletion, grace over", now: deletion.Add(15 * time.Minute), credentials: invalidSince(deletion.Add(5 * time.Minute)), giveUp: true, deadline: deletion.Add(15 * time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := controlPlaneGiveUp(tt.now, deletion, tt.credentials, grace)
			if got.now != tt.giveUp || !got.deadline.Equal(tt.deadline) {
				t.Fatalf("giveUp/deadline = %v/%s, want %v/%s", got.now, got.deadline, tt.giveUp, tt.deadline)
			}
			if !strings.Contains(got.why, tt.why) {
				t.Errorf("why %q does not contain %q", got.why, tt.why)
			}
			if tt.deadline.IsZero() && got.waitMessage("x") != "" {
				t.Errorf("waitMessage = %q without a deadline", got.waitMessage("x"))
			}
		})
	}
}

// credentialsAt is a management credentials state for tests.
type credentialsAt struct {
	state platform.CredentialsState
	since time.Time
}

func (c credentialsAt) CredentialsState() (platform.CredentialsState, time.Time) {
	return c.state, c.since
}

func TestManagementGiveUp(t *testing.T) {
	deletion := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	grace := 10 * time.Minute
	tests := []struct {
		name     string
		now      time.Time
		creds    platform.Credentials
		giveUp   bool
		deadline time.Time
	}{
		{name: "no credentials check: never", now: deletion.Add(24 * time.Hour)},
		{name: "valid: never", now: deletion.Add(24 * time.Hour), creds: credentialsAt{platform.CredentialsValid, deletion.Add(-time.Hour)}},
		{name: "unknown (cloud unreachable): never", now: deletion.Add(24 * time.Hour), creds: credentialsAt{platform.CredentialsUnknown, deletion.Add(-time.Hour)}},
		{name: "invalid, grace not over", now: deletion.Add(9 * time.Minute), creds: credentialsAt{platform.CredentialsInvalid, deletion.Add(-time.Hour)}, deadline: deletion.Add(grace)},
		{name: "invalid, grace over", now: deletion.Add(grace), creds: credentialsAt{platform.CredentialsInvalid, deletion.Add(-time.Hour)}, giveUp: true, deadline: deletion.Add(grace)},
		{name: "became invalid during deletion", now: deletion.Add(grace), creds: credentialsAt{platform.CredentialsInvalid, deletion.Add(5 * time.Minute)}, deadline: deletion.Add(15 * time.Minute)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := managementGiveUp(tt.now, deletion, tt.creds, grace)
			if got.now != tt.giveUp || !got.deadline.Equal(tt.deadline) {
				t.Fatalf("giveUp/deadline = %v/%s, want %v/%s", got.now, got.deadline, tt.giveUp, tt.deadline)
			}
		})
	}
}
