// Package credentials is the control-plane operator's credentials check: it
// asks the cluster's cloud, through that cloud's Checker (in its platform
// package: AWS, STS GetCallerIdentity; Azure, an Entra ID token; neither
// needs a permission), whether the operator's identity works, and records
// the answer in the HostedControlPlane's ValidCloudCredentials
// condition. The operator reads that condition to decide whether a
// deletion stuck on cloud cleanup may give up: only when the credentials
// are known to be invalid, never while they are valid or merely unchecked
// (decided in one place: internal/operator/hostedcluster/hostedcluster_giveup.go (controlPlaneGiveUp)).
package credentials

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/conditions"
	"github.com/hcplink/hcplink/internal/events"
	"github.com/hcplink/hcplink/internal/intervals"
	"github.com/hcplink/hcplink/internal/outcome"
	"github.com/hcplink/hcplink/internal/reconcilekit"
)

// FieldOwner is the field manager of this controller's writes.
const FieldOwner = "hcplink-credentials"

// How often the credentials are checked again. Each interval gets up to
// RecheckJitter more (outcome.JitterLater, the one policy's), so that many
// control planes do not call their cloud at once.
const (
	// ValidRecheckInterval: see intervals.ControlPlaneCredentialsRecheck.
	ValidRecheckInterval = intervals.ControlPlaneCredentialsRecheck
	// ProofWindow: see intervals.CredentialsProofWindow.
	ProofWindow = intervals.CredentialsProofWindow
	// InvalidRecheckInterval: a fixed role should unblock a waiting deletion
	// soon, and one call a minute is cheap.
	InvalidRecheckInterval = time.Minute
	// UnknownRecheckInterval: throttling and outages pass; try again soon.
	UnknownRecheckInterval = 30 * time.Second
	// RecheckJitter is the largest random addition to an interval.
	RecheckJitter = outcome.RecheckJitter
	// callTimeout bounds one GetCallerIdentity (with its credential
	// exchange), so that a hung endpoint never holds a worker.
	callTimeout = 20 * time.Second
)

// Checker asks one cloud whether the control-plane operator's identity
// works.
type Checker interface {
	// Name names the check's controller.
	Name() string
	// Serves reports whether hcp is a private cluster of the checker's
	// cloud: only those give the control-plane operator cloud credentials
	// and cloud resources to clean up.
	Serves(hcp *hcplinkv1beta1.HostedControlPlane) bool
	// Proven reports whether successful calls within ProofWindow vouch for
	// the identity, so that the check needs no call of its own.
	Proven() bool
	// Check asks the cloud, within ctx's deadline, and returns the
	// ValidCloudCredentials condition and the error behind it (for logs).
	Check(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane) (metav1.Condition, error)
}

// Reconciler checks the control-plane operator's cloud identity for the
// HostedControlPlane of its namespace, with its cloud's Checker.
type Reconciler struct {
	// Client reads the HostedControlPlane and writes its status.
	Client  client.Client
	Checker Checker
	// Events tells people when the credentials turn invalid or valid
	// again; nil tells nothing.
	Events *events.Recorder
}

// SetupWithManager registers the controller. It checks when the
// HostedControlPlane is created or its spec changes, and then on its own
// schedule.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	return reconcilekit.OnControlPlaneSpec(mgr, r.Checker.Name(), r)
}

// Reconcile checks the identity and records the result.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if err := r.Client.Get(ctx, req.NamespacedName, hcp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// A deleting cluster is checked too: that is when the answer matters.
	if !r.Checker.Serves(hcp) {
		return ctrl.Result{}, nil
	}
	if r.provenValid(hcp) {
		return ctrl.Result{RequeueAfter: outcome.JitterLater(ValidRecheckInterval)}, nil
	}
	callCtx, cancel := context.WithTimeout(ctx, callTimeout)
	cond, err := r.Checker.Check(callCtx, hcp)
	cancel()
	if err != nil && ctx.Err() != nil {
		return ctrl.Result{}, ctx.Err()
	}
	if err != nil {
		ctrl.LoggerFrom(ctx).Info("Checking the cloud credentials failed", "reason", cond.Reason, "error", err.Error())
	}
	if _, werr := (conditions.Writer{Client: r.Client, FieldOwner: FieldOwner, Events: r.Events}).Apply(ctx, hcp, &hcp.Status.Conditions, cond); werr != nil {
		return ctrl.Result{}, werr
	}
	return ctrl.Result{RequeueAfter: outcome.JitterLater(recheckInterval(cond.Status))}, nil
}

// provenValid reports whether the condition already says the identity is
// valid and a call succeeded recently enough to vouch that it still is:
// then the check costs no call.
func (r *Reconciler) provenValid(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	c := meta.FindStatusCondition(hcp.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == hcp.Generation && r.Checker.Proven()
}

func recheckInterval(status metav1.ConditionStatus) time.Duration {
	switch status {
	case metav1.ConditionTrue:
		return ValidRecheckInterval
	case metav1.ConditionFalse:
		return InvalidRecheckInterval
	default:
		return UnknownRecheckInterval
	}
}
