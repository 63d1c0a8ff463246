package awsiam

import (
	"context"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/iam"

	awscloud "github.com/hcplink/hcplink/internal/cloud/aws"
)

// DefaultDiagnoseUser is the read-only user `hcplink diagnose` runs as.
const DefaultDiagnoseUser = "hcplink-diagnose"

// CreateDiagnoseUser makes the user diagnose runs as, in the account of the
// client (the management or the customer's: diagnose reads both), holding
// exactly diagnose's read-only policy (internal/diagnose permissions.go).
// With credsFile, a new access key is written there unless the file exists.
func CreateDiagnoseUser(ctx context.Context, client *iam.Client, w io.Writer, user, credsFile string) (*OperatorOutput, error) {
	return ensureUser(ctx, client, w, user, awscloud.Policy(awscloud.Diagnose), credsFile, "--diagnose")
}

// DestroyDiagnoseUser deletes the user with its keys and policy.
func DestroyDiagnoseUser(ctx context.Context, client *iam.Client, w io.Writer, user string) error {
	return DestroyOperator(ctx, client, w, user) // deleting a user is the same for any user
}
