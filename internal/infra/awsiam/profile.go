package awsiam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// ensureInstanceProfile creates the workers' instance profile holding role.
func ensureInstanceProfile(ctx context.Context, client *iam.Client, w io.Writer, name, role string, tags map[string]string) error {
	_, err := client.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: &name, Tags: iamTags(tags)})
	var exists *iamtypes.EntityAlreadyExistsException
	switch {
	case errors.As(err, &exists):
		say(w, "instance profile %s found", name)
	case err != nil:
		return fmt.Errorf("creating instance profile %s: %w", name, err)
	default:
		say(w, "instance profile %s created", name)
	}
	got, err := client.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: &name})
	if err != nil {
		return fmt.Errorf("reading instance profile %s: %w", name, err)
	}
	held := got.InstanceProfile.Roles
	if slices.ContainsFunc(held, func(r iamtypes.Role) bool { return aws.ToString(r.RoleName) == role }) {
		return nil
	}
	for _, r := range held { // a profile holds one role: replace a stranger
		if _, err := client.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: &name, RoleName: r.RoleName}); err != nil {
			return fmt.Errorf("removing role %s from instance profile %s: %w", aws.ToString(r.RoleName), name, err)
		}
	}
	if _, err := client.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: &name, RoleName: &role}); err != nil {
		return fmt.Errorf("adding role %s to instance profile %s: %w", role, name, err)
	}
	return nil
}

// deleteInstanceProfile empties and deletes the profile; gone is fine.
func deleteInstanceProfile(ctx context.Context, client *iam.Client, w io.Writer, name string) error {
	got, err := client.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: &name})
	if isNoSuchEntity(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading instance profile %s: %w", name, err)
	}
	for _, r := range got.InstanceProfile.Roles {
		if _, err := client.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: &name, RoleName: r.RoleName}); err != nil && !isNoSuchEntity(err) {
			return fmt.Errorf("removing role %s from instance profile %s: %w", aws.ToString(r.RoleName), name, err)
		}
	}
	if _, err := client.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: &name}); err != nil && !isNoSuchEntity(err) {
		return fmt.Errorf("deleting instance profile %s: %w", name, err)
	}
	say(w, "instance profile %s deleted", name)
	return nil
}
