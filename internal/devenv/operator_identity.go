package devenv

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	"github.com/hcplink/hcplink/internal/infra/awsiam"
)

// ManagementOperatorUserARN is the management operator's IAM user in the
// management account, as `hcplink create iam aws --operator` makes it.
var ManagementOperatorUserARN = "arn:aws:iam::" + ManagementAccount + ":user/" + awsiam.DefaultOperatorUser

// managementOperatorCredentials makes the management operator's user with
// exactly its policy (internal/infra/awsiam, as the CLI does) and returns
// the path of a shared-credentials file holding its key, for the operator
// process's AWS_SHARED_CREDENTIALS_FILE. A restart reuses the file.
func (e *Env) managementOperatorCredentials(ctx context.Context) (string, error) {
	path := filepath.Join(e.workDir, "management-operator.credentials")
	if _, err := awsiam.CreateOperator(ctx, iam.NewFromConfig(e.ManagementAWS), nil, awsiam.DefaultOperatorUser, path); err != nil {
		return "", fmt.Errorf("making the management operator's IAM user: %w", err)
	}
	return path, nil
}

// loadOperatorIdentity makes the management operator's user and an SDK
// configuration that signs as it, read from the credentials file the way an
// installed operator reads its mounted secret.
func (e *Env) loadOperatorIdentity(ctx context.Context) error {
	path, err := e.managementOperatorCredentials(ctx)
	if err != nil {
		return err
	}
	e.operatorAWS, err = awscloud.LoadConfig(ctx,
		config.WithRegion(Region),
		config.WithBaseEndpoint(e.CloudURL),
		config.WithSharedConfigFiles([]string{}),
		config.WithSharedCredentialsFiles([]string{path}),
		config.WithSharedConfigProfile("default"),
	)
	if err != nil {
		return fmt.Errorf("loading the management operator's credentials from %s: %w", path, err)
	}
	return nil
}

// operatorKeyEnv is the management operator's access key as the AWS_*
// variables a Deployment would set from its secret; variables win over any
// file the parent's environment names.
func (e *Env) operatorKeyEnv(ctx context.Context) ([]string, error) {
	creds, err := e.operatorAWS.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the management operator's access key: %w", err)
	}
	return []string{"AWS_ACCESS_KEY_ID=" + creds.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + creds.SecretAccessKey}, nil
}
