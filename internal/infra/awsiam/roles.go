package awsiam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

func iamTags(tags map[string]string) []iamtypes.Tag {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]iamtypes.Tag, 0, len(keys))
	for _, k := range keys {
		out = append(out, iamtypes.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	return out
}

// ensureRole creates the role or brings an existing one's trust policy up
// to date, then writes its one inline policy (named as the role).
func ensureRole(ctx context.Context, client *iam.Client, w io.Writer, name, trust, policy string, tags map[string]string) (string, error) {
	out, err := client.CreateRole(ctx, &iam.CreateRoleInput{RoleName: &name, AssumeRolePolicyDocument: &trust, Tags: iamTags(tags)})
	var arn string
	var exists *iamtypes.EntityAlreadyExistsException
	switch {
	case errors.As(err, &exists):
		got, err := client.GetRole(ctx, &iam.GetRoleInput{RoleName: &name})
		if err != nil {
			return "", fmt.Errorf("reading role %s: %w", name, err)
		}
		if _, err := client.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: &name, PolicyDocument: &trust}); err != nil {
			return "", fmt.Errorf("updating the trust policy of role %s: %w", name, err)
		}
		arn = aws.ToString(got.Role.Arn)
		say(w, "role %s found (%s)", name, arn)
	case err != nil:
		return "", fmt.Errorf("creating role %s: %w", name, err)
	default:
		arn = aws.ToString(out.Role.Arn)
		say(w, "role %s created (%s)", name, arn)
	}
	if _, err := client.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: &name, PolicyName: &name, PolicyDocument: &policy}); err != nil {
		return "", fmt.Errorf("writing the policy of role %s: %w", name, err)
	}
	return arn, nil
}

// deleteRole removes the role's inline policies, its instance profiles'
// hold on it and the role; a role already gone is fine.
func deleteRole(ctx context.Context, client *iam.Client, w io.Writer, name string) error {
	policies, err := client.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: &name})
	if isNoSuchEntity(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("listing the policies of role %s: %w", name, err)
	}
	for _, p := range policies.PolicyNames {
		if _, err := client.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: &name, PolicyName: aws.String(p)}); err != nil && !isNoSuchEntity(err) {
			return fmt.Errorf("deleting policy %s of role %s: %w", p, name, err)
		}
	}
	if _, err := client.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: &name}); err != nil && !isNoSuchEntity(err) {
		return fmt.Errorf("deleting role %s: %w", name, err)
	}
	say(w, "role %s deleted", name)
	return nil
}

func isNoSuchEntity(err error) bool {
	var nse *iamtypes.NoSuchEntityException
	return errors.As(err, &nse)
}
