package aws

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
)

func TestCredentialsCondition(t *testing.T) {
	apiErr := func(code, msg string) error {
		// Wrapped as the SDK wraps it.
		return &smithy.OperationError{ServiceID: "STS", OperationName: "GetCallerIdentity",
			Err: &smithy.GenericAPIError{Code: code, Message: msg}}
	}
	tests := []struct {
		name        string
		out         *sts.GetCallerIdentityOutput
		err         error
		wantStatus  metav1.ConditionStatus
		wantReason  string
		wantMessage string // a substring
	}{
		{
			name:       "valid",
			out:        &sts.GetCallerIdentityOutput{Arn: aws.String("arn:aws:sts::222222222222:assumed-role/cpo/s"), Account: aws.String("222222222222")},
			wantStatus: metav1.ConditionTrue, wantReason: hcplinkv1beta1.AsExpectedReason,
			wantMessage: "authenticate as arn:aws:sts::222222222222:assumed-role/cpo/s in account 222222222222",
		},
		{
			name:       "unknown access key",
			err:        apiErr("InvalidClientTokenId", "The security token included in the request is invalid."),
			wantStatus: metav1.ConditionFalse, wantReason: hcplinkv1beta1.InvalidCredentialsReason,
			wantMessage: "AWS refused the control-plane operator's credentials (InvalidClientTokenId: The security token included in the request is invalid.)",
		},
		{
			name:       "role does not trust the service account",
			err:        apiErr("AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity"),
			wantStatus: metav1.ConditionFalse, wantReason: hcplinkv1beta1.InvalidCredentialsReason,
			wantMessage: "AccessDenied",
		},
		{
			name:       "expired web identity",
			err:        apiErr("ExpiredTokenException", "Token expired"),
			wantStatus: metav1.ConditionFalse, wantReason: hcplinkv1beta1.InvalidCredentialsReason,
			wantMessage: "ExpiredTokenException",
		},
		{
			name:       "throttled",
			err:        apiErr("Throttling", "Rate exceeded"),
			wantStatus: metav1.ConditionUnknown, wantReason: hcplinkv1beta1.ThrottledReason,
			wantMessage: "AWS throttled the credentials check (Throttling)",
		},
		{
			name:       "server error",
			err:        apiErr("InternalFailure", "boom"),
			wantStatus: metav1.ConditionUnknown, wantReason: hcplinkv1beta1.CredentialCheckFailedReason,
			wantMessage: "(InternalFailure: boom)",
		},
		{
			name:       "no answer",
			err:        &smithy.OperationError{ServiceID: "STS", OperationName: "GetCallerIdentity", Err: &smithyhttp.RequestSendError{Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")}},
			wantStatus: metav1.ConditionUnknown, wantReason: hcplinkv1beta1.CredentialCheckFailedReason,
			wantMessage: "Could not reach AWS STS",
		},
		{
			name:       "credentials could not be loaded",
			err:        errors.New("failed to refresh cached credentials, failed to retrieve jwt from provide source, unable to read file at /var/run/secrets/hcplink/serviceaccount/token"),
			wantStatus: metav1.ConditionUnknown, wantReason: hcplinkv1beta1.CredentialCheckFailedReason,
			wantMessage: "unable to read file at /var/run/secrets/hcplink/serviceaccount/token",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := credentialsCondition(tt.out, tt.err, identity{})
			if got.Type != hcplinkv1beta1.ValidCloudCredentialsCondition || got.Status != tt.wantStatus || got.Reason != tt.wantReason || !strings.Contains(got.Message, tt.wantMessage) {
				t.Errorf("got %s=%s %s %q\nwant %s %s containing %q", got.Type, got.Status, got.Reason, got.Message, tt.wantStatus, tt.wantReason, tt.wantMessage)
			}
			if strings.Contains(got.Message, "RequestID") || strings.Contains(got.Message, "\n") {
				t.Errorf("message not sanitised: %q", got.Message)
			}
		})
	}
}

func TestMessagesAreBounded(t *testing.T) {
	long := strings.Repeat("x", 5000)
	got := credentialsCondition(nil, &smithy.GenericAPIError{Code: "InvalidClientTokenId", Message: long}, identity{roleARN: "arn:aws:iam::1:role/x", issuer: long, subject: long})
	if len(got.Message) > 600 {
		t.Errorf("message is %d bytes long", len(got.Message))
	}
	got = credentialsCondition(nil, errors.New(long), identity{})
	if len(got.Message) > 600 {
		t.Errorf("message is %d bytes long", len(got.Message))
	}
}
