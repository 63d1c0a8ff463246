package credentials

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// Reasons of the ValidCloudCredentials condition besides AsExpected and
// Throttled.
const (
	// InvalidCredentialsReason (False): AWS refused the credentials; the
	// control-plane operator cannot create or delete anything in the
	// customer's account until they are fixed.
	InvalidCredentialsReason = "InvalidCredentials"
	// CredentialCheckFailedReason (Unknown): the check itself failed (AWS
	// unreachable, a server error, no credentials could be loaded); the
	// credentials may well be valid.
	CredentialCheckFailedReason = "CredentialCheckFailed"
)

// maxDetailLength bounds the part of a message taken from an error.
const maxDetailLength = 200

// invalidCredentialCodes are the AWS error codes that mean the credentials
// themselves are refused: unknown, expired or malformed keys, and a web
// identity the role does not trust (from the AssumeRoleWithWebIdentity the
// SDK makes first).
var invalidCredentialCodes = map[string]bool{
	"InvalidClientTokenId":        true,
	"UnrecognizedClientException": true,
	"InvalidAccessKeyId":          true,
	"SignatureDoesNotMatch":       true,
	"IncompleteSignature":         true,
	"AuthFailure":                 true,
	"ExpiredToken":                true,
	"ExpiredTokenException":       true,
	"InvalidIdentityToken":        true,
	"IDPRejectedClaim":            true,
	"AccessDenied":                true,
	"AccessDeniedException":       true,
}

// credentialsCondition turns the answer of GetCallerIdentity into the
// ValidCloudCredentials condition: True when it answered; False when AWS
// refused the credentials; Unknown when the check could not tell.
func credentialsCondition(out *sts.GetCallerIdentityOutput, err error) metav1.Condition {
	cond := metav1.Condition{Type: hcplinkv1beta1.ValidCloudCredentialsCondition}
	if err == nil {
		cond.Status, cond.Reason = metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason
		cond.Message = "The control-plane operator's AWS credentials authenticate as " + callerText(out)
		return cond
	}
	var apiErr smithy.APIError
	var sendErr *smithyhttp.RequestSendError
	switch {
	case errors.As(err, &apiErr) && invalidCredentialCodes[apiErr.ErrorCode()]:
		cond.Status, cond.Reason = metav1.ConditionFalse, InvalidCredentialsReason
		cond.Message = fmt.Sprintf("AWS refused the control-plane operator's credentials (%s: %s). Check that the role in spec.platform.aws.rolesRef.controlPlaneOperatorARN exists and trusts the cluster's service account", apiErr.ErrorCode(), bounded(apiErr.ErrorMessage()))
	case awscloud.IsThrottling(err):
		cond.Status, cond.Reason = metav1.ConditionUnknown, hcplinkv1beta1.ThrottledReason
		cond.Message = fmt.Sprintf("AWS throttled the credentials check (%s); retrying with backoff", awscloud.ErrorCode(err))
	case errors.As(err, &apiErr):
		cond.Status, cond.Reason = metav1.ConditionUnknown, CredentialCheckFailedReason
		cond.Message = fmt.Sprintf("Could not check the control-plane operator's AWS credentials (%s: %s); retrying", apiErr.ErrorCode(), bounded(apiErr.ErrorMessage()))
	case errors.As(err, &sendErr):
		cond.Status, cond.Reason = metav1.ConditionUnknown, CredentialCheckFailedReason
		cond.Message = "Could not reach AWS STS to check the control-plane operator's credentials; retrying"
	default:
		cond.Status, cond.Reason = metav1.ConditionUnknown, CredentialCheckFailedReason
		cond.Message = fmt.Sprintf("Could not check the control-plane operator's AWS credentials: %s; retrying", bounded(err.Error()))
	}
	return cond
}

// bounded trims s to maxDetailLength characters on one line.
func bounded(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxDetailLength {
		return string(r[:maxDetailLength]) + "…"
	}
	return s
}
