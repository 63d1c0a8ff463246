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
			got := controlPlaneGiveUp(tt.now, deletion, tt.credentials, grace, true)
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

// A control-plane operator that cannot have run is skipped at once, with
// no deadline and nothing to report; once it reported its credentials it
// ran, and the escape hatch applies as to any other.
func TestControlPlaneGiveUpNeverCreated(t *testing.T) {
	deletion := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	grace := 10 * time.Minute
	got := controlPlaneGiveUp(deletion, deletion, nil, grace, false)
	if !got.nothingMade || got.now || !got.deadline.IsZero() || !strings.Contains(got.why, "never started") {
		t.Errorf("never created: %+v, want nothingMade at once, no give-up, no deadline, why saying it never started", got)
	}
	if m := got.waitMessage("x"); m != "" {
		t.Errorf("waitMessage = %q, want none", m)
	}
	invalid := cond(hcplinkv1beta1.ValidCloudCredentialsCondition, metav1.ConditionFalse, "InvalidCredentials", "AWS refused the role: AccessDenied")
	invalid.LastTransitionTime = metav1.NewTime(deletion)
	got = controlPlaneGiveUp(deletion.Add(grace), deletion, &invalid, grace, false)
	if got.nothingMade || !got.now || !got.deadline.Equal(deletion.Add(grace)) {
		t.Errorf("reported invalid credentials: %+v, want the escape hatch at %s", got, deletion.Add(grace))
	}
}

func TestControlPlaneOperatorMayHaveRun(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	held := func(finalizers ...string) []platform.Object {
		return []platform.Object{{Object: &hcplinkv1beta1.AWSEndpointService{ObjectMeta: metav1.ObjectMeta{Name: "private-router", Finalizers: finalizers}}}}
	}
	tests := []struct {
		name        string
		created     *metav1.Time
		deployment  bool
		privateLink []platform.Object
		want        bool
	}{
		{name: "never created", want: false},
		{name: "a private-link object held only by the operator's finalizer", privateLink: held(hcplinkv1beta1.OperatorFinalizer), want: false},
		{name: "created", created: &created, want: true},
		{name: "its Deployment exists (made before the status recorded it)", deployment: true, want: true},
		{name: "its finalizer on a private-link object", privateLink: held(hcplinkv1beta1.OperatorFinalizer, hcplinkv1beta1.ControlPlaneFinalizer), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := &hcplinkv1beta1.HostedCluster{Status: hcplinkv1beta1.HostedClusterStatus{ControlPlaneOperatorCreationTime: tt.created}}
			if got := controlPlaneOperatorMayHaveRun(hc, tt.deployment, tt.privateLink); got != tt.want {
				t.Errorf("controlPlaneOperatorMayHaveRun = %v, want %v", got, tt.want)
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
