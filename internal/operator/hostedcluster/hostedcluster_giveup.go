package hostedcluster

// When a finalizer is given up. This file is the one place that decides
// it, for both operators: the control-plane operator never gives up its
// own finalizer (hcplink.io/control-plane-cleanup); its delete paths keep
// it until the customer's resources are gone, and point here.
//
// Two components hold cloud resources of a private cluster, each with its
// own credentials: the control-plane operator (the customer's account: VPC
// endpoint, security group, DNS records; finalizer
// hcplink.io/control-plane-cleanup) and the operator (the management
// account: the endpoint service; finalizer hcplink.io/operator-cleanup).
// Only the component whose credentials do not work may be given up, so a
// refused customer role never leaves the endpoint service behind:
//
//   - the control-plane operator's part (its finalizers, and the wait for
//     CloudCleanupComplete) when the HostedControlPlane reports
//     ValidCloudCredentials=False for the grace period, or never reported
//     it for the grace period since the deletion (or since the
//     HostedControlPlane was recreated): a control-plane operator that was
//     created but never reported (it could not start, or crashed) must not
//     hold deletion forever;
//   - the operator's part (its finalizer) when its own management
//     credentials, as its credentials check reports them
//     (Config.ManagementCredentials), are invalid for the grace period.
//
// Valid or Unknown credentials never give up. Giving up sets
// CloudResourcesMayHaveLeaked and emits a Warning event naming what may
// remain.
//
// A control-plane operator that was never created (the cluster was deleted
// before the operator got to its Deployment) never ran, so it made nothing
// in the customer's account: its part is neither waited for nor given up,
// and nothing may have leaked (controlPlaneOperatorMayHaveRun).

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/operator/platform"
)

// giveUp is the escape hatch of one component (the control-plane
// operator, or the operator itself) during deletion.
type giveUp struct {
	// now: the component's cleanup may be given up now.
	now bool
	// deadline is when it may be, zero when never (its credentials may
	// work).
	deadline time.Time
	// why says why it may be given up, for conditions and events.
	why string
	// nothingMade: the component never ran, so there is nothing of its to
	// wait for; its part is skipped at once and nothing may have leaked.
	nothingMade bool
}

// neverCreatedWhy says why the control-plane operator's part is skipped.
const neverCreatedWhy = "the control-plane operator was never started, so it made nothing in the customer's account"

// controlPlaneOperatorMayHaveRun reports whether the cluster's
// control-plane operator may have run, and so may have made something in
// the customer's account: the operator recorded that it went to create it
// (status.controlPlaneOperatorCreationTime, written before the Deployment
// can exist), its Deployment exists (made by an operator from before that
// field), or a private-link object carries its finalizer (which only a
// running control-plane operator adds).
func controlPlaneOperatorMayHaveRun(hc *hcplinkv1beta1.HostedCluster, deploymentExists bool, privateLink []platform.Object) bool {
	if hc.Status.ControlPlaneOperatorCreationTime != nil || deploymentExists {
		return true
	}
	for _, o := range privateLink {
		if contains(o.Object.GetFinalizers(), hcplinkv1beta1.ControlPlaneFinalizer) {
			return true
		}
	}
	return false
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// controlPlaneGiveUp applies the escape hatch to the control-plane
// operator's cleanup (its finalizers, and the wait for its final sweep):
// only when the HostedControlPlane reports ValidCloudCredentials=False, or
// never reported it at all (the control-plane operator may have run but
// never got as far), for the grace period counted from the later of since
// (the deletion request, or the HostedControlPlane's creation) and the
// credentials' last transition. Valid or Unknown credentials never give
// up: the cleanup may still work. A control-plane operator that cannot
// have run (mayHaveRun false, and no report) is skipped at once.
func controlPlaneGiveUp(now, since time.Time, credentials *metav1.Condition, grace time.Duration, mayHaveRun bool) giveUp {
	var g giveUp
	switch {
	case credentials == nil && !mayHaveRun:
		return giveUp{nothingMade: true, why: neverCreatedWhy}
	case credentials == nil:
		g.deadline = since.Add(grace)
		g.why = "the control-plane operator never reported whether its cloud credentials work"
	case credentials.Status == metav1.ConditionFalse:
		g.deadline = later(since, credentials.LastTransitionTime.Time).Add(grace)
		g.why = "the control plane reports invalid cloud credentials (" + messageOrReason(credentials) + ")"
	default:
		return g
	}
	g.now = !now.Before(g.deadline)
	return g
}

// managementGiveUp applies the escape hatch to the operator's own cleanup
// (its finalizers): only when the management credentials have been
// invalid for the grace period since the later of the deletion request and
// the moment they became invalid.
func managementGiveUp(now, deletionRequested time.Time, creds platform.Credentials, grace time.Duration) giveUp {
	var g giveUp
	if creds == nil {
		return g
	}
	state, since := creds.CredentialsState()
	if state != platform.CredentialsInvalid {
		return g
	}
	g.deadline = later(deletionRequested, since).Add(grace)
	g.why = "the operator's own cloud credentials are invalid"
	g.now = !now.Before(g.deadline)
	return g
}

// waitMessage says what a component's pending give-up means, "" when it
// has none.
func (g giveUp) waitMessage(component string) string {
	if g.deadline.IsZero() {
		return ""
	}
	return fmt.Sprintf("%s, so %s will be abandoned at %s unless that changes", g.why, component, g.deadline.UTC().Format(time.RFC3339))
}
