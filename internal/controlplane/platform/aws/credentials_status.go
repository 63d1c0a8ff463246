package aws

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// maxDetailLength bounds the part of a message taken from an error.
const maxDetailLength = 200

// credentialsCondition turns the answer of GetCallerIdentity into the
// ValidCloudCredentials condition: True when it answered; False when AWS
// refused the credentials (the message says what the role must trust, from
// id); Unknown when the check could not tell.
func credentialsCondition(out *sts.GetCallerIdentityOutput, err error, id identity) metav1.Condition {
	cond := metav1.Condition{Type: hcplinkv1beta1.ValidCloudCredentialsCondition}
	if err == nil {
		cond.Status, cond.Reason = metav1.ConditionTrue, hcplinkv1beta1.AsExpectedReason
		cond.Message = "The control-plane operator's AWS credentials authenticate as " + callerText(out)
		return cond
	}
	var apiErr smithy.APIError
	var sendErr *smithyhttp.RequestSendError
	switch {
	// GetCallerIdentity needs no permission: any refusal is of the
	// credentials themselves.
	case errors.As(err, &apiErr) && awscloud.IsAccessDenied(err):
		cond.Status, cond.Reason = metav1.ConditionFalse, hcplinkv1beta1.InvalidCredentialsReason
		detail := apiErr.ErrorCode()
		if !id.webIdentity() {
			detail += ": " + bounded(apiErr.ErrorMessage())
		}
		cond.Message = fmt.Sprintf("AWS refused the control-plane operator's credentials (%s). %s", detail, id.advice())
	case awscloud.IsThrottling(err):
		cond.Status, cond.Reason = metav1.ConditionUnknown, hcplinkv1beta1.ThrottledReason
		cond.Message = fmt.Sprintf("AWS throttled the credentials check (%s); retrying with backoff", awscloud.ErrorCode(err))
	case errors.As(err, &apiErr):
		cond.Status, cond.Reason = metav1.ConditionUnknown, hcplinkv1beta1.CredentialCheckFailedReason
		cond.Message = fmt.Sprintf("Could not check the control-plane operator's AWS credentials (%s: %s); retrying", apiErr.ErrorCode(), bounded(apiErr.ErrorMessage()))
	case errors.As(err, &sendErr):
		cond.Status, cond.Reason = metav1.ConditionUnknown, hcplinkv1beta1.CredentialCheckFailedReason
		cond.Message = "Could not reach AWS STS to check the control-plane operator's credentials; retrying"
	default:
		cond.Status, cond.Reason = metav1.ConditionUnknown, hcplinkv1beta1.CredentialCheckFailedReason
		cond.Message = fmt.Sprintf("Could not check the control-plane operator's AWS credentials: %s; retrying", bounded(err.Error()))
	}
	return cond
}

// bounded trims s to maxDetailLength characters on one line.
func bounded(s string) string { return boundedTo(s, maxDetailLength) }

// boundedTo trims s to n characters on one line.
func boundedTo(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// identity is who the control-plane operator tries to be: the role it
// assumes and, with a web identity, the token's issuer and subject that the
// role's trust policy must name.
type identity struct {
	roleARN         string
	issuer, subject string
}

// webIdentity reports whether the credentials come from a web identity
// token whose claims could be read.
func (id identity) webIdentity() bool { return id.issuer != "" && id.subject != "" }

// advice says what must hold for the credentials to work. With a web
// identity, that is what to check (the role, the issuer and the subject),
// and the AWS message adds nothing.
func (id identity) advice() string {
	role := "the role in spec.platform.aws.rolesRef.controlPlaneOperatorARN"
	if id.roleARN != "" {
		role = "role " + boundedTo(id.roleARN, 150)
	}
	if !id.webIdentity() {
		return "Check that " + role + " exists and trusts the cluster's service account"
	}
	return fmt.Sprintf("Check that %s exists and that its trust policy allows sts:AssumeRoleWithWebIdentity for the OIDC provider of issuer %s with subject %s",
		role, boundedTo(id.issuer, 100), boundedTo(id.subject, 100))
}

// identityOf reads the role and the web identity token file the SDK uses
// (environment or shared configuration, as loaded into cfg), and the
// token's issuer and subject claims, decoded without verifying: they only
// name what the role must trust. fallbackRole is the cluster's role when
// the configuration names none.
func identityOf(cfg aws.Config, fallbackRole string) identity {
	id := identity{roleARN: fallbackRole}
	tokenFile := ""
	for _, src := range cfg.ConfigSources {
		switch c := src.(type) {
		case config.EnvConfig:
			id.roleARN, tokenFile = firstNonEmpty(c.RoleARN, id.roleARN), firstNonEmpty(c.WebIdentityTokenFilePath, tokenFile)
		case *config.EnvConfig:
			id.roleARN, tokenFile = firstNonEmpty(c.RoleARN, id.roleARN), firstNonEmpty(c.WebIdentityTokenFilePath, tokenFile)
		case config.SharedConfig:
			id.roleARN, tokenFile = firstNonEmpty(c.RoleARN, id.roleARN), firstNonEmpty(c.WebIdentityTokenFile, tokenFile)
		case *config.SharedConfig:
			id.roleARN, tokenFile = firstNonEmpty(c.RoleARN, id.roleARN), firstNonEmpty(c.WebIdentityTokenFile, tokenFile)
		}
	}
	if tokenFile != "" {
		id.issuer, id.subject = tokenClaims(tokenFile)
	}
	return id
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// tokenClaims returns the iss and sub claims of the JWT in file, "" when
// the file cannot be read or is not a JWT.
func tokenClaims(file string) (issuer, subject string) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", ""
	}
	parts := strings.Split(strings.TrimSpace(string(raw)), ".")
	if len(parts) != 3 {
		return "", ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return "", ""
	}
	var claims struct {
		Issuer  string `json:"iss"`
		Subject string `json:"sub"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return "", ""
	}
	return bounded(claims.Issuer), bounded(claims.Subject)
}
