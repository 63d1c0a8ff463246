package awsiam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
	awsinfra "github.com/hcplink/hcplink/internal/infra/aws"
)

// DefaultOperatorUser is the management operator's IAM user.
const DefaultOperatorUser = "hcplink-management-operator"

// OperatorOutput is the management operator's identity.
type OperatorOutput struct {
	UserARN string `json:"userARN"`
	// CredentialsFile holds a new access key, when one was asked for.
	CredentialsFile string `json:"credentialsFile,omitempty"`
}

// CreateOperator makes the management operator's user in the management
// account with exactly the management operator's policy. With credsFile, a
// new access key is written there in the AWS shared-credentials format
// (the file `hcplink install --aws-private-creds` reads); an existing file
// is never overwritten, so re-running does not mint keys.
func CreateOperator(ctx context.Context, client *iam.Client, w io.Writer, user, credsFile string) (*OperatorOutput, error) {
	return ensureUser(ctx, client, w, user, awscloud.Policy(awscloud.ManagementOperator), credsFile, "--operator")
}

// ensureUser makes (or finds) a user holding exactly policy as its inline
// policy, and writes it an access key to credsFile unless that exists;
// destroyFlag is the destroy iam aws flag that removes it.
func ensureUser(ctx context.Context, client *iam.Client, w io.Writer, user, policy, credsFile, destroyFlag string) (*OperatorOutput, error) {
	out, err := client.CreateUser(ctx, &iam.CreateUserInput{UserName: &user})
	var exists *iamtypes.EntityAlreadyExistsException
	res := &OperatorOutput{}
	switch {
	case errors.As(err, &exists):
		got, err := client.GetUser(ctx, &iam.GetUserInput{UserName: &user})
		if err != nil {
			return nil, fmt.Errorf("reading user %s: %w", user, err)
		}
		res.UserARN = aws.ToString(got.User.Arn)
		say(w, "user %s found (%s)", user, res.UserARN)
	case err != nil:
		return nil, fmt.Errorf("creating user %s: %w", user, err)
	default:
		res.UserARN = aws.ToString(out.User.Arn)
		say(w, "user %s created (%s)", user, res.UserARN)
	}
	if _, err := client.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: &user, PolicyName: &user,
		PolicyDocument: aws.String(policy)}); err != nil {
		return nil, fmt.Errorf("writing the policy of user %s: %w", user, err)
	}
	if credsFile == "" {
		return res, nil
	}
	if _, err := os.Stat(credsFile); err == nil {
		say(w, "credentials file %s exists: no new access key", credsFile)
		res.CredentialsFile = credsFile
		return res, nil
	}
	key, err := client.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: &user})
	if err != nil {
		return nil, fmt.Errorf("creating an access key for user %s: %w", user, err)
	}
	body := fmt.Sprintf("[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n",
		aws.ToString(key.AccessKey.AccessKeyId), aws.ToString(key.AccessKey.SecretAccessKey))
	if err := os.WriteFile(credsFile, []byte(body), 0o600); err != nil {
		return nil, fmt.Errorf("writing %s (the new access key %s of user %s is unused: delete it or re-run destroy iam aws %s): %w",
			credsFile, aws.ToString(key.AccessKey.AccessKeyId), user, destroyFlag, err)
	}
	say(w, "access key %s written to %s", aws.ToString(key.AccessKey.AccessKeyId), credsFile)
	res.CredentialsFile = credsFile
	return res, nil
}

// DestroyOperator deletes the user with its keys and policies.
func DestroyOperator(ctx context.Context, client *iam.Client, w io.Writer, user string) error {
	keys, err := client.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: &user})
	if isNoSuchEntity(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("listing the access keys of user %s: %w", user, err)
	}
	for _, k := range keys.AccessKeyMetadata {
		if _, err := client.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: &user, AccessKeyId: k.AccessKeyId}); err != nil && !isNoSuchEntity(err) {
			return fmt.Errorf("deleting access key %s of user %s: %w", aws.ToString(k.AccessKeyId), user, err)
		}
	}
	policies, err := client.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: &user})
	if err != nil {
		return fmt.Errorf("listing the policies of user %s: %w", user, err)
	}
	for _, p := range policies.PolicyNames {
		if _, err := client.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: &user, PolicyName: aws.String(p)}); err != nil && !isNoSuchEntity(err) {
			return fmt.Errorf("deleting policy %s of user %s: %w", p, user, err)
		}
	}
	if _, err := client.DeleteUser(ctx, &iam.DeleteUserInput{UserName: &user}); err != nil && !isNoSuchEntity(err) {
		return fmt.Errorf("deleting user %s: %w", user, err)
	}
	say(w, "user %s deleted", user)
	return nil
}

// CLIPolicy is the policy of whoever runs `hcplink create/destroy infra
// aws`, rendered from the CLI's table of calls.
func CLIPolicy() string {
	return awscloud.PolicyOf(awscloud.StatementID("cli"), awsinfra.Actions(awsinfra.CreateInfra, awsinfra.DestroyInfra))
}
