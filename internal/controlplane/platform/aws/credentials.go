package aws

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	hcplinkv1beta1 "github.com/hcplink/hcplink/api/v1beta1"
	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/controlplane/credentials"
)

// CredentialsChecker checks AWS credentials with STS GetCallerIdentity.
type CredentialsChecker struct {
	// AWS is the operator's AWS configuration (its credentials). When its
	// region is empty the cluster's region is used.
	AWS aws.Config
	// Proof records the control-plane operator's successful AWS calls; nil
	// checks with STS every time. While calls keep succeeding the
	// credentials are known good and no STS call is needed.
	Proof *awscloud.LastSuccess
}

// Name names the AWS check's controller.
func (c *CredentialsChecker) Name() string { return "credentials" }

// Serves: AWS clusters whose control plane is private.
func (c *CredentialsChecker) Serves(hcp *hcplinkv1beta1.HostedControlPlane) bool {
	return IsPrivate(hcp)
}

// Proven reports whether an AWS call succeeded within credentials.ProofWindow.
func (c *CredentialsChecker) Proven() bool {
	return c.Proof != nil && c.Proof.Within(credentials.ProofWindow)
}

// Check asks STS who the credentials are.
func (c *CredentialsChecker) Check(ctx context.Context, hcp *hcplinkv1beta1.HostedControlPlane) (metav1.Condition, error) {
	cfg := c.AWS.Copy()
	if cfg.Region == "" {
		cfg.Region = hcp.Spec.Platform.AWS.Region
	}
	out, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	role := ""
	if rr := hcp.Spec.Platform.AWS.RolesRef; rr != nil {
		role = rr.ControlPlaneOperatorARN
	}
	return credentialsCondition(out, err, identityOf(c.AWS, role)), err
}

// callerText names the principal behind the credentials in messages.
func callerText(out *sts.GetCallerIdentityOutput) string {
	if out == nil {
		return "an unknown principal"
	}
	return fmt.Sprintf("%s in account %s", aws.ToString(out.Arn), aws.ToString(out.Account))
}
