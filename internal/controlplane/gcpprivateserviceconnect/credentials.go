package gcpprivateserviceconnect

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	"github.com/hcplink/hcplink/internal/cloud"
	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// CredentialsChecker checks the control-plane operator's GCP identity for
// the shared credentials controller: it signs in by workload identity
// federation as the cluster names (STS exchange, then impersonation),
// which needs no role, and the answer becomes the HostedControlPlane's
// ValidCloudCredentials condition, which the operator's escape hatch reads
// when a deletion is stuck on cloud cleanup. The credentials library keeps
// the token until it expires, so most checks cost no call at all.
type CredentialsChecker struct {
	Cloud CloudFactory
}

// Name names the GCP check's controller.
func (c *CredentialsChecker) Name() string { return "gcpcredentials" }

// Serves: GCP clusters served through Private Service Connect.
func (c *CredentialsChecker) Serves(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	return PrivateConfigured(hcp)
}

// Proven is false: nothing records successful GCP calls yet, and the
// sign-in check is cheap.
func (c *CredentialsChecker) Proven() bool { return false }

// Check signs in as the cluster's identity.
func (c *CredentialsChecker) Check(_ context.Context, hcp *hcplinkv1beta1.HostedControlPlane) (metav1.Condition, error) {
	err := c.Cloud.CheckSignIn(IdentityOf(hcp))
	return GCPCredentialsCondition(err), err
}

// GCPCredentialsCondition turns the answer of a sign-in into the
// ValidCloudCredentials condition: True when Google issued a token; False
// when the identity is not configured or Google refused it; Unknown when
// the check could not tell. Messages never carry Google's answer (it holds
// URLs and project numbers).
func GCPCredentialsCondition(err error) metav1.Condition {
	cond := metav1.Condition{Type: hcplinkv1beta1.ValidCloudCredentialsCondition}
	var missing *MissingIdentityError
	switch {
	case err == nil:
		cond.Status, cond.Reason = metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason
		cond.Message = "The control-plane operator's GCP workload identity signs in and impersonates its service account"
	case errors.As(err, &missing):
		cond.Status, cond.Reason = metav1.ConditionFalse, hcplinkv1beta1.IdentityNotConfiguredReason
		cond.Message = missing.Message()
	case refused(err):
		cond.Status, cond.Reason = metav1.ConditionFalse, hcplinkv1beta1.InvalidCredentialsReason
		cond.Message = "Google Cloud refused the control-plane operator's sign-in (" + gcpcloud.Reason(err) + "): check spec.platform.gcp.workloadIdentity.poolProvider, " +
			"that the pool provider trusts the management cluster's ServiceAccount issuer, and that the service account grants " +
			gcpcloud.SignInRole + " to the control-plane operator's ServiceAccount"
	default:
		cond.Status, cond.Reason = metav1.ConditionUnknown, hcplinkv1beta1.CredentialCheckFailedReason
		cond.Message = "Could not reach Google Cloud to check the control-plane operator's GCP identity; retrying"
	}
	return cond
}

// refused reports whether Google answered the sign-in with a refusal
// (not an outage or a timeout).
func refused(err error) bool {
	switch gcpcloud.Classify(err) {
	case cloud.ClassAccessDenied, cloud.ClassInvalidInput, cloud.ClassClientError, cloud.ClassNotFound:
		return true
	}
	return false
}
