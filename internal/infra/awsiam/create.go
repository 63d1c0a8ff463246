package awsiam

import (
	"context"
	"fmt"
	"io"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/service/iam"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// Create makes (or finds and brings up to date) the cluster's IAM: the
// issuer's OIDC provider, the control-plane operator's role, the workers'
// role and instance profile. Re-running it changes nothing that is right.
func Create(ctx context.Context, client *iam.Client, w io.Writer, o Options) (*Output, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	out := &Output{InfraID: o.InfraID, WorkerInstanceProfileName: workerProfile(o.InfraID)}
	var err error
	if out.OIDCProviderARN, err = ensureOIDCProvider(ctx, client, w, o); err != nil {
		return nil, err
	}
	if out.ControlPlaneOperatorRoleARN, err = EnsureControlPlaneOperatorRole(ctx, client, w, o, out.OIDCProviderARN); err != nil {
		return nil, err
	}
	out.WorkerRoleARN, err = ensureRole(ctx, client, w, workerRole(o.InfraID), awscloud.WorkerTrustPolicy(),
		awscloud.Policy(awscloud.Worker), o.tags())
	if err != nil {
		return nil, err
	}
	if err := ensureInstanceProfile(ctx, client, w, workerProfile(o.InfraID), workerRole(o.InfraID), o.tags()); err != nil {
		return nil, err
	}
	return out, nil
}

// EnsureControlPlaneOperatorRole makes the control-plane operator's role
// alone, trusting the given OIDC provider: Create uses it, and so does
// devenv, whose customer accounts already have their provider.
func EnsureControlPlaneOperatorRole(ctx context.Context, client *iam.Client, w io.Writer, o Options, providerARN string) (string, error) {
	if err := o.validate(); err != nil {
		return "", err
	}
	trust := awscloud.ControlPlaneOperatorTrustPolicy(providerARN, o.issuerHost(), o.Namespace, o.Name)
	return ensureRole(ctx, client, w, controlPlaneOperatorRole(o.InfraID), trust,
		awscloud.Policy(awscloud.ControlPlaneOperator), o.tags())
}

// Destroy deletes what Create made for the infra ID; the OIDC provider only
// when Create made it for this infra ID and no other role trusts it.
// Re-running it is safe.
func Destroy(ctx context.Context, client *iam.Client, w io.Writer, o Options) error {
	if o.InfraID == "" {
		return fmt.Errorf("--infra-id is required")
	}
	if err := deleteInstanceProfile(ctx, client, w, workerProfile(o.InfraID)); err != nil {
		return err
	}
	for _, role := range []string{workerRole(o.InfraID), controlPlaneOperatorRole(o.InfraID)} {
		if err := deleteRole(ctx, client, w, role); err != nil {
			return err
		}
	}
	if o.IssuerURL == "" {
		return nil
	}
	return deleteOIDCProviderIfUnused(ctx, client, w, o)
}

// decodedTrust undoes the URL encoding IAM gives policy documents.
func decodedTrust(doc string) string {
	if d, err := url.QueryUnescape(doc); err == nil {
		return d
	}
	return doc
}
