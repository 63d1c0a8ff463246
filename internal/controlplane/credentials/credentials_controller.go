// Package credentials is the control-plane operator's credentials check: it
// asks AWS STS who the operator's credentials are (GetCallerIdentity, which
// needs no permission) and records the answer in the HostedControlPlane's
// ValidCloudCredentials condition. The operator reads that condition to
// decide whether a deletion stuck on cloud cleanup may give up: only when
// the credentials are known to be invalid, never while they are valid or
// merely unchecked.
package credentials

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/conditions"
)

// FieldOwner is the field manager of this controller's writes.
const FieldOwner = "hcplink-credentials"

// How often the credentials are checked again. Each interval gets up to
// recheckJitter more, so that many control planes do not call STS at once.
const (
	// ValidRecheckInterval: valid credentials rarely go bad; a role whose
	// trust policy changes is noticed within this time.
	ValidRecheckInterval = 5 * time.Minute
	// ProofWindow: a successful call this recent vouches for the
	// credentials, so the check makes none of its own. Longer than the
	// endpoint controller's drift interval (10m), so that at steady state
	// its checks keep the credentials proven; a role that goes bad is
	// reported within this window plus one recheck.
	ProofWindow = 15 * time.Minute
	// invalidRecheckInterval: a fixed role should unblock a waiting deletion
	// soon, and one call a minute is cheap.
	invalidRecheckInterval = time.Minute
	// unknownRecheckInterval: throttling and outages pass; try again soon.
	unknownRecheckInterval = 30 * time.Second
	// recheckJitter is the largest random addition to an interval.
	recheckJitter = 0.2
	// callTimeout bounds one GetCallerIdentity (with its credential
	// exchange), so that a hung endpoint never holds a worker.
	callTimeout = 20 * time.Second
)

// Reconciler checks the control-plane operator's AWS credentials for the
// HostedControlPlane of its namespace.
type Reconciler struct {
	// Client reads the HostedControlPlane and writes its status.
	Client client.Client
	// AWS is the operator's AWS configuration (its credentials). When its
	// region is empty the cluster's region is used.
	AWS aws.Config
	// Proof records the control-plane operator's successful AWS calls; nil
	// checks with STS every time. While calls keep succeeding the
	// credentials are known good and no STS call is needed.
	Proof *awscloud.LastSuccess
}

// SetupWithManager registers the controller. It checks when the
// HostedControlPlane is created or its spec changes, and then on its own
// schedule.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("credentials").
		For(&hcplinkv1beta1.HostedControlPlane{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{SkipNameValidation: ptr.To(true)}).
		Complete(r)
}

// Reconcile checks the credentials and records the result.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	hcp := &hcplinkv1beta1.HostedControlPlane{}
	if err := r.Client.Get(ctx, req.NamespacedName, hcp); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// Only AWS private clusters give the control-plane operator cloud
	// credentials and cloud resources to clean up. A deleting cluster is
	// checked too: that is when the answer matters.
	if hcp.Spec.Platform.Type != hcplinkv1beta1.AWSPlatform || !hcp.Spec.Platform.IsPrivate() {
		return ctrl.Result{}, nil
	}

	if r.provenValid(hcp) {
		return ctrl.Result{RequeueAfter: jittered(ValidRecheckInterval)}, nil
	}

	cfg := r.AWS.Copy()
	if cfg.Region == "" {
		cfg.Region = hcp.Spec.Platform.AWS.Region
	}
	callCtx, cancel := context.WithTimeout(ctx, callTimeout)
	out, err := sts.NewFromConfig(cfg).GetCallerIdentity(callCtx, &sts.GetCallerIdentityInput{})
	cancel()
	if err != nil && ctx.Err() != nil {
		return ctrl.Result{}, ctx.Err()
	}

	role := ""
	if rr := hcp.Spec.Platform.AWS.RolesRef; rr != nil {
		role = rr.ControlPlaneOperatorARN
	}
	cond := credentialsCondition(out, err, identityOf(r.AWS, role))
	if err != nil {
		ctrl.LoggerFrom(ctx).Info("Checking the AWS credentials failed", "reason", cond.Reason, "error", err.Error())
	}
	if _, werr := (conditions.Writer{Client: r.Client, FieldOwner: FieldOwner}).Apply(ctx, hcp, &hcp.Status.Conditions, cond); werr != nil {
		return ctrl.Result{}, werr
	}
	return ctrl.Result{RequeueAfter: jittered(recheckInterval(cond.Status))}, nil
}

// provenValid reports whether the condition already says the credentials
// are valid and a call succeeded recently enough to vouch that they still
// are: then the check costs no call.
func (r *Reconciler) provenValid(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	c := meta.FindStatusCondition(hcp.Status.Conditions, hcplinkv1beta1.ValidCloudCredentialsCondition)
	return r.Proof != nil && c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == hcp.Generation &&
		r.Proof.Within(ProofWindow)
}

func recheckInterval(status metav1.ConditionStatus) time.Duration {
	switch status {
	case metav1.ConditionTrue:
		return ValidRecheckInterval
	case metav1.ConditionFalse:
		return invalidRecheckInterval
	default:
		return unknownRecheckInterval
	}
}

func jittered(d time.Duration) time.Duration {
	return d + time.Duration(rand.Float64()*recheckJitter*float64(d))
}

// callerText names the principal behind the credentials in messages.
func callerText(out *sts.GetCallerIdentityOutput) string {
	if out == nil {
		return "an unknown principal"
	}
	return fmt.Sprintf("%s in account %s", aws.ToString(out.Arn), aws.ToString(out.Account))
}
