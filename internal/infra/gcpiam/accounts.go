package gcpiam

import (
	"context"
	"fmt"
	"io"

	iam "google.golang.org/api/iam/v1"

	gcpcloud "github.com/hcplink/hcplink/internal/cloud/gcp"
)

// ensureAccount makes the service account, or finds it when owned says its
// description is hcplink's for this purpose; any other of that ID is
// refused, never adopted.
func ensureAccount(ctx context.Context, c Clients, log io.Writer, project, accountID, displayName, description string, owned func(string) bool) (*iam.ServiceAccount, error) {
	mail := email(accountID, project)
	got, err := c.IAM.Projects.ServiceAccounts.Get("projects/" + project + "/serviceAccounts/" + mail).Context(ctx).Do()
	switch {
	case err == nil && owned(got.Description):
		logf(log, "service account %s: exists", mail)
		return got, nil
	case err == nil:
		return nil, fmt.Errorf("the service account %s exists and hcplink did not make it for this (its description is %q): choose another name or delete it", mail, got.Description)
	case !gcpcloud.IsNotFound(err):
		return nil, gcpcloud.Wrap("reading the service account "+mail, err)
	}
	sa, err := c.IAM.Projects.ServiceAccounts.Create("projects/"+project, &iam.CreateServiceAccountRequest{AccountId: accountID,
		ServiceAccount: &iam.ServiceAccount{DisplayName: displayName, Description: description}}).Context(ctx).Do()
	if err != nil {
		return nil, gcpcloud.Wrap("creating the service account "+mail, err)
	}
	logf(log, "service account %s: created", mail)
	return sa, nil
}

// ownedAccount reads the service account when hcplink made it (owned);
// nil when it is absent or not hcplink's (said on log).
func ownedAccount(ctx context.Context, c Clients, log io.Writer, project, accountID string, owned func(string) bool) (*iam.ServiceAccount, error) {
	mail := email(accountID, project)
	got, err := c.IAM.Projects.ServiceAccounts.Get("projects/" + project + "/serviceAccounts/" + mail).Context(ctx).Do()
	switch {
	case gcpcloud.IsNotFound(err):
		logf(log, "service account %s: absent", mail)
		return nil, nil
	case err != nil:
		return nil, gcpcloud.Wrap("reading the service account "+mail, err)
	case !owned(got.Description):
		logf(log, "service account %s: left, hcplink did not make it for this", mail)
		return nil, nil
	}
	return got, nil
}

func deleteAccount(ctx context.Context, c Clients, log io.Writer, sa *iam.ServiceAccount) error {
	_, err := c.IAM.Projects.ServiceAccounts.Delete("projects/" + sa.ProjectId + "/serviceAccounts/" + sa.Email).Context(ctx).Do()
	if err != nil && !gcpcloud.IsNotFound(err) {
		return gcpcloud.Wrap("deleting the service account "+sa.Email, err)
	}
	logf(log, "service account %s: deleted", sa.Email)
	return nil
}
